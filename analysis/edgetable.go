package analysis

// edgeSums accumulates call edges (weight, and whether every occurrence
// is an inlined call) in flat arrays indexed by edge id, with an
// open-addressing index from edge to id: on profiles with mostly distinct
// stacks a Go map keyed by edge, with a pointer per value, took most of
// the time of the explorer's first screen (issue 11).
type edgeSums struct {
	keys      []edgeKey
	weight    []int64
	allInline []bool
	stamp     []int32 // the last stack that counted the edge (once per stack)
	slots     []int32 // id+1, 0 for empty; len is a power of two
}

// newEdgeSums sizes the table for about hint edges, so that a profile
// with a million inlined frame slots does not grow it twenty times.
func newEdgeSums(hint int) *edgeSums {
	size := 1024
	for size < 2*hint {
		size *= 2
	}
	return &edgeSums{
		slots:     make([]int32, size),
		keys:      make([]edgeKey, 0, hint),
		weight:    make([]int64, 0, hint),
		allInline: make([]bool, 0, hint),
		stamp:     make([]int32, 0, hint),
	}
}

func edgeHash(e edgeKey) uint64 {
	return (uint64(uint32(e.from))<<32 | uint64(uint32(e.to))) * 0x9e3779b97f4a7c15
}

// id returns e's id, adding it (weight 0, all inline) if new.
func (t *edgeSums) id(e edgeKey) int32 {
	mask := uint64(len(t.slots) - 1)
	for i := edgeHash(e) >> 32 & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			break
		}
		if t.keys[s-1] == e {
			return s - 1
		}
	}
	if 2*(len(t.keys)+1) > len(t.slots) {
		t.grow()
		mask = uint64(len(t.slots) - 1)
	}
	id := int32(len(t.keys))
	t.keys = append(t.keys, e)
	t.weight = append(t.weight, 0)
	t.allInline = append(t.allInline, true)
	t.stamp = append(t.stamp, 0)
	i := edgeHash(e) >> 32 & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = id + 1
	return id
}

func (t *edgeSums) grow() {
	t.slots = make([]int32, 2*len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for id, e := range t.keys {
		i := edgeHash(e) >> 32 & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = int32(id) + 1
	}
}

// add counts edge id in stack mark (stack index + 1) once per stack, as
// pprof counts an edge once per sample: its first occurrence gives the
// inline flag.
func (t *edgeSums) add(id, mark int32, w int64, inline bool) {
	if t.stamp[id] != mark {
		t.stamp[id] = mark
		t.weight[id] += w
		t.allInline[id] = t.allInline[id] && inline
	}
}

// addSum adds w to edge id: the sum over stacks that pass the edge once
// each (and not otherwise counted).
func (t *edgeSums) addSum(id int32, w int64, inline bool) {
	t.weight[id] += w
	t.allInline[id] = t.allInline[id] && inline
}

// merge adds o's edges into t.
func (t *edgeSums) merge(o *edgeSums) {
	for j, e := range o.keys {
		id := t.id(e)
		t.weight[id] += o.weight[j]
		t.allInline[id] = t.allInline[id] && o.allInline[j]
	}
}
