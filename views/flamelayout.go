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
	// pivot: the layout is a pivot (layoutPivot), whose frames before
	// top are the callers, drawn upwards, and whose moves up and down
	// are up and down, not parent and child.
	pivot    bool
	up, down []int // a pivot's moves: per frame, the frame ↑ and ↓ go to, or -1
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
	if l.pivot {
		for ; n != nil; n = n.Parent {
			for i := range l.frames {
				if l.frames[i].n == n {
					return i
				}
			}
		}
		return l.top
	}
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

// above is the frame ↑ goes to from frame i (-1: none): its parent,
// or in a pivot the frame drawn above it.
func (l *flameLayout) above(i int) int {
	if l.pivot {
		return l.up[i]
	}
	return l.frames[i].parent
}

// below is the frame ↓ goes to from frame i (-1: none): its heaviest
// child on screen (a narrow run only when it is all there is), or in a
// pivot the heaviest frame drawn below it.
func (l *flameLayout) below(i int) int {
	if l.pivot {
		return l.down[i]
	}
	if fr := &l.frames[i]; fr.c0 < fr.c1 {
		return fr.c0
	}
	return -1
}

// empty reports whether the graph has nothing to draw.
func (l *flameLayout) empty() bool { return len(l.frames) == 0 || l.frames[l.top].w == 0 }

// layoutPivot lays out the pivot on a function: the graph of its callers
// (up, an inverted tree, whose roots are the function's nodes)
// drawn upwards above the function's row, and of its callees (down, a
// tree whose roots are the function's nodes) below it. Both halves are
// as wide as the function's cum: every stack through it, merged across
// its call sites.
func layoutPivot(up, down *analysis.Tree, width int) *flameLayout {
	lu := layoutFlame(up, nil, width)
	ld := layoutFlame(down, nil, width)
	l := &flameLayout{width: width, pivot: true, sum: ld.sum, scale: ld.scale}
	if ld.nrows() < 2 {
		// Nothing goes through the function: the root alone, empty.
		l.frames = []flameFrame{{kind: frameRoot, x1: width, parent: -1}}
		l.rows = []int{0, 1}
		l.up, l.down = []int{-1}, []int{-1}
		return l
	}
	newU := make([]int, len(lu.frames))
	newD := make([]int, len(ld.frames))
	for i := range newU {
		newU[i] = -1
	}
	for i := range newD {
		newD[i] = -1
	}
	copyRow := func(from *flameLayout, r int, idx []int) {
		l.rows = append(l.rows, len(l.frames))
		for i := from.rows[r]; i < from.rows[r+1]; i++ {
			idx[i] = len(l.frames)
			l.frames = append(l.frames, from.frames[i])
		}
	}
	for r := lu.nrows() - 1; r >= 2; r-- {
		copyRow(lu, r, newU)
	}
	l.top = len(l.frames)
	for r := 1; r < ld.nrows(); r++ {
		copyRow(ld, r, newD)
	}
	l.rows = append(l.rows, len(l.frames))
	// The function's frames in the callers' layout, by node: where the
	// callers' rows meet the function's row.
	fnRow := map[int32]int{}
	for i := ld.rows[1]; i < ld.rows[2]; i++ {
		if n := ld.frames[i].n; n != nil {
			fnRow[n.Node] = newD[i]
		}
	}
	meet := make([]int, len(lu.frames)) // a callers' frame of the function → its frame here
	for i := range meet {
		meet[i] = -1
	}
	if lu.nrows() >= 2 {
		for i := lu.rows[1]; i < lu.rows[2]; i++ {
			if n := lu.frames[i].n; n != nil {
				if k, ok := fnRow[n.Node]; ok {
					meet[i] = k
				}
			}
		}
	}
	l.up, l.down = make([]int, len(l.frames)), make([]int, len(l.frames))
	remap := func(from *flameLayout, idx []int, old, k int) {
		fr := &l.frames[k]
		if fr.c0 < fr.c1 {
			fr.c0, fr.c1 = idx[fr.c0], idx[fr.c0]+fr.c1-from.frames[old].c0
		}
		first := -1
		if fr.c0 < fr.c1 {
			first = fr.c0
		}
		switch p := fr.parent; {
		case from == ld && p == 0: // the function's row: its parent is the root
			fr.parent = -1
			l.up[k], l.down[k] = -1, first
		case from == ld:
			fr.parent = idx[p]
			l.up[k], l.down[k] = fr.parent, first
		case meet[p] >= 0:
			fr.parent = meet[p]
			l.up[k], l.down[k] = first, fr.parent
		default:
			fr.parent = idx[p]
			l.up[k], l.down[k] = first, fr.parent
		}
	}
	for old, k := range newD {
		if k >= 0 {
			remap(ld, newD, old, k)
		}
	}
	for old, k := range newU {
		if k >= 0 {
			remap(lu, newU, old, k)
		}
	}
	// ↑ from the function's row goes to its heaviest caller.
	for i := lu.rows[1]; lu.nrows() >= 2 && i < lu.rows[2]; i++ {
		if k := meet[i]; k >= 0 {
			if fr := &lu.frames[i]; fr.c0 < fr.c1 {
				l.up[k] = newU[fr.c0]
			}
		}
	}
	return l
}
