package analysis

import (
	"fmt"
	"slices"
	"testing"
)

// TestTreeRelease: a tree whose cursors are let go between groupings
// (Release) grows the same nodes as one that keeps them: grouped node by
// node with a release before each (Leaf asked first), and row by row
// (Expand, on two cores and by sweeps) with a release between rows; for
// top-down and inverted trees, folded recursion, filters that cut or
// hide frames, and the pivot's trees that start at a function's frames.
func TestTreeRelease(t *testing.T) {
	group, row := parallelGroup, sweepRow
	defer func() { parallelGroup, sweepRow = group, row }()
	parallelGroup, sweepRow = 2, 4
	eachTreeSet(t, func(what string, e *Engine, opt Options, ns *NodeSet) {
		from := make([]bool, ns.Len())
		for i := range from {
			from[i] = ns.FuncName(int32(i)) == "runtime.mcall" || ns.FuncName(int32(i)) == "main.fib"
		}
		for _, to := range []TreeOptions{{}, {Inverted: true}, {FoldRecursion: true}, {From: from}, {Inverted: true, From: from}} {
			what := fmt.Sprintf("%s inverted=%v fold=%v from=%v", what, to.Inverted, to.FoldRecursion, to.From != nil)
			tree := func() *Tree {
				tr, err := e.Tree(opt, to)
				if err != nil {
					t.Fatal(err)
				}
				return tr
			}
			want := allLines(tree())

			tr := tree()
			before := tr.Bytes()
			tr.Release()
			if got := before - tr.Bytes(); got != 8*int64(tr.stacks) {
				t.Fatalf("%s: Release let go of %d bytes, want the cursors' %d", what, got, 8*tr.stacks)
			}
			var byNode []string
			var grow func(nodes []*TreeNode)
			grow = func(nodes []*TreeNode) {
				for _, n := range nodes {
					byNode = append(byNode, fmt.Sprint(n.Depth, tr.Nodes.Name(n.Node), n.Self, n.Total))
					tr.Release()
					leaf := tr.Leaf(n)
					tr.Release()
					kids := tr.Children(n)
					if leaf != (len(kids) == 0) {
						t.Fatalf("%s: %s: Leaf says %v, and it has %d children", what, tr.Nodes.Name(n.Node), leaf, len(kids))
					}
					grow(kids)
				}
			}
			grow(tr.Roots())
			if !slices.Equal(byNode, want) {
				t.Fatalf("%s: grouped node by node, released before each:\n%v\nwant\n%v", what, byNode, want)
			}

			tr = tree()
			for rows := tr.Roots(); len(rows) > 0; {
				tr.Release()
				tr.Expand(rows)
				var next []*TreeNode
				for _, n := range rows {
					next = append(next, tr.Children(n)...)
				}
				rows = next
			}
			if got := allLines(tr); !slices.Equal(got, want) {
				t.Fatalf("%s: grouped row by row, released between rows:\n%v\nwant\n%v", what, got, want)
			}
		}
	})
}
