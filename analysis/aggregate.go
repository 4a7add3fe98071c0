package analysis

import (
	"cmp"
	"slices"

	"github.com/pprof-tui/pprof-tui/format"
)

// query is one set of options resolved against a profile: the selected
// value, the compiled filters and the location view. Top, trees, peek and
// traces all start from one.
type query struct {
	e     *Engine
	opt   Options
	vi    int // value index
	mean  bool
	c     *compiled
	nodes *nodeTable
	view  *locView
	// locNodes[locOff[l]:locOff[l+1]] are location l's frames as nodes,
	// outermost first (see buildLocNodes).
	locOff, locNodes []int32
	locInlined       []bool // per locNodes slot: an inlined frame (not its location's outermost)
	// locEdge is, per locNodes slot of an inlined frame, the id of its
	// call edge among the table's static edges (nodeTable.staticEdges):
	// -1 where the caller is the same node, -2 where lines between them
	// are hidden (the edge is looked up per walk). Built with candidates.
	locEdge      []int32
	cand         []bool // per node: an inlined frame somewhere (see candidates)
	anyCand      bool
	inlinedSlots int              // locInlined's true slots: about the inline edges
	filtering    bool             // any filter can change or drop a stack
	keep         func(i int) bool // tag filters; nil keeps every sample
	hidden       bool             // some location is hidden
	names        bool             // focus/ignore/hide/show in use
	drop         bool             // drop_frames in use
	pause        func()           // called now and then by a background walk (TopBackground)
	noMarkers    bool             // for a report without inline markers: no call edges summed
}

func (e *Engine) newQuery(opt Options) (*query, error) {
	e = e.tagNodes(&opt)
	p := e.p
	if opt.Granularity == "" {
		opt.Granularity = "functions"
	}
	if err := opt.check("granularity", "sort"); err != nil {
		return nil, err
	}
	opt = opt.Trimmed()
	vi, err := SampleIndex(p, opt.SampleIndex)
	if err != nil {
		return nil, err
	}
	c, err := compileOptions(&opt)
	if err != nil {
		return nil, err
	}
	keep, err := e.sampleFilter(&opt)
	if err != nil {
		return nil, err
	}
	q := &query{
		e: e, opt: opt, vi: vi, mean: opt.Mean, c: c, keep: keep,
		nodes: e.nodeTable(opt.Granularity, opt.NoInlines, opt.ShowColumns),
		names: c.focus != nil || c.ignore != nil || c.hide != nil || c.show != nil,
	}
	q.drop = e.dropFrames() != nil
	q.filtering = q.names || q.drop || c.showFrom != nil || c.pruneFrom != nil
	key := locKeyOf(opt)
	if lp := e.recentLocs(key); lp != nil {
		q.view, q.hidden, q.locOff, q.locNodes, q.locInlined = lp.view, lp.hidden, lp.off, lp.nodes, lp.inlined
		q.cand, q.anyCand, q.inlinedSlots, q.locEdge = lp.cand, lp.anyCand, lp.inlinedSlots, lp.edge
		return q, nil
	}
	switch lines, view := e.sameLines(key), e.sameView(key); {
	case lines != nil:
		// Focus and ignore only flag locations: the lines and node lists
		// of a kept view that differs in them alone serve.
		q.view = e.buildLocView(c, opt.NoInlines, lines.view)
		q.hidden, q.locOff, q.locNodes, q.locInlined = lines.hidden, lines.off, lines.nodes, lines.inlined
		q.cand, q.anyCand, q.inlinedSlots, q.locEdge = lines.cand, lines.anyCand, lines.inlinedSlots, lines.edge
	case view != nil:
		// The view does not depend on the granularity: a kept one at
		// another serves (the lines after the functions).
		q.view, q.hidden = view.view, view.hidden
		q.buildLocNodes()
		q.candidates()
	default:
		q.view = e.buildLocView(c, opt.NoInlines, nil)
		q.hidden = slices.ContainsFunc(q.view.flags, func(fl uint8) bool { return fl&fHidden != 0 })
		q.buildLocNodes()
		q.candidates()
	}
	e.keepLocs(key, &locPaths{q.view, q.hidden, q.locOff, q.locNodes, q.locInlined, q.cand, q.anyCand, q.inlinedSlots, q.locEdge})
	return q, nil
}

