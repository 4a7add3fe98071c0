package analysis

// graphWalk is one goroutine's walk of stacks into a graph (see
// graphBuild.walk): the nodes' values by node id, the edges in the
// order met.
type graphWalk struct {
	q    *query
	kept []bool
	g    *ggraph
	// edges are the edges' sums (and under mean their count sums).
	edges                      *edgeSums
	stamp                      []int32 // per node: the mark of the last stack that counted its cum
	cum, flat, cumDiv, flatDiv []int64 // per node
	// last is, per frame slot, the last edge whose caller was the
	// slot's frame (made for the first stack walked frame by frame): a
	// call site calls one function in most stacks (and an inlined
	// frame's caller is always the next-outer line of its location), so
	// that the edge index is asked only when it calls another.
	last []slotEdge
	// locs sums the plain stacks walked per location with a kept frame
	// (see keptLocs), whose nodes and edges within locations finish
	// adds; locAt is, per location, the index of its record in locs, or
	// keptNone or noFrames: a graph of few nodes skips most locations
	// without reading their frames, and has few records. Both nil when
	// every stack is walked frame by frame.
	locs  []keptLoc
	locAt []int32
}

// slotEdge is an edge's id+1 (0: none) and its callee.
type slotEdge struct{ id, to int32 }

// locAt values of locations with no record.
const (
	keptNone int32 = -1 - iota // frames, none kept
	noFrames
)

// plainWalk is what keptLocs makes for a walk of one build: a keptLoc
// per location with a kept frame, with no sums (the walk sums into them;
// each walk has records of its own), and each location's locAt.
type plainWalk struct {
	locs []keptLoc
	at   []int32
}

// keptLoc is a location's frames as a plain stack's walk needs them for
// a kept set, and one goroutine's sums of the plain stacks through it:
// entry and exit are the nodes of its outermost and innermost kept
// frames (-1: none kept); w is the weight of the stacks through it. out
// is the weight of the call edge from exit to node to (the callee the
// stacks through it called last, -1: none yet), whose occurrences were
// all inlined (outInline) or some residual (outResidual), until a stack
// calls another callee and they are added to the edge (flushOut).
type keptLoc struct {
	entry, exit, to int32
	flags           uint8
	w, out          int64
}

// keptLoc flags.
const (
	// lead: frames dropped before the outermost kept one (or any, none
	// kept), which is then an inlined frame, its call edge inline.
	lead  uint8 = 1 << iota
	trail       // frames dropped after the innermost kept one
	outInline
	outResidual
)

// keptLocs is, per location, its keptLoc for the nodes kept flags (nil:
// every node) with no sums, when the stacks can be walked per location:
// the node table knows which stacks are plain (no node twice, so that
// no node or edge needs counting once per stack), and every stack
// weight is positive with no count under mean (so that a location or
// node walked has a sum other than 0). Else nil, and every stack is
// walked frame by frame. With two, a second plainWalk with records of its
// own (for the second half of the stacks), made beside the first on
// another goroutine.
func (b *graphBuild) keptLocs(kept []bool, two bool) (lks [2]*plainWalk) {
	q := b.q
	if b.dw != nil || q.e.plainStacks(q.nodes) == nil {
		return lks
	}
	for _, w := range b.w {
		if w < 0 {
			return lks
		}
	}
	off, nodes := q.locOff, q.locNodes
	// The records are counted first (on a million locations, growing
	// them allocated twice their size), and given their places.
	at := make([]int32, len(off)-1)
	n := int32(0)
	for l := range at {
		at[l] = noFrames
		for j := off[l]; j < off[l+1]; j++ {
			at[l] = keptNone
			if kept == nil || kept[nodes[j]] {
				at[l] = n
				n++
				break
			}
		}
	}
	records := func() *plainWalk {
		lk := make([]keptLoc, n)
		for l, x := range at {
			if x < 0 {
				continue
			}
			k := keptLoc{entry: -1, exit: -1, to: -1}
			for j := off[l]; j < off[l+1]; j++ {
				n := nodes[j]
				if kept != nil && !kept[n] {
					if k.entry < 0 {
						k.flags |= lead
					}
					k.flags |= trail
					continue
				}
				if k.entry < 0 {
					k.entry = n
				}
				k.exit = n
				k.flags &^= trail
			}
			lk[x] = k
		}
		return &plainWalk{locs: lk, at: at}
	}
	if two {
		both(func() { lks[0] = records() }, func() { lks[1] = records() })
	} else {
		lks[0] = records()
	}
	return lks
}

