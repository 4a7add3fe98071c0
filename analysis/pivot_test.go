package analysis

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// byFunction sums a tree per node as pprof's -top does: flat is the
// value of the paths that end at the node (a root of an inverted tree is
// where its paths end), cum the value of the paths through it, each
// counted once however often the node recurses.
func byFunction(tr *Tree, roots []*TreeNode) map[string][2]int64 {
	out := map[string][2]int64{}
	var walk func(n *TreeNode, on map[int32]int)
	walk = func(n *TreeNode, on map[int32]int) {
		name := tr.Nodes.Name(n.Node)
		v := out[name]
		if tr.Inverted {
			if n.Depth == 0 {
				v[0] += n.Total
			}
		} else {
			v[0] += n.Self
		}
		if on[n.Node] == 0 {
			v[1] += n.Total
		}
		out[name] = v
		on[n.Node]++
		for _, c := range tr.Children(n) {
			walk(c, on)
		}
		on[n.Node]--
	}
	for _, r := range roots {
		walk(r, map[int32]int{})
	}
	for k, v := range out {
		if v == [2]int64{} {
			delete(out, k)
		}
	}
	return out
}

// TestPivotMatchesPprof: a pivot's callees are pprof's -top with
// -focus=^F$ -show_from=^F$, its callers -focus=^F$ -prune_from=^F$,
// row by row (goldens from testdata/pivot/regen.sh); folding direct
// recursion changes neither.
func TestPivotMatchesPprof(t *testing.T) {
	f, err := os.Open("testdata/pivot/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		name, profile, fn, flags := fields[0], fields[1], fields[2], fields[3:]
		t.Run(name, func(t *testing.T) {
			e := engineFor(t, filepath.Join("../testdata", profile), flags...)
			for _, rec := range []string{"", RecursionDirect} {
				opt := DefaultOptions()
				opt.NodeFraction, opt.NodeCount = 0, 1000000
				applyFlags(t, &opt, flags)
				opt.Recursion = rec
				p, err := e.Pivot(opt, fn)
				if err != nil {
					t.Fatal(err)
				}
				for _, half := range []struct {
					what  string
					tr    *Tree
					roots []*TreeNode
				}{{"callees", p.Callees, p.Callees.Roots()}, {"callers", p.Callers, p.CallerRoots}} {
					got := byFunction(half.tr, half.roots)
					var exp map[string][2]int64
					if half.what == "callers" && strings.Contains(fn, "(") {
						exp = callersByHand(t, e, opt, fn)
					} else {
						exp = map[string][2]int64{}
						want := readPprofTop(t, filepath.Join("testdata/pivot", name+"."+half.what+".txt"))
						for _, r := range want.rows {
							exp[r.Name] = [2]int64{r.Flat, r.Cum}
						}
					}
					for k, v := range exp {
						if got[k] != v {
							t.Errorf("recursion=%q %s: %s flat, cum %v, pprof %v", rec, half.what, k, got[k], v)
						}
					}
					for k, v := range got {
						if _, ok := exp[k]; !ok {
							t.Errorf("recursion=%q %s: %s %v, not in pprof's", rec, half.what, k, v)
						}
					}
					var width int64
					for _, r := range half.roots {
						width += r.Total
					}
					if width != exp[fn][1] {
						t.Errorf("recursion=%q %s: %s's row is %d wide, its cum is %d", rec, half.what, fn, width, exp[fn][1])
					}
					if half.what == "callees" && p.Flat != exp[fn][0] {
						t.Errorf("recursion=%q: flat %d, pprof %d", rec, p.Flat, exp[fn][0])
					}
				}
			}
		})
	}
}

// callersByHand is pprof's -top of the stacks through fn cut below its
// innermost call: what -prune_from=^fn$ would print if it matched
// methods. fn is every cut stack's leaf; a function's cum counts a
// stack once.
func callersByHand(t *testing.T, e *Engine, opt Options, fn string) map[string][2]int64 {
	t.Helper()
	q, err := e.newQuery(opt)
	if err != nil {
		t.Fatal(err)
	}
	ns := &NodeSet{q.nodes}
	w, _, _, _ := q.stackWeights()
	out := map[string][2]int64{}
	var path []int32
	for s := range w {
		var ok bool
		path, ok = q.appendPath(q.folder(), path[:0], nil, e.p.Stacks.At(int32(s)))
		if !ok || w[s] == 0 {
			continue
		}
		cut := -1
		for i := len(path) - 1; i >= 0; i-- {
			if ns.FuncName(path[i]) == fn {
				cut = i
				break
			}
		}
		if cut < 0 {
			continue
		}
		seen := map[int32]bool{}
		for i, n := range path[:cut+1] {
			v := out[ns.Name(n)]
			if i == cut {
				v[0] += w[s]
			}
			if !seen[n] {
				seen[n] = true
				v[1] += w[s]
			}
			out[ns.Name(n)] = v
		}
	}
	return out
}

