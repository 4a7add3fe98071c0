package analysis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pprof-tui/pprof-tui/format"
)

func TestFoldPath(t *testing.T) {
	const A, f, g, h, k = 0, 1, 2, 3, 4
	cases := []struct {
		path, direct, all []int32
	}{
		{[]int32{A, f, f, f, g}, []int32{A, f, g}, []int32{A, f, g}},
		{[]int32{A, f, g, f, h}, []int32{A, f, g, f, h}, []int32{A, f, h}},
		{[]int32{A, f, g, h, g, f, k}, []int32{A, f, g, h, g, f, k}, []int32{A, f, k}},
		{[]int32{A, f, g, f, g, h}, []int32{A, f, g, f, g, h}, []int32{A, f, g, h}},
		{[]int32{A, f, g, f}, []int32{A, f, g, f}, []int32{A, f}},
		{[]int32{f, f}, []int32{f}, []int32{f}},
		{[]int32{A}, []int32{A}, []int32{A}},
		{nil, nil, nil},
	}
	for _, c := range cases {
		for _, m := range []struct {
			mode string
			want []int32
		}{{RecursionDirect, c.direct}, {RecursionAll, c.all}} {
			inl := make([]bool, len(c.path))
			for i := range inl {
				inl[i] = c.path[i] == g // follows its frame
			}
			fd := &folder{mode: m.mode}
			got, gotInl := fd.fold(slices.Clone(c.path), inl, 5)
			if !slices.Equal(got, m.want) && len(got)+len(m.want) > 0 {
				t.Errorf("%s %v: got %v, want %v", m.mode, c.path, got, m.want)
			}
			for i, n := range got {
				if gotInl[i] != (n == g) {
					t.Errorf("%s %v: inline flags %v do not follow %v", m.mode, c.path, gotInl, got)
				}
			}
			if ref := refFold(c.path, m.mode); !slices.Equal(ref, m.want) && len(ref)+len(m.want) > 0 {
				t.Errorf("refFold %s %v: got %v, want %v", m.mode, c.path, ref, m.want)
			}
			if m.mode == RecursionAll && slices.ContainsFunc(fd.at, func(x int32) bool { return x != 0 }) {
				t.Errorf("%v: scratch left dirty: %v", c.path, fd.at)
			}
		}
	}
}

// TestTracesFolded: traces and peek follow the recursion setting: no
// node repeats directly (direct) or at all (all) in a folded trace, no
// sample is lost, and every trace still ends in its leaf.
func TestTracesFolded(t *testing.T) {
	for _, profile := range []string{"go/cpu_labels.pb.gz", "go/recursive.pb.gz"} {
		e := engineFor(t, "../testdata/"+profile)
		plain, err := e.Traces(testOptions(t, nil))
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{RecursionDirect, RecursionAll} {
			tr, err := e.Traces(testOptions(t, map[string]string{"recursion": mode}))
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Traces) != len(plain.Traces) || tr.Total != plain.Total {
				t.Fatalf("%s %s: %d traces, total %d; unfolded %d, %d", profile, mode, len(tr.Traces), tr.Total, len(plain.Traces), plain.Total)
			}
			shorter := 0
			for i, x := range tr.Traces {
				p := plain.Traces[i]
				if x.Frames[0].Node != p.Frames[0].Node || x.Value != p.Value {
					t.Fatalf("%s %s: trace %d's leaf or value changed", profile, mode, i)
				}
				if len(x.Frames) < len(p.Frames) {
					shorter++
				}
				seen := map[int32]bool{}
				for k, f := range x.Frames {
					if k > 0 && x.Frames[k-1].Node == f.Node || mode == RecursionAll && seen[f.Node] {
						t.Fatalf("%s %s: trace %d repeats %s", profile, mode, i, tr.Nodes.Name(f.Node))
					}
					seen[f.Node] = true
				}
			}
			if shorter == 0 {
				t.Errorf("%s %s: no trace was folded", profile, mode)
			}
		}
	}
}

// packedFixture is locations of every kind (no frame, as hidden; one to
// three frames; four; a node twice in one location; a node too large to
// pack) as a query's node lists, and their packed table.
func packedFixture() (q *query, lists [][]int32, packed []uint64, nodes int) {
	big := int32(packedMask + 5)
	lists = [][]int32{{}, {1}, {2}, {3, 4}, {5, 6, 7}, {8, 9, 10, 11}, {12, 12}, {13, 14, 13}, {big}, {15, big}, {1, 16}, {17, 18, 2}}
	q = &query{locOff: []int32{0}}
	for _, ns := range lists {
		q.locNodes = append(q.locNodes, ns...)
		q.locOff = append(q.locOff, int32(len(q.locNodes)))
	}
	return q, lists, packNodes(q.locOff, q.locNodes), int(big) + 1
}