// walk walks stacks [lo, hi) into the nodes of a graph of the nodes kept
// flags (see build) and its edges' sums. With lk (keptLocs, its records
// this walk's own) the plain stacks are walked per location: a
// location's weight, and the call edge into it; the nodes and edges
// within locations are summed per location at the end. On a million
// distinct stacks that is a third fewer steps than frames, each reading
// one location's record.
func (b *graphBuild) walk(kept []bool, lk *plainWalk, lo, hi int) (*ggraph, *edgeSums) {
	q := b.q
	p := q.e.p
	nn := q.nodes.len()
	nodes := q.locNodes
	// The edges are sized for half the frame slots, or one per pair of
	// a graph of few nodes. A walk may see more (each half of a million
	// distinct stacks sees 69,500 of their 79,500 slots' edges) and grow
	// them: an index sized for every slot, sparser, was slower to probe.
	nk := nn
	if kept != nil {
		nk = 0
		for _, k := range kept {
			if k {
				nk++
			}
		}
	}
	hint := min(len(nodes)/2, nk*nk)
	w := &graphWalk{q: q, kept: kept, g: &ggraph{where: make([]int32, nn)}, edges: newEdgeSums(hint),
		stamp: make([]int32, nn), cum: make([]int64, nn), flat: make([]int64, nn)}
	if b.dw != nil {
		w.cumDiv, w.flatDiv = make([]int64, nn), make([]int64, nn)
		w.edges.div = make([]int64, 0, hint)
	}
	var plain []uint8
	if lk != nil {
		plain = q.e.plainStacks(q.nodes)
		w.locs, w.locAt = lk.locs, lk.at
	}
	for s := lo; s < hi; s++ {
		sw, sdw, ok := stackWeight(b.w, b.dw, s)
		if !ok {
			continue
		}
		locs := p.Stacks.At(int32(s))
		lo, hi, ok := q.pathRange(locs)
		if !ok {
			continue
		}
		locs = locs[lo:hi]
		if plain != nil && plain[s] == plainStack {
			w.plainLocs(locs, sw)
			continue
		}
		w.frames(locs, int32(s+1), sw, sdw)
	}
	return w.finish(), w.edges
}

// edge returns the id of the edge from node parent, the frame at slot
// pslot, to node n, adding it.
func (w *graphWalk) edge(parent, pslot, n int32) int32 {
	if w.last == nil {
		w.last = make([]slotEdge, len(w.q.locNodes))
	}
	c := &w.last[pslot]
	if c.id > 0 && c.to == n {
		return c.id - 1
	}
	id := w.edges.id(edgeKey{parent, n})
	*c = slotEdge{id + 1, n}
	return id
}

// frames walks a stack's locations (leaf first) frame by frame: each
// node's cum and each edge once (mark is the stack's), residual over
// dropped nodes, the flat value to a kept leaf.
func (w *graphWalk) frames(locs []int32, mark int32, sw, sdw int64) {
	off, nodes, kept := w.q.locOff, w.q.locNodes, w.kept
	parent, pslot := int32(-1), int32(-1)
	residual := false
	for i := len(locs) - 1; i >= 0; i-- {
		l := locs[i]
		if w.locAt != nil && w.locAt[l] < 0 {
			residual = residual || w.locAt[l] == keptNone
			continue
		}
		for j := off[l]; j < off[l+1]; j++ {
			n := nodes[j]
			if kept != nil && !kept[n] {
				residual = true
				continue
			}
			if w.stamp[n] != mark {
				w.stamp[n] = mark
				w.cum[n] += sw
				if w.cumDiv != nil {
					w.cumDiv[n] += sdw
				}
			}
			if parent >= 0 && parent != n {
				if id := w.edge(parent, pslot, n); w.edges.add(id, mark, sw, j > off[l]) {
					e := &w.edges.sums[id]
					e.residual = e.residual || residual
					if w.edges.div != nil {
						w.edges.div[id] += sdw
					}
				}
			}
			parent, pslot = n, j
			residual = false
		}
	}
	if parent >= 0 && !residual {
		w.flat[parent] += sw
		if w.flatDiv != nil {
			w.flatDiv[parent] += sdw
		}
	}
}

