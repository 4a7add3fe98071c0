package analysis

import (
	"sort"

	"github.com/pprof-tui/pprof-tui/format"
)

// Tree is a call tree: a trie of the filtered stacks, root first
// (top-down) or leaf first (inverted: who calls the hot functions). It is
// expanded lazily: building it walks the stacks once, and each node's
// children are grouped only when asked for, so the first screen of a
// million-sample profile costs one pass, not the whole trie.
type Tree struct {
	SampleType format.ValueType
	Total      int64 // the percentage denominator, as Top's
	Inverted   bool
	Nodes      *NodeSet

	// The filtered stacks as node paths: path i is
	// frames[off[i]:off[i+1]], in tree order (root first, or leaf first
	// when inverted), with direct recursion folded when asked.
	off    []int32
	frames []int32
	w, dw  []int64 // per path
	mean   bool
	// Cutoff is nodefraction of the total: nodes whose |total| is below
	// it are left out of the tree (0: none are).
	Cutoff int64
	roots  []*TreeNode
	slot   []int32 // node → child index+1 while grouping
	// scratch is group's buffer, kept between calls (the biggest is the
	// roots' grouping, over all the paths).
	scratch []int32
}

// TreeNode is one node of a Tree.
type TreeNode struct {
	Node   int32 // into Tree.Nodes
	Depth  int
	Parent *TreeNode
	// Self is the value of the paths that end here; Total of all paths
	// through here (mean-divided under Options.Mean).
	Self, Total int64
	// Weight is the sum of |value| of the paths through here: the width
	// pprof's flame graph gives the node. It is Total unless a base
	// profile was subtracted, where growth and shrinkage below a node
	// both count and its children's weights never exceed its own.
	Weight int64

	self, total, weight, selfDiv, totalDiv int64
	paths                                  []int32 // the paths through this node
	children                               []*TreeNode
	expanded                               bool
}

// TreeOptions adds tree-only choices to Options.
type TreeOptions struct {
	Inverted bool
	// FoldRecursion shows direct recursion A→A→A as one A.
	FoldRecursion bool
}

// Tree builds the call tree for opt.
func (e *Engine) Tree(opt Options, to TreeOptions) (*Tree, error) {
	q, err := e.newQuery(opt)
	if err != nil {
		return nil, err
	}
	p := e.p
	w, dw, total, totalDiv := q.stackWeights()
	t := &Tree{SampleType: p.SampleTypes[q.vi], Inverted: to.Inverted, Nodes: &NodeSet{q.nodes}, mean: q.mean}
	t.off = make([]int32, 1, p.Stacks.Len()+1)
	t.frames = make([]int32, 0, len(p.Stacks.Locs)+len(p.Stacks.Locs)/4)
	var path []int32
	for s := 0; s < p.Stacks.Len(); s++ {
		if w[s] == 0 && (dw == nil || dw[s] == 0) {
			continue
		}
		var ok bool
		path, ok = q.appendPath(path[:0], nil, p.Stacks.At(int32(s)))
		if !ok || len(path) == 0 {
			continue
		}
		if to.Inverted {
			for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
				path[l], path[r] = path[r], path[l]
			}
		}
		if to.FoldRecursion {
			k := 0
			for i, n := range path {
				if i > 0 && n == path[k-1] {
					continue
				}
				path[k] = n
				k++
			}
			path = path[:k]
		}
		t.frames = append(t.frames, path...)
		t.off = append(t.off, int32(len(t.frames)))
		t.w = append(t.w, w[s])
		if dw != nil {
			t.dw = append(t.dw, dw[s])
		}
	}
	t.Total = total
	if q.mean && totalDiv != 0 {
		t.Total = total / totalDiv
	}
	if f := q.opt.NodeFraction; f > 0 {
		t.Cutoff = abs64(int64(float64(t.Total) * f))
	}
	all := make([]int32, len(t.w))
	for i := range all {
		all[i] = int32(i)
	}
	t.roots = t.group(nil, all, 0)
	return t, nil
}

// Roots returns the top-level nodes, heaviest first.
func (t *Tree) Roots() []*TreeNode { return t.roots }

// Children returns n's children, heaviest first, grouping them on first use.
func (t *Tree) Children(n *TreeNode) []*TreeNode {
	if !n.expanded {
		n.children = t.group(n, n.paths, n.Depth+1)
		n.expanded = true
		n.paths = nil // the children hold them now
	}
	return n.children
}

// Leaf reports whether n has no children (without expanding it).
func (t *Tree) Leaf(n *TreeNode) bool {
	if n.expanded {
		return len(n.children) == 0
	}
	for _, pi := range n.paths {
		if t.off[pi+1]-t.off[pi] > int32(n.Depth+1) {
			return false
		}
	}
	return true
}

