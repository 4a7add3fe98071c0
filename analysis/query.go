package analysis

import (
	"slices"
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
	paths *locPaths // what view and the node lists below were kept as
	// locNodes[locOff[l]:locOff[l+1]] are location l's frames as nodes,
	// outermost first (see buildLocNodes).
	locOff, locNodes []int32
	locInlined       []bool // per locNodes slot: an inlined frame (not its location's outermost)
	cand             []bool // per node: an inlined frame somewhere (see candidates)
	anyCand          bool
	inlinedSlots     int              // locInlined's true slots: about the inline edges
	filtering        bool             // any filter can change or drop a stack
	keep             func(i int) bool // tag filters; nil keeps every sample
	baseOnly         bool             // keep keeps the -diff_base samples only (BaseTop)
	hidden           bool             // some location is hidden
	names            bool             // focus/ignore/hide/show in use
	drop             bool             // drop_frames in use
	pause            func()           // called now and then by a background walk (TopBackground)
	noMarkers        bool             // for a report without inline markers: no call edges summed
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
	// The filters are read through the settings table's accessors, which
	// take a pointer: the query's own copy, already on the heap, and not
	// opt, which would move there too.
	q := &query{e: e, opt: opt, vi: vi, mean: opt.Mean}
	c, err := compileOptions(&q.opt)
	if err != nil {
		return nil, err
	}
	if q.keep, err = e.sampleFilter(&q.opt); err != nil {
		return nil, err
	}
	q.c = c
	q.nodes = e.nodeTable(opt.Granularity, opt.NoInlines, opt.ShowColumns)
	q.names = c.focus != nil || c.ignore != nil || c.hide != nil || c.show != nil
	q.drop = e.dropFrames() != nil
	q.filtering = c.frames || q.drop
	key := locKeyOf(&q.opt)
	if lp := e.recentLocs(key); lp != nil {
		q.view, q.hidden, q.locOff, q.locNodes, q.locInlined = lp.view, lp.hidden, lp.off, lp.nodes, lp.inlined
		q.cand, q.anyCand, q.inlinedSlots = lp.cand, lp.anyCand, lp.inlinedSlots
		q.paths = lp
		return q, nil
	}
	// The inlined frames' static call edges depend on the lines alone.
	edges := &locEdges{}
	switch lines, view := e.sameLines(key), e.sameView(key); {
	case lines != nil:
		// Focus and ignore only flag locations: the lines and node lists
		// of a kept view that differs in them alone serve.
		q.view = e.buildLocView(c, opt.NoInlines, lines.view)
		q.hidden, q.locOff, q.locNodes, q.locInlined = lines.hidden, lines.off, lines.nodes, lines.inlined
		q.cand, q.anyCand, q.inlinedSlots, edges = lines.cand, lines.anyCand, lines.inlinedSlots, lines.edges
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
	q.paths = &locPaths{view: q.view, hidden: q.hidden, off: q.locOff, nodes: q.locNodes, inlined: q.locInlined,
		cand: q.cand, anyCand: q.anyCand, inlinedSlots: q.inlinedSlots, edges: edges}
	e.keepLocs(key, q.paths)
	return q, nil
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
// buf, root first, folded by f (nil: not folded), and reports whether the
// stack survives at all. With inl non-nil it also appends, per node,
// whether it is an inlined frame (not the outermost line of its
// location).
func (q *query) appendPath(f *folder, buf []int32, inl *[]bool, locs []int32) ([]int32, bool) {
	lo, hi, ok := q.pathRange(locs)
	if !ok {
		return buf, false
	}
	start, istart := len(buf), 0
	if inl != nil {
		istart = len(*inl)
	}
	buf = q.appendLocs(buf, inl, locs[lo:hi])
	if f != nil {
		var fi []bool
		if inl != nil {
			fi = (*inl)[istart:]
		}
		path, fi := f.fold(buf[start:], fi, q.nodes.len())
		if inl != nil {
			*inl = (*inl)[:istart+len(fi)]
		}
		buf = buf[:start+len(path)]
	}
	return buf, true
}

// appendLocs appends the nodes of locations locs (leaf first, as a
// stack lists them) to buf, root first, and with inl non-nil, per node,
// whether it is an inlined frame.
func (q *query) appendLocs(buf []int32, inl *[]bool, locs []int32) []int32 {
	off, nodes := q.locOff, q.locNodes
	for i := len(locs) - 1; i >= 0; i-- {
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
	return buf
}

// stackLeaf is stack locs' locations under the filters, and the node of
// its leaf frame: the last node appendPath gives, which folding keeps;
// -1 when the stack does not survive or has no frame.
func (q *query) stackLeaf(locs []int32) (kept []int32, leaf int32) {
	lo, hi, ok := q.pathRange(locs)
	if !ok {
		return nil, -1
	}
	if l := q.leafLoc(locs[lo:hi]); l >= 0 {
		return locs[lo:hi], q.locNodes[q.locOff[l+1]-1]
	}
	return nil, -1
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

// filtersPass reports whether a stack survives the filters.
func (q *query) filtersPass(locs []int32) bool {
	_, _, ok := q.view.stackRange(locs, q.c, q.hidden, q.names, q.drop)
	return ok
}