// plainLocs walks a plain stack's locations (leaf first) into their
// sums (keptLoc): each location's weight, the edges between locations,
// the flat value to a kept leaf. Each step reads and writes one
// location's record, and the one before it, which the step before read.
func (w *graphWalk) plainLocs(locs []int32, sw int64) {
	var prev *keptLoc
	residual := false
	for i := len(locs) - 1; i >= 0; i-- {
		l := locs[i]
		x := w.locAt[l]
		if x < 0 {
			residual = residual || x == keptNone
			continue
		}
		k := &w.locs[x]
		k.w += sw
		if prev != nil {
			if prev.to != k.entry {
				w.flushOut(prev)
				prev.to, prev.flags = k.entry, prev.flags|outInline
			}
			prev.out += sw
			if residual || k.flags&lead != 0 {
				prev.flags |= outResidual
			}
			if k.flags&lead == 0 {
				prev.flags &^= outInline
			}
		}
		prev, residual = k, k.flags&trail != 0
	}
	if prev != nil && !residual {
		w.flat[prev.exit] += sw
	}
}

// flushOut adds k's out sum to its edge, and empties it.
func (w *graphWalk) flushOut(k *keptLoc) {
	if k.to < 0 {
		return
	}
	id := w.edges.id(edgeKey{k.exit, k.to})
	w.edges.addSum(id, k.out, k.flags&outInline != 0)
	e := &w.edges.sums[id]
	e.residual = e.residual || k.flags&outResidual != 0
	k.to, k.out, k.flags = -1, 0, k.flags&^(outInline|outResidual)
}

// finish adds the plain stacks' sums per location to their kept nodes,
// the edges within them and the edges out of them, and makes the graph's
// nodes: one for each node met, in id order (its edges are the walk's
// edges, made once the halves are added).
func (w *graphWalk) finish() *ggraph {
	off, nodes, kept := w.q.locOff, w.q.locNodes, w.kept
	for l, x := range w.locAt {
		if x < 0 {
			continue
		}
		k := &w.locs[x]
		w.flushOut(k)
		if k.w == 0 {
			continue
		}
		parent := int32(-1)
		residual := false
		for j := off[l]; j < off[l+1]; j++ {
			n := nodes[j]
			if kept != nil && !kept[n] {
				residual = true
				continue
			}
			w.cum[n] += k.w
			if parent >= 0 && parent != n {
				id := w.edges.id(edgeKey{parent, n})
				w.edges.addSum(id, k.w, true)
				e := &w.edges.sums[id]
				e.residual = e.residual || residual
			}
			parent = n
			residual = false
		}
	}
	g := w.g
	for i := range g.where {
		g.where[i] = -1
	}
	for n := range g.where {
		if w.stamp[n] == 0 && w.cum[n] == 0 && w.flat[n] == 0 {
			continue
		}
		gn := &g.nodes[g.node(int32(n))]
		gn.cum, gn.flat = w.cum[n], w.flat[n]
		if w.cumDiv != nil {
			gn.cumDiv, gn.flatDiv = w.cumDiv[n], w.flatDiv[n]
		}
	}
	return g
}

// graphEdges makes a graph's edges from e's sums, its nodes' indices
// from where.
func graphEdges(e *edgeSums, where []int32) []gedge {
	edges := make([]gedge, len(e.sums))
	for id, k := range e.keys {
		s := &e.sums[id]
		g := gedge{fromNode: k.from, toNode: k.to, from: where[k.from], to: where[k.to], w: s.weight, residual: s.residual, inline: s.allInline}
		if e.div != nil {
			g.dw = e.div[id]
		}
		edges[id] = g
	}
	return edges
}

// link lists each edge in its nodes' in and out lists, in id order. The
// lists are cut from two arrays (each list's capacity its length, so
// that an append copies it), rather than grown edge by edge, which on
// 100,000 nodes and 1.4M edges costs an allocation per growth. The in
// lists and the out lists are made on two goroutines from parallelEdges
// edges on.
func (g *ggraph) link() {
	in := func() { g.linkEnds(true) }
	out := func() { g.linkEnds(false) }
	if len(g.edges) >= parallelEdges {
		both(in, out)
	} else {
		in()
		out()
	}
}

// linkEnds makes every node's in list (else its out list).
func (g *ggraph) linkEnds(in bool) {
	end := func(e *gedge) int32 {
		if in {
			return e.to
		}
		return e.from
	}
	list := func(gn *gnode) *[]int32 {
		if in {
			return &gn.in
		}
		return &gn.out
	}
	n := make([]int32, len(g.nodes)+1)
	for id := range g.edges {
		n[end(&g.edges[id])+1]++
	}
	for i := range g.nodes {
		n[i+1] += n[i]
	}
	ids := make([]int32, len(g.edges))
	for i := range g.nodes {
		*list(&g.nodes[i]) = ids[n[i]:n[i]:n[i+1]]
	}
	for id := range g.edges {
		l := list(&g.nodes[end(&g.edges[id])])
		*l = append(*l, int32(id))
	}
}