// locKey is what a query's location view and node lists depend on.
type locKey struct {
	granularity                                    string
	noInlines, showColumns                         bool
	focus, ignore, hide, show, showFrom, pruneFrom string
}

func locKeyOf(opt Options) locKey {
	return locKey{opt.Granularity, opt.NoInlines, opt.ShowColumns, opt.Focus, opt.Ignore, opt.Hide, opt.Show, opt.ShowFrom, opt.PruneFrom}
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
	edge          []int32
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
// focus and ignore, or nil.
func (e *Engine) sameLines(k locKey) *locPaths {
	return e.keptLocs(k, func(k *locKey) { k.focus, k.ignore = "", "" })
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

// stackWeights sums the selected value (and the count, for mean) of the
// samples that pass the tag filters, per distinct stack, and the
// percentage denominator over all samples.
func (q *query) stackWeights() (w, dw []int64, total, totalDiv int64) {
	p := q.e.p
	n := p.Stacks.Len()
	w = make([]int64, n)
	if q.mean {
		dw = make([]int64, n)
	}
	vals := p.Samples.Values[q.vi]
	var counts []int64
	if q.mean {
		counts = p.Samples.Values[0]
	}
	base := q.e.baseSets()
	var baseTotal, baseDiv int64
	for i, s := range p.Samples.Stack {
		v := vals[i]
		total += abs64(v)
		if q.mean {
			totalDiv += counts[i]
		}
		if base != nil && base[p.Samples.Labels[i]] {
			baseTotal += abs64(v)
			if q.mean {
				baseDiv += counts[i]
			}
		}
		if q.keep != nil && !q.keep(i) {
			continue
		}
		w[s] += v
		if q.mean {
			dw[s] += counts[i]
		}
	}
	if baseTotal > 0 {
		// With -diff_base the base profile's total is the denominator.
		total, totalDiv = baseTotal, baseDiv
	}
	return w, dw, total, totalDiv
}

// baseSets flags the label sets that mark -diff_base samples, or returns
// nil when the profile has none.
func (e *Engine) baseSets() []bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.base != nil {
		if len(e.base) == 0 {
			return nil
		}
		return e.base
	}
	p := e.p
	flags := make([]bool, p.LabelSets.Len())
	any := false
	for set := range flags {
		for _, kv := range p.LabelSets.At(int32(set)) {
			if p.Strings[kv.Key] == format.BaseLabel && p.Strings[kv.Value] == "true" {
				flags[set], any = true, true
			}
		}
	}
	if !any {
		e.base = []bool{}
		return nil
	}
	e.base = flags
	return flags
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

// buildLocEdges sets locEdge: an inlined frame's call edge is the
// table's static edge from the next-outer line of its location, unless
// the location view hid lines between them.
func (q *query) buildLocEdges() {
	v := q.view
	edge := q.nodes.staticEdges(q.e.p, q.e.lt).slot
	off := q.e.lt.off
	q.locEdge = make([]int32, len(q.locNodes))
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
					q.locEdge[j] = -1 // the outermost frame: not inlined
				case lines[k+1] == lines[k]+1:
					q.locEdge[j] = edge[off[l]+int32(lines[k])]
				default:
					q.locEdge[j] = -2
				}
				j++
			}
			if len(lines) == 0 {
				q.locEdge[j] = -1
			}
		}
	})
}

// pathRange is the part of stack locs that survives the filters, and
// whether the stack survives at all.
func (q *query) pathRange(locs []int32) (lo, hi int, ok bool) {
	if !q.filtering {
		return 0, len(locs), true
	}
	return q.view.stackRange(locs, q.c, q.hidden, q.names, q.drop)
}

