package analysis

import (
	"regexp"
	"slices"
	"sort"
)

// Edge is a caller→callee edge of the call graph, weighted as pprof
// weighs it: the value of the samples whose stack contains the call,
// counted once per sample.
type Edge struct {
	Node   int32 // the caller (for In) or the callee (for Out)
	Weight int64
	// Inline is true when every such call was inlined.
	Inline bool
}

// PeekEntry is one function with its callers and callees.
type PeekEntry struct {
	Row
	In, Out []Edge // heaviest first
}

// Peek is pprof's -peek report: the callers and callees of every node
// whose name matches a regexp, in top-table order.
type Peek struct {
	Top     *Top
	Regexp  string
	Entries []PeekEntry
}

// Peek computes the callers and callees of the nodes matching re.
func (e *Engine) Peek(opt Options, re *regexp.Regexp) (*Peek, error) {
	return e.peek(opt, re.String(), func(top *Top, r *Row) bool { return re.MatchString(top.Nodes.Name(r.Node)) })
}

// PeekFunction computes the callers and callees of the nodes of the
// function named name (as FuncName names nodes): nodes with that
// function name, or, for nodes without one (files granularity,
// unsymbolized code), that file, that mapping's file or that label.
func (e *Engine) PeekFunction(opt Options, name string) (*Peek, error) {
	return e.peek(opt, "^"+regexp.QuoteMeta(name)+"$", func(top *Top, r *Row) bool {
		return top.Nodes.FuncName(r.Node) == name
	})
}

func (e *Engine) peek(opt Options, desc string, match func(*Top, *Row) bool) (*Peek, error) {
	// The top table is one the Top view keeps, for opt but perhaps for
	// the edge fraction (Peek's has every edge), and perhaps with only
	// its first rows exact (Top.Partial): its order, flat values and
	// names serve, and the edge walk sums the matched rows' cum and the
	// edges their inline markers come from (at 10M samples, waiting for
	// the table's completion took 2 s). Otherwise the one Top gives.
	top, kept := e.keptTopForPeek(opt), true
	if top == nil {
		var err error
		if top, err = e.Top(opt); err != nil {
			return nil, err
		}
		kept = false
	}
	q, err := e.newQuery(opt)
	if err != nil {
		return nil, err
	}
	matched := make([]bool, q.nodes.len())
	for i := range top.Rows {
		if r := &top.Rows[i]; match(top, r) {
			matched[r.Node] = true
		}
	}
	in, out, cum := q.edges(matched)
	pk := &Peek{Top: top, Regexp: desc}
	// Nothing trims the kept table's rows: the edge cutoff is of the sum
	// of every row's flat.
	edgeCutoff := fractionOf(top.ShownTotal, opt.EdgeFraction)
	for _, r := range top.Rows {
		if !matched[r.Node] {
			continue
		}
		if kept {
			r.Cum = cum[r.Node]
			r.Inline = inlineMarker(in[r.Node], edgeCutoff)
		}
		pk.Entries = append(pk.Entries, PeekEntry{Row: r, In: sortEdges(in[r.Node], q.nodes), Out: sortEdges(out[r.Node], q.nodes)})
	}
	return pk, nil
}

// keptTopForPeek is a kept Top table, complete or partial, whose options
// are opt's but perhaps for the edge fraction, when nothing trims its
// rows (a partial table's cut is the sum of every row's flat); or nil.
func (e *Engine) keptTopForPeek(opt Options) *Top {
	if opt.NodeFraction != 0 || opt.NodeCount != 0 {
		return nil
	}
	want := e.topKey(opt)
	want.EdgeFraction = 0
	return e.keptTop(func(key Options, _ *Top) bool {
		key.EdgeFraction = 0
		return key == want
	})
}

// inlineMarker is a node's inline marker from the call edges into it
// (inlineIn).
func inlineMarker(in map[int32]*Edge, cutoff int64) Marker {
	var m inlineIn
	for _, e := range in {
		m.add(e.Weight, e.Inline, cutoff)
	}
	return m.marker()
}

type edgeKey struct{ from, to int32 }

// locsWith flags the locations with a frame of a node want flags.
func (q *query) locsWith(want []bool) []bool {
	locs := make([]bool, len(q.locOff)-1)
	for l := range locs {
		for _, n := range q.locNodes[q.locOff[l]:q.locOff[l+1]] {
			if want[n] {
				locs[l] = true
				break
			}
		}
	}
	return locs
}

