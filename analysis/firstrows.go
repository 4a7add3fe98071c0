package analysis

import (
	"cmp"
	"math/bits"
	"slices"
)

// firstRows returns the nodes that can be the first rows of the table,
// and every node's flat, or nil when that cannot be told before the
// walk of the stacks. Rows sorted by flat come in the order of flat,
// then name, then cum: flat is known from each stack's leaf alone, and
// names are ranked, so the nodes at or before the rows-th by flat and
// name are the only ones that can take the first rows places (ties at
// the boundary are all kept). Not when rows are sorted by cum, at the
// addresses granularity, or when fewer than rows nodes have a flat value
// (rows of no flat depend on cum). With name filters, each stack's
// surviving range is kept (aggregate.cut) for the walk, which would
// otherwise find it again.
func (a *aggregate) firstRows(rows int) (first []bool, flat []int64) {
	q := a.q
	if q.opt.Sort == "cum" {
		return nil, nil
	}
	nameRank, _ := q.nodes.ranks()
	if nameRank == nil {
		return nil, nil
	}
	p := q.e.p
	n := p.Stacks.Len()
	if q.filtering {
		a.cut = make([]int32, 2*n)
	}
	leafNode := q.leafNodes()
	leaves := func(r *runs) []int64 {
		flat := make([]int64, q.nodes.len())
		c := r.cursor()
		for s := c.next(); s >= 0; s = c.next() {
			sw := a.stackW[s]
			if sw == 0 {
				continue
			}
			locs := p.Stacks.At(int32(s))
			lo, hi, ok := q.pathRange(locs)
			if a.cut != nil {
				a.cut[2*s], a.cut[2*s+1] = int32(lo), int32(hi)
				if !ok {
					a.cut[2*s+1] = -1
				}
			}
			if !ok {
				continue
			}
			for _, l := range locs[lo:hi] {
				if nd := leafNode[l]; nd >= 0 {
					flat[nd] += sw // the leaf-most frame
					break
				}
			}
		}
		return flat
	}
	var parts [2][]int64
	inTwo(&p.Stacks, func(r *runs, part int) { parts[part] = leaves(r) })
	flat = parts[0]
	addInto(flat, parts[1])
	var ns []int32
	for n, f := range flat {
		if f != 0 {
			ns = append(ns, int32(n))
		}
	}
	if len(ns) < rows {
		a.cut = nil
		return nil, nil
	}
	key := func(l, r int32) int {
		if c := cmp.Compare(abs64(flat[r]), abs64(flat[l])); c != 0 {
			return c
		}
		return cmp.Compare(nameRank[l], nameRank[r])
	}
	// The first rows are those that sort no later than the rows-th:
	// that one is found without sorting them all (the 100,000 functions
	// of the wide shape took 18 ms to sort).
	last := nth(ns, rows-1, key)
	first = make([]bool, len(flat))
	for _, n := range ns {
		if key(n, last) <= 0 {
			first[n] = true
		}
	}
	return first, flat
}