// appendPath appends the nodes of stack locs that survive the filters to
// buf, root first, and reports whether the stack survives at all. With
// inl non-nil it also appends, per node, whether it is an inlined frame
// (not the outermost line of its location).
func (q *query) appendPath(buf []int32, inl *[]bool, locs []int32) ([]int32, bool) {
	lo, hi, ok := q.pathRange(locs)
	if !ok {
		return buf, false
	}
	off, nodes := q.locOff, q.locNodes
	for i := hi - 1; i >= lo; i-- {
		l := locs[i]
		// Element by element: most locations have one frame, and a
		// slice append would call memmove for each.
		for j := off[l]; j < off[l+1]; j++ {
			buf = append(buf, nodes[j])
			if inl != nil {
				*inl = append(*inl, j > off[l])
			}
		}
	}
	return buf, true
}

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

// parallelStacks is the stack count above which aggregation splits the
// stacks between two goroutines.
var parallelStacks = 20000 // a variable for the tests

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
	c := q.c
	if plain == nil && c.hide == nil && c.show == nil && c.showFrom == nil && c.pruneFrom == nil {
		seen = make([]uint8, n)
	}
	// Each goroutine sums its runs of stacks, then half of the plain
	// stacks' locations (both goroutines' sums of them) into its nodes.
	var sums [2]*stackSums
	inTwo(n, func(r *runs, part int) {
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
		a.total, totalDiv = a.survivingTotal()
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
	off, nodes := q.locOff, q.locNodes
	n := p.Stacks.Len()
	if q.filtering {
		a.cut = make([]int32, 2*n)
	}
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
			if l := q.leafLoc(locs[lo:hi]); l >= 0 {
				flat[nodes[off[l+1]-1]] += sw // the leaf-most frame
			}
		}
		return flat
	}
	var parts [2][]int64
	inTwo(n, func(r *runs, part int) { parts[part] = leaves(r) })
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

// sumFirst sums a table whose first rows alone get their cum now (see
// aggregateFirst): flat is every node's (firstRows); cum is summed for
// the first nodes only, with the call edges into those of them that are
// candidates for inline markers. A stack's locations are read one by
// one, and only those holding a first node (a few dozen nodes of
// thousands) are walked frame by frame; which locations the stacks pass
// tells which nodes are rows.
func (a *aggregate) sumFirst(first []bool, flat []int64, cand []bool) {
	q := a.q
	n := q.e.p.Stacks.Len()
	off, nodes := q.locOff, q.locNodes
	has := make([]bool, len(off)-1) // per location: holds a first node
	for l := range has {
		for _, nd := range nodes[off[l]:off[l+1]] {
			has[l] = has[l] || first[nd]
		}
	}
	var want []bool
	if cand != nil {
		want = make([]bool, len(first))
		for nd, f := range first {
			want[nd] = f && cand[nd]
		}
	}
	var cum, locW, cum2, locW2 []int64
	var edges2 *edgeSums
	inTwo(n, func(r *runs, part int) {
		if part == 0 {
			cum, locW, a.inlEdges = a.sumFirstRange(r, first, want, has)
		} else {
			cum2, locW2, edges2 = a.sumFirstRange(r, first, want, has)
		}
	})
	addInto(cum, cum2)
	addInto(locW, locW2)
	if a.inlEdges != nil && edges2 != nil {
		a.inlEdges.merge(edges2)
	}
	a.appears = make([]bool, len(first))
	for l, w := range locW {
		if w != 0 {
			for _, nd := range nodes[off[l]:off[l+1]] {
				a.appears[nd] = true
			}
		}
	}
	a.flat, a.cum, a.first = flat, cum, first
}

