package analysis

import (
	"math"
	"slices"
	"sort"
	"strings"

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
			if l := locs[i]; !noted[l] {
				noted[l] = true
				noteLoc(q, b.nodeLoc, l)
			}
		}
	}
	return b.nodeLoc
}

// noteLoc records location l in nodeLoc for its nodes without one.
func noteLoc(q *query, nodeLoc []int32, l int32) {
	for _, n := range q.locNodes[q.locOff[l]:q.locOff[l+1]] {
		if nodeLoc[n] < 0 {
			nodeLoc[n] = l
		}
	}
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
	stamp            int32 // the last stack that counted the edge
}

type ggraph struct {
	nodes []gnode
	edges []gedge
	where []int32   // orig → index into nodes, or -1
	index edgeIndex // a half's edges by caller and callee, until build adds it
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
	// The first half sums into keptLocs' records, the second into a
	// copy made before either starts.
	var lks [2]*plainWalk
	h := stacksHalf(&q.e.p.Stacks)
	if lks[0] = b.keptLocs(kept); lks[0] != nil && h < n {
		lks[1] = &plainWalk{locs: slices.Clone(lks[0].locs), at: lks[0].at}
	}
	var parts [2]*ggraph
	splitAt(h, n, func(part, lo, hi int) {
		parts[part] = b.walk(kept, lks[part], lo, hi)
	})
	g := parts[0]
	if parts[1] != nil {
		g.add(parts[1])
	}
	g.link()
	// Only adding a half needs the index (1.4M edges on wide).
	g.index = edgeIndex{}
	g.dropValueless(q.opt.DropNegative)
	return g
}

