package analysis

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// walk visits every node of the tree (expanding all of it).
func walk(t *Tree, nodes []*TreeNode, fn func(*TreeNode)) {
	for _, n := range nodes {
		fn(n)
		walk(t, t.Children(n), fn)
	}
}

// TestTreeAgreesWithTop checks the trie against the top table, which is
// checked against pprof: per function, the self values of all its tree
// nodes add up to its flat, and the totals of its outermost occurrences
// (no ancestor of the same function) add up to its cum.
func TestTreeAgreesWithTop(t *testing.T) {
	t.Parallel()
	cases := []struct {
		profile string
		set     map[string]string
	}{
		{"go/cpu_labels.pb.gz", nil},
		{"go/cpu_labels.pb.gz", map[string]string{"focus": "quicksort", "lines": "true"}},
		{"go/heap.pb.gz", map[string]string{"sample_index": "alloc_space", "hide": "runtime"}},
		{"go/heap.pb.gz", map[string]string{"sample_index": "alloc_space", "mean": "true"}},
		{"synthetic/bigprof_10k.pb.gz", map[string]string{"noinlines": "true"}},
		{"go/recursive.pb.gz", nil},
		{"go/recursive.pb.gz", map[string]string{"hide": "parseProduct", "noinlines": "true"}},
		{"go/recursive.pb.gz", map[string]string{"granularity": "lines"}},
		{"pprof/large.cpu", nil},
	}
	for _, c := range cases {
		if skipUnderRace(c.profile) {
			continue
		}
		e := engineFor(t, filepath.Join("../testdata", c.profile))
		opt := testOptions(t, c.set)
		top, err := e.Top(opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, inverted := range []bool{false, true} {
			tr, err := e.Tree(opt, TreeOptions{Inverted: inverted})
			if err != nil {
				t.Fatal(err)
			}
			if tr.Total != top.Total {
				t.Errorf("%s %v: tree total %d, top total %d", c.profile, c.set, tr.Total, top.Total)
			}
			self := map[int32]int64{}
			cum := map[int32]int64{}
			var rootSum int64
			for _, r := range tr.Roots() {
				rootSum += r.total
			}
			walk(tr, tr.Roots(), func(n *TreeNode) {
				self[n.Node] += n.self
				for a := n.Parent; a != nil; a = a.Parent {
					if a.Node == n.Node {
						return
					}
				}
				cum[n.Node] += n.total
			})
			var flatSum int64
			for _, r := range top.Rows {
				flatSum += r.Flat
				if opt.Mean {
					continue // per-node means do not add up; sums are checked without mean
				}
				wantSelf := r.Flat
				if inverted {
					// Bottom-up, a node's self is the value of paths that
					// end at it, i.e. stacks whose root it is.
					wantSelf = -1
				}
				if wantSelf >= 0 && self[r.Node] != wantSelf {
					t.Errorf("%s %v inverted=%v: %s self %d, flat %d", c.profile, c.set, inverted, top.Nodes.Name(r.Node), self[r.Node], r.Flat)
				}
				if cum[r.Node] != r.Cum {
					t.Errorf("%s %v inverted=%v: %s cum %d, want %d", c.profile, c.set, inverted, top.Nodes.Name(r.Node), cum[r.Node], r.Cum)
				}
			}
			if !opt.Mean && rootSum != flatSum {
				t.Errorf("%s %v inverted=%v: roots add up to %d, flats to %d", c.profile, c.set, inverted, rootSum, flatSum)
			}
		}
	}
}

// TestTreeWeight checks the flame graph's widths: the sum of |value| of
// the paths through a node, which is Total without a base and, with one,
// at least |Total| and never less than the children's weights together.
func TestTreeWeight(t *testing.T) {
	for _, c := range []struct {
		profile string
		flags   []string
		diff    bool
		mixed   bool // growth and shrinkage under one node somewhere
	}{
		{"go/cpu_labels.pb.gz", nil, false, false},
		{"go/cpu_labels.pb.gz", []string{"-diff_base=go/cpu_labels_no_w0.pb.gz"}, true, false},
		{"notes/goroutine1.pb.gz", []string{"-base=notes/goroutine2.pb.gz"}, true, true},
	} {
		e := engineFor(t, filepath.Join("../testdata", c.profile), c.flags...)
		tr, err := e.Tree(testOptions(t, nil), TreeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		differs := false
		walk(tr, tr.Roots(), func(n *TreeNode) {
			if !c.diff && n.Weight != n.Total {
				t.Errorf("%s: %s weight %d, total %d", c.profile, tr.Nodes.Name(n.Node), n.Weight, n.Total)
			}
			if n.Weight < abs64(n.Total) {
				t.Errorf("%s %v: %s weight %d < |total %d|", c.profile, c.flags, tr.Nodes.Name(n.Node), n.Weight, n.Total)
			}
			differs = differs || n.Weight != abs64(n.Total)
			var kids int64
			for _, k := range tr.Children(n) {
				kids += k.Weight
			}
			if kids > n.Weight {
				t.Errorf("%s %v: %s children weigh %d, more than its %d", c.profile, c.flags, tr.Nodes.Name(n.Node), kids, n.Weight)
			}
		})
		if c.mixed != differs {
			t.Errorf("%s %v: a node with both growth and shrinkage below it: %v, want %v", c.profile, c.flags, differs, c.mixed)
		}
	}
}

// TestTreeLocate: Locate finds a node of every function the tree has,
// where its path first meets the function, and nil for one it lacks.
func TestTreeLocate(t *testing.T) {
	e := engineFor(t, filepath.Join("../testdata", "synthetic/bigprof_10k.pb.gz"))
	for _, set := range []map[string]string{nil, {"recursion": RecursionAll}, {"recursion": RecursionDirect, "hide": "runtime"}, {"show_from": "main"}} {
		locateEveryNode(t, e, testOptions(t, set))
	}
}

// locateEveryNode checks Locate for every node of opt's trees, top-down
// and inverted.
func locateEveryNode(t *testing.T, e *Engine, opt Options) {
	t.Helper()
	for _, inverted := range []bool{false, true} {
		full, err := e.Tree(opt, TreeOptions{Inverted: inverted})
		if err != nil {
			t.Fatal(err)
		}
		has := map[int32]bool{}
		walk(full, full.Roots(), func(n *TreeNode) { has[n.Node] = true })
		tr, err := e.Tree(opt, TreeOptions{Inverted: inverted}) // unexpanded
		if err != nil {
			t.Fatal(err)
		}
		for id := int32(0); id < int32(tr.Nodes.Len()); id++ {
			n := tr.Locate(func(x int32) bool { return x == id })
			if (n != nil) != has[id] {
				t.Fatalf("inverted=%v: Locate(%s) = %v, the tree has it: %v", inverted, tr.Nodes.Name(id), n, has[id])
			}
			if n == nil {
				continue
			}
			if n.Node != id {
				t.Fatalf("Locate(%s) gave %s", tr.Nodes.Name(id), tr.Nodes.Name(n.Node))
			}
			for a := n.Parent; a != nil; a = a.Parent {
				if a.Node == id {
					t.Fatalf("Locate(%s) is below another occurrence at depth %d", tr.Nodes.Name(id), a.Depth)
				}
			}
		}
	}
}

// TestTreeNodeFraction: under nodefraction the tree leaves out the nodes
// whose |total| is below that share of the total, at every depth, and
// keeps the others with their values.
func TestTreeNodeFraction(t *testing.T) {
	e := engineFor(t, filepath.Join("../testdata", "go/cpu_labels.pb.gz"))
	opt := DefaultOptions()
	opt.NodeFraction = 0
	all, err := e.Tree(opt, TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opt.NodeFraction = 0.05
	cut, err := e.Tree(opt, TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(float64(cut.Total) * 0.05); cut.Cutoff != want || all.Cutoff != 0 {
		t.Fatalf("cutoffs %d and %d, want %d and 0", cut.Cutoff, all.Cutoff, want)
	}
	var walk func(a, c []*TreeNode, tree, full *Tree) int
	walk = func(a, c []*TreeNode, tree, full *Tree) int {
		kept := 0
		j := 0
		for _, n := range a {
			if abs64(n.Total) < tree.Cutoff {
				continue
			}
			if j >= len(c) || c[j].Node != n.Node || c[j].Total != n.Total {
				t.Fatalf("node %d (total %d) missing or changed under nodefraction", n.Node, n.Total)
			}
			kept += 1 + walk(full.Children(n), tree.Children(c[j]), tree, full)
			j++
		}
		if j != len(c) {
			t.Fatalf("%d nodes under nodefraction, %d expected", len(c), j)
		}
		return kept
	}
	if n := walk(all.Roots(), cut.Roots(), cut, all); n == 0 {
		t.Fatal("nodefraction=0.05 left no node")
	}
}

// refTrie is the reference trie TestTreeMatchesPaths builds, in
// arrays: node 0 is the root, and a node's children are kids[first[i]:
// first[i+1]], ordered by their tree node.
type refTrie struct {
	node                []int32 // the tree node
	self, total, weight []int64
	first, kids         []int32
}

// newRefTrie is the trie of the weighted paths: their sorted order puts
// each node's paths together, and a node is made where a path leaves
// the one before.
func newRefTrie(paths [][]int32, ws []int64) *refTrie {
	order := make([]int, len(paths))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return slices.Compare(paths[a], paths[b]) })
	r := &refTrie{node: []int32{-1}, self: []int64{0}, total: []int64{0}, weight: []int64{0}}
	parent := []int32{-1}
	stack := []int32{0} // the nodes of the path before, root first
	var prev []int32
	for _, i := range order {
		p, w := paths[i], ws[i]
		common := 0
		for common < len(p) && common < len(prev) && p[common] == prev[common] {
			common++
		}
		stack = stack[:common+1]
		for _, n := range p[common:] {
			parent = append(parent, stack[len(stack)-1])
			r.node = append(r.node, n)
			r.self, r.total, r.weight = append(r.self, 0), append(r.total, 0), append(r.weight, 0)
			stack = append(stack, int32(len(r.node)-1))
		}
		for _, k := range stack[1:] {
			r.total[k] += w
			r.weight[k] += abs64(w)
		}
		r.self[stack[len(stack)-1]] += w
		prev = p
	}
	// Children in the order made, which is their tree nodes' order.
	r.first = make([]int32, len(r.node)+1)
	for _, p := range parent[1:] {
		r.first[p+1]++
	}
	for i := 1; i < len(r.first); i++ {
		r.first[i] += r.first[i-1]
	}
	r.kids = make([]int32, len(r.node)-1)
	at := slices.Clone(r.first[:len(r.node)])
	for k, p := range parent[1:] {
		r.kids[at[p]] = int32(k + 1)
		at[p]++
	}
	return r
}

// children returns at's children.
func (r *refTrie) children(at int32) []int32 { return r.kids[r.first[at]:r.first[at+1]] }

// child returns at's child for tree node n, or -1.
func (r *refTrie) child(at, n int32) int32 {
	kids := r.children(at)
	i, ok := slices.BinarySearchFunc(kids, n, func(k, n int32) int { return int(r.node[k]) - int(n) })
	if !ok {
		return -1
	}
	return kids[i]
}

// refTries are the reference tries of one profile, option set and
// recursion mode, one per tree shape, made once for both thresholds.
type refTries struct {
	once  sync.Once
	tos   []TreeOptions
	tries []*refTrie
}

// TestTreeMatchesPaths checks the tree, read in place through its path
// cursors, against a trie built the plain way: every surviving stack's
// node path materialised (appendPath), reversed when inverted, direct
// recursion folded, the paths sorted and a node made wherever a path
// leaves the one before it (newRefTrie). Every node of the fully
// expanded tree, in every profile, option set and tree shape, has the
// reference's children with the reference's values, heaviest first.
func TestTreeMatchesPaths(t *testing.T) {
	cases := []struct {
		profile string
		set     map[string]string
	}{
		{"go/cpu_labels.pb.gz", nil},
		{"go/cpu_labels.pb.gz", map[string]string{"focus": "quicksort", "lines": "true"}},
		{"go/cpu_labels.pb.gz", map[string]string{"hide": "runtime|sort", "tagfocus": "worker=w1"}},
		{"go/cpu_labels.pb.gz", map[string]string{"show_from": "main", "prune_from": "quicksort"}},
		{"go/heap.pb.gz", map[string]string{"sample_index": "alloc_space", "hide": "runtime"}},
		{"go/heap.pb.gz", map[string]string{"sample_index": "alloc_space", "mean": "true"}},
		{"synthetic/bigprof_10k.pb.gz", nil},
		{"synthetic/bigprof_10k.pb.gz", map[string]string{"noinlines": "true", "ignore": "json"}},
		{"synthetic/bigprof_10k.pb.gz", map[string]string{"granularity": "lines", "show": "json|http|main"}},
		{"pprof/large.cpu", nil},
		{"pprof/large.cpu", map[string]string{"granularity": "addresses", "focus": "main"}},
	}
	// The cases run in parallel, at the engine's thresholds and then at
	// the lowest: the thresholds change only between the two runs, and
	// both runs compare with the same reference tries.
	refs := map[string]*refTries{}
	for _, at := range [][2]int{{parallelGroup, sweepRow}, {2, 2}} {
		func() {
			defer func(old, oldSweep int) { parallelGroup, sweepRow = old, oldSweep }(parallelGroup, sweepRow)
			parallelGroup, sweepRow = at[0], at[1]
			t.Run(fmt.Sprintf("groupAt=%d sweepAt=%d", at[0], at[1]), func(t *testing.T) {
				for _, c := range cases {
					if skipUnderRace(c.profile) {
						continue
					}
					e := engineFor(t, filepath.Join("../testdata", c.profile))
					for _, rec := range []string{"", RecursionDirect, RecursionAll} {
						if c.profile == "pprof/large.cpu" && (rec != "" || at[0] != 2) {
							// The real profile unfolded (the others fold
							// enough, and quicker) and at the lowest
							// thresholds only, where every grouping takes
							// the two-core and sweep paths; the others cover
							// the one-core path at the engine's.
							continue
						}
						name := fmt.Sprint(c.profile, c.set, rec)
						r := refs[name]
						if r == nil {
							r = &refTries{}
							refs[name] = r
						}
						t.Run(name, func(t *testing.T) {
							t.Parallel()
							checkPaths(t, e, c.profile, c.set, rec, r, at[0], at[1])
						})
					}
				}
			})
		}()
	}
}

// checkPaths is TestTreeMatchesPaths for one profile, option set and
// recursion mode, in every tree shape, at the thresholds set; the
// reference tries are made in r on first use.
func checkPaths(t *testing.T, e *Engine, profile string, set map[string]string, rec string, r *refTries, groupAt, sweepAt int) {
	opt := testOptions(t, set)
	r.once.Do(func() { r.tos, r.tries = refTriesFor(e, opt, rec) })
	if r.tries == nil {
		t.Fatalf("%s %v recursion=%s: no reference tries", profile, set, rec)
	}
	opt.Recursion = rec
	for i, to := range r.tos {
		checkTree(t, e, opt, to, r.tries[i], groupAt, sweepAt, fmt.Sprint(profile, " ", set, " recursion=", rec))
	}
}

// refTriesFor builds the reference trie of every tree shape for opt and
// recursion mode rec, or nil if opt makes no query.
func refTriesFor(e *Engine, opt Options, rec string) ([]TreeOptions, []*refTrie) {
	q, err := e.newQuery(opt)
	if err != nil {
		return nil, nil
	}
	w, _, _, _ := q.stackWeights()
	tos := []TreeOptions{{}, {Inverted: true}, {FoldRecursion: true}, {Inverted: true, FoldRecursion: true}}
	if rec != "" {
		tos = tos[:2]
	}
	// The paths, each as it is and reversed.
	var paths, reversed [][]int32
	var ws []int64
	recursive := false
	for s := range w {
		if w[s] == 0 {
			continue
		}
		path, ok := q.appendPath(nil, nil, nil, e.p.Stacks.At(int32(s)))
		if !ok || len(path) == 0 {
			continue
		}
		path = refFold(path, rec)
		for j := 1; j < len(path) && !recursive; j++ {
			recursive = path[j] == path[j-1]
		}
		paths, ws = append(paths, path), append(ws, w[s])
		rev := slices.Clone(path)
		slices.Reverse(rev)
		reversed = append(reversed, rev)
	}
	tries := make([]*refTrie, len(tos))
	for i, to := range tos {
		if to.FoldRecursion && !recursive {
			// Paths without direct recursion fold to themselves.
			tries[i] = tries[slices.IndexFunc(tos, func(o TreeOptions) bool { return o.Inverted == to.Inverted && !o.FoldRecursion })]
			continue
		}
		ps := paths
		if to.Inverted {
			ps = reversed
		}
		if to.FoldRecursion {
			ps = slices.Clone(ps)
			for j, p := range ps {
				ps[j] = refFold(p, RecursionDirect)
			}
		}
		tries[i] = newRefTrie(ps, ws)
	}
	return tos, tries
}

// refFold is recursion folding written another way than the engine's:
// direct drops a node equal to the one before; all goes from each node
// to what follows its last occurrence, so that a loop back to a node
// on the path is cut out.
func refFold(path []int32, mode string) []int32 {
	var out []int32
	switch mode {
	case "":
		return path
	case RecursionDirect:
		for i, n := range path {
			if i == 0 || n != path[i-1] {
				out = append(out, n)
			}
		}
	case RecursionAll:
		for i := 0; i < len(path); i++ {
			out = append(out, path[i])
			for j := len(path) - 1; j > i; j-- {
				if path[j] == path[i] {
					i = j
					break
				}
			}
		}
	}
	return out
}

// checkTree compares the tree for opt and to, fully expanded, with ref,
// grouping groupAt paths or more on two cores (Tree.stepHalves, and
// Tree.Expand, which expands each node's children together), and
// sweeping the rows of sweepAt paths or more in stack order (Tree.sweep).
// The caller sets parallelGroup and sweepRow to groupAt and sweepAt.
func checkTree(t *testing.T, e *Engine, opt Options, to TreeOptions, ref *refTrie, groupAt, sweepAt int, what string) {
	t.Helper()
	what = fmt.Sprintf("%s %+v groupAt=%d sweepAt=%d", what, to, groupAt, sweepAt)
	tr, err := e.Tree(opt, to)
	if err != nil {
		t.Fatal(err)
	}
	nodes := 0
	// where names the path of nodes, only when a check fails: a name
	// per node would cost more than the checks.
	where := func(path []int32) string {
		var b strings.Builder
		for _, n := range path {
			b.WriteString(">" + tr.Nodes.Name(n))
		}
		return b.String()
	}
	var check func(ns []*TreeNode, r int32, path []int32)
	check = func(ns []*TreeNode, r int32, path []int32) {
		if len(ns) != len(ref.children(r)) {
			t.Fatalf("%s: %d children under %s, want %d", what, len(ns), where(path), len(ref.children(r)))
		}
		// Siblings' children at once, as a flame graph's layout asks.
		tr.Expand(ns)
		for i, n := range ns {
			k := ref.child(r, n.Node)
			path := append(path, n.Node)
			if k < 0 {
				t.Fatalf("%s: %s is not in the reference", what, where(path))
			}
			if ref.self[k] != n.self || ref.total[k] != n.total || ref.weight[k] != n.weight {
				t.Fatalf("%s: %s is %d/%d/%d, want %d/%d/%d", what, where(path), n.self, n.total, n.weight, ref.self[k], ref.total[k], ref.weight[k])
			}
			if i > 0 && abs64(ns[i-1].total) < abs64(n.total) {
				t.Fatalf("%s: %s heavier than the child before it", what, where(path))
			}
			if tr.Leaf(n) != (len(ref.children(k)) == 0) {
				t.Fatalf("%s: Leaf(%s) = %v", what, where(path), tr.Leaf(n))
			}
			nodes++
			check(tr.Children(n), k, path)
		}
	}
	check(tr.Roots(), 0, nil)
	if nodes == 0 {
		t.Fatalf("%s: empty tree", what)
	}
}

// TestSortChildrenKeyed compares siblings sorted by keys (sortChildren
// on many siblings) with the comparison of the nodes themselves, every
// node's children, with name ranks and without (addresses).
func TestSortChildrenKeyed(t *testing.T) {
	for _, c := range []struct {
		profile string
		set     map[string]string
	}{
		{"synthetic/bigprof_10k.pb.gz", nil},
		{"synthetic/bigprof_10k.pb.gz", map[string]string{"granularity": "lines"}},
		{"pprof/large.cpu", map[string]string{"granularity": "addresses"}},
		{"go/heap.pb.gz", map[string]string{"sample_index": "alloc_space"}},
	} {
		e := engineFor(t, filepath.Join("../testdata", c.profile))
		opt := testOptions(t, c.set)
		for _, inverted := range []bool{false, true} {
			orders := map[int][]string{}
			for _, at := range []int{1 << 30, 2} {
				func() {
					defer func(old int) { keyedSort = old }(keyedSort)
					keyedSort = at
					tr, err := e.Tree(opt, TreeOptions{Inverted: inverted})
					if err != nil {
						t.Fatal(err)
					}
					var walk func(ns []*TreeNode, depth int)
					walk = func(ns []*TreeNode, depth int) {
						for _, n := range ns {
							orders[at] = append(orders[at], fmt.Sprint(depth, tr.Nodes.Name(n.Node), n.total))
							if depth < 3 {
								walk(tr.Children(n), depth+1)
							}
						}
					}
					walk(tr.Roots(), 0)
				}()
			}
			if !slices.Equal(orders[2], orders[1<<30]) {
				t.Errorf("%s %v inverted=%v: keyed order differs", c.profile, c.set, inverted)
			}
			if len(orders[2]) < 10 {
				t.Errorf("%s %v inverted=%v: %d nodes", c.profile, c.set, inverted, len(orders[2]))
			}
		}
	}
}
