package analysis_test

import (
	"math/rand/v2"
	"regexp"
	"runtime"
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/internal/bigprof"
	"github.com/pprof-tui/pprof-tui/internal/cputime"
	"github.com/pprof-tui/pprof-tui/internal/synth"
)

func engine1M(b *testing.B, shape synth.Shape) *analysis.Engine {
	b.Helper()
	e, err := bigprof.Engine(shape)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := e.Top(analysis.DefaultOptions()); err != nil { // warm the node table
		b.Fatal(err)
	}
	return e
}

// shapes runs f as a sub-benchmark per shape (synth.BenchShapes:
// PPROF_TUI_SHAPES=zipf,distinct limits them).
func shapes(b *testing.B, f func(b *testing.B, e *analysis.Engine, s synth.Shape)) {
	for _, s := range synth.BenchShapes() {
		b.Run(string(s), func(b *testing.B) { f(b, engine1M(b, s), s) })
	}
}

// tagFocus is a tagfocus that keeps part of a shape's samples.
func tagFocus(s synth.Shape) string {
	if s == synth.Zipf {
		return "service=checkout"
	}
	return "worker=w1"
}

// explorer is the options the explorer opens with: every node
// (nodefraction=0), so every row's inline marker is computed.
func explorer() analysis.Options {
	opt := analysis.DefaultOptions()
	opt.NodeFraction = 0
	return opt
}

