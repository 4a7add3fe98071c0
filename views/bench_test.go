package views

import (
	"os"
	"regexp"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/internal/bigprof"
	"github.com/pprof-tui/pprof-tui/internal/synth"
)

func engine1M(b *testing.B, shape synth.Shape) *analysis.Engine {
	b.Helper()
	e, err := bigprof.Engine(shape)
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// shapes runs f as a sub-benchmark per shape (synth.BenchShapes:
// PPROF_TUI_SHAPES=zipf,distinct limits them).
func shapes(b *testing.B, f func(b *testing.B, e *analysis.Engine)) {
	for _, s := range synth.BenchShapes() {
		b.Run(string(s), func(b *testing.B) { f(b, engine1M(b, s)) })
	}
}

func benchCommon() *Common {
	r := lipgloss.NewRenderer(os.Stdout)
	r.SetColorProfile(termenv.ANSI256)
	r.SetHasDarkBackground(true)
	return &Common{Styles: NewStyles(r), Keys: DefaultKeyMap()}
}

// BenchmarkFrame1M is what one navigation key costs on a 1M-sample
// profile: the key (cursor down) and the redraw of the whole view at
// 160×45, in colour (issue target: one frame, 16 ms):
//
//	go test ./views -run XXX -bench Frame1M
func BenchmarkFrame1M(b *testing.B) { shapes(b, benchFrame1M) }

func benchFrame1M(b *testing.B, e *analysis.Engine) {
	opt := analysis.DefaultOptions()
	opt.NodeFraction = 0
	c := benchCommon()
	for _, tc := range []struct {
		name string
		v    View
	}{
		{"top", NewTop(c)},
		{"tree", NewTree(c)},
		{"labels", NewLabels(c)},
		{"flame", NewFlame(c)},
		{"traces", NewTraces(c)},
	} {
		showQuery(b, tc.v, e, opt)
		tc.v.SetSize(160, 42)
		down := tea.KeyMsg{Type: tea.KeyDown}
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				tc.v.Update(down)
				_ = tc.v.View()
			}
		})
	}
}

// BenchmarkTopOpen1M is the UI goroutine's share of showing a new Top
// table: taking the result (on the wide shape, 100,000 rows at the
// functions granularity, 1.1M at lines) and drawing it, in a new view
// and, for "switch", in one that showed the functions table, as after
// :granularity=lines (the selection is looked for among the new rows).
func BenchmarkTopOpen1M(b *testing.B) { shapes(b, benchTopOpen1M) }

func benchTopOpen1M(b *testing.B, e *analysis.Engine) {
	opt := analysis.DefaultOptions()
	opt.NodeFraction = 0
	tops := map[string]*analysis.Top{}
	for _, granularity := range []string{"functions", "lines"} {
		opt.Granularity = granularity
		top, err := e.TopFirst(opt, 40)
		if err != nil {
			b.Fatal(err)
		}
		tops[granularity] = top
	}
	c := benchCommon()
	for _, tc := range []struct{ name, from, to string }{
		{"functions", "", "functions"},
		{"lines", "", "lines"},
		{"switch", "functions", "lines"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				v := NewTop(c)
				v.SetSize(160, 42)
				if tc.from != "" {
					opt.Granularity = tc.from
					v.setResult(topData{top: tops[tc.from]}, opt)
					_ = v.View()
				}
				opt.Granularity = tc.to
				b.StartTimer()
				v.setResult(topData{top: tops[tc.to]}, opt)
				_ = v.View()
			}
		})
	}
}

// BenchmarkTreeOpen1M is the UI goroutine's share of showing a new tree:
// taking the result (whose heaviest path the background already grouped)
// and drawing it.
func BenchmarkTreeOpen1M(b *testing.B) { shapes(b, benchTreeOpen1M) }

func benchTreeOpen1M(b *testing.B, e *analysis.Engine) {
	opt := analysis.DefaultOptions()
	opt.NodeFraction = 0
	c := benchCommon()
	for _, inverted := range []bool{false, true} {
		name := "tree"
		if inverted {
			name = "inverted" // 100,000 roots on the wide shape
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				t := NewTree(c)
				t.inverted = inverted
				run, _ := t.Query(e, opt, "")
				show, err := run()
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				show() // opens the heaviest path
				t.SetSize(160, 42)
				_ = t.View()
			}
		})
	}
}

