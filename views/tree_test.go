package views

import (
	"slices"
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// TestExpandHeaviest: opening the heaviest path puts in one block the
// rows that opening it level by level puts in, for every root of a
// tree and of its inverse (whose roots have callers below them), with
// the cursor on the deepest row opened; a path opened partly is opened
// on from where it is.
func TestExpandHeaviest(t *testing.T) {
	e := testEngine(t, "cpu_labels.pb.gz")
	opt := analysis.DefaultOptions()
	for _, inverted := range []bool{false, true} {
		v := NewTree(testCommon())
		v.SetSize(100, 30)
		v.inverted = inverted
		showQuery(t, v, e, opt)
		names := func(v *Tree) []string {
			var out []string
			for _, r := range v.rows {
				out = append(out, r.guide+v.tree.Nodes.Name(r.n.Node))
			}
			return out
		}
		roots := len(v.tree.Roots())
		rowOf := func(v *Tree, root int) int {
			return slices.IndexFunc(v.rows, func(r treeRow) bool { return r.n == v.tree.Roots()[root] })
		}
		deep := 0
		for root := range roots {
			fresh := func() *Tree {
				w := NewTree(testCommon())
				w.SetSize(100, 30)
				w.inverted = inverted
				showQuery(t, w, e, opt)
				w.collapse(0) // the first screen opened the heaviest root
				return w
			}
			// Level by level, as the rows were opened one expand at a time.
			want := fresh()
			i := rowOf(want, root)
			for want.expand(i) && i+1 < len(want.rows) && want.rows[i+1].n.Depth > want.rows[i].n.Depth {
				i++
			}
			got := fresh()
			got.expandHeaviest(rowOf(got, root), true)
			if g, w := names(got), names(want); !slices.Equal(g, w) {
				t.Fatalf("inverted=%v root %d: rows\n%q\nwant\n%q", inverted, root, g, w)
			}
			if got.l.cursor != i {
				t.Errorf("inverted=%v root %d: cursor on row %d, want %d", inverted, root, got.l.cursor, i)
			}
			deep = max(deep, i-rowOf(want, root))
			// Partly open: one level, then the rest.
			part := fresh()
			j := rowOf(part, root)
			part.expand(j)
			part.expandHeaviest(j, false)
			if g, w := names(part), names(want); !slices.Equal(g, w) {
				t.Fatalf("inverted=%v root %d, one level open first: rows differ", inverted, root)
			}
		}
		if roots < 2 || deep < 3 {
			t.Errorf("inverted=%v: %d roots, heaviest paths %d deep", inverted, roots, deep)
		}
	}
}
