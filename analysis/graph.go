package analysis

import (
	"slices"

	"github.com/pprof-tui/pprof-tui/format"
)

// GraphKind is what a call graph is for: the reports trim it as pprof
// trims the graph of each.
type GraphKind uint8

const (
	// GraphText is -tree's graph: nodes ordered by flat (or cum), no
	// label tags.
	GraphText GraphKind = iota
	// GraphVisual is -dot's graph and the Graph view's: nodes chosen and
	// ordered by pprof's entropy score, label tags kept, redundant
	// residual edges removed.
	GraphVisual
	// GraphCalls is -callgrind's: a GraphText that call_tree makes a
	// tree.
	GraphCalls
	// GraphNodes is the Graph view's: GraphVisual's nodes and edges,
	// without the label tags. Their number still chooses the nodes, as
	// in -dot; at nodefraction 0 only their flat values are summed,
	// which is all that takes.
	GraphNodes
)

// Graph is pprof's call graph for a set of options, trimmed as pprof
// trims it: nodes whose cum is below nodefraction of the graph's flat
// sum dropped, at most nodecount nodes, edges below edgefraction
// dropped; a node dropped between two kept ones leaves a residual edge.
type Graph struct {
	SampleType format.ValueType
	// Total is the percentage denominator (Top.Total's).
	Total int64
	// Nodes are in pprof's order: by entropy score (GraphVisual), flat
	// or cum.
	Nodes []GraphNode
	// Edges are every kept edge, heaviest first, as -dot writes them.
	Edges []GraphEdge
	Names *NodeSet
	// OrigCount is the node count after nodefraction, before nodecount;
	// DroppedNodes and DroppedEdges were cut by nodefraction and
	// edgefraction.
	OrigCount, DroppedNodes, DroppedEdges int
}

// GraphNode is one node of a Graph: flat and cum as values (divided by
// the count under mean), its edges as indices into Graph.Edges, heaviest
// first.
type GraphNode struct {
	Node      int32
	Flat, Cum int64
	In, Out   []int32
	// Objfile is the file of the mapping the node's code is in.
	Objfile string
	// Context tells apart, in a call_tree graph, nodes of one function
	// under different callers' contexts (-1 for a root and in a graph).
	Context int32
	// LabelTags and NumericTags are the node's samples by their label
	// set, and by their numeric "bytes" label (keyed by the label set's
	// name, "" without labels), for GraphVisual: -dot's nodelets.
	LabelTags   []GraphTag
	NumericTags map[string][]GraphTag
}

// GraphTag is one label set (or numeric label value) of a node's
// samples: their weight where the node is the leaf (Flat) and anywhere
// (Cum), with the count sums under mean.
type GraphTag struct {
	Name                       string
	Unit                       string
	Value                      int64
	Flat, FlatDiv, Cum, CumDiv int64
}

// FlatValue is the tag's flat weight, divided under mean.
func (t *GraphTag) FlatValue() int64 { return divided(t.Flat, t.FlatDiv) }

// CumValue is the tag's cum weight, divided under mean.
func (t *GraphTag) CumValue() int64 { return divided(t.Cum, t.CumDiv) }

// divided is a sum v divided by its count sum div under mean (div is 0
// otherwise).
func divided(v, div int64) int64 {
	if div == 0 {
		return v
	}
	return v / div
}

// GraphEdge is a call from node From to node To (indices into
// Graph.Nodes). Residual: nodes between them were dropped. Inline: every
// call it sums was inlined.
type GraphEdge struct {
	From, To int32
	// Weight is the sum; Div the count sum under mean (else 0).
	Weight, Div      int64
	Residual, Inline bool
}

// Value is the edge's weight, divided under mean.
func (e *GraphEdge) Value() int64 { return divided(e.Weight, e.Div) }

// Graph computes pprof's call graph for opt (its nodefraction,
// nodecount, edgefraction and sort), as -dot (GraphVisual) or -tree
// (GraphText) build it.
func (e *Engine) Graph(opt Options, kind GraphKind) (*Graph, error) {
	q, err := e.newQuery(opt)
	if err != nil {
		return nil, err
	}
	o := q.opt // trimmed
	b := newGraphBuild(q)
	visual := kind == GraphVisual || kind == GraphNodes
	b.noTags = kind == GraphNodes
	// pprof honours call_tree only where it draws: -dot and -callgrind.
	if o.CallTree && (visual || kind == GraphCalls) {
		g, flatSum, orig, dropped := b.trimmedTree()
		return b.trimmed(g, flatSum, orig, dropped, visual), nil
	}
	g, flatSum, orig, dropped, err := b.trimmedByFraction(e, opt, visual)
	if err != nil {
		return nil, err
	}
	return b.trimmed(g, flatSum, orig, dropped, visual), nil
}

