package analysis

import "slices"

// edgeIndex numbers call edges in the order they are first seen, with
// an open-addressing index from edge to id: on profiles with mostly
// distinct stacks a Go map keyed by edge, with a pointer per value, took
// most of the time of the explorer's first screen.
type edgeIndex struct {
	keys  []edgeKey // by id
	slots []int32   // id+1, 0 for empty; len is a power of two
}

// newEdgeIndex sizes the index for about hint edges, so that a profile
// with a million inlined frame slots does not grow it twenty times.
func newEdgeIndex(hint int) edgeIndex {
	size := 1024
	for size < 2*hint {
		size *= 2
	}
	return edgeIndex{keys: make([]edgeKey, 0, hint), slots: make([]int32, size)}
}

func edgeHash(e edgeKey) uint64 {
	return (uint64(uint32(e.from))<<32 | uint64(uint32(e.to))) * 0x9e3779b97f4a7c15
}

// find returns e's id, or -1.
func (x *edgeIndex) find(e edgeKey) int32 {
	mask := uint64(len(x.slots) - 1)
	for i := edgeHash(e) >> 32 & mask; ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			return -1
		}
		if x.keys[s-1] == e {
			return s - 1
		}
	}
}

// number returns e's id, and whether e is new (numbered now).
func (x *edgeIndex) number(e edgeKey) (id int32, added bool) {
	if id := x.find(e); id >= 0 {
		return id, false
	}
	if 2*(len(x.keys)+1) > len(x.slots) {
		x.grow()
	}
	id = int32(len(x.keys))
	x.keys = append(x.keys, e)
	x.place(e, id)
	return id, true
}

// place puts id, e's, in the first free slot from e's hash.
func (x *edgeIndex) place(e edgeKey, id int32) {
	mask := uint64(len(x.slots) - 1)
	i := edgeHash(e) >> 32 & mask
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = id + 1
}

func (x *edgeIndex) grow() {
	x.slots = make([]int32, 2*len(x.slots))
	for id, e := range x.keys {
		x.place(e, int32(id))
	}
}

// edgeSums accumulates call edges (weight, whether every occurrence is
// an inlined call, whether some is residual) in flat arrays indexed by
// edge id.
type edgeSums struct {
	edgeIndex
	// sums are by id, an edge's fields side by side: counting an edge
	// once per stack reads and writes one cache line, not three, and
	// the edges a walk of a million distinct stacks updates (70,000)
	// fit in a core's cache.
	sums []edgeCount
	// div, for a graph under mean, is the edges' count sums by id (nil:
	// not summed).
	div []int64
	// static sums the plain stacks' inlined calls by the node table's
	// static edge (see nodeTable.staticEdges), in an array rather than
	// through the index: on 1.1M locations, a third with inlined
	// frames, the index took a quarter of a recomputation. They are
	// edges of their own, all inline, but for those settle moves into
	// the indexed ones.
	static  []int64
	statics *staticEdges
}

// newEdgeSums sizes the sums for about hint edges (newEdgeIndex).
func newEdgeSums(hint int) *edgeSums {
	return &edgeSums{
		edgeIndex: newEdgeIndex(hint),
		sums:      make([]edgeCount, 0, hint),
	}
}

// edgeCount is an edge's sums: its weight, whether every call it sums is
// inlined, whether some crossed dropped frames (a graph's residual
// edge), and the last stack that counted it (once per stack).
type edgeCount struct {
	weight              int64
	stamp               int32
	allInline, residual bool
}

// id returns e's id, adding it (weight 0, all inline) if new.
func (t *edgeSums) id(e edgeKey) int32 {
	id, added := t.number(e)
	if added {
		t.sums = append(t.sums, edgeCount{allInline: true})
		if t.div != nil {
			t.div = append(t.div, 0)
		}
	}
	return id
}

// add counts edge id in stack mark (stack index + 1) once per stack, as
// pprof counts an edge once per sample: its first occurrence gives the
// inline flag. It reports whether it counted it (the stack's first).
func (t *edgeSums) add(id, mark int32, w int64, inline bool) bool {
	c := &t.sums[id]
	if c.stamp == mark {
		return false
	}
	c.stamp = mark
	c.weight += w
	c.allInline = c.allInline && inline
	return true
}

// addSum adds w to edge id: the sum over stacks that pass the edge once
// each (and not otherwise counted).
func (t *edgeSums) addSum(id int32, w int64, inline bool) {
	c := &t.sums[id]
	c.weight += w
	c.allInline = c.allInline && inline
}

// settle moves the static sums of edges that are also indexed (an edge
// entered by a call in one stack and inlined in another) to the indexed
// edge, so that each edge is counted in one place. A plain stack passes
// a static edge once and is counted in static only then: a stack that
// passes it again is not plain.
func (t *edgeSums) settle() {
	if t.static == nil {
		return
	}
	for id, e := range t.keys {
		if s := t.statics.index.find(e); s >= 0 && t.static[s] != 0 {
			t.sums[id].weight += t.static[s]
			t.static[s] = 0
		}
	}
}

// keep drops what only summing needs (the index's slots), once
// the sums are settled: a kept table's aggregate keeps its edges for
// each alone. No edge can be found or added afterwards.
func (t *edgeSums) keep() {
	t.slots = nil
}

// each calls f with every edge: its target, weight and whether every
// call it sums is inlined.
func (t *edgeSums) each(f func(to int32, w int64, allInline bool)) {
	for id, e := range t.keys {
		f(e.to, t.sums[id].weight, t.sums[id].allInline)
	}
	for s, w := range t.static {
		if w != 0 {
			f(t.statics.index.keys[s].to, w, true)
		}
	}
}

// merge adds o's edges, summed over other stacks, into t: their sums to
// t's, o's new edges after t's in o's order. o's edges are looked up in
// two halves, on two goroutines from parallelEdges on: each is one of
// t's or new, so the two write to different sums, and each lists its
// new ones, appended in order at the end (wide's graph: 1M edges into
// 1.4M took 130 ms on one). The new edges are not put in t's index,
// which merge drops: no edge can be found or added afterwards (as after
// keep).
func (t *edgeSums) merge(o *edgeSums) {
	if t.static == nil {
		t.static, t.statics = o.static, o.statics
	} else if o.static != nil {
		for id, w := range o.static {
			t.static[id] += w
		}
	}
	var added [2][]int32 // per half: o's edges that t does not have
	inHalves(len(o.keys), parallelEdges, func(part, lo, hi int) {
		for i := lo; i < hi; i++ {
			id := t.find(o.keys[i])
			if id < 0 {
				added[part] = append(added[part], int32(i))
				continue
			}
			c, oc := &t.sums[id], &o.sums[i]
			c.weight += oc.weight
			c.allInline = c.allInline && oc.allInline
			c.residual = c.residual || oc.residual
			if t.div != nil {
				t.div[id] += o.div[i]
			}
		}
	})
	n := len(added[0]) + len(added[1])
	t.keys, t.sums = slices.Grow(t.keys, n), slices.Grow(t.sums, n)
	if t.div != nil {
		t.div = slices.Grow(t.div, n)
	}
	for _, ids := range added {
		for _, i := range ids {
			t.keys = append(t.keys, o.keys[i])
			t.sums = append(t.sums, o.sums[i])
			if t.div != nil {
				t.div = append(t.div, o.div[i])
			}
		}
	}
	t.slots = nil
}

// parallelEdges is the edge count from which edges are merged, and a
// graph's scored and listed, on two goroutines.
var parallelEdges = 1 << 15
