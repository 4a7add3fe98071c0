package analysis

import "sort"

// Grouping a whole row of the tree at once, in stack order.
//
// A node's paths are stacks in ascending order, but a row's nodes
// interleave them: grouping node after node reads each stack's cursor,
// weight and locations from a cache line that the other nodes' stacks
// evicted since, a miss per array per path. On a million distinct
// stacks that was most of a flame graph's layout. A sweep tags each
// stack with its node in the row, then reads the stacks in order, so
// the same arrays are read front to back.

// sweepRow is the fewest paths a row must have for Expand to sweep it (a
// variable for the tests), and 1/sweepShare the least share of the
// stacks: a sweep reads every stack's tag.
var sweepRow = 1 << 16

const sweepShare = 8

// rowTag is a stack's place in a sweep: its node in the row (index+1, 0
// for a stack not in the row) and its index among the row's paths.
type rowTag struct{ k, at int32 }

// rowKids is the children one sweep found: per node of the row, in the
// order met, and an index from (node of the row, child's node) to the
// child's index+1 in its node's list, by the pair's number in ids.
type rowKids struct {
	kids [][]child
	ids  edgeIndex // from: the row's node (index+1), to: the child's node
	pos  []int32   // by id
}

func newRowKids(parents int) *rowKids {
	return &rowKids{kids: make([][]child, parents), ids: newEdgeIndex(0)}
}

// child returns the index+1 of node's child under the row's node k
// (index+1), adding it when it is new.
func (r *rowKids) child(k, node int32) int32 {
	id, added := r.ids.number(edgeKey{k, node})
	if added {
		r.kids[k-1] = append(r.kids[k-1], child{node: node})
		r.pos = append(r.pos, int32(len(r.kids[k-1])))
	}
	return r.pos[id]
}

// sweep groups the children of row (nodes not grouped yet, with paths
// between them) by reading the stacks in order, in two halves on two
// cores, then places each node's children.
func (t *Tree) sweep(row []*TreeNode, paths int) {
	n := t.stacks
	tags := make([]rowTag, n)
	which := make([]int32, paths) // per path of the row, as group's
	base := make([]int32, len(row)+1)
	at := int32(0)
	for k, nd := range row {
		base[k] = at
		for _, s := range nd.paths {
			tags[s] = rowTag{int32(k + 1), at}
			at++
		}
	}
	base[len(row)] = at
	h := n / 2
	var a, b *rowKids
	both(func() { a = t.sweepStacks(tags, 0, h, which, len(row)) },
		func() { b = t.sweepStacks(tags, h, n, which, len(row)) })
	// The second half's children join the first's, in the order met;
	// a node's paths from the second half are the last of its paths.
	var remap []int32
	for k, kb := range b.kids {
		if len(kb) == 0 {
			continue
		}
		remap = append(remap[:0], 0)
		for i := range kb {
			j := a.child(int32(k+1), kb[i].node)
			a.kids[k][j-1].merge(&kb[i])
			remap = append(remap, j)
		}
		ps := row[k].paths
		from := sort.Search(len(ps), func(i int) bool { return ps[i] >= int32(h) })
		for i := base[k] + int32(from); i < base[k+1]; i++ {
			which[i] = remap[which[i]]
		}
	}
	// Placing: the nodes in two shares of about half the paths each.
	place := func(g *grouper, nodes []*TreeNode, first int) {
		for i, nd := range nodes {
			k := first + i
			nd.children = t.place(g, nd, nd.paths, which[base[k]:base[k+1]], a.kids[k], nd.Depth+1)
			nd.expanded = true
			nd.paths = nil
		}
	}
	k := sort.Search(len(row), func(k int) bool { return 2*int(base[k]) >= paths })
	both(func() { place(&t.g, row[:k], 0) }, func() { place(&t.g2, row[k:], k) })
}

// sweepStacks is sweep's pass over stacks [from, to): it reads each
// tagged stack's next frame, steps its cursor and adds it to its child.
func (t *Tree) sweepStacks(tags []rowTag, from, to int, which []int32, parents int) *rowKids {
	r := newRowKids(parents)
	for s := from; s < to; s++ {
		tg := tags[s]
		if tg.k == 0 {
			continue
		}
		j := t.curSlot[s]
		if j < 0 {
			which[tg.at] = 0
			continue // ends at its node
		}
		c := r.child(tg.k, t.locNodes[j])
		which[tg.at] = c
		t.take(&r.kids[tg.k-1][c-1], int32(s), j)
	}
	return r
}