// sumFirstRange is sumFirst's walk of stacks [from, to).
func (a *aggregate) sumFirstRange(r *runs, first, want, has []bool) (cum, locW []int64, edges *edgeSums) {
	q := a.q
	p := q.e.p
	off, nodes := q.locOff, q.locNodes
	cum = make([]int64, len(first))
	stamp := make([]int32, len(first))
	locW = make([]int64, len(off)-1)
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
			locW[l] += sw
			if !has[l] {
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
	return cum, locW, edges
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
		if q.anyCand {
			q.buildLocEdges()
		}
	}
	if !q.anyCand {
		return nil
	}
	return q.cand
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
	nn := q.nodes.len()
	sums := &stackSums{flat: make([]int64, nn), cum: make([]int64, nn)}
	flat, cum := sums.flat, sums.cum
	var flatDiv, cumDiv []int64
	if q.mean {
		flatDiv, cumDiv = make([]int64, nn), make([]int64, nn)
		sums.flatDiv, sums.cumDiv = flatDiv, cumDiv
	}
	stamp := make([]int32, nn)
	nodes, inlined, off := q.locNodes, q.locInlined, q.locOff
	// Per locNodes slot of an inlined frame: its edge id+1 (0 until
	// looked up), for the stacks walked node by node; made for the first.
	var static []int32
	var edges *edgeSums
	if cand != nil {
		edges = newEdgeSums(q.inlinedSlots / 2) // each goroutine sees about half
		sums.edges = edges
	}
	nl := len(off) - 1
	var locW, leafW, locDW, leafDW []int64
	var entry []bool // per location: its outermost frame is a cand node
	if plain != nil {
		locW, leafW = make([]int64, nl), make([]int64, nl)
		if q.mean {
			locDW, leafDW = make([]int64, nl), make([]int64, nl)
		}
		sums.locW, sums.leafW, sums.locDW, sums.leafDW = locW, leafW, locDW, leafDW
		if cand != nil {
			entry = make([]bool, nl)
			for l := range entry {
				entry[l] = off[l+1] > off[l] && cand[nodes[off[l]]]
			}
			edges.statics = q.nodes.staticEdges(p, q.e.lt)
			edges.static = make([]int64, len(edges.statics.index.keys))
		}
	}
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
			path := locs[lo:hi]
			if entry == nil {
				for _, l := range path {
					locW[l] += sw
				}
			} else {
				for i, l := range path {
					locW[l] += sw
					if entry[l] {
						a.entryEdge(edges, path, i, mark, sw)
					}
				}
			}
			leaf := q.leafLoc(path)
			if leaf >= 0 {
				leafW[leaf] += sw
			}
			if locDW != nil {
				for _, l := range path {
					locDW[l] += sdw
				}
				if leaf >= 0 {
					leafDW[leaf] += sdw
				}
			}
			continue
		}
		// The path, root first, is read from the location view in
		// place (as appendPath would build it).
		parent := int32(-1)
		repeats := false
		for i := hi - 1; i >= lo; i-- {
			l := locs[i]
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
					// An inlined frame's caller is the next-outer
					// line of its location, the same in every stack.
					inl := inlined[j]
					var id int32
					if inl {
						if static == nil {
							static = make([]int32, len(nodes))
						}
						if id = static[j] - 1; id < 0 {
							id = edges.id(edgeKey{parent, n})
							static[j] = id + 1
						}
					} else {
						id = edges.id(edgeKey{parent, n})
					}
					edges.add(id, mark, sw, inl)
				}
				parent = n
			}
		}
		if seen != nil {
			seen[s] = plainStack
			if repeats {
				seen[s] = repeatStack
			}
		}
		if parent < 0 {
			continue // every frame hidden
		}
		leaf := parent // the last frame
		flat[leaf] += sw
		if flatDiv != nil {
			flatDiv[leaf] += sdw
		}
	}
	return sums
}

