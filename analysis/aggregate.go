package analysis

// aggregate is the flat and cum of every node under one query.
type aggregate struct {
	q               *query
	flat, cum       []int64
	flatDiv, cumDiv []int64
	total           int64 // percentage denominator
	stackW, stackDW []int64
	kept            []bool // per stack: survives the filters
	// inlEdges are the call edges into candidates for inline markers,
	// when they could be summed with flat and cum (see fuseEdges), else nil.
	inlEdges *edgeSums
	// first, when not nil, marks the nodes whose cum (and inline
	// markers) are summed: those that can be the first rows of the table
	// (see firstRows and sumFirst); the others' cum is 0, and appears
	// tells which nodes are rows.
	first, appears []bool
	// cut, while summing and when firstRows found them, is each stack's
	// surviving range of locations: lo at 2s, hi at 2s+1 (-1: dropped;
	// only for stacks of non-zero weight).
	cut []int32
}

func (q *query) aggregate() *aggregate { return q.aggregateFirst(0) }

// aggregateFirst is aggregate for a table whose first rows (if rows > 0)
// are needed now and the others later (Engine.TopFirst).
func (q *query) aggregateFirst(rows int) *aggregate {
	p := q.e.p
	w, dw, total, totalDiv := q.stackWeights()
	a := &aggregate{q: q, stackW: w, stackDW: dw, kept: make([]bool, p.Stacks.Len())}
	n := p.Stacks.Len()
	plain := q.e.plainStacks(q.nodes)
	var cand []bool
	if !q.noMarkers && q.fuseEdges(w, dw) {
		cand = q.candidates()
		// Until the plain stacks are known (sumRange), every frame of
		// every stack is walked node by node: the first rows alone are
		// summed now, and the table completed later. Once they are
		// known, the whole table costs little more.
		if rows > 0 && plain == nil && !q.mean {
			if first, flat := a.firstRows(rows); first != nil {
				a.sumFirst(first, flat, cand)
				return a.finish(total, totalDiv)
			}
		}
	}
	// A walk that sees every line of every location (no line filter)
	// tells which stacks are plain for every later walk with these nodes.
	var seen []uint8
	if plain == nil && !q.c.cuts {
		seen = make([]uint8, n)
	}
	// Each goroutine sums its runs of stacks, then half of the plain
	// stacks' locations (both goroutines' sums of them) into its nodes.
	var sums [2]*stackSums
	inTwo(&p.Stacks, func(r *runs, part int) {
		sums[part] = a.sumRange(r, cand, plain, seen)
	})
	one, other := sums[0], sums[1]
	if plain != nil {
		nl := len(q.locOff) - 1
		if other == nil {
			a.spread(one, nil, 0, nl, cand)
		} else {
			both(func() { a.spread(one, other, 0, nl/2, cand) }, func() { a.spread(other, one, nl/2, nl, cand) })
		}
	}
	if other != nil {
		if one.edges != nil {
			one.edges.merge(other.edges)
		}
		addInto(one.flat, other.flat)
		addInto(one.cum, other.cum)
		addInto(one.flatDiv, other.flatDiv)
		addInto(one.cumDiv, other.cumDiv)
	}
	a.flat, a.cum, a.flatDiv, a.cumDiv, a.inlEdges = one.flat, one.cum, one.flatDiv, one.cumDiv, one.edges
	if seen != nil {
		q.nodes.setPlainStacks(seen)
		if cand != nil {
			// The next walk sums the plain stacks per location: their
			// static edges are made now, while the first table is read,
			// rather than when a setting changes.
			q.locEdgeIDs()
		}
	}
	if a.inlEdges != nil {
		a.inlEdges.settle()
	}
	return a.finish(total, totalDiv)
}

