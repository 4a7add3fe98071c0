package analysis

// inlineEdges collects, over stacks [from, to), the call edges into
// candidate nodes between consecutive kept nodes, each counted once per
// stack as pprof counts them once per sample.
//
// It walks the location view directly rather than building each path:
// an inlined frame whose next-outer line is kept has that line as its
// caller in every stack, so its edge id is found once per query
// (static[j]) and each later occurrence costs two array reads.
func (a *aggregate) inlineEdges(r *runs, candidate, kept []bool) *edgeSums {
	q := a.q
	p := q.e.p
	t := newEdgeSums(0) // few edges when few nodes are kept
	off, nodes := q.locOff, q.locNodes
	static := make([]int32, len(nodes))
	for j := range static {
		static[j] = -1
	}
	c := r.cursor()
	for s := c.next(); s >= 0; s = c.next() {
		sw := a.stackW[s]
		if !a.kept[s] || (sw == 0 && (a.stackDW == nil || a.stackDW[s] == 0)) {
			continue
		}
		locs := p.Stacks.At(int32(s))
		lo, hi, _ := q.pathRange(locs)
		mark := int32(s + 1)
		parent := int32(-1)
		for i := hi - 1; i >= lo; i-- {
			l := locs[i]
			first := off[l]
			for j := first; j < off[l+1]; j++ {
				n := nodes[j]
				if !kept[n] {
					continue
				}
				if candidate[n] && parent >= 0 && parent != n {
					var id int32
					if j > first && kept[nodes[j-1]] {
						// parent is nodes[j-1], whatever the stack.
						if id = static[j]; id < 0 {
							id = t.id(edgeKey{parent, n})
							static[j] = id
						}
					} else {
						id = t.id(edgeKey{parent, n})
					}
					t.add(id, mark, sw, j > first)
				}
				parent = n
			}
		}
	}
	return t
}

// allInlineEdges walks every stack for the call edges into candidate
// nodes between consecutive nodes of the given set.
func (a *aggregate) allInlineEdges(nodes []int32, candidate []bool) *edgeSums {
	kept := make([]bool, len(candidate))
	for _, n := range nodes {
		kept[n] = true
	}
	var edges [2]*edgeSums
	inTwo(&a.q.e.p.Stacks, func(r *runs, part int) {
		edges[part] = a.inlineEdges(r, candidate, kept)
	})
	if edges[1] != nil {
		edges[0].merge(edges[1])
	}
	return edges[0]
}

// inlineMarkers gathers pprof's "(inline)" / "(partial-inline)" for the
// given nodes, per node (nil when no node can be inlined): a node is
// inline when every call edge into it is an inlined call, partial when
// some are. Edges are counted as pprof builds them: once per sample,
// between consecutive frames of kept nodes.
func (a *aggregate) inlineMarkers(nodes []int32, edgeCutoff int64) []inlineIn {
	q := a.q
	candidate := q.candidates()
	if candidate == nil {
		return nil
	}
	edges := a.inlEdges
	if edges == nil {
		edges = a.allInlineEdges(nodes, candidate)
	}
	in := make([]inlineIn, q.nodes.len())
	edges.each(func(to int32, w int64, allInline bool) { in[to].add(w, allInline, edgeCutoff) })
	return in
}

// inlineIn gathers the call edges into a node for its inline marker.
// pprof drops light edges (|weight| below edgefraction of Σ flat,
// fractionOf) before it looks at them; the node is "inline" when every
// other edge into it is an inlined call, "partial-inline" when some are.
type inlineIn struct{ inl, non bool }

func (m *inlineIn) add(w int64, allInline bool, cutoff int64) {
	switch {
	case abs64(w) < cutoff:
	case allInline:
		m.inl = true
	default:
		m.non = true
	}
}

func (m inlineIn) marker() Marker {
	switch {
	case m.inl && m.non:
		return PartlyInlined
	case m.inl:
		return Inlined
	}
	return NotInlined
}