// BenchmarkReaggregate1M is what a change of sample type or filter costs
// on a 1M-sample profile of each shape (target: at most 150 ms). "default"
// is Engine.Top with pprof's default options; the others ask as the
// explorer's Top view does: every node (nodefraction=0), the inline
// markers of a screen's rows first (Engine.TopFirst; the rest are filled
// in when the explorer is idle):
//
//	go test ./analysis -run XXX -bench 1M -benchtime 10x
func BenchmarkReaggregate1M(b *testing.B) {
	shapes(b, func(b *testing.B, e *analysis.Engine, s synth.Shape) {
		for _, c := range []struct {
			name string
			set  map[string]string
		}{
			{"default", nil},
			{"explorer", map[string]string{"nodefraction": "0"}},
			{"sample_index", map[string]string{"sample_index": "samples", "nodefraction": "0"}},
			{"focus", map[string]string{"focus": "Handle|json", "nodefraction": "0"}},
			{"hide", map[string]string{"hide": "runtime|json", "nodefraction": "0"}},
			{"tagfocus", map[string]string{"tagfocus": tagFocus(s), "nodefraction": "0"}},
			{"lines", map[string]string{"granularity": "lines", "nodefraction": "0"}},
		} {
			b.Run(c.name, func(b *testing.B) {
				opt := analysis.DefaultOptions()
				for k, v := range c.set {
					if err := opt.Set(k, v); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := e.Top(opt); err != nil { // node table for the granularity
					b.Fatal(err)
				}
				top := e.Top
				if c.set != nil {
					top = func(opt analysis.Options) (*analysis.Top, error) { return e.TopFirst(opt, screenRows) }
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					analysis.ForgetTops(e)
					b.StartTimer()
					if _, err := top(opt); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}

// screenRows is how many rows the Top view shows in a 120×35 terminal.
const screenRows = 33

// BenchmarkNewFilter1M is a filter the engine has not seen, typed over
// the unfiltered table: its location view (which lines and locations the
// filter keeps or hides; focus and ignore take the unfiltered view's
// lines) is built, then the table, as the explorer asks for it:
//
//	go test ./analysis -run XXX -bench NewFilter1M -benchtime 10x
func BenchmarkNewFilter1M(b *testing.B) {
	shapes(b, func(b *testing.B, e *analysis.Engine, _ synth.Shape) {
		for _, f := range []struct{ name, value string }{{"focus", "json"}, {"ignore", "json"}, {"hide", "runtime|json"}} {
			b.Run(f.name, func(b *testing.B) {
				opt := explorer()
				if err := opt.Set(f.name, f.value); err != nil {
					b.Fatal(err)
				}
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					// The explorer has the unfiltered table's view.
					analysis.ForgetLocationViews(e)
					if _, err := e.TopFirst(explorer(), screenRows); err != nil {
						b.Fatal(err)
					}
					analysis.ForgetTops(e)
					b.StartTimer()
					if _, err := e.TopFirst(opt, screenRows); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}

// BenchmarkPlainStacks1M is the explorer's complete table (every node,
// every inline marker) once the engine knows which stacks have no node
// twice ("per-location": those are summed location by location), and
// before ("node-walk": every stack walked frame by frame, as for the
// first table at a granularity):
//
//	go test ./analysis -run XXX -bench PlainStacks1M -benchtime 10x
func BenchmarkPlainStacks1M(b *testing.B) {
	shapes(b, func(b *testing.B, e *analysis.Engine, _ synth.Shape) {
		for _, c := range []struct {
			name  string
			known bool
		}{{"per-location", true}, {"node-walk", false}} {
			b.Run(c.name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					analysis.ForgetTops(e)
					if !c.known {
						analysis.ForgetPlainStacks(e)
					}
					b.StartTimer()
					if _, err := e.Top(explorer()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}

// BenchmarkTreeFirstScreen1M builds the call tree, and the inverted one,
// and expands what a first screen shows: the roots and the heaviest path
// (target: <= 100 ms).
func BenchmarkTreeFirstScreen1M(b *testing.B) {
	shapes(b, func(b *testing.B, e *analysis.Engine, _ synth.Shape) {
		opt := explorer()
		for _, inverted := range []bool{false, true} {
			name := "tree"
			if inverted {
				name = "inverted"
			}
			b.Run(name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					t, err := e.Tree(opt, analysis.TreeOptions{Inverted: inverted})
					if err != nil {
						b.Fatal(err)
					}
					if roots := t.Roots(); len(roots) > 0 {
						t.HeaviestPath(roots[0])
					}
				}
			})
		}
	})
}

// BenchmarkFold1M is the call tree with recursion folded (its roots
// grouped), against none. "all-cold" reads every frame of every stack
// for a function met twice, and writes the folded paths of those that
// have one; "all" reads the folded paths the engine keeps from the
// first (as after the explorer's FoldBackground); "direct" folds while
// the paths are read:
//
//	go test ./analysis -run XXX -bench Fold1M -benchtime 10x
func BenchmarkFold1M(b *testing.B) {
	shapes(b, func(b *testing.B, e *analysis.Engine, _ synth.Shape) {
		for _, rec := range []string{"none", analysis.RecursionDirect, analysis.RecursionAll, "all-cold"} {
			opt := explorer()
			switch rec {
			case "none":
			case "all-cold":
				opt.Recursion = analysis.RecursionAll
			default:
				opt.Recursion = rec
			}
			b.Run(rec, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if rec == "all-cold" {
						b.StopTimer()
						analysis.ForgetLocationViews(e)
						if _, err := e.Tree(explorer(), analysis.TreeOptions{}); err != nil {
							b.Fatal(err) // the location view, as the flame graph had it
						}
						b.StartTimer()
					}
					if _, err := e.Tree(opt, analysis.TreeOptions{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}

// BenchmarkFirstTable1M is the explorer's first table on a fresh engine
// (node table, location view and walk of every stack included), per
// shape: "top" with every inline marker, "topfirst" with those of a
// screen's rows (Engine.TopFirst; the rest wait for idle time), "lines",
// the first table at the lines granularity, and "linesfirst", the lines
// table's first screen once the functions table is complete, as after
// :granularity=lines in the explorer:
//
//	go test ./analysis -run XXX -bench FirstTable1M -benchtime 5x
func BenchmarkFirstTable1M(b *testing.B) {
	shapes(b, func(b *testing.B, e *analysis.Engine, _ synth.Shape) {
		p := e.Profile()
		lines := explorer()
		lines.Granularity = "lines"
		for _, c := range []struct {
			name string
			top  func(e *analysis.Engine) (*analysis.Top, error)
		}{
			{"top", func(e *analysis.Engine) (*analysis.Top, error) { return e.Top(explorer()) }},
			{"topfirst", func(e *analysis.Engine) (*analysis.Top, error) { return e.TopFirst(explorer(), screenRows) }},
			{"lines", func(e *analysis.Engine) (*analysis.Top, error) { return e.Top(lines) }},
			{"linesfirst", func(e *analysis.Engine) (*analysis.Top, error) { return e.TopFirst(lines, screenRows) }},
		} {
			b.Run(c.name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					fresh := analysis.NewEngine(p)
					if c.name == "linesfirst" {
						if _, err := fresh.Top(explorer()); err != nil {
							b.Fatal(err)
						}
					}
					runtime.GC()
					b.StartTimer()
					if _, err := c.top(fresh); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}

// BenchmarkList1M is the Source view's listing of the heaviest function
// (-list), with the functions table kept as the Top view keeps it:
// "summed" with no lines table kept, "kept" right after the Top view
// showed the lines granularity (on wide a lines table is too large to
// keep, so both sum). No source file is found; the lines' values are
// what is timed.
//
//	go test ./analysis -run XXX -bench List1M -benchtime 5x
func BenchmarkList1M(b *testing.B) {
	shapes(b, func(b *testing.B, e *analysis.Engine, _ synth.Shape) {
		opt := explorer()
		top, err := e.Top(opt)
		if err != nil {
			b.Fatal(err)
		}
		re := regexp.MustCompile("^" + regexp.QuoteMeta(top.Nodes.Name(top.Rows[0].Node)) + "$")
		lines := opt
		lines.Granularity = "lines"
		files := analysis.NewSourceFiles()
		for _, kept := range []bool{false, true} {
			name := "summed"
			if kept {
				name = "kept"
			}
			b.Run(name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					analysis.ForgetTops(e)
					if _, err := e.Top(opt); err != nil {
						b.Fatal(err)
					}
					if kept {
						if _, err := e.Top(lines); err != nil {
							b.Fatal(err)
						}
					}
					b.StartTimer()
					if _, err := e.List(opt, re, files); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}

// BenchmarkLocationView1M is the location view a new name filter builds
// (which lines of each location it keeps), on one goroutine and on two:
//
//	PPROF_TUI_SHAPES=wide go test ./analysis -run XXX -bench LocationView1M -benchtime 10x
func BenchmarkLocationView1M(b *testing.B) {
	shapes(b, func(b *testing.B, e *analysis.Engine, _ synth.Shape) {
		for _, c := range []struct {
			name, hide string
			two        bool
		}{
			{"none/one", "", false}, {"none/two", "", true},
			{"hide/one", "runtime|json", false}, {"hide/two", "runtime|json", true},
		} {
			b.Run(c.name, func(b *testing.B) {
				opt := explorer()
				opt.Hide = c.hide
				for i := 0; i < b.N; i++ {
					if err := analysis.BuildLocationView(e, opt, c.two); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}

// BenchmarkNodeTable1M is a node table and its names' ranks on a fresh
// engine: "functions", and "lines" once the functions table is made (as
// after :granularity=lines, when the profile's function names are
// already ranked):
//
//	PPROF_TUI_SHAPES=wide go test ./analysis -run XXX -bench NodeTable1M -benchtime 5x
func BenchmarkNodeTable1M(b *testing.B) {
	shapes(b, func(b *testing.B, e *analysis.Engine, _ synth.Shape) {
		for _, granularity := range []string{"functions", "lines"} {
			b.Run(granularity, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					fresh := analysis.NewEngine(e.Profile())
					if granularity != "functions" {
						analysis.NodeTableWithRanks(fresh, "functions")
					}
					runtime.GC()
					b.StartTimer()
					analysis.NodeTableWithRanks(fresh, granularity)
				}
			})
		}
	})
}

// BenchmarkRows1M makes a summed table's rows: sorting them, their
// inline markers and values, at the functions and lines granularities
// (wide's lines table has 1.1M rows):
//
//	PPROF_TUI_SHAPES=wide go test ./analysis -run XXX -bench Rows1M -benchtime 10x
func BenchmarkRows1M(b *testing.B) {
	shapes(b, func(b *testing.B, e *analysis.Engine, _ synth.Shape) {
		for _, granularity := range []string{"functions", "lines"} {
			b.Run(granularity, func(b *testing.B) {
				opt := explorer()
				opt.Granularity = granularity
				rows, err := analysis.RowsOf(e, opt)
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					rows()
				}
			})
		}
	})
}

// BenchmarkKeptHeap1M is the live heap once a fresh engine has made the
// tables of walk.sh's steps (two sample types, focus, ignore, hide,
// tagfocus, lines, the tree and the inverted tree), with them kept as
// the explorer keeps them: "tables-MB" is the heap they add, "live-MB"
// the whole live heap (the profile included). Only exported calls, so
// that it runs on earlier builds too:
//
//	PPROF_TUI_SHAPES=wide go test ./analysis -run XXX -bench KeptHeap1M -benchtime 1x
func BenchmarkKeptHeap1M(b *testing.B) {
	shapes(b, func(b *testing.B, e *analysis.Engine, shape synth.Shape) {
		tag := "worker=w1"
		if shape == synth.Zipf {
			tag = "service=checkout"
		}
		for i := 0; i < b.N; i++ {
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			fresh := analysis.NewEngine(e.Profile())
			var kept []any
			for _, set := range []map[string]string{
				nil, {"sample_index": "0"}, {"focus": "json"}, {"ignore": "json"},
				{"hide": "runtime|json"}, {"tagfocus": tag}, {"granularity": "lines"},
			} {
				opt := explorer()
				for k, v := range set {
					if err := opt.Set(k, v); err != nil {
						b.Fatal(err)
					}
				}
				t, err := fresh.Top(opt)
				if err != nil {
					b.Fatal(err)
				}
				kept = append(kept, t)
			}
			for _, inverted := range []bool{false, true} {
				t, err := fresh.Tree(explorer(), analysis.TreeOptions{Inverted: inverted})
				if err != nil {
					b.Fatal(err)
				}
				kept = append(kept, t)
			}
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc-before.HeapAlloc)/(1<<20), "tables-MB")
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-MB")
			runtime.KeepAlive(kept)
			runtime.KeepAlive(fresh)
		}
	})
}

// BenchmarkTags1M is the Labels view's report (pprof's -tags) over all
// samples: on zipf a numeric span_id label has a value per sample.
//
//	go test ./analysis -run XXX -bench Tags1M -benchtime 10x
func BenchmarkTags1M(b *testing.B) {
	shapes(b, func(b *testing.B, e *analysis.Engine, _ synth.Shape) {
		opt := explorer()
		for i := 0; i < b.N; i++ {
			if _, err := e.Tags(opt); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkTagsShuffled1M is BenchmarkTags1M with the samples in a
// random order: a Go profile does not keep a request's samples together,
// so zipf's span ids come one sample at a time, not in runs:
//
//	PPROF_TUI_SHAPES=zipf go test ./analysis -run XXX -bench TagsShuffled1M -benchtime 10x
func BenchmarkTagsShuffled1M(b *testing.B) {
	shapes(b, func(b *testing.B, e *analysis.Engine, _ synth.Shape) {
		shuffled := *e.Profile()
		shuffled.Samples = shuffleSamples(&e.Profile().Samples)
		e = analysis.NewEngine(&shuffled)
		opt := explorer()
		for b.Loop() {
			if _, err := e.Tags(opt); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// shuffleSamples returns s's samples in a random order (always the same
// one).
func shuffleSamples(s *format.Samples) format.Samples {
	out := format.Samples{Values: make([][]int64, len(s.Values)), NumKinds: s.NumKinds}
	if s.NumOff != nil {
		out.NumOff = []uint32{0}
	}
	for _, i := range rand.New(rand.NewPCG(1, 2)).Perm(s.Len()) {
		out.Stack = append(out.Stack, s.Stack[i])
		out.Labels = append(out.Labels, s.Labels[i])
		for t := range s.Values {
			out.Values[t] = append(out.Values[t], s.Values[t][i])
		}
		if s.NumOff != nil {
			out.NumKind = append(out.NumKind, s.NumKind[s.NumOff[i]:s.NumOff[i+1]]...)
			out.NumValue = append(out.NumValue, s.NumValue[s.NumOff[i]:s.NumOff[i+1]]...)
			out.NumOff = append(out.NumOff, uint32(len(out.NumValue)))
		}
	}
	return out
}

// BenchmarkGraph1M is the call graph of -dot and of -tree on a
// 1M-sample profile of each shape, with pprof's defaults and 80 nodes,
// and the Graph view's (-dot's with the explorer's every node,
// nodefraction=0; target: at most 100 ms), with the CPU time of every
// thread (cpu-ms/op), which varies less than the wall time on a shared
// machine:
//
//	go test ./analysis -run XXX -bench Graph1M -benchtime 2x -benchmem
func BenchmarkGraph1M(b *testing.B) {
	shapes(b, func(b *testing.B, e *analysis.Engine, s synth.Shape) {
		opt := analysis.DefaultOptions()
		opt.NodeCount = 80
		view := explorer()
		view.NodeCount = 80
		for _, c := range []struct {
			name string
			kind analysis.GraphKind
			opt  analysis.Options
		}{{"dot", analysis.GraphVisual, opt}, {"tree", analysis.GraphText, opt}, {"view", analysis.GraphNodes, view}} {
			b.Run(c.name, func(b *testing.B) {
				opt := c.opt
				cpu, _ := cputime.Now()
				for b.Loop() {
					if _, err := e.Graph(opt, c.kind); err != nil {
						b.Fatal(err)
					}
				}
				end, _ := cputime.Now()
				b.ReportMetric(float64(end-cpu)/1e6/float64(b.N), "cpu-ms/op")
			})
		}
	})
}

// BenchmarkKept1M is the explorer's tallies (Engine.Kept) on a 1M-sample
// profile of each shape: what a filter keeps, for the status bar's "X of
// T total" (focus, hide, tagfocus), and what a search would keep as a
// focus (its share, in Top and the flame graph), alone and under a
// focus. The options' location view is made before the timing, as the
// view that shows them has made it; a search's focus flags the locations
// on every call:
//
//	go test ./analysis -run XXX -bench Kept1M -benchtime 10x
func BenchmarkKept1M(b *testing.B) {
	shapes(b, func(b *testing.B, e *analysis.Engine, s synth.Shape) {
		for _, c := range []struct {
			name   string
			set    map[string]string
			search string
		}{
			{"focus", map[string]string{"focus": "Handle|json"}, ""},
			{"hide", map[string]string{"hide": "runtime|json"}, ""},
			{"tagfocus", map[string]string{"tagfocus": tagFocus(s)}, ""},
			{"search", nil, "json"},
			{"search+focus", map[string]string{"focus": "Handle|json"}, "Marshal"},
		} {
			b.Run(c.name, func(b *testing.B) {
				opt := explorer()
				for k, v := range c.set {
					if err := opt.Set(k, v); err != nil {
						b.Fatal(err)
					}
				}
				var search *regexp.Regexp
				if c.search != "" {
					search = regexp.MustCompile(c.search)
				}
				if _, err := e.Kept(opt, nil); err != nil { // the options' location view
					b.Fatal(err)
				}
				for b.Loop() {
					if _, err := e.Kept(opt, search); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}