// finish sets the percentage denominator once the stacks are summed.
func (a *aggregate) finish(total, totalDiv int64) *aggregate {
	a.cut = nil
	a.total = total
	if a.q.opt.RelativePercentages {
		a.total, totalDiv = a.q.survivingTotal(a.kept)
	}
	if a.q.mean && totalDiv != 0 {
		a.total /= totalDiv
	}
	return a
}

func addInto(dst, src []int64) {
	for i, v := range src {
		dst[i] += v
	}
}

// fuseEdges reports whether the inline markers' edges can be summed in
// the same walk as flat and cum, before the rows are known: when every
// node of every walked stack is a row (no nodefraction or nodecount
// trims them, and no node can sum to zero: no negative or zero-valued
// stack is walked). Otherwise inlineMarkers walks the stacks again.
func (q *query) fuseEdges(w, dw []int64) bool {
	if q.opt.NodeFraction != 0 || q.opt.NodeCount != 0 {
		return false
	}
	for s, v := range w {
		if v < 0 || v == 0 && dw != nil && dw[s] != 0 {
			return false
		}
	}
	return true
}

// stackSums is one goroutine's sums of a walk of the stacks.
type stackSums struct {
	flat, cum, flatDiv, cumDiv []int64
	edges                      *edgeSums
	// The plain stacks' per-location sums: the weight of the stacks
	// through each location, and of those it is the leaf of (see spread).
	locW, leafW, locDW, leafDW []int64
}

// sumRange adds up flat and cum over the runs of stacks it takes from r:
// cum once per node per stack (recursion counts once), flat to the
// leaf-most frame. With cand non-nil it also sums the call edges into
// cand nodes, as inlineEdges does with every node kept.
//
// A stack in which no node occurs twice (plain, see Engine.plainStacks)
// is summed per location, not per node: its weight is added to each of
// its locations, and spread adds the locations' sums to their nodes at
// the end. That is one array update per location instead of a walk
// through the location's node list with a stamp per node; on a million
// distinct stacks it took 20 ms instead of 145. The others are walked
// node by node. With seen non-nil (the walk sees every line of every
// location, see aggregateFirst), the walk records into seen which stacks
// are plain.
func (a *aggregate) sumRange(r *runs, cand []bool, plain, seen []uint8) *stackSums {
	q := a.q
	p := q.e.p
	sums, entry := a.newStackSums(cand, plain != nil)
	w := nodeWalk{sums: sums, cand: cand, stamp: make([]int32, q.nodes.len())}
	c := r.cursor()
	for s := c.next(); s >= 0; s = c.next() {
		if q.pause != nil && s&pauseEvery == 0 {
			q.pause()
		}
		sw := a.stackW[s]
		var sdw int64
		if a.stackDW != nil {
			sdw = a.stackDW[s]
		}
		locs := p.Stacks.At(int32(s))
		if sw == 0 && sdw == 0 {
			// pprof skips such samples when building nodes; they still
			// count for relative percentages if they pass the filters.
			a.kept[s] = q.filtersPass(locs)
			continue
		}
		lo, hi, ok := a.keptRange(s, locs)
		if !ok {
			continue
		}
		mark := int32(s + 1)
		if plain != nil && plain[s] == plainStack {
			a.sumPlain(sums, entry, locs[lo:hi], mark, sw, sdw)
			continue
		}
		repeats := w.walk(q, locs[lo:hi], mark, sw, sdw)
		if seen != nil {
			seen[s] = plainStack
			if repeats {
				seen[s] = repeatStack
			}
		}
	}
	return sums
}