// randomStack is a stack (leaf first) of up to max locations of lists.
func randomStack(rng *rand.Rand, lists [][]int32, max int) []int32 {
	locs := make([]int32, 1+rng.IntN(max))
	for i := range locs {
		locs[i] = int32(rng.IntN(len(lists)))
	}
	return locs
}

// TestRepeats compares repeats, which reads most locations' nodes packed
// in one word, with a set of the nodes met, on random stacks over
// locations of every kind.
func TestRepeats(t *testing.T) {
	q, lists, packed, nodes := packedFixture()
	for l, ns := range lists {
		if slow := packed[l] == packedSlow; slow != (len(ns) == 0 || len(ns) > 3 || l >= 6 && l <= 9) {
			t.Errorf("location %v: packed slow %v", ns, slow)
		}
	}
	stamp := make([]int32, nodes)
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[bool]int{}
	for mark := int32(1); mark <= 2000; mark++ {
		locs := randomStack(rng, lists, 5)
		met := map[int32]bool{}
		want := false
		for _, l := range locs {
			for _, n := range lists[l] {
				want = want || met[n]
				met[n] = true
			}
		}
		seen[want]++
		if got := repeats(q, packed, locs, stamp, mark); got != want {
			t.Fatalf("stack %v: repeats %v, want %v", locs, got, want)
		}
	}
	if seen[true] < 100 || seen[false] < 100 {
		t.Errorf("too few of a kind: %v", seen)
	}
}

// TestFoldPacked compares foldPacked, which reads the packed table and
// folds as it goes, with the nodes of each location appended root first
// and folded by the folder, on random stacks over locations of every
// kind; its scratch is left zero.
func TestFoldPacked(t *testing.T) {
	q, lists, packed, nodes := packedFixture()
	at := make([]int32, nodes)
	f := &folder{mode: RecursionAll}
	rng := rand.New(rand.NewPCG(3, 4))
	changed := 0
	for range 3000 {
		locs := randomStack(rng, lists, 12)
		var want []int32
		for i := len(locs) - 1; i >= 0; i-- {
			want = append(want, lists[locs[i]]...)
		}
		before := len(want)
		want, _ = f.fold(want, nil, nodes)
		if len(want) < before {
			changed++
		}
		if got := foldPacked(q, packed, at, nil, locs); !slices.Equal(got, want) {
			t.Fatalf("stack %v: folded %v, want %v", locs, got, want)
		}
		for _, l := range locs {
			for _, n := range lists[l] {
				if at[n] != 0 {
					t.Fatalf("stack %v: scratch left set at node %d", locs, n)
				}
			}
		}
	}
	if changed < 500 {
		t.Errorf("only %d stacks had recursion to fold", changed)
	}
}

// TestFoldChunks: the folded tree is the same when the fold writes its
// paths out in many small chunks (shorter than some paths) in two
// halves as when it writes one chunk.
func TestFoldChunks(t *testing.T) {
	for _, profile := range []string{"go/recursive.pb.gz", "synthetic/bigprof_10k.pb.gz"} {
		if skipUnderRace(profile) {
			continue
		}
		opt := DefaultOptions()
		opt.Recursion = RecursionAll
		fresh := func() *Engine { return NewEngine(engineFor(t, "../testdata/"+profile).p) }
		want := treeLines(t, fresh(), opt)
		func() {
			defer func(chunk, group int) { foldChunk, parallelGroup = chunk, group }(foldChunk, parallelGroup)
			foldChunk, parallelGroup = 3, 2
			e := fresh()
			if got := treeLines(t, e, opt); !slices.Equal(got, want) {
				t.Errorf("%s: the tree from small chunks differs", profile)
			}
			q, err := e.newQuery(opt)
			if err != nil {
				t.Fatal(err)
			}
			if fp := q.paths.folded.Load(); len(fp.stacks) < 3 {
				t.Errorf("%s: %d stacks folded", profile, len(fp.stacks))
			}
		}()
	}
}