// once adds k to the edges seen in the current stack, reporting whether
// it is new: pprof counts an edge once per sample, however often the
// stack repeats it. Stacks hold few edges, so a slice beats a map.
func once(seen []edgeKey, k edgeKey) ([]edgeKey, bool) {
	for _, x := range seen {
		if x == k {
			return seen, false
		}
	}
	return append(seen, k), true
}

// edges collects the call edges touching the nodes want flags: in[n] are
// the callers of n, out[n] its callees; and the wanted nodes' cum. Only
// the stacks through a location with a wanted frame are walked.
func (q *query) edges(want []bool) (in, out map[int32]map[int32]*Edge, cum map[int32]int64) {
	locWanted := q.locsWith(want)
	w, dw, _, _ := q.stackWeights()
	// On two goroutines, as the aggregation.
	var in2, out2 map[int32]map[int32]*Edge
	var cum2 map[int32]int64
	inTwo(q.e.p.Stacks.Len(), func(r *runs, part int) {
		if part == 0 {
			in, out, cum = q.edgeRange(r, want, locWanted, w, dw)
		} else {
			in2, out2, cum2 = q.edgeRange(r, want, locWanted, w, dw)
		}
	})
	mergeEdges(in, in2)
	mergeEdges(out, out2)
	for n, c := range cum2 {
		cum[n] += c
	}
	return in, out, cum
}

// addEdge adds w to the edge from at to other in m.
func addEdge(m map[int32]map[int32]*Edge, at, other int32, w int64, inlined bool) {
	es := m[at]
	if es == nil {
		es = map[int32]*Edge{}
		m[at] = es
	}
	if e := es[other]; e != nil {
		e.Weight += w
		e.Inline = e.Inline && inlined
		return
	}
	es[other] = &Edge{Node: other, Weight: w, Inline: inlined}
}

// mergeEdges adds src's edges into dst.
func mergeEdges(dst, src map[int32]map[int32]*Edge) {
	for at, es := range src {
		for other, e := range es {
			addEdge(dst, at, other, e.Weight, e.Inline)
		}
	}
}

// edgeRange is edges over stacks [from, to).
func (q *query) edgeRange(r *runs, want, locWanted []bool, w, dw []int64) (in, out map[int32]map[int32]*Edge, cum map[int32]int64) {
	p := q.e.p
	in, out, cum = map[int32]map[int32]*Edge{}, map[int32]map[int32]*Edge{}, map[int32]int64{}
	var seen []edgeKey
	var counted []int32 // the wanted nodes of the stack, for cum once per stack
	var path []int32
	fold := q.folder()
	var inl []bool
	c := r.cursor()
	for s := c.next(); s >= 0; s = c.next() {
		sw, _, ok := stackWeight(w, dw, s)
		if !ok {
			continue
		}
		locs := p.Stacks.At(int32(s))
		through := false
		for _, l := range locs {
			if locWanted[l] {
				through = true
				break
			}
		}
		if !through {
			continue
		}
		seen = seen[:0]
		parent := int32(-1)
		inl = inl[:0]
		path, ok = q.appendPath(fold, path[:0], &inl, locs)
		if !ok {
			continue
		}
		counted = counted[:0]
		for k, n := range path {
			if want[n] && !slices.Contains(counted, n) {
				counted = append(counted, n)
				cum[n] += sw
			}
			if parent >= 0 && parent != n && (want[n] || want[parent]) {
				var first bool
				if seen, first = once(seen, edgeKey{parent, n}); first {
					if want[n] {
						addEdge(in, n, parent, sw, inl[k])
					}
					if want[parent] {
						addEdge(out, parent, n, sw, inl[k])
					}
				}
			}
			parent = n
		}
	}
	return in, out, cum
}

// sortEdges orders one node's edges as pprof: by |weight|, then by the
// other end's name.
func sortEdges(m map[int32]*Edge, nodes *nodeTable) []Edge {
	out := make([]Edge, 0, len(m))
	for _, e := range m {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Weight != b.Weight {
			return abs64(a.Weight) > abs64(b.Weight)
		}
		return nodes.name(a.Node) < nodes.name(b.Node)
	})
	return out
}