// newStackSums makes one goroutine's sums for sumRange: per node, and
// with plain stacks (perLocation) per location too; with cand non-nil,
// the call edges' sums. entry flags, when both, the locations whose
// outermost frame is a cand node.
func (a *aggregate) newStackSums(cand []bool, perLocation bool) (sums *stackSums, entry []bool) {
	q := a.q
	nn := q.nodes.len()
	sums = &stackSums{flat: make([]int64, nn), cum: make([]int64, nn)}
	if q.mean {
		sums.flatDiv, sums.cumDiv = make([]int64, nn), make([]int64, nn)
	}
	if cand != nil {
		sums.edges = newEdgeSums(q.inlinedSlots / 2) // each goroutine sees about half
	}
	if !perLocation {
		return sums, nil
	}
	nodes, off := q.locNodes, q.locOff
	nl := len(off) - 1
	sums.locW, sums.leafW = make([]int64, nl), make([]int64, nl)
	if q.mean {
		sums.locDW, sums.leafDW = make([]int64, nl), make([]int64, nl)
	}
	if cand != nil {
		entry = make([]bool, nl)
		for l := range entry {
			entry[l] = off[l+1] > off[l] && cand[nodes[off[l]]]
		}
		edges := sums.edges
		edges.statics = q.nodes.staticEdges(q.e.p, q.e.lt)
		edges.static = make([]int64, len(edges.statics.index.keys))
	}
	return sums, entry
}

// sumPlain adds a plain stack's weight to the locations of its path
// (leaf first) and to its leaf location, and the call edges into the
// entry locations' outermost frames.
func (a *aggregate) sumPlain(sums *stackSums, entry []bool, path []int32, mark int32, sw, sdw int64) {
	locW := sums.locW
	if entry == nil {
		for _, l := range path {
			locW[l] += sw
		}
	} else {
		for i, l := range path {
			locW[l] += sw
			if entry[l] {
				a.entryEdge(sums.edges, path, i, mark, sw)
			}
		}
	}
	leaf := a.q.leafLoc(path)
	if leaf >= 0 {
		sums.leafW[leaf] += sw
	}
	if sums.locDW != nil {
		for _, l := range path {
			sums.locDW[l] += sdw
		}
		if leaf >= 0 {
			sums.leafDW[leaf] += sdw
		}
	}
}

// nodeWalk is sumRange's state for the stacks it walks node by node.
type nodeWalk struct {
	sums  *stackSums
	cand  []bool
	stamp []int32 // per node: the mark of the last stack that counted its cum
	// static is, per locNodes slot of an inlined frame, its edge id+1 (0
	// until looked up); made for the first stack that needs it.
	static []int32
}

// walk adds a stack's weight to the nodes of its path (leaf first), cum
// once per node and flat to the last frame, and the call edges into cand
// nodes. It reports whether some node occurs twice.
func (w *nodeWalk) walk(q *query, path []int32, mark int32, sw, sdw int64) (repeats bool) {
	nodes, inlined, off := q.locNodes, q.locInlined, q.locOff
	cum, cumDiv, edges, cand, stamp := w.sums.cum, w.sums.cumDiv, w.sums.edges, w.cand, w.stamp
	// The path, root first, is read from the location view in place (as
	// appendPath would build it).
	parent := int32(-1)
	for i := len(path) - 1; i >= 0; i-- {
		l := path[i]
		for j := off[l]; j < off[l+1]; j++ {
			n := nodes[j]
			if stamp[n] != mark {
				stamp[n] = mark
				cum[n] += sw
				if cumDiv != nil {
					cumDiv[n] += sdw
				}
			} else {
				repeats = true
			}
			if cand != nil && cand[n] && parent >= 0 && parent != n {
				// An inlined frame's caller is the next-outer line of
				// its location, the same in every stack.
				inl := inlined[j]
				var id int32
				if inl {
					if w.static == nil {
						w.static = make([]int32, len(nodes))
					}
					if id = w.static[j] - 1; id < 0 {
						id = edges.id(edgeKey{parent, n})
						w.static[j] = id + 1
					}
				} else {
					id = edges.id(edgeKey{parent, n})
				}
				edges.add(id, mark, sw, inl)
			}
			parent = n
		}
	}
	if parent < 0 {
		return repeats // every frame hidden
	}
	leaf := parent // the last frame
	w.sums.flat[leaf] += sw
	if w.sums.flatDiv != nil {
		w.sums.flatDiv[leaf] += sdw
	}
	return repeats
}