// TestFoldAllPlainStacks: the tree under recursion=all is the same
// whether the node table knows its plain stacks (from Top's walk, or
// from an earlier folded tree) or not, with and without a filter over
// frames, and the flags a folded tree records are those Top's walk
// records.
func TestFoldAllPlainStacks(t *testing.T) {
	for _, profile := range []string{"go/recursive.pb.gz", "synthetic/bigprof_10k.pb.gz"} {
		if skipUnderRace(profile) {
			continue
		}
		fresh := func() *Engine {
			p, err := format.Load(context.Background(), format.Sources{Sources: []string{"../testdata/" + profile}}, format.Options{Symbolize: "none"})
			if err != nil {
				t.Fatal(err)
			}
			return NewEngine(p)
		}
		flags := func(e *Engine) []uint8 {
			q, err := e.newQuery(DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			return q.nodes.plainStacks()
		}
		for _, set := range []map[string]string{nil, {"hide": "runtime"}} {
			opt := testOptions(t, set)
			opt.Recursion = RecursionAll
			unknown := fresh()
			want := treeLines(t, unknown, opt)
			if f := flags(unknown); (f != nil) != (set == nil) {
				t.Errorf("%s %v: a folded tree recorded plain stacks: %v", profile, set, f != nil)
			}
			known := fresh()
			if _, err := known.Top(DefaultOptions()); err != nil {
				t.Fatal(err)
			}
			if set == nil && !slices.Equal(flags(known), flags(unknown)) {
				t.Errorf("%s: the folded tree's plain stacks differ from Top's", profile)
			}
			for what, e := range map[string]*Engine{"known from Top": known, "a second folded tree (the fold kept)": unknown} {
				if got := treeLines(t, e, opt); !slices.Equal(got, want) {
					t.Errorf("%s %v: plain stacks %s: tree differs", profile, set, what)
				}
			}
			if len(want) < 10 {
				t.Errorf("%s %v: %d nodes", profile, set, len(want))
			}
		}
	}
}

// TestFoldBackground: stacks folded ahead of time (the explorer's
// FoldBackground, while a flame graph is shown) make the same folded
// tree as a fresh engine's, at every sample type, and are folded once;
// a tree that asks while the background fold gives way to a busy
// explorer does not wait for the explorer to be idle.
func TestFoldBackground(t *testing.T) {
	load := func() *Engine { return NewEngine(engineFor(t, "../testdata/go/recursive.pb.gz").p) }
	opt := DefaultOptions()
	opt.Recursion = RecursionAll
	prepared := load()
	if err := prepared.FoldBackground(DefaultOptions(), func() bool { return false }); err != nil {
		t.Fatal(err)
	}
	q, err := prepared.newQuery(opt)
	if err != nil {
		t.Fatal(err)
	}
	made := q.paths.folded.Load()
	if made == nil || len(made.stacks) == 0 {
		t.Fatalf("nothing folded in the background: %+v", made)
	}
	fresh := load()
	for _, st := range fresh.Profile().SampleTypes {
		opt.SampleIndex = st.Type
		if got, want := treeLines(t, prepared, opt), treeLines(t, fresh, opt); !slices.Equal(got, want) {
			t.Errorf("%s: the tree from the stacks folded ahead differs:\n%v\nwant\n%v", st.Type, got, want)
		}
	}
	if q, _ := prepared.newQuery(opt); q.paths.folded.Load() != made {
		t.Errorf("the stacks were folded again")
	}

	// Busy for ever: the background fold's two halves (the stacks are
	// halved from two on) wait at their first stacks until a tree asks
	// for the fold, which they then finish without waiting for idle.
	defer func(old int) { parallelGroup = old }(parallelGroup)
	parallelGroup = 2
	busy := load()
	started := make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		done <- busy.FoldBackground(DefaultOptions(), func() bool {
			once.Do(func() { close(started) })
			return true
		})
	}()
	<-started
	type built struct {
		tr  *Tree
		err error
	}
	tree := make(chan built, 1)
	go func() {
		tr, err := busy.Tree(opt, TreeOptions{})
		tree <- built{tr, err}
	}()
	select {
	case got := <-tree:
		if got.err != nil {
			t.Fatal(got.err)
		}
		if want := treeLines(t, fresh, opt); !slices.Equal(allLines(got.tr), want) {
			t.Errorf("the tree made while the background fold gave way differs")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a tree waited for a background fold that gives way to a busy explorer")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// treeLines is the whole tree for opt, a line per node: depth, name,
// self and total.
func treeLines(t *testing.T, e *Engine, opt Options) []string {
	t.Helper()
	tr, err := e.Tree(opt, TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return allLines(tr)
}

// allLines is every node of tr, expanded depth first: depth, name,
// self and total.
func allLines(tr *Tree) []string {
	var out []string
	walk(tr, tr.Roots(), func(n *TreeNode) {
		out = append(out, fmt.Sprint(n.Depth, tr.Nodes.Name(n.Node), n.Self, n.Total))
	})
	return out
}

// TestKeptWeights: the stack weights an engine keeps serve only the
// options they were summed for: trees made in turn on one engine at
// other sample types, with and without tag filters and mean, equal a
// fresh engine's.
func TestKeptWeights(t *testing.T) {
	load := func() *Engine { return NewEngine(engineFor(t, "../testdata/go/cpu_labels.pb.gz").p) }
	warm := load()
	sets := []map[string]string{
		nil, {"sample_index": "samples"}, {"tagfocus": "worker=w0"}, {"tagignore": "worker=w0"},
		{"tagfocus": "worker=w0", "sample_index": "samples"}, {"mean": "true"}, nil, {"tagfocus": "worker=w1"},
	}
	for _, set := range sets {
		opt := testOptions(t, set)
		if got, want := treeLines(t, warm, opt), treeLines(t, load(), opt); !slices.Equal(got, want) {
			t.Errorf("%v: the tree on an engine that kept other weights differs from a fresh engine's", set)
		}
	}
}