// BenchmarkFlame1M is the flame graph on a 1M-sample profile at 160×45
// in colour. "layout" is the background work of a new result: the tree
// and the frames down to one cell. "key" is a navigation key (the next
// frame on the row, the heaviest child, the parent, in turn) and the
// redraw, on the UI goroutine. "zoom" is zooming into the heaviest frame
// two rows below the root, the costliest zoom of this profile, on a new
// tree each time (so its nodes are grouped then): ns/op is the layout made
// off the UI goroutine, ui-ns/op taking it and redrawing.
//
//	go test ./views -run XXX -bench Flame1M -benchmem
func BenchmarkFlame1M(b *testing.B) { shapes(b, benchFlame1M) }

func benchFlame1M(b *testing.B, e *analysis.Engine) {
	opt := analysis.DefaultOptions()
	opt.NodeFraction = 0
	c := benchCommon()
	newFlame := func() *Flame {
		f := NewFlame(c)
		f.SetSize(160, 42)
		showQuery(b, f, e, opt)
		return f
	}
	b.Run("layout", func(b *testing.B) {
		f := NewFlame(c)
		f.SetSize(160, 42)
		for i := 0; i < b.N; i++ {
			stop := cpuTime(b)
			run, _ := f.Query(e, opt, "")
			if _, err := run(); err != nil {
				b.Fatal(err)
			}
			stop()
		}
	})
	b.Run("key", func(b *testing.B) {
		f := newFlame()
		keys := []tea.KeyMsg{{Type: tea.KeyRight}, {Type: tea.KeyDown}, {Type: tea.KeyUp}}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			f.Update(keys[i%len(keys)])
			_ = f.View()
		}
	})
	// What b, S and R cost from the key to the drawn graph: the new
	// result (its trees, its first layout), shown and drawn; the graphs
	// the view keeps are dropped first, so that each is computed (the
	// engine keeps the stacks folded under recursion=all from the first
	// iteration on, as after the explorer's background fold). On a
	// shared machine the CPU time (cpu-ns/op, all threads) varies less
	// than the wall time.
	redraw := func(b *testing.B, f *Flame, opt analysis.Options) {
		f.recent = nil
		defer cpuTime(b)()
		showQuery(b, f, e, opt)
		_ = f.View()
	}
	b.Run("invert", func(b *testing.B) {
		f := newFlame()
		for i := 0; i < b.N; i++ {
			f.inverted = !f.inverted
			redraw(b, f, opt)
		}
	})
	b.Run("pivot", func(b *testing.B) {
		f := newFlame()
		// The heaviest leaf function, then its heaviest caller, in turn.
		end := tea.KeyMsg{Type: tea.KeyEnd}
		f.Update(end)
		sel, _ := f.Selection()
		f.Update(tea.KeyMsg{Type: tea.KeyUp})
		caller, _ := f.Selection()
		names := []string{sel.Name, caller.Name}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			f.pivot = names[i%2]
			redraw(b, f, opt)
		}
	})
	b.Run("pivot-root", func(b *testing.B) {
		// The heaviest frame below the root: a function on most stacks
		// (runtime.goexit on zipf), its callers' tree over nearly all.
		f := newFlame()
		f.Update(tea.KeyMsg{Type: tea.KeyDown})
		sel, ok := f.Selection()
		if !ok {
			b.Skip("no frame below the root")
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			f.pivot = sel.Name
			redraw(b, f, opt)
		}
	})
	for _, rec := range []string{analysis.RecursionAll, analysis.RecursionDirect} {
		b.Run("recursion="+rec, func(b *testing.B) {
			f := newFlame()
			folded := opt
			folded.Recursion = rec
			for i := 0; i < b.N; i++ {
				redraw(b, f, folded)
			}
		})
	}
	b.Run("zoom", func(b *testing.B) {
		var ui time.Duration
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			f := newFlame()
			down := tea.KeyMsg{Type: tea.KeyDown}
			f.Update(down)
			f.Update(down)
			cmd := f.Update(tea.KeyMsg{Type: tea.KeyEnter})
			if cmd == nil {
				// The wide shape: the root's children are a run of frames
				// each narrower than a cell, whose zoom is the root's.
				b.Skip("nothing to zoom into two rows below the root")
			}
			b.StartTimer()
			msg := cmd().(ViewMsg)
			b.StopTimer()
			t0 := time.Now()
			f.Update(msg.Msg)
			_ = f.View()
			ui += time.Since(t0)
		}
		b.ReportMetric(float64(ui.Nanoseconds())/float64(b.N), "ui-ns/op")
	})
}

