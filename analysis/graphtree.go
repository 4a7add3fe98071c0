package analysis

// call_tree: the graph as a tree of calling contexts, a node per
// context (-dot and -callgrind with call_tree).

// trimmedTree is pprof's call_tree graph after nodefraction: a node per
// calling context (a node under each of its callers' contexts), a
// dropped node's callees moved to its caller over residual edges; with
// its flat sum and the node counts nodefraction kept and dropped.
func (b *graphBuild) trimmedTree() (g *ggraph, flatSum int64, orig, dropped int) {
	g = b.buildTree()
	for i := range g.nodes {
		flatSum += g.nodes[i].flat
	}
	if nodeCutoff := fractionOf(flatSum, b.q.opt.NodeFraction); nodeCutoff > 0 {
		kept := make([]bool, len(g.nodes))
		n := 0
		for i := range g.nodes {
			if abs64(g.nodes[i].cum) >= nodeCutoff {
				kept[i] = true
				n++
			}
		}
		if n != len(g.nodes) {
			dropped = len(g.nodes) - n
			g.trimTree(kept)
		}
	}
	return g, flatSum, len(g.nodes), dropped
}

// buildTree walks every stack into a tree of calling contexts, as
// pprof's graph.New with CallTree.
func (b *graphBuild) buildTree() *ggraph {
	q := b.q
	p := q.e.p
	g := &ggraph{child: map[[2]int32]int32{}}
	fold := q.folder()
	var path []int32
	var inl []bool
	for s := 0; s < p.Stacks.Len(); s++ {
		w, dw, ok := stackWeight(b.w, b.dw, s)
		if !ok {
			continue
		}
		inl = inl[:0]
		path, ok = q.appendPath(fold, path[:0], &inl, p.Stacks.At(int32(s)))
		if !ok {
			continue
		}
		parent := int32(-1)
		for k, n := range path {
			key := [2]int32{parent, n}
			gi, found := g.child[key]
			if !found {
				gi = int32(len(g.nodes))
				g.child[key] = gi
				g.nodes = append(g.nodes, gnode{node: n, orig: gi, ctx: parent})
			}
			gn := &g.nodes[gi]
			gn.cum += w
			gn.cumDiv += dw
			if parent >= 0 {
				var e *gedge
				if len(gn.in) > 0 {
					e = &g.edges[gn.in[0]]
					e.inline = e.inline && inl[k]
				} else {
					id := int32(len(g.edges))
					g.edges = append(g.edges, gedge{from: parent, to: gi, fromNode: g.nodes[parent].node, toNode: n, inline: inl[k]})
					g.nodes[parent].out = append(g.nodes[parent].out, id)
					gn = &g.nodes[gi]
					gn.in = append(gn.in, id)
					e = &g.edges[id]
				}
				e.w += w
				e.dw += dw
			}
			parent = gi
		}
		if parent >= 0 {
			g.nodes[parent].flat += w
			g.nodes[parent].flatDiv += dw
		}
	}
	g.where = make([]int32, len(g.nodes))
	for i := range g.where {
		g.where[i] = int32(i)
	}
	g.dropValueless(q.opt.DropNegative)
	return g
}

// trimTree keeps the nodes kept flags (by index): a dropped node's
// callees move to its caller, over residual edges (inline when both
// were), or become roots; as pprof's TrimTree.
func (g *ggraph) trimTree(kept []bool) {
	var order []int32
	for i := range g.nodes {
		if kept[i] {
			order = append(order, int32(i))
			continue
		}
		cur := &g.nodes[i]
		var in []int32
		for _, id := range cur.in {
			if !g.edges[id].removed {
				in = append(in, id)
			}
		}
		if len(in) == 0 {
			for _, id := range cur.out {
				g.edges[id].removed = true
			}
			continue
		}
		pe := &g.edges[in[0]]
		parent := pe.from
		pe.removed = true
		for _, id := range cur.out {
			e := &g.edges[id]
			if e.removed {
				continue
			}
			e.from = parent
			e.fromNode = g.nodes[parent].node
			e.residual = true
			e.inline = pe.inline && e.inline
			g.nodes[parent].out = append(g.nodes[parent].out, id)
		}
		cur.out = nil
	}
	g.dropRemoved()
	g.permute(order)
}
