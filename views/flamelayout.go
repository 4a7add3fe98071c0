package views

// The flame graph's layout: which frames are drawn where, for one tree,
// zoom and width. The Flame view (flame.go) draws it and moves over it.

import (
	"sort"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// flameLayout is the frames of the flame graph at one zoom and width, row
// by row, each row left to right.
type flameLayout struct {
	width  int
	frames []flameFrame
	rows   []int // row r is frames[rows[r]:rows[r+1]]
	// top is the zoomed frame (the root when not zoomed); frames (and
	// rows) before it are its ancestors.
	top int
	// scale is cells per unit of value.
	scale float64
	// sum is the root's value: the total, or in a diff the net change
	// (whose denominator, the tree's Total, is the base's total).
	sum int64
}

type flameFrame struct {
	n      *analysis.TreeNode // nil for the root and narrow runs
	kind   frameKind
	lo, w  int64 // value offset from the zoomed frame's left edge, and width
	x0, x1 int   // columns [x0, x1)
	parent int   // index of the frame above, -1 for the root
	c0, c1 int   // its children are frames[c0:c1]
	hidden int   // frames in a narrow run
}

type frameKind uint8

const (
	frameNode frameKind = iota
	frameRoot
	frameNarrow // a run of siblings below one cell each
)

// layoutFlame lays out the flame graph of tr zoomed on zoom (nil: the
// root) in width columns.
func layoutFlame(tr *analysis.Tree, zoom *analysis.TreeNode, width int) *flameLayout {
	l := &flameLayout{width: width}
	var rootW int64
	for _, r := range tr.Roots() {
		rootW += r.Weight
		l.sum += r.Total
	}
	l.frames = append(l.frames, flameFrame{kind: frameRoot, w: rootW, x1: width, parent: -1})
	l.rows = append(l.rows, 0)
	// The zoomed frame and its ancestors span the width.
	var chain []*analysis.TreeNode
	for a := zoom; a != nil; a = a.Parent {
		chain = append(chain, a)
	}
	for k := len(chain) - 1; k >= 0; k-- {
		i := len(l.frames)
		l.frames[i-1].c0, l.frames[i-1].c1 = i, i+1
		l.frames = append(l.frames, flameFrame{n: chain[k], w: chain[k].Weight, x1: width, parent: i - 1})
		l.rows = append(l.rows, i)
	}
	l.top = len(l.frames) - 1
	if w := l.frames[l.top].w; w > 0 {
		l.scale = float64(width) / float64(w)
	}
	var row []*analysis.TreeNode
	for from, to := l.top, len(l.frames); from < to && l.scale > 0; from, to = to, len(l.frames) {
		// The row's frames' children, grouped at once (on two cores).
		row = row[:0]
		for p := from; p < to; p++ {
			if f := &l.frames[p]; f.kind != frameNarrow && f.kind != frameRoot {
				row = append(row, f.n)
			}
		}
		tr.Expand(row)
		for p := from; p < to; p++ {
			l.placeChildren(tr, p)
		}
		if len(l.frames) > to {
			l.rows = append(l.rows, to)
		}
	}
	l.rows = append(l.rows, len(l.frames))
	return l
}

// cell is the column of value offset v.
func (l *flameLayout) cell(v int64) int {
	return min(l.width, max(0, int(float64(v)*l.scale+0.5)))
}

// placeChildren lays out the children of frame p in the next row:
// right-aligned under it (its self value is the gap on the left),
// heaviest first, until they are narrower than a cell; the rest become
// one narrow run.
func (l *flameLayout) placeChildren(tr *analysis.Tree, p int) {
	parent := l.frames[p]
	var kids []*analysis.TreeNode
	switch {
	case parent.kind == frameRoot:
		kids = tr.Roots()
	case parent.kind == frameNarrow || tr.Leaf(parent.n):
		return
	default:
		kids = tr.Children(parent.n)
	}
	kids = byWeight(kids)
	var sum int64
	for _, k := range kids {
		sum += k.Weight
	}
	v := parent.lo + max(0, parent.w-sum)
	c0 := len(l.frames)
	for j, k := range kids {
		x0 := l.cell(v)
		if x0 >= parent.x1 {
			break
		}
		if float64(k.Weight)*l.scale < 1 {
			// All the rest are narrower still.
			l.frames = append(l.frames, flameFrame{kind: frameNarrow, lo: v, w: parent.lo + parent.w - v,
				x0: x0, x1: parent.x1, parent: p, hidden: len(kids) - j})
			break
		}
		x1 := min(l.cell(v+k.Weight), parent.x1)
		l.frames = append(l.frames, flameFrame{n: k, lo: v, w: k.Weight, x0: x0, x1: x1, parent: p})
		v += k.Weight
	}
	l.frames[p].c0, l.frames[p].c1 = c0, len(l.frames)
}

// byWeight returns kids heaviest first by weight. The tree orders them by
// |total|, which is the same order unless a base was subtracted; then a
// sorted copy is made.
func byWeight(kids []*analysis.TreeNode) []*analysis.TreeNode {
	if sort.SliceIsSorted(kids, func(i, j int) bool { return kids[i].Weight > kids[j].Weight }) {
		return kids
	}
	c := append([]*analysis.TreeNode(nil), kids...)
	sort.SliceStable(c, func(i, j int) bool { return c[i].Weight > c[j].Weight })
	return c
}

// rowOf returns the row of frame i.
func (l *flameLayout) rowOf(i int) int {
	return sort.SearchInts(l.rows, i+1) - 1
}

// nrows is the number of rows.
func (l *flameLayout) nrows() int { return len(l.rows) - 1 }

// locate returns the frame of node n (nil: the root), or of its nearest
// ancestor that has one.
func (l *flameLayout) locate(n *analysis.TreeNode) int {
	for ; n != nil; n = n.Parent {
		if r := n.Depth + 1; r < l.nrows() {
			for i := l.rows[r]; i < l.rows[r+1]; i++ {
				if l.frames[i].n == n {
					return i
				}
			}
		}
	}
	return 0
}