// add adds o, a graph of later stacks walked as g was, to g: its nodes'
// values and its edges, new nodes and edges after g's. Neither is
// linked (link lists the edges in their nodes after).
func (g *ggraph) add(o *ggraph) {
	for i := range o.nodes {
		on := &o.nodes[i]
		gn := &g.nodes[g.node(on.node)]
		gn.flat += on.flat
		gn.flatDiv += on.flatDiv
		gn.cum += on.cum
		gn.cumDiv += on.cumDiv
	}
	g.edges = slices.Grow(g.edges, len(o.edges)) // at most all new: grown once
	for _, oe := range o.edges {
		id, added := g.index.number(edgeKey{oe.fromNode, oe.toNode})
		if added {
			from, to := g.where[oe.fromNode], g.where[oe.toNode]
			g.edges = append(g.edges, gedge{from: from, to: to, inline: oe.inline, fromNode: oe.fromNode, toNode: oe.toNode, residual: oe.residual, w: oe.w, dw: oe.dw})
			continue
		}
		e := &g.edges[id]
		e.w += oe.w
		e.dw += oe.dw
		e.residual = e.residual || oe.residual
		e.inline = e.inline && oe.inline
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

// tags sums the label tags of g's nodes over the samples, as pprof's
// graph keeps them for -dot's nodelets: each node's samples by label set,
// and by numeric "bytes" label value, where the node is the leaf (flat)
// and anywhere (cum, once per sample).
//
// Only the first limit nodes get their tags; with flatOnly, only the
// tags' flat values are summed (one node a sample, its leaf). A label tag is found by
// its node and its name's number, not by its name: on a million samples
// with hundreds of label sets, looking names up took a third of the
// Graph view's time.
func (b *graphBuild) tags(g *ggraph, limit int, flatOnly bool) {
	q := b.q
	p := q.e.p
	hasLabels := len(p.LabelSets.Pairs) > 0 || p.Samples.NumOff != nil
	if !hasLabels {
		return
	}
	limit = min(limit, len(g.nodes))
	units := q.e.NumLabelUnits()
	unit := q.opt.Unit
	if unit == "" {
		unit = "minimum"
	}
	// Each label set's name, as a number (-1: no name).
	var names interner[string]
	setIdx := make([]int32, p.LabelSets.Len())
	var parts []string
	for set := range setIdx {
		parts = parts[:0]
		for _, l := range p.LabelSets.At(int32(set)) {
			k := p.Strings[l.Key]
			if k == format.BaseLabel {
				continue
			}
			parts = append(parts, k+":"+p.Strings[l.Value])
		}
		if len(parts) == 0 {
			setIdx[set] = -1
			continue
		}
		sort.Strings(parts)
		name := strings.Join(parts, `\n`)
		setIdx[set] = names.id(name)
	}
	lt := newLabelTags(limit, len(names.keys))

	vals := p.Samples.Values[q.vi]
	nn := q.nodes.len()
	stamp := make([]int32, nn)
	fold := q.folder()
	var path []int32
	pathOf, pathOK := int32(-1), false // the stack path (or leaf) holds
	// A graph's tags count only its first limit nodes: its flat tags
	// need only the stack's leaf, whose node folding keeps (leafOnly);
	// without folding, its tags need only the frames of the locations
	// with one of those nodes (limited), which on a million distinct
	// stacks are a few of each stack's (byLoc).
	leafOnly := flatOnly && g.child == nil
	byLoc := !flatOnly && g.child == nil && fold == nil
	off, nodes := q.locOff, q.locNodes
	var limited []bool
	if byLoc {
		limited = make([]bool, len(off)-1)
		for l := range limited {
			for j := off[l]; j < off[l+1]; j++ {
				if gi := g.where[nodes[j]]; gi >= 0 && int(gi) < limit {
					limited[l] = true
					break
				}
			}
		}
	}
	// counted, when the tags are only counted (the Graph view's, at
	// nodefraction 0: selectTop counts at most MaxNodelets of a node's)
	// and no sample's weight is negative (so that a tag made has a flat
	// value other than 0): per first node, the tags made for it; a node
	// with MaxNodelets of them takes no more samples.
	var counted []int32
	if b.noTags && leafOnly && !q.mean && !slices.ContainsFunc(vals, func(v int64) bool { return v < 0 }) {
		counted = make([]int32, limit)
	}
	// With no filter on frames, a flat tag's node is its stack's first
	// location's innermost frame: stackGI has, per stack, that node's
	// index among the first limit nodes (-1: another node, or none), so
	// that a sample whose leaf is not among them is passed over with one
	// look-up, before its labels are read (a million samples of 20,000
	// stacks look up 20,000 leaves). A first location without frames
	// (-2) leaves the stack to stackLeaf.
	var stackGI []int32
	if leafOnly && !q.filtering {
		stackGI = make([]int32, p.Stacks.Len())
		for s := range stackGI {
			stackGI[s] = -1
			st := p.Stacks.At(int32(s))
			switch {
			case len(st) == 0:
			case off[st[0]+1] == off[st[0]]:
				stackGI[s] = -2
			default:
				if gi := g.where[nodes[off[st[0]+1]-1]]; gi >= 0 && int(gi) < limit {
					stackGI[s] = gi
				}
			}
		}
	}
	isBytes := make([]bool, len(p.Samples.NumKinds)) // per numeric kind: its key is "bytes"
	for k, kind := range p.Samples.NumKinds {
		isBytes[k] = p.Strings[kind.Key] == "bytes"
	}
	var locs []int32 // the stack's locations under the filters
	leaf := int32(-1)
	bytesUnit := units["bytes"]
	var nums []int64 // the sample's "bytes" values
	for i, s := range p.Samples.Stack {
		if q.keep != nil && !q.keep(i) {
			continue
		}
		w := vals[i]
		var dw int64
		if q.mean {
			dw = p.Samples.Values[0][i]
		}
		if w == 0 && dw == 0 {
			continue
		}
		if stackGI != nil {
			if gi := stackGI[s]; gi == -1 || gi >= 0 && counted != nil && counted[gi] >= MaxNodelets {
				continue // a leaf not among the first nodes, or counted enough
			}
		}
		ni := setIdx[p.Samples.Labels[i]]
		nums = nums[:0]
		if p.Samples.NumOff != nil {
			for j := p.Samples.NumOff[i]; j < p.Samples.NumOff[i+1]; j++ {
				if isBytes[p.Samples.NumKind[j]] {
					nums = append(nums, p.Samples.NumValue[j])
				}
			}
		}
		if ni < 0 && len(nums) == 0 {
			continue
		}
		// Samples of one stack often follow each other.
		if s != pathOf {
			pathOf = s
			if leafOnly || byLoc {
				locs, leaf = q.stackLeaf(p.Stacks.At(s))
			} else {
				path, pathOK = q.appendPath(fold, path[:0], nil, p.Stacks.At(s))
			}
		}
		if (leafOnly || byLoc) && leaf < 0 || !leafOnly && !byLoc && (!pathOK || len(path) == 0) {
			continue
		}
		mark := int32(i + 1)
		add := func(gi int32, flat bool) {
			if gi < 0 || int(gi) >= limit || counted != nil && counted[gi] >= MaxNodelets {
				return
			}
			made := len(lt.tags) + len(lt.nums)
			if ni >= 0 {
				lt.at(gi, ni).add(w, dw, flat)
			}
			for _, v := range nums {
				lt.num(gi, ni, v).add(w, dw, flat)
			}
			if counted != nil {
				counted[gi] += int32(len(lt.tags) + len(lt.nums) - made)
			}
		}
		if flatOnly {
			gi := int32(-1)
			if leafOnly {
				gi = g.where[leaf]
			} else {
				parent := int32(-1)
				for _, n := range path {
					orig, ok := g.child[[2]int32{parent, n}]
					if !ok {
						gi = -1
						break
					}
					gi, parent = g.where[orig], orig
				}
			}
			add(gi, true)
			continue
		}
		if g.child != nil {
			// A tree: the path's nodes, each once.
			parent, gi := int32(-1), int32(-1)
			for _, n := range path {
				orig, ok := g.child[[2]int32{parent, n}]
				if !ok {
					gi = -1
					break
				}
				gi = g.where[orig]
				add(gi, false)
				parent = orig
			}
			add(gi, true)
			continue
		}
		if byLoc {
			for _, l := range locs {
				if !limited[l] {
					continue
				}
				for j := off[l]; j < off[l+1]; j++ {
					if n := nodes[j]; stamp[n] != mark {
						stamp[n] = mark
						add(g.where[n], false)
					}
				}
			}
			add(g.where[leaf], true)
			continue
		}
		for _, n := range path {
			if stamp[n] != mark {
				stamp[n] = mark
				add(g.where[n], false)
			}
		}
		// The leaf has the flat value only when it is kept (a dropped
		// leaf leaves none, as in build).
		add(g.where[path[len(path)-1]], true)
	}
	for k := range lt.tags {
		gn, t := &g.nodes[lt.node[k]], &lt.tags[k]
		if gn.labelTags == nil {
			gn.labelTags = map[string]*GraphTag{}
		}
		t.Name = names.keys[lt.name[k]]
		gn.labelTags[t.Name] = t
	}
	scaled := map[int64]string{} // a value's name: values recur across nodes
	for k, key := range lt.numIDs.keys {
		gn, t := &g.nodes[key.node], &lt.nums[k]
		labels := ""
		if key.name >= 0 {
			labels = names.keys[key.name]
		}
		if gn.numTags == nil {
			gn.numTags = map[string]map[string]*GraphTag{}
		}
		m := gn.numTags[labels]
		if m == nil {
			m = map[string]*GraphTag{}
			gn.numTags[labels] = m
		}
		name, ok := scaled[key.v]
		if !ok {
			name = ScaledLabel(key.v, bytesUnit, unit)
			scaled[key.v] = name
		}
		t.Name, t.Unit, t.Value = name, bytesUnit, key.v
		if o := m[t.Name]; o != nil {
			// Values that scale to one name are one tag.
			o.Flat, o.FlatDiv, o.Cum, o.CumDiv = o.Flat+t.Flat, o.FlatDiv+t.FlatDiv, o.Cum+t.Cum, o.CumDiv+t.CumDiv
			continue
		}
		m[t.Name] = t
	}
}

// labelTags are the label tags of a graph's first nodes, by node index
// and label name number: in a table when it is small enough, else in a
// map; and their numeric tags, by node, label name number and value.
type labelTags struct {
	names  int
	dense  []int32         // node*names + name → tag index + 1
	where  map[int64]int32 // the same, when the table would be too big
	tags   []GraphTag
	node   []int32 // per tag: its node, and its name in name
	name   []int32
	numIDs interner[numKey] // → index into nums
	nums   []GraphTag
}

// numKey is a numeric tag: its node, label name number (-1: none) and
// value.
type numKey struct {
	node, name int32
	v          int64
}

// num returns node gi's numeric tag for name ni and value v, adding it.
func (lt *labelTags) num(gi, ni int32, v int64) *GraphTag {
	id := lt.numIDs.id(numKey{gi, ni, v})
	if int(id) == len(lt.nums) {
		lt.nums = append(lt.nums, GraphTag{})
	}
	return &lt.nums[id]
}

// maxDenseTags bounds the table labelTags uses (16 MiB).
const maxDenseTags = 1 << 22

func newLabelTags(nodes, names int) *labelTags {
	lt := &labelTags{names: names}
	if nodes*names <= maxDenseTags {
		lt.dense = make([]int32, nodes*names)
	} else {
		lt.where = map[int64]int32{}
	}
	return lt
}

// at returns node gi's tag for name ni, adding it.
func (lt *labelTags) at(gi, ni int32) *GraphTag {
	k := int64(gi)*int64(lt.names) + int64(ni)
	var id int32
	if lt.dense != nil {
		id = lt.dense[k]
	} else {
		id = lt.where[k]
	}
	if id == 0 {
		lt.tags = append(lt.tags, GraphTag{})
		lt.node, lt.name = append(lt.node, gi), append(lt.name, ni)
		id = int32(len(lt.tags))
		if lt.dense != nil {
			lt.dense[k] = id
		} else {
			lt.where[k] = id
		}
	}
	return &lt.tags[id-1]
}

func (t *GraphTag) add(w, dw int64, flat bool) {
	if flat {
		t.Flat += w
		t.FlatDiv += dw
	} else {
		t.Cum += w
		t.CumDiv += dw
	}
}

// copyTags gives g's nodes the tags they have in from: a node's tags do
// not depend on which other nodes are kept.
func (g *ggraph) copyTags(from *ggraph) {
	for i := range g.nodes {
		gn := &g.nodes[i]
		if j := from.where[gn.orig]; j >= 0 {
			gn.labelTags, gn.numTags = from.nodes[j].labelTags, from.nodes[j].numTags
		}
	}
}

// trimTags drops the tags whose flat and cum are both below cutoff.
func (g *ggraph) trimTags(cutoff int64) {
	trim := func(m map[string]*GraphTag) {
		for k, t := range m {
			if abs64(t.Flat) < cutoff && abs64(t.Cum) < cutoff {
				delete(m, k)
			}
		}
	}
	for i := range g.nodes {
		trim(g.nodes[i].labelTags)
		for _, m := range g.nodes[i].numTags {
			trim(m)
		}
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

// countTags is how many of n's tags have a flat value (pprof counts
// them as nodes when choosing a visual graph's nodes).
func (gn *gnode) countTags() int {
	c := 0
	for _, t := range gn.labelTags {
		if t.Flat != 0 {
			c++
		}
	}
	for _, m := range gn.numTags {
		for _, t := range m {
			if t.Flat != 0 {
				c++
			}
		}
	}
	return c
}

// MaxNodelets is how many tags -dot draws under a node.
const MaxNodelets = 4

// selectTop is how many of the first nodes nodecount keeps: in a visual
// graph each node's tags count as nodes too.
func (g *ggraph) selectTop(maxNodes int, visual bool) int {
	if visual {
		count := 0
		for i := range g.nodes {
			if count += min(g.nodes[i].countTags(), MaxNodelets) + 1; count >= maxNodes {
				maxNodes = i + 1
				break
			}
		}
	}
	return min(maxNodes, len(g.nodes))
}

// sortNodes orders the nodes as pprof's SortNodes: by entropy score
// (visual), cum or flat, then by name.
func (g *ggraph) sortNodes(t *nodeTable, byCum, visual bool) {
	g.sortFirstNodes(t, byCum, visual, 0)
}

// sortFirstNodes is sortNodes where only the first first nodes' order
// matters (0: all): the nodes that cannot be among them by score are put
// after them in no order, unnamed (a graph of 100,000 nodes cut to 80).
func (g *ggraph) sortFirstNodes(t *nodeTable, byCum, visual bool, first int) {
	n := len(g.nodes)
	var score []int64
	if visual {
		score = g.entropyScores()
	} else {
		score = make([]int64, n)
		for i := range g.nodes {
			if byCum {
				score[i] = g.nodes[i].cum
			} else {
				score[i] = g.nodes[i].flat
			}
		}
	}
	perm := make([]int, 0, n)
	var rest []int // the nodes whose score puts them past the first
	if first > 0 && first < n {
		// The first-th largest |score|: a node below it is past the
		// first, whatever its name.
		abs := make([]int64, n)
		for i, v := range score {
			abs[i] = abs64(v)
		}
		slices.Sort(abs)
		floor := abs[n-first]
		for i, v := range score {
			if abs64(v) >= floor {
				perm = append(perm, i)
			} else {
				rest = append(rest, i)
			}
		}
	} else {
		for i := range n {
			perm = append(perm, i)
		}
	}
	infos := make([]NodeInfo, n)
	names := make([]string, n)
	for _, i := range perm {
		infos[i] = t.info(g.nodes[i].node)
		names[i] = infos[i].PrintableName()
	}
	nameLess := func(l, r int) (equal, less bool) {
		if infos[l] == infos[r] {
			return true, false
		}
		if a, b := infos[l].Address, infos[r].Address; a != 0 && b != 0 && a != b {
			return false, a < b
		}
		return false, names[l] < names[r]
	}
	second := func(i int) int64 { return g.nodes[i].cum }
	if visual || byCum {
		second = func(i int) int64 { return g.nodes[i].flat }
	}
	sort.Slice(perm, func(a, b int) bool {
		l, r := perm[a], perm[b]
		if x, y := abs64(score[l]), abs64(score[r]); x != y {
			return x > y
		}
		if eq, less := nameLess(l, r); !eq {
			return less
		}
		// pprof's last tie-breaker, its NodeInfos printed with %v, is
		// reached here only by equal infos (nameLess), which print alike.
		x, y := abs64(second(l)), abs64(second(r))
		return x > y
	})
	perm = append(perm, rest...)
	order := make([]int32, n)
	for i, j := range perm {
		order[i] = int32(j)
	}
	g.permute(order)
}

// entropyScores are entropyScore of every node. When each edge is in
// its caller's and its callee's lists, in id order (as link makes
// them), they are summed over the edges in that order, a node's terms
// in the order entropyScore adds them: the same numbers, from one pass
// over the edges instead of a look-up per list entry (on 1.4M edges,
// most of them cache misses).
func (g *ggraph) entropyScores() []int64 {
	n := len(g.nodes)
	score := make([]int64, n)
	if !g.listedInOrder() {
		for i := range score {
			score[i] = g.entropyScore(i)
		}
		return score
	}
	tin, tout := make([]int64, n), make([]int64, n)
	for i := range g.nodes {
		tout[i] = g.nodes[i].flat // edgeEntropy's self
	}
	for i := range g.edges {
		if e := &g.edges[i]; e.w > 0 {
			tin[e.to] += e.w
			tout[e.from] += e.w
		}
	}
	hin, hout := make([]float64, n), make([]float64, n)
	for i := range g.edges {
		e := &g.edges[i]
		if t := tin[e.to]; t != 0 {
			frac := float64(abs64(e.w)) / float64(t)
			hin[e.to] += -frac * math.Log2(frac)
		}
		if t := tout[e.from]; t != 0 {
			frac := float64(abs64(e.w)) / float64(t)
			hout[e.from] += -frac * math.Log2(frac)
		}
	}
	for i := range g.nodes {
		gn := &g.nodes[i]
		s := 0.0
		if len(gn.in) == 0 {
			s++
		} else {
			s += hin[i]
		}
		if len(gn.out) == 0 {
			s++
		} else {
			h := hout[i]
			if t := tout[i]; t != 0 && gn.flat > 0 {
				frac := float64(abs64(gn.flat)) / float64(t)
				h += -frac * math.Log2(frac)
			}
			s += h
		}
		score[i] = int64(s*float64(gn.cum)) + gn.flat
	}
	return score
}

// listedInOrder reports whether every edge is in one caller's and one
// callee's list, each list in id order.
func (g *ggraph) listedInOrder() bool {
	in, out := 0, 0
	for i := range g.nodes {
		gn := &g.nodes[i]
		if !slices.IsSorted(gn.in) || !slices.IsSorted(gn.out) {
			return false
		}
		in += len(gn.in)
		out += len(gn.out)
	}
	if in != len(g.edges) || out != len(g.edges) {
		return false
	}
	for i := range g.edges {
		if e := &g.edges[i]; e.from < 0 || e.to < 0 {
			return false
		}
	}
	return true
}

// entropyScore is pprof's score of how much a node tells in a picture:
// entry and leaf nodes, and nodes whose calls spread, score higher.
func (g *ggraph) entropyScore(i int) int64 {
	gn := &g.nodes[i]
	score := 0.0
	if len(gn.in) == 0 {
		score++
	} else {
		score += g.edgeEntropy(gn.in, 0)
	}
	if len(gn.out) == 0 {
		score++
	} else {
		score += g.edgeEntropy(gn.out, gn.flat)
	}
	return int64(score*float64(gn.cum)) + gn.flat
}

func (g *ggraph) edgeEntropy(ids []int32, self int64) float64 {
	score := 0.0
	total := self
	for _, id := range ids {
		if w := g.edges[id].w; w > 0 {
			total += abs64(w)
		}
	}
	if total != 0 {
		for _, id := range ids {
			frac := float64(abs64(g.edges[id].w)) / float64(total)
			score += -frac * math.Log2(frac)
		}
		if self > 0 {
			frac := float64(abs64(self)) / float64(total)
			score += -frac * math.Log2(frac)
		}
	}
	return score
}

// sortEdgeIDs orders edges as pprof's EdgeMap.Sort: by |weight|, then
// by the caller's and the callee's names.
func (g *ggraph) sortEdgeIDs(ids []int32, t *nodeTable) {
	name := func(n int32) string { return t.name(n) }
	sort.Slice(ids, func(a, b int) bool {
		x, y := &g.edges[ids[a]], &g.edges[ids[b]]
		if x.w != y.w {
			return abs64(x.w) > abs64(y.w)
		}
		if f1, f2 := name(x.fromNode), name(y.fromNode); f1 != f2 {
			return f1 < f2
		}
		return name(x.toNode) < name(y.toNode)
	})
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