// BenchmarkTreeReveal1M is the tree taking over the shared selection
// when it is a light function deep in a closed part of the 1M-sample
// tree (the lightest row of the top table): found through the paths,
// then its path opened, on the UI goroutine (target: one frame, 16 ms):
//
//	go test ./views -run XXX -bench TreeReveal1M -benchtime 10x
func BenchmarkTreeReveal1M(b *testing.B) { shapes(b, benchTreeReveal1M) }

func benchTreeReveal1M(b *testing.B, e *analysis.Engine) {
	name := lightest(b, e)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		t := openTree(b, e)
		b.StartTimer()
		t.Reveal(name)
		if sel, _ := t.Selection(); sel.Name != name {
			b.Fatalf("revealed %q, want %q", sel.Name, name)
		}
	}
}

// BenchmarkLabelsOpen1M is the UI goroutine's share of showing the
// Labels view: taking the report (on zipf a span_id label with a value
// per sample: a million rows) and drawing it, once opened and once as
// the view's next result (the cursor followed to its row):
//
//	go test ./views -run XXX -bench LabelsOpen1M
func BenchmarkLabelsOpen1M(b *testing.B) { shapes(b, benchLabelsOpen1M) }

func benchLabelsOpen1M(b *testing.B, e *analysis.Engine) {
	opt := analysis.DefaultOptions()
	c := benchCommon()
	res, err := labelsData(e, opt)
	if err != nil {
		b.Fatal(err)
	}
	for _, again := range []bool{false, true} {
		name := map[bool]string{false: "open", true: "again"}[again]
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				v := NewLabels(c)
				v.SetSize(160, 42)
				if again {
					v.setResult(res, opt)
					v.Update(tea.KeyMsg{Type: tea.KeyDown})
					_ = v.View()
				}
				b.StartTimer()
				v.setResult(res, opt)
				_ = v.View()
			}
		})
	}
}

// cpuTime starts counting the process's CPU time (every thread's) for b;
// the function it returns stops, adding to b's cpu-ns/op.
func cpuTime(b *testing.B) func() {
	t0 := processCPU()
	return func() {
		cpuSpent[b] += processCPU() - t0
		b.ReportMetric(float64(cpuSpent[b].Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

var cpuSpent = map[*testing.B]time.Duration{}

// BenchmarkTreeSearch1M is a search in the 1M-sample tree, on the UI
// goroutine (target: one frame, 16 ms): "none" a pattern no function
// matches, typed and then n for the next match; "rare" n to the next
// row of the lightest function.
//
//	go test ./views -run XXX -bench TreeSearch1M -benchtime 10x
func BenchmarkTreeSearch1M(b *testing.B) { shapes(b, benchTreeSearch1M) }

func benchTreeSearch1M(b *testing.B, e *analysis.Engine) {
	rare := regexp.QuoteMeta(lightest(b, e))
	for _, c := range []struct{ name, re string }{{"none", "^no such function$"}, {"rare", "^" + rare + "$"}} {
		b.Run(c.name, func(b *testing.B) {
			re := regexp.MustCompile(c.re)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				t := openTree(b, e)
				b.StartTimer()
				t.SetSearch(re)
				t.NextMatch(1)
			}
		})
	}
}

// lightest is the name of the lightest function of the top table.
func lightest(b *testing.B, e *analysis.Engine) string {
	opt := analysis.DefaultOptions()
	opt.NodeFraction = 0
	top, err := e.Top(opt)
	if err != nil {
		b.Fatal(err)
	}
	return top.Nodes.Name(top.Rows[len(top.Rows)-1].Node)
}

// openTree is a Tree of e at 160×45 with its result shown.
func openTree(b *testing.B, e *analysis.Engine) *Tree {
	opt := analysis.DefaultOptions()
	opt.NodeFraction = 0
	t := NewTree(benchCommon())
	t.SetSize(160, 45)
	showQuery(b, t, e, opt)
	return t
}
