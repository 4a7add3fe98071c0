package analysis

// Choosing and ordering a call graph's nodes: pprof's entropy score for
// a visual graph (-dot, the Graph view), nodecount's cut (a visual
// graph's tags counting as nodes), and the order of a node's edges.

import (
	"math"
	"slices"
	"sort"
)

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
	// The nodes' sums over their in edges and over their out edges are
	// independent: from parallelEdges edges on, on two goroutines (1.4M
	// edges, 2.8M logarithms on wide).
	tin, tout := make([]int64, n), make([]int64, n)
	for i := range g.nodes {
		tout[i] = g.nodes[i].flat // edgeEntropy's self
	}
	hin, hout := make([]float64, n), make([]float64, n)
	in := func() { g.edgeEntropies(tin, hin, true) }
	out := func() { g.edgeEntropies(tout, hout, false) }
	if len(g.edges) >= parallelEdges {
		both(in, out)
	} else {
		in()
		out()
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

// edgeEntropies sums, per node, the positive weights of its in edges
// (else its out edges) into total, which holds any self weight already,
// then each edge's -frac·log2(frac) of that total into h, in id order.
func (g *ggraph) edgeEntropies(total []int64, h []float64, in bool) {
	end := func(e *gedge) int32 {
		if in {
			return e.to
		}
		return e.from
	}
	for i := range g.edges {
		if e := &g.edges[i]; e.w > 0 {
			total[end(e)] += e.w
		}
	}
	for i := range g.edges {
		e := &g.edges[i]
		if t := total[end(e)]; t != 0 {
			frac := float64(abs64(e.w)) / float64(t)
			h[end(e)] += -frac * math.Log2(frac)
		}
	}
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
