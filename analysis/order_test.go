package analysis

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/internal/synth"
)

// TestRowOrderByRanks: rows sorted by the node table's integer ranks
// (nodeTable.ranks, sortZeroFlatLast) come in the order of pprof's
// comparison of names (sortNodesByName), at every granularity but
// addresses (which sorts by names), by flat and by cum, on profiles with
// more than 4096 rows and on names that defeat the function-rank
// shortcut.
func TestRowOrderByRanks(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := synth.Write(&buf, synth.Config{Samples: raceSamples(20000), Seed: 5, Labels: true, Shape: synth.Wide}); err != nil {
		t.Fatal(err)
	}
	wide, err := format.Parse(&buf, format.Options{Symbolize: "none"})
	if err != nil {
		t.Fatal(err)
	}
	engines := nameEngines(t)
	engines["wide"] = NewEngine(wide)
	engines["heap"] = engineFor(t, "../testdata/go/heap.pb.gz")
	for name, e := range engines {
		for _, g := range rankedGranularities {
			for _, sortBy := range []string{"flat", "cum"} {
				t.Run(fmt.Sprint(name, "/", g, "/", sortBy), func(t *testing.T) {
					opt := granularityOptions(g)
					opt.NodeFraction = 0
					opt.Sort = sortBy
					q, err := e.newQuery(opt)
					if err != nil {
						t.Fatal(err)
					}
					a := q.aggregate()
					var ns []int32
					for n := range a.flat {
						if a.flat[n] != 0 || a.cum[n] != 0 {
							ns = append(ns, int32(n))
						}
					}
					if name == "wide" && opt.Granularity == "lines" && len(ns) <= 4096 {
						t.Fatalf("only %d rows: the zero-flat path is not exercised", len(ns))
					}
					got, want := slices.Clone(ns), slices.Clone(ns)
					a.sortNodes(got, sortBy == "cum")
					a.sortNodesByName(want, sortBy == "cum")
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("row %d of %d: %q, want %q", i, len(want), q.nodes.name(got[i]), q.nodes.name(want[i]))
						}
					}
				})
			}
		}
	}
}

// TestNameRanks: the node table's ranks order every node as a sort of
// the printed names (then the printed NodeInfos) does, with equal ranks
// for equal names: at every granularity but addresses, with and without
// columns, on names that defeat the function-rank shortcut.
func TestNameRanks(t *testing.T) {
	t.Parallel()
	for name, e := range nameEngines(t) {
		for _, g := range rankedGranularities {
			t.Run(name+"/"+g, func(t *testing.T) {
				q, err := e.newQuery(granularityOptions(g))
				if err != nil {
					t.Fatal(err)
				}
				nt := q.nodes
				nameRank, infoRank := nt.ranks()
				want := make([]int32, nt.len())
				for i := range want {
					want[i] = int32(i)
				}
				info := func(n int32) string { ni := nt.info(n); return infoString(&ni) }
				slices.SortFunc(want, func(a, b int32) int {
					if c := strings.Compare(nt.name(a), nt.name(b)); c != 0 {
						return c
					}
					return strings.Compare(info(a), info(b))
				})
				for i, n := range want {
					if infoRank[n] != int32(i) {
						t.Fatalf("%q is %dth by name, ranked %d", nt.name(n), i, infoRank[n])
					}
					if i > 0 && (nameRank[n] == nameRank[want[i-1]]) != (nt.name(n) == nt.name(want[i-1])) {
						t.Fatalf("%q and %q: name ranks %d, %d", nt.name(want[i-1]), nt.name(n), nameRank[want[i-1]], nameRank[n])
					}
				}
			})
		}
	}
}

// TestFind: NodeSet.Find gives, for every node's printable name, a node
// of that name, at every granularity (lines nodes keep no names), -1
// for names no node has (a function's name at the lines granularity,
// where each name has a file and line after it), and answers a name
// asked twice twice.
func TestFind(t *testing.T) {
	t.Parallel()
	for name, e := range nameEngines(t) {
		for _, g := range slices.Concat(rankedGranularities, []string{"addresses"}) {
			t.Run(name+"/"+g, func(t *testing.T) {
				q, err := e.newQuery(granularityOptions(g))
				if err != nil {
					t.Fatal(err)
				}
				ns := &NodeSet{q.nodes}
				var names []string
				for n := range ns.Len() {
					names = append(names, ns.Name(int32(n)))
				}
				fn := ns.Info(0).Name
				names = append(names, "no such node", names[0], fn)
				got := ns.Find(names)
				for i, n := range got[:len(got)-3] {
					if n < 0 || ns.Name(n) != names[i] {
						t.Fatalf("Find(%q) = %d", names[i], n)
					}
				}
				if got[len(got)-3] != -1 || got[len(got)-2] != got[0] {
					t.Errorf("Find: %d for a name no node has, %d for node 0's name asked again", got[len(got)-3], got[len(got)-2])
				}
				if g == "lines" && fn != "" && fn != names[0] && got[len(got)-1] != -1 {
					t.Errorf("Find(%q): %d, a line has no such name", fn, got[len(got)-1])
				}
			})
		}
	}
}