// trimmed finishes a graph (or tree) after nodefraction as pprof trims
// it: sorted, cut to nodecount (a visual graph's tags counting as
// nodes), its tags and edges below their cutoffs (fractions of flatSum)
// dropped; orig and dropped are the node counts nodefraction kept and
// dropped.
func (b *graphBuild) trimmed(g *ggraph, flatSum int64, orig, dropped int, visual bool) *Graph {
	q := b.q
	o := q.opt
	nodeCutoff := fractionOf(flatSum, o.NodeFraction)
	edgeCutoff := fractionOf(flatSum, o.EdgeFraction)
	byCum := o.Sort == "cum"
	// A graph cut to nodecount nodes is walked again over the first ones
	// (keepFirst) and sorted again: the order past them is not read.
	first := 0
	if o.NodeCount > 0 && g.child == nil {
		first = o.NodeCount
	}
	g.sortFirstNodes(q.nodes, byCum, visual, first)
	if visual {
		// Only the first nodecount nodes' tags count in choosing the
		// nodes, and the nodes kept are among them.
		limit := len(g.nodes)
		if o.NodeCount > 0 {
			limit = min(limit, o.NodeCount)
		}
		// The tags count for a node where their flat value is not 0
		// after trimTags, which at cutoff 0 keeps every tag.
		b.tags(g, limit, b.noTags && nodeCutoff == 0)
	}
	if c := o.NodeCount; c > 0 {
		g.trimTags(nodeCutoff)
		// pprof trims the edges here too, which choosing the nodes does
		// not read: a graph cut to its first nodes is walked again
		// without them, so only a tree (cut in place) or a graph that is
		// not cut is trimmed now (its second trim below then finds
		// none, as pprof's does).
		top := g.selectTop(c, visual)
		if g.child != nil || top == len(g.nodes) {
			g.trimEdges(edgeCutoff)
		}
		if top < len(g.nodes) {
			g = b.keepFirst(g, top, visual)
			g.sortNodes(q.nodes, byCum, visual)
		}
	}
	g.trimTags(nodeCutoff)
	droppedEdges := g.trimEdges(edgeCutoff)
	if visual && g.child == nil {
		// A tree has no other way from a caller to a callee.
		g.removeRedundantEdges(q.nodes)
	}
	out := g.result(q, b)
	if b.noTags {
		for i := range out.Nodes {
			out.Nodes[i].LabelTags, out.Nodes[i].NumericTags = nil, nil
		}
	}
	out.OrigCount, out.DroppedNodes, out.DroppedEdges = orig, dropped, droppedEdges
	return out
}

// keepFirst is g with its first top nodes: a graph walked again over
// them (with g's tags, which do not depend on the other nodes kept), a
// tree trimmed.
func (b *graphBuild) keepFirst(g *ggraph, top int, visual bool) *ggraph {
	if g.child != nil {
		kept := make([]bool, len(g.nodes))
		for i := range top {
			kept[i] = true
		}
		g.trimTree(kept)
		return g
	}
	kept := make([]bool, b.q.nodes.len())
	for _, gn := range g.nodes[:top] {
		kept[gn.node] = true
	}
	out := b.build(kept)
	if visual {
		out.copyTags(g)
	}
	return out
}