// TestFuncNameUnnamed: a node with no function, file or object name is
// keyed by its label, pprof's name for it in -top (<unknown>, or its
// address at the addresses granularity), so no two nodes share a key
// and Unnamed tells the key from a name; named nodes keep their
// function's name.
func TestFuncNameUnnamed(t *testing.T) {
	for _, c := range []struct {
		key     string
		unnamed bool
	}{
		{"<unknown>", true},
		{"000000000040fa72 <unknown>", true},
		{"ffffffffffffffff <unknown>", true},
		{"", false},
		{"main.main", false},
		{"000000000040fa72 main.main", false},
		{"40fa72 <unknown>", false},
		{"000000000040fa7g <unknown>", false},
		{"0000000000040fa72<unknown>", false},
		{"x<unknown>", false},
		{"[libc.so.6]", false},
	} {
		if got := Unnamed(c.key); got != c.unnamed {
			t.Errorf("Unnamed(%q) = %v", c.key, got)
		}
	}
	for _, c := range []struct {
		profile, granularity string
		nodes                int // at least
	}{
		{"legacy/gobench.cpu", "functions", 1},
		{"legacy/gobench.cpu", "addresses", 100},
		{"go/cpu_labels.pb.gz", "addresses", 10},
	} {
		e := engineFor(t, filepath.Join("../testdata", c.profile))
		opt := DefaultOptions()
		opt.NodeFraction, opt.Granularity = 0, c.granularity
		top, err := e.Top(opt)
		if err != nil {
			t.Fatal(err)
		}
		ns := top.Nodes
		keys := map[string]bool{}
		for _, r := range top.Rows {
			key, info := ns.FuncName(r.Node), ns.Info(r.Node)
			if info.Name != "" {
				if key != info.Name || Unnamed(key) {
					t.Errorf("%s %s: %s keyed %q", c.profile, c.granularity, ns.Name(r.Node), key)
				}
				continue
			}
			if key != ns.Name(r.Node) || !Unnamed(key) || keys[key] {
				t.Errorf("%s %s: %s keyed %q (unnamed %v, seen %v)", c.profile, c.granularity, ns.Name(r.Node), key, Unnamed(key), keys[key])
			}
			keys[key] = true
		}
		if len(top.Rows) < c.nodes {
			t.Errorf("%s %s: %d nodes", c.profile, c.granularity, len(top.Rows))
		}
	}
}

// TestPivotThrough: the pivot's trees, made from the stacks one scan
// finds through the function, equal trees made from every stack, for
// every function, with filters that cut or hide frames, folded
// recursion, and the stacks in halves as on a large profile.
func TestPivotThrough(t *testing.T) {
	group := parallelGroup
	defer func() { parallelGroup = group }()
	eachTreeSet(t, func(what string, e *Engine, opt Options, ns *NodeSet) {
		names := map[string]bool{}
		for n := range ns.Len() {
			names[ns.FuncName(int32(n))] = true
		}
		for name := range names {
			from := make([]bool, ns.Len())
			for i := range from {
				from[i] = ns.FuncName(int32(i)) == name
			}
			var want [2][]string // callees, callers
			for i, inv := range []bool{false, true} {
				tr, err := e.Tree(opt, TreeOptions{Inverted: inv, From: from})
				if err != nil {
					t.Fatal(err)
				}
				want[i] = allLines(tr)
			}
			for _, at := range []int{group, 2} {
				parallelGroup = at
				p, err := e.Pivot(opt, name)
				if err != nil {
					t.Fatal(err)
				}
				for i, got := range []*Tree{p.Callees, p.Callers} {
					if g := allLines(got); !slices.Equal(g, want[i]) {
						t.Fatalf("%s %s inverted=%v (halves from %d): the pivot's tree differs:\n%v\nwant\n%v", what, name, i == 1, at, g, want[i])
					}
				}
			}
			parallelGroup = group
		}
	})
}

// eachTreeSet calls fn for each test profile and option set the trees'
// equivalence tests run over: folded recursion, filters that cut or
// hide frames, lines; ns is the query's node set.
func eachTreeSet(t *testing.T, fn func(what string, e *Engine, opt Options, ns *NodeSet)) {
	for _, profile := range []string{"go/cpu_labels.pb.gz", "go/recursive.pb.gz"} {
		e := engineFor(t, filepath.Join("../testdata", profile))
		for _, set := range []map[string]string{
			nil, {"recursion": RecursionAll}, {"recursion": RecursionDirect},
			{"hide": "runtime"}, {"show_from": "main"}, {"focus": "fib|sort"}, {"lines": "true", "recursion": RecursionAll},
		} {
			opt := testOptions(t, set)
			q, err := e.newQuery(opt)
			if err != nil {
				t.Fatal(err)
			}
			fn(fmt.Sprint(profile, " ", set), e, opt, &NodeSet{q.nodes})
		}
	}
}