// nameEngines are the engines the name tests share: synthetic and real
// profiles, names that defeat the function-rank shortcut (prefixes,
// unnamed), one function's lines that sort differently as text and as
// numbers (plain), and columns (v8).
func nameEngines(t *testing.T) map[string]*Engine {
	return map[string]*Engine{
		"distinct":   synthEngine(t, synth.Distinct),
		"cpu_labels": engineFor(t, "../testdata/go/cpu_labels.pb.gz"),
		"prefixes":   NewEngine(trickyNames(false)),
		"unnamed":    NewEngine(trickyNames(true)),
		"plain":      NewEngine(plainNames()),
		"v8":         engineFor(t, "../testdata/producers/v8/work.cpuprofile"),
	}
}

// rankedGranularities are the granularities whose rows sort by name
// ranks; "lines+columns" is the lines granularity with columns kept
// (granularityOptions).
var rankedGranularities = []string{"functions", "filefunctions", "files", "lines", "lines+columns"}

func granularityOptions(g string) Options {
	opt := DefaultOptions()
	opt.Granularity = g
	if g == "lines+columns" {
		opt.Granularity, opt.ShowColumns = "lines", true
	}
	return opt
}

// trickyNames is a profile whose function names are prefixes of others
// followed by a space or a byte below it, and whose functions share
// names across files; with unnamed, also a function with no name and
// locations with no function. The function-rank shortcut must not
// apply to them.
func trickyNames(unnamed bool) *format.Profile {
	names := []string{"f", "f (x)", "f\tg", "f.g", "g", "g", "operator new", "operator"}
	if unnamed {
		names = append(names, "")
	}
	return namedProfile(names, unnamed)
}

// plainNames is trickyNames' profile with names the function-rank
// shortcut applies to: one function's lines are ordered by their
// printed numbers.
func plainNames() *format.Profile {
	return namedProfile([]string{"a", "b.c", "d", "e"}, false)
}

func namedProfile(names []string, unnamed bool) *format.Profile {
	p := &format.Profile{
		SampleTypes: []format.ValueType{{Type: "samples", Unit: "count"}},
		Strings:     []string{""},
		LabelSets:   format.LabelSets{Off: []int32{0, 0}},
		Samples:     format.Samples{Values: [][]int64{nil}},
	}
	for i, n := range names {
		p.Functions = append(p.Functions, format.Function{ID: uint64(i + 1), Name: n, Filename: fmt.Sprintf("dir/file%d.go", i%3)})
	}
	p.Stacks.Off = []int32{0}
	for i := range 60 {
		var lines []format.Line
		if !unnamed || i%17 != 16 {
			// Lines of one to three digits, some with columns: their
			// names do not sort as their numbers do ("f.go:12" after
			// "f.go:100", "f.go:12:5" after "f.go:123").
			lines = append(lines, format.Line{Function: int32(i % len(names)), Line: int64([]int{1, 12, 100, 123, 0, 7}[i%6]), Column: int64(i % 3 * 5)})
		}
		p.Locations = append(p.Locations, format.Location{ID: uint64(i + 1), Mapping: -1, Lines: p.AddLines(lines...)})
	}
	for s := range 200 {
		leaf, mid, root := int32(s%60), int32((s*7+3)%60), int32((s*13+5)%60)
		p.Stacks.Locs = append(p.Stacks.Locs, leaf, mid, root)
		p.Stacks.Off = append(p.Stacks.Off, int32(len(p.Stacks.Locs)))
		p.Samples.Stack = append(p.Samples.Stack, int32(s))
		p.Samples.Values[0] = append(p.Samples.Values[0], int64(s%4))
		p.Samples.Labels = append(p.Samples.Labels, 0)
	}
	return p
}