// trimmedByFraction is pprof's graph after nodefraction: its nodes with
// the edges between them, the whole graph's flat sum (the cutoffs are
// fractions of it), how many nodes nodefraction kept (orig: more than
// the graph's when nodecount cut it already) and dropped. The nodes
// and their values are the Top table's, which the engine keeps and
// makes without walking call edges, so the stacks are walked once, for
// the kept nodes' edges; and -tree's graph, whose order is the table's,
// is cut to nodecount before that walk. Under mean (the table's values
// are divided) the whole graph is walked first, as pprof.
func (b *graphBuild) trimmedByFraction(e *Engine, opt Options, visual bool) (g *ggraph, flatSum int64, orig, dropped int, err error) {
	q := b.q
	o := q.opt
	if q.mean {
		full := b.build(nil)
		for i := range full.nodes {
			flatSum += full.nodes[i].flat
		}
		cutoff := fractionOf(flatSum, o.NodeFraction)
		if cutoff <= 0 {
			return full, flatSum, len(full.nodes), 0, nil
		}
		kept := make([]bool, q.nodes.len())
		n := 0
		for i := range full.nodes {
			if gn := &full.nodes[i]; abs64(gn.cum) >= cutoff {
				kept[gn.node] = true
				n++
			}
		}
		if n == len(full.nodes) {
			return full, flatSum, n, 0, nil
		}
		g = b.build(kept)
		return g, flatSum, len(g.nodes), len(full.nodes) - n, nil
	}
	all := opt
	all.NodeFraction, all.NodeCount = 0, 0
	top, err := e.Top(all)
	if err != nil {
		return nil, 0, 0, 0, err
	}
	flatSum = top.ShownTotal
	cutoff := fractionOf(flatSum, o.NodeFraction)
	var rows []int32
	for _, r := range top.Rows {
		if abs64(r.Cum) >= cutoff {
			rows = append(rows, r.Node)
		}
	}
	dropped = len(top.Rows) - len(rows)
	orig = len(rows)
	if !visual && o.NodeCount > 0 && o.NodeCount < len(rows) {
		// pprof drops -tree's edges below edgefraction before it keeps
		// the first nodecount nodes, which edges do not order.
		rows = rows[:o.NodeCount]
	}
	kept := make([]bool, q.nodes.len())
	for _, n := range rows {
		kept[n] = true
	}
	return b.build(kept), flatSum, orig, dropped, nil
}

// graphBuild walks the stacks of one query into graphs.
type graphBuild struct {
	q      *query
	noTags bool // the graph's tags are not wanted (GraphNodes)
	w, dw  []int64
	total  int64
	// nodeMapping is, per node, the mapping of every location it is a
	// frame of, or mixedMappings (made when first asked for); nodeLoc,
	// where that is not one mapping, the location the node is first met
	// at from the root in the walked stacks, as pprof takes its mapping
	// (made when such a node is in a graph).
	nodeMapping, nodeLoc []int32
}

// mixedMappings is a node's nodeMapping when its locations are in more
// than one mapping (or some in none).
const mixedMappings = -2

// objfile is the file of node n's mapping, as pprof gives a graph node:
// where all its locations are in one mapping, that one's; else the one
// of the location it is first met at from the root, found by walking
// the stacks again (once per build, for all nodes).
func (b *graphBuild) objfile(n int32) string {
	q := b.q
	p := q.e.p
	if b.nodeMapping == nil {
		b.nodeMapping = make([]int32, q.nodes.len())
		seen := make([]bool, len(b.nodeMapping))
		for l := range len(q.locOff) - 1 {
			m := p.Locations[l].Mapping
			for _, nd := range q.locNodes[q.locOff[l]:q.locOff[l+1]] {
				switch {
				case !seen[nd]:
					seen[nd], b.nodeMapping[nd] = true, m
				case b.nodeMapping[nd] != m:
					b.nodeMapping[nd] = mixedMappings
				}
			}
		}
	}
	m := b.nodeMapping[n]
	if m == mixedMappings {
		m = -1
		if l := b.firstLocs()[n]; l >= 0 {
			m = p.Locations[l].Mapping
		}
	}
	if m < 0 {
		return ""
	}
	return p.Mappings[m].File
}

// firstLocs returns nodeLoc, walking the stacks the builds walk (those
// with weight that survive the filters) the first time.
func (b *graphBuild) firstLocs() []int32 {
	if b.nodeLoc != nil {
		return b.nodeLoc
	}
	q := b.q
	st := &q.e.p.Stacks
	b.nodeLoc = make([]int32, q.nodes.len())
	for i := range b.nodeLoc {
		b.nodeLoc[i] = -1
	}
	noted := make([]bool, len(q.locOff)-1) // per location: its nodes are in nodeLoc
	for s := range st.Len() {
		if _, _, ok := stackWeight(b.w, b.dw, s); !ok {
			continue
		}
		locs := st.At(int32(s))
		lo, hi, ok := q.pathRange(locs)
		if !ok {
			continue
		}
		for i := hi - 1; i >= lo; i-- {
			l := locs[i]
			if noted[l] {
				continue
			}
			noted[l] = true
			for _, n := range q.locNodes[q.locOff[l]:q.locOff[l+1]] {
				if b.nodeLoc[n] < 0 {
					b.nodeLoc[n] = l
				}
			}
		}
	}
	return b.nodeLoc
}