// spread adds the plain stacks' sums of locations [lo, hi), its own and
// other's (nil, or the other goroutine's), to its nodes' sums.
func (a *aggregate) spread(sums, other *stackSums, lo, hi int, cand []bool) {
	q := a.q
	nodes, off := q.locNodes, q.locOff
	flat, cum, flatDiv, cumDiv, edges := sums.flat, sums.cum, sums.flatDiv, sums.cumDiv, sums.edges
	locW, leafW, locDW, leafDW := sums.locW, sums.leafW, sums.locDW, sums.leafDW
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
				switch id := q.locEdge[j]; {
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

// leafLoc is the leaf-most location of path (leaf first) with a frame in
// the location view, or -1: its innermost frame is the path's leaf.
func (q *query) leafLoc(path []int32) int32 {
	for _, l := range path {
		if q.locOff[l+1] > q.locOff[l] {
			return l
		}
	}
	return -1
}

// caller is the frame that calls path[i]'s outermost frame: the innermost
// frame of the next location towards the root with a frame, or -1.
func (q *query) caller(path []int32, i int) int32 {
	if l := q.leafLoc(path[i+1:]); l >= 0 {
		return q.locNodes[q.locOff[l+1]-1]
	}
	return -1
}

// plainStacks returns table t's flags of plain stacks (nodeTable.plain),
// or nil when no walk has told them. For a table no walk has told them
// for, they are derived from another table's whose nodes t's refine
// (each node of t is part of one node of the other: lines of functions),
// as a stack with no function twice has no line twice: the first table
// at the lines granularity need not walk those stacks node by node.
func (e *Engine) plainStacks(t *nodeTable) []uint8 {
	if f := t.plainStacks(); f != nil {
		return f
	}
	e.mu.Lock()
	var known []*nodeTable
	for _, o := range e.tables {
		if o != t && o.plainStacks() != nil {
			known = append(known, o)
		}
	}
	e.mu.Unlock()
	for _, o := range known {
		if !refines(t, o) {
			continue
		}
		flags := o.plainStacks()
		derived := make([]uint8, len(flags))
		for s, f := range flags {
			if f == plainStack {
				derived[s] = plainStack // a repeat in o may be none in t
			}
		}
		t.setPlainStacks(derived)
		return t.plainStacks()
	}
	return nil
}

// refines reports whether every node of t is part of one node of o: the
// frame slots of a t node are all of one o node.
func refines(t, o *nodeTable) bool {
	to := make([]int32, t.len())
	for i := range to {
		to[i] = -1
	}
	for slot, n := range t.slotNode {
		m := o.slotNode[slot]
		switch to[n] {
		case -1:
			to[n] = m
		case m:
		default:
			return false
		}
	}
	return true
}

// pauseEvery+1 is how many stacks a background walk sums between calls
// of its pause (a few milliseconds' work).
const pauseEvery = 1<<15 - 1

// Values of plainStacks' flags.
const (
	unknownStack uint8 = iota // not walked yet
	plainStack                // no node occurs twice
	repeatStack               // some node occurs twice
)

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

// filtersPass reports whether a stack survives the filters.
func (q *query) filtersPass(locs []int32) bool {
	_, _, ok := q.view.stackRange(locs, q.c, q.hidden, q.names, q.drop)
	return ok
}

// survivingTotal is Σ|v| (and the count sum) over samples that pass every
// filter: the denominator under relative_percentages.
func (a *aggregate) survivingTotal() (total, div int64) {
	p := a.q.e.p
	vals := p.Samples.Values[a.q.vi]
	base := a.q.e.baseSets()
	var baseTotal, baseDiv int64
	for i, s := range p.Samples.Stack {
		if !a.kept[s] || (a.q.keep != nil && !a.q.keep(i)) {
			continue
		}
		total += abs64(vals[i])
		if a.q.mean {
			div += p.Samples.Values[0][i]
		}
		if base != nil && base[p.Samples.Labels[i]] {
			baseTotal += abs64(vals[i])
			if a.q.mean {
				baseDiv += p.Samples.Values[0][i]
			}
		}
	}
	if baseTotal > 0 {
		return baseTotal, baseDiv
	}
	return total, div
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

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// sampleFilter compiles tagfocus and tagignore into a per-sample
// predicate (nil when neither is set).
func (e *Engine) sampleFilter(opt *Options) (func(i int) bool, error) {
	if opt.TagFocus == "" && opt.TagIgnore == "" {
		return nil, nil
	}
	units := e.NumLabelUnits()
	focus, err := compileTagFilter(e.p, "tagfocus", opt.TagFocus, units)
	if err != nil {
		return nil, err
	}
	ignore, err := compileTagFilter(e.p, "tagignore", opt.TagIgnore, units)
	if err != nil {
		return nil, err
	}
	return tagFilterSamples(focus, ignore), nil
}

// NumLabelUnits returns the unit of each numeric label key as pprof
// infers it (the first explicit unit; else bytes for "request" and
// "alignment"; else the key itself). The map is shared: do not modify.
func (e *Engine) NumLabelUnits() map[string]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.units == nil {
		e.units = numLabelUnits(e.p)
	}
	return e.units
}