// spread adds the plain stacks' sums of locations [lo, hi), its own and
// other's (nil, or the other goroutine's), to its nodes' sums.
func (a *aggregate) spread(sums, other *stackSums, lo, hi int, cand []bool) {
	q := a.q
	nodes, off := q.locNodes, q.locOff
	flat, cum, flatDiv, cumDiv, edges := sums.flat, sums.cum, sums.flatDiv, sums.cumDiv, sums.edges
	locW, leafW, locDW, leafDW := sums.locW, sums.leafW, sums.locDW, sums.leafDW
	var locEdge []int32
	if cand != nil {
		locEdge = q.locEdgeIDs()
	}
	// A plain stack has each node once, so it passes each call edge
	// once: the edges into inlined frames (the next-outer line of the
	// location calls them) are summed per location too, by static edge
	// (edgeSums.static).
	for l := lo; l < hi; l++ {
		w, lw := locW[l], leafW[l]
		var dw, ldw int64
		if locDW != nil {
			dw, ldw = locDW[l], leafDW[l]
		}
		if other != nil {
			w, lw = w+other.locW[l], lw+other.leafW[l]
			if locDW != nil {
				dw, ldw = dw+other.locDW[l], ldw+other.leafDW[l]
			}
		}
		if w == 0 && lw == 0 && dw == 0 && ldw == 0 {
			continue
		}
		for j := off[l]; j < off[l+1]; j++ {
			n := nodes[j]
			cum[n] += w
			if cumDiv != nil {
				cumDiv[n] += dw
			}
			if cand != nil && j > off[l] && cand[n] && w != 0 {
				switch id := locEdge[j]; {
				case id >= 0:
					edges.static[id] += w
				case id == -2:
					if parent := nodes[j-1]; parent != n {
						edges.addSum(edges.id(edgeKey{parent, n}), w, true)
					}
				}
			}
		}
		if off[l+1] > off[l] {
			leafNode := nodes[off[l+1]-1]
			flat[leafNode] += lw
			if flatDiv != nil {
				flatDiv[leafNode] += ldw
			}
		}
	}
}

// entryEdge adds the call edge into path[i]'s outermost frame (a plain
// stack's path, leaf first), if anything calls it.
func (a *aggregate) entryEdge(edges *edgeSums, path []int32, i int, mark int32, sw int64) {
	if parent := a.q.caller(path, i); parent >= 0 {
		edges.add(edges.id(edgeKey{parent, a.q.locNodes[a.q.locOff[path[i]]]}), mark, sw, false)
	}
}

// pauseEvery+1 is how many stacks a background walk sums between calls
// of its pause (a few milliseconds' work).
const pauseEvery = 1<<15 - 1

// keptRange is pathRange for stack s (locs) in a walk, where firstRows
// may have found it already (cut); it records in kept whether the stack
// survives.
func (a *aggregate) keptRange(s int, locs []int32) (lo, hi int, ok bool) {
	if a.cut != nil {
		lo, hi = int(a.cut[2*s]), int(a.cut[2*s+1])
		ok = hi >= 0
	} else {
		lo, hi, ok = a.q.pathRange(locs)
	}
	a.kept[s] = ok
	return lo, hi, ok
}

// flatValue and cumValue apply mean, as pprof's FlatValue/CumValue.
func (a *aggregate) flatValue(n int32) int64 {
	if a.flatDiv != nil && a.flatDiv[n] != 0 {
		return a.flat[n] / a.flatDiv[n]
	}
	return a.flat[n]
}

func (a *aggregate) cumValue(n int32) int64 {
	if a.cumDiv != nil && a.cumDiv[n] != 0 {
		return a.cum[n] / a.cumDiv[n]
	}
	return a.cum[n]
}