func newGraphBuild(q *query) *graphBuild {
	w, dw, total, totalDiv := q.stackWeights()
	b := &graphBuild{q: q, w: w, dw: dw}
	if q.opt.RelativePercentages {
		kept := make([]bool, len(w))
		for s := range kept {
			kept[s] = q.filtersPass(q.e.p.Stacks.At(int32(s)))
		}
		total, totalDiv = q.survivingTotal(kept)
	}
	if q.mean && totalDiv != 0 {
		total /= totalDiv
	}
	b.total = total
	return b
}

// gnode and gedge are a graph being built and trimmed.
type gnode struct {
	node int32 // the node (its name)
	// orig identifies the node across permutations: its node id in a
	// graph, its creation index in a tree (see ggraph.where).
	orig int32
	// ctx is, in a tree, the orig of the node's caller (-1: a root),
	// and -1 in a graph.
	ctx                        int32
	flat, flatDiv, cum, cumDiv int64
	in, out                    []int32 // edge ids, removed ones too
	labelTags                  map[string]*GraphTag
	numTags                    map[string]map[string]*GraphTag
}

type gedge struct {
	from, to         int32 // indices into nodes
	fromNode, toNode int32 // node ids
	w, dw            int64
	residual, inline bool
	removed          bool
}

type ggraph struct {
	nodes []gnode
	edges []gedge
	where []int32 // orig → index into nodes, or -1
	// child is, in a tree, each node's orig by its parent's orig (-1 for
	// a root) and its node id.
	child map[[2]int32]int32
}

// build walks every stack into a graph of the nodes kept flags (nil:
// every node), as pprof's graph.New with KeptNodes: a dropped node
// between two kept ones makes the edge between them residual, and a
// stack whose leaf is dropped adds no flat value.
//
// Many stacks are walked in two halves on two goroutines, each into a
// graph of its own; the second's is then added to the first's. The
// order of the nodes and edges is not one walk's: the graph is sorted
// after, and a node's edges are summed in any order (pprof keeps them
// in a map).
func (b *graphBuild) build(kept []bool) *ggraph {
	q := b.q
	n := q.e.p.Stacks.Len()
	// Each half sums into keptLocs' records of its own.
	h := stacksHalf(&q.e.p.Stacks)
	lks := b.keptLocs(kept, h < n)
	var parts [2]*ggraph
	var edges [2]*edgeSums
	splitAt(h, n, func(part, lo, hi int) {
		parts[part], edges[part] = b.walk(kept, lks[part], lo, hi)
	})
	g, e := parts[0], edges[0]
	if parts[1] != nil {
		g.addNodes(parts[1])
		e.merge(edges[1])
	}
	// The graph's edges are made once, at their number (1.4M on wide),
	// from the walks' 24 bytes an edge.
	g.edges = graphEdges(e, g.where)
	g.link()
	g.dropValueless(q.opt.DropNegative)
	return g
}

// addNodes adds the values of o's nodes, a graph of later stacks walked
// as g was, to g's, new nodes after g's.
func (g *ggraph) addNodes(o *ggraph) {
	for i := range o.nodes {
		on := &o.nodes[i]
		gn := &g.nodes[g.node(on.node)]
		gn.flat += on.flat
		gn.flatDiv += on.flatDiv
		gn.cum += on.cum
		gn.cumDiv += on.cumDiv
	}
}

// dropValueless drops the nodes with no value, which are not in pprof's
// graph, and with drop_negative the negative ones.
func (g *ggraph) dropValueless(dropNegative bool) {
	var keep []int32
	for i, gn := range g.nodes {
		if gn.flat == 0 && gn.cum == 0 {
			continue
		}
		if dropNegative && (gn.flat < 0 || (gn.flat == 0 && gn.cum < 0)) {
			continue
		}
		keep = append(keep, int32(i))
	}
	g.permute(keep)
}

// node returns node n's index, adding it.
func (g *ggraph) node(n int32) int32 {
	if i := g.where[n]; i >= 0 {
		return i
	}
	g.where[n] = int32(len(g.nodes))
	g.nodes = append(g.nodes, gnode{node: n, orig: n, ctx: -1})
	return g.where[n]
}