// nth returns the element that would be xs[k] were xs sorted by cmp
// (k < len(xs)), keeping the k+1 smallest in a heap whose top is the
// largest of them: O(len(xs)·log k) rather than a sort. xs is permuted.
func nth[T any](xs []T, k int, cmp func(a, b T) int) T {
	if k >= len(xs)/8 {
		slices.SortFunc(xs, cmp)
		return xs[k]
	}
	h := xs[:k+1]
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(h) {
				return
			}
			if c+1 < len(h) && cmp(h[c+1], h[c]) > 0 {
				c++
			}
			if cmp(h[c], h[i]) <= 0 {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for i := k + 1; i < len(xs); i++ {
		if cmp(xs[i], h[0]) < 0 {
			h[0], xs[i] = xs[i], h[0]
			down(0)
		}
	}
	return h[0]
}

// leafNodes returns, per location, the node of its innermost frame in
// the location view, or -1: one array read per stack finds its leaf
// (leafLoc reads the location's node list, at another place in memory).
func (q *query) leafNodes() []int32 {
	off, nodes := q.locOff, q.locNodes
	leaf := make([]int32, len(off)-1)
	inHalves(len(leaf), parallelLocations, func(_, lo, hi int) {
		for l := lo; l < hi; l++ {
			leaf[l] = -1
			if off[l+1] > off[l] {
				leaf[l] = nodes[off[l+1]-1]
			}
		}
	})
	return leaf
}

// sumFirst sums a table whose first rows alone get their cum now (see
// aggregateFirst): flat is every node's (firstRows); cum is summed for
// the first nodes only, with the call edges into those of them that are
// candidates for inline markers. A stack's locations are read one by
// one, and only those holding a first node (a few dozen nodes of
// thousands) are walked frame by frame; which locations the stacks pass
// tells which nodes are rows.
func (a *aggregate) sumFirst(first []bool, flat []int64, cand []bool) {
	q := a.q
	off, nodes := q.locOff, q.locNodes
	has := newBitset(len(off) - 1) // the locations holding a first node
	for l := range len(off) - 1 {
		for _, nd := range nodes[off[l]:off[l+1]] {
			if first[nd] {
				has.set(int32(l))
			}
		}
	}
	var want []bool
	if cand != nil {
		want = make([]bool, len(first))
		for nd, f := range first {
			want[nd] = f && cand[nd]
		}
	}
	var cum, cum2 []int64
	var passed, passed2 bitset
	var edges2 *edgeSums
	inTwo(&q.e.p.Stacks, func(r *runs, part int) {
		if part == 0 {
			cum, passed, a.inlEdges = a.sumFirstRange(r, first, want, has)
		} else {
			cum2, passed2, edges2 = a.sumFirstRange(r, first, want, has)
		}
	})
	addInto(cum, cum2)
	if a.inlEdges != nil && edges2 != nil {
		a.inlEdges.merge(edges2)
	}
	a.appears = make([]bool, len(first))
	for i, w := range passed {
		if passed2 != nil {
			w |= passed2[i]
		}
		for ; w != 0; w &= w - 1 {
			l := i<<6 + bits.TrailingZeros64(w)
			for _, nd := range nodes[off[l]:off[l+1]] {
				a.appears[nd] = true
			}
		}
	}
	a.flat, a.cum, a.first = flat, cum, first
}

// sumFirstRange is sumFirst's walk of the stacks it takes from r: the
// first nodes' cum, the locations the stacks of non-zero weight pass
// (whose nodes are rows: the weights are not negative, see fuseEdges)
// and the call edges into the want nodes. The locations' flags are bits:
// those of wide's 1.7M locations then fit in a core's cache, which one
// int64 sum per location, as the plain walk keeps, does not.
func (a *aggregate) sumFirstRange(r *runs, first, want []bool, has bitset) (cum []int64, passed bitset, edges *edgeSums) {
	q := a.q
	p := q.e.p
	off, nodes := q.locOff, q.locNodes
	cum = make([]int64, len(first))
	stamp := make([]int32, len(first))
	passed = newBitset(len(off) - 1)
	if want != nil {
		edges = newEdgeSums(0)
	}
	c := r.cursor()
	for s := c.next(); s >= 0; s = c.next() {
		sw := a.stackW[s]
		locs := p.Stacks.At(int32(s))
		if sw == 0 {
			a.kept[s] = q.filtersPass(locs)
			continue
		}
		lo, hi, ok := a.keptRange(s, locs)
		if !ok {
			continue
		}
		path := locs[lo:hi]
		mark := int32(s + 1)
		for i, l := range path {
			passed.set(l)
			if !has.has(l) {
				continue
			}
			for j := off[l]; j < off[l+1]; j++ {
				nd := nodes[j]
				if !first[nd] {
					continue
				}
				if stamp[nd] != mark {
					stamp[nd] = mark
					cum[nd] += sw
				}
				if want == nil || !want[nd] {
					continue
				}
				// The caller: the next-outer line of the location, or
				// the frame calling the location.
				parent, inl := int32(-1), j > off[l]
				if inl {
					parent = nodes[j-1]
				} else {
					parent = q.caller(path, i)
				}
				if parent >= 0 && parent != nd {
					edges.add(edges.id(edgeKey{parent, nd}), mark, sw, inl)
				}
			}
		}
	}
	return cum, passed, edges
}

// bitset is a set of small non-negative integers, a bit each.
type bitset []uint64

func newBitset(n int) bitset { return make(bitset, (n+63)/64) }

func (b bitset) has(i int32) bool { return b[i>>6]&(1<<(i&63)) != 0 }

func (b bitset) set(i int32) { b[i>>6] |= 1 << (i & 63) }