// group splits paths by their frame at depth into nodes under parent.
// It makes two passes over the paths (one to find the children and add
// up their values, one to hand out the paths) so that the children come
// in one block and their paths in one array, without regrowing either:
// on a million samples the layout of a flame graph groups hundreds of
// thousands of paths per row.
func (t *Tree) group(parent *TreeNode, paths []int32, depth int) []*TreeNode {
	if t.slot == nil {
		t.slot = make([]int32, t.Nodes.Len())
	}
	type child struct {
		node                                   int32
		paths                                  int32
		self, total, weight, selfDiv, totalDiv int64
	}
	var kids []child
	kept := 0
	// which[i] is the child of paths[i] (0 for none, else index+1).
	which := t.scratch[:0]
	if cap(which) < len(paths) {
		which = make([]int32, 0, len(paths))
	}
	which = which[:len(paths)]
	for i, pi := range paths {
		start, end := t.off[pi], t.off[pi+1]
		if int32(depth) >= end-start {
			which[i] = 0
			continue // ends at the parent
		}
		n := t.frames[start+int32(depth)]
		k := t.slot[n]
		if k == 0 {
			kids = append(kids, child{node: n})
			k = int32(len(kids))
			t.slot[n] = k
		}
		which[i] = k
		c := &kids[k-1]
		c.paths++
		kept++
		w := t.w[pi]
		c.total += w
		c.weight += abs64(w)
		if t.dw != nil {
			c.totalDiv += t.dw[pi]
		}
		if int32(depth) == end-start-1 {
			c.self += w
			if t.dw != nil {
				c.selfDiv += t.dw[pi]
			}
		}
	}
	nodes := make([]TreeNode, len(kids))
	out := make([]*TreeNode, len(kids))
	buf := make([]int32, kept)
	at := int32(0)
	for i := range kids {
		k := &kids[i]
		c := &nodes[i]
		*c = TreeNode{Node: k.node, Depth: depth, Parent: parent,
			self: k.self, total: k.total, weight: k.weight, selfDiv: k.selfDiv, totalDiv: k.totalDiv,
			paths: buf[at : at : at+k.paths]}
		at += k.paths
		out[i] = c
	}
	for i, pi := range paths {
		if k := which[i]; k > 0 {
			c := out[k-1]
			c.paths = append(c.paths, pi) // within its capacity
		}
	}
	t.scratch = which
	for _, c := range out {
		t.slot[c.Node] = 0
		c.Self, c.Total, c.Weight = c.self, c.total, c.weight
		if t.mean {
			if c.selfDiv != 0 {
				c.Self = c.self / c.selfDiv
			}
			if c.totalDiv != 0 {
				c.Total = c.total / c.totalDiv
				c.Weight = c.weight / c.totalDiv
			}
		}
	}
	names := t.Nodes.t.names
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if x, y := abs64(a.total), abs64(b.total); x != y {
			return x > y
		}
		return names[a.Node] < names[b.Node]
	})
	if t.Cutoff > 0 {
		// nodefraction: the light nodes go, as from pprof's graphs.
		kept := out[:0]
		for _, c := range out {
			if abs64(c.Total) >= t.Cutoff {
				kept = append(kept, c)
			}
		}
		out = kept
	}
	return out
}

// Locate returns the node where the heaviest path through a node that
// match accepts (match is given NodeSet ids) first meets one, grouping
// only the nodes above it; nil when no path has one. It scans the paths
// once, so finding a light function deep in a huge tree costs what
// finding a heavy one does (a walk down the tree would group every
// node before it).
func (t *Tree) Locate(match func(node int32) bool) *TreeNode {
	ok := make([]bool, t.Nodes.Len())
	for i := range ok {
		ok[i] = match(int32(i))
	}
	best, at, bestW := -1, 0, int64(-1)
	for pi, w := range t.w {
		if abs64(w) <= bestW {
			continue // cannot beat the best so far
		}
		for d, n := range t.frames[t.off[pi]:t.off[pi+1]] {
			if ok[n] {
				best, at, bestW = pi, d, abs64(w)
				break
			}
		}
	}
	if best < 0 {
		return nil
	}
	path := t.frames[t.off[best]:t.off[best+1]]
	kids := t.roots
	for d := 0; ; d++ {
		var n *TreeNode
		for _, c := range kids {
			if c.Node == path[d] {
				n = c
				break
			}
		}
		if n == nil || d == at {
			return n
		}
		kids = t.Children(n)
	}
}

// HeaviestPath expands from n down the heaviest child at each level and
// returns the nodes on the way (n first).
func (t *Tree) HeaviestPath(n *TreeNode) []*TreeNode {
	out := []*TreeNode{n}
	for {
		cs := t.Children(n)
		if len(cs) == 0 {
			return out
		}
		n = cs[0]
		out = append(out, n)
	}
}