// permute keeps the nodes order lists (indices), in its order, and the
// edges between them.
func (g *ggraph) permute(order []int32) {
	newIdx := make([]int32, len(g.nodes))
	for i := range newIdx {
		newIdx[i] = -1
	}
	nodes := make([]gnode, len(order))
	for i, old := range order {
		newIdx[old] = int32(i)
		nodes[i] = g.nodes[old]
	}
	g.nodes = nodes
	dropped := false
	for id := range g.edges {
		e := &g.edges[id]
		if e.removed {
			continue
		}
		e.from, e.to = newIdx[e.from], newIdx[e.to]
		if e.from < 0 || e.to < 0 {
			e.removed = true
			dropped = true
		}
	}
	for i := range g.where {
		g.where[i] = -1
	}
	for i := range g.nodes {
		g.where[g.nodes[i].orig] = int32(i)
	}
	if dropped {
		// A kept node's lists have removed edges only where a dropped
		// node was at their other end, so the lists are checked only
		// when a node was dropped (there can be 1.4M edges).
		g.dropRemoved()
	}
}

// trimEdges removes the edges lighter than cutoff, and returns how many.
func (g *ggraph) trimEdges(cutoff int64) int {
	dropped := 0
	for id := range g.edges {
		if e := &g.edges[id]; !e.removed && abs64(e.w) < cutoff {
			e.removed = true
			dropped++
		}
	}
	if dropped > 0 {
		g.dropRemoved()
	}
	return dropped
}

func (g *ggraph) dropRemoved() {
	for i := range g.nodes {
		gn := &g.nodes[i]
		gn.in = slices.DeleteFunc(gn.in, func(id int32) bool { return g.edges[id].removed })
		gn.out = slices.DeleteFunc(gn.out, func(id int32) bool { return g.edges[id].removed })
	}
}

// removeRedundantEdges removes residual edges whose callee the caller
// reaches another way, lightest first, as pprof's RemoveRedundantEdges.
func (g *ggraph) removeRedundantEdges(t *nodeTable) {
	for i := len(g.nodes) - 1; i >= 0; i-- {
		in := slices.Clone(g.nodes[i].in)
		g.sortEdgeIDs(in, t)
		for j := len(in) - 1; j >= 0; j-- {
			e := &g.edges[in[j]]
			if !e.residual {
				break
			}
			if g.redundant(in[j]) {
				e.removed = true
				g.dropRemoved()
			}
		}
	}
}

// redundant reports whether edge id's caller reaches its callee without
// it.
func (g *ggraph) redundant(id int32) bool {
	e := &g.edges[id]
	src := e.from
	seen := map[int32]bool{e.to: true}
	queue := []int32{e.to}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, ie := range g.nodes[n].in {
			if ie == id {
				continue
			}
			from := g.edges[ie].from
			if seen[from] {
				continue
			}
			if from == src {
				return true
			}
			seen[from] = true
			queue = append(queue, from)
		}
	}
	return false
}

// result makes the Graph of g.
func (g *ggraph) result(q *query, b *graphBuild) *Graph {
	t := q.nodes
	p := q.e.p
	out := &Graph{SampleType: p.SampleTypes[q.vi], Total: b.total, Names: &NodeSet{t}}
	edgeID := make([]int32, len(g.edges)) // g's edge id → out's
	var live []int32
	for id := range g.edges {
		if !g.edges[id].removed {
			live = append(live, int32(id))
		}
	}
	g.sortEdgeIDs(live, t)
	for k, id := range live {
		e := &g.edges[id]
		edgeID[id] = int32(k)
		out.Edges = append(out.Edges, GraphEdge{From: e.from, To: e.to, Weight: e.w, Div: e.dw, Residual: e.residual, Inline: e.inline})
	}
	out.Nodes = make([]GraphNode, len(g.nodes))
	for i := range g.nodes {
		gn := &g.nodes[i]
		in, out2 := slices.Clone(gn.in), slices.Clone(gn.out)
		g.sortEdgeIDs(in, t)
		g.sortEdgeIDs(out2, t)
		for k := range in {
			in[k] = edgeID[in[k]]
		}
		for k := range out2 {
			out2[k] = edgeID[out2[k]]
		}
		n := GraphNode{Node: gn.node, Context: gn.ctx, Flat: divided(gn.flat, gn.flatDiv), Cum: divided(gn.cum, gn.cumDiv), In: in, Out: out2}
		n.Objfile = b.objfile(gn.node)
		for _, tg := range gn.labelTags {
			n.LabelTags = append(n.LabelTags, *tg)
		}
		for k, m := range gn.numTags {
			if n.NumericTags == nil {
				n.NumericTags = map[string][]GraphTag{}
			}
			ts := []GraphTag{}
			for _, tg := range m {
				ts = append(ts, *tg)
			}
			n.NumericTags[k] = ts
		}
		out.Nodes[i] = n
	}
	return out
}
