package analysis

import (
	"sync"
	"sync/atomic"
)

// locKey is what a query's location view and node lists depend on.
type locKey struct {
	granularity            string
	noInlines, showColumns bool
	// flags and lines are the values of the filters over frames, in the
	// settings table's order: those that only flag locations
	// (flagsFrames) and those that change their lines (cutsFrames).
	// Arrays of the values themselves, not strings spelled out of them:
	// a key is made on every query and must not allocate. A filter
	// beyond their length panics on the first query.
	flags [2]string
	lines [4]string
}

func locKeyOf(opt *Options) locKey {
	k := locKey{granularity: opt.Granularity, noInlines: opt.NoInlines, showColumns: opt.ShowColumns}
	filterValues(opt, flagsFrames, k.flags[:])
	filterValues(opt, cutsFrames, k.lines[:])
	return k
}

// filterValues writes into vals the values in opt of the settings table's
// filters of one use, in the table's order (a key's fixed-size array, so
// that making it does not allocate; a filter beyond its length panics on
// the first query).
func filterValues(opt *Options, use filterUse, vals []string) {
	n := 0
	t := table()
	for i := range t {
		if s := &t[i]; s.use == use {
			vals[n] = s.get(opt)
			n++
		}
	}
}

// locPaths is a query's location view and node lists, kept by the Engine
// for the next queries with the same name filters and granularity (a
// sample type or tag filter changes none of them): building them is
// O(locations), which dominates on profiles with a million locations.
// Never modified once built.
type locPaths struct {
	view          *locView
	hidden        bool
	off, nodes    []int32
	inlined, cand []bool
	anyCand       bool
	inlinedSlots  int
	edges         *locEdges
	// folded is the paths folded under recursion=all, made on the
	// first tree that asks (query.foldedPaths).
	foldOnce    sync.Once
	folded      atomic.Pointer[foldedPaths]
	foldWaiters atomic.Int32 // queries waiting for folded
}

// recentLocSets is how many location views an Engine keeps: the current
// one and those just before it (clearing a filter goes back to one).
const recentLocSets = 3

func (e *Engine) recentLocs(k locKey) *locPaths {
	e.mu.Lock()
	defer e.mu.Unlock()
	lp, _ := e.locs.get(k)
	return lp
}

// sameLines is a kept location view whose key differs from k at most in
// the filters that only flag locations (focus and ignore), or nil.
func (e *Engine) sameLines(k locKey) *locPaths {
	return e.keptLocs(k, func(k *locKey) { clear(k.flags[:]) })
}

// sameView is a kept location view whose key differs from k at most in
// the granularity and columns, or nil.
func (e *Engine) sameView(k locKey) *locPaths {
	return e.keptLocs(k, func(k *locKey) { k.granularity, k.showColumns = "", false })
}

// keptLocs is a kept location view whose key, with unset applied, is
// k's with unset applied, or nil.
func (e *Engine) keptLocs(k locKey, unset func(*locKey)) *locPaths {
	e.mu.Lock()
	defer e.mu.Unlock()
	unset(&k)
	for i, kk := range e.locs.keys {
		unset(&kk)
		if kk == k {
			return e.locs.vals[i]
		}
	}
	return nil
}

func (e *Engine) keepLocs(k locKey, lp *locPaths) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.locs.add(k, lp, recentLocSets, nil)
}

// buildLocNodes turns the location view into node lists: location l's
// frames are locNodes[off[l]:off[l+1]], outermost first, so that walking
// a stack is a run of array reads. A hidden location has none.
func (q *query) buildLocNodes() {
	v := q.view
	slotNode := q.nodes.slotNode
	off := q.e.lt.off
	nl := len(v.flags)
	q.locOff = make([]int32, nl+1)
	// A visible location has a node per line it keeps, or one.
	count := func(lo, hi int) int {
		n := 0
		for l := lo; l < hi; l++ {
			if v.flags[l]&fHidden == 0 {
				n += max(1, int(v.off[l+1]-v.off[l]))
			}
		}
		return n
	}
	// Locations [lo, hi), their nodes from locNodes[at].
	fill := func(lo, hi int, at int32) {
		for l := lo; l < hi; l++ {
			if v.flags[l]&fHidden == 0 {
				lines := v.lines[v.off[l]:v.off[l+1]]
				if len(lines) == 0 {
					q.locNodes[at] = slotNode[off[l]]
					at++
				}
				for k := len(lines) - 1; k >= 0; k-- {
					q.locNodes[at] = slotNode[off[l]+int32(lines[k])]
					q.locInlined[at] = k != len(lines)-1
					at++
				}
			}
			q.locOff[l+1] = at
		}
	}
	h := half(nl, parallelLocations)
	first := count(0, h)
	n := first + count(h, nl)
	q.locNodes, q.locInlined = make([]int32, n), make([]bool, n)
	inHalves(nl, parallelLocations, func(part, lo, hi int) { fill(lo, hi, int32(part*first)) })
}

// locEdges are, per locNodes slot of an inlined frame, the id of its
// call edge among the node table's static edges (nodeTable.staticEdges):
// -1 where the caller is the same node, -2 where lines between them are
// hidden (the edge is looked up per walk). Only walks that sum stacks per
// location (once the plain stacks are known) read them: numbering the
// static edges is a large part of the first table's work on a profile of
// many locations, which does not need them, so they are made by the
// first walk that does.
// Shared by the queries whose location views have the same lines.
type locEdges struct {
	once sync.Once
	id   []int32
}

// locEdgeIDs returns the locEdges' ids, made once.
func (q *query) locEdgeIDs() []int32 {
	le := q.paths.edges
	le.once.Do(func() { le.id = q.buildLocEdges() })
	return le.id
}

// buildLocEdges makes the locEdges' ids: an inlined frame's call edge is
// the table's static edge from the next-outer line of its location,
// unless the location view hid lines between them.
func (q *query) buildLocEdges() []int32 {
	v := q.view
	edge := q.nodes.staticEdges(q.e.p, q.e.lt).slot
	off := q.e.lt.off
	ids := make([]int32, len(q.locNodes))
	inHalves(len(v.flags), parallelLocations, func(_, lo, hi int) {
		for l := lo; l < hi; l++ {
			j := q.locOff[l]
			if j == q.locOff[l+1] {
				continue
			}
			lines := v.lines[v.off[l]:v.off[l+1]]
			for k := len(lines) - 1; k >= 0; k-- {
				switch {
				case k == len(lines)-1:
					ids[j] = -1 // the outermost frame: not inlined
				case lines[k+1] == lines[k]+1:
					ids[j] = edge[off[l]+int32(lines[k])]
				default:
					ids[j] = -2
				}
				j++
			}
			if len(lines) == 0 {
				ids[j] = -1
			}
		}
	})
	return ids
}

// candidates flags the nodes that are an inlined frame somewhere: only
// they can be marked inline.
func (q *query) candidates() []bool {
	if q.cand == nil {
		q.cand = make([]bool, q.nodes.len())
		for j, n := range q.locNodes {
			if q.locInlined[j] {
				q.cand[n] = true
				q.anyCand = true
				q.inlinedSlots++
			}
		}
	}
	if !q.anyCand {
		return nil
	}
	return q.cand
}
