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
func inlineMarker(in []Edge, cutoff int64) Marker {
	var m inlineIn
	for _, e := range in {
		m.add(e.Weight, e.Inline, cutoff)
	}
	return m.marker()
}

type edgeKey struct{ from, to int32 }

// locsWith flags the locations of q's location view with a frame of a
// node want flags.
func (q *query) locsWith(want []bool) []bool {
	return locsWith(q.locOff, q.locNodes, want)
}

// locsWith flags, per location of a location view (its frames' nodes
// locNodes[locOff[l]:locOff[l+1]]), whether it has a frame of a node
// want flags.
func locsWith(locOff, locNodes []int32, want []bool) []bool {
	locs := make([]bool, len(locOff)-1)
	for l := range locs {
		for _, n := range locNodes[locOff[l]:locOff[l+1]] {
			if want[n] {
				locs[l] = true
				break
			}
		}
	}
	return locs
}

// edges collects the call edges touching the nodes want flags: in[n] are
// the callers of n, out[n] its callees; and the wanted nodes' cum. Only
// the stacks through a location with a wanted frame are walked.
func (q *query) edges(want []bool) (in, out map[int32][]Edge, cum map[int32]int64) {
	locWanted := q.locsWith(want)
	w, dw, _, _ := q.stackWeights()
	// On two goroutines, as the aggregation.
	var sums, sums2 *edgeSums
	var cum2 map[int32]int64
	inTwo(&q.e.p.Stacks, func(r *runs, part int) {
		if part == 0 {
			sums, cum = q.edgeRange(r, want, locWanted, w, dw)
		} else {
			sums2, cum2 = q.edgeRange(r, want, locWanted, w, dw)
		}
	})
	if sums2 != nil {
		sums.merge(sums2)
	}
	for n, c := range cum2 {
		cum[n] += c
	}
	in, out = edgeLists(sums, want)
	return in, out, cum
}

// edgeLists are the edges of sums by the wanted node they touch: in[n]
// the callers of n, out[n] its callees.
func edgeLists(sums *edgeSums, want []bool) (in, out map[int32][]Edge) {
	in, out = map[int32][]Edge{}, map[int32][]Edge{}
	for id, e := range sums.keys {
		w, inline := sums.sums[id].weight, sums.sums[id].allInline
		if want[e.to] {
			in[e.to] = append(in[e.to], Edge{Node: e.from, Weight: w, Inline: inline})
		}
		if want[e.from] {
			out[e.from] = append(out[e.from], Edge{Node: e.to, Weight: w, Inline: inline})
		}
	}
	return in, out
}

// edgeRange sums the edges touching a wanted node, and the wanted nodes'
// cum, over the stacks r hands out.
func (q *query) edgeRange(r *runs, want, locWanted []bool, w, dw []int64) (sums *edgeSums, cum map[int32]int64) {
	p := q.e.p
	sums, cum = newEdgeSums(0), map[int32]int64{}
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
				// Once per stack (pprof counts an edge once per sample),
				// with its first occurrence's inline flag.
				sums.add(sums.id(edgeKey{parent, n}), int32(s)+1, sw, inl[k])
			}
			parent = n
		}
	}
	return sums, cum
}

// sortEdges orders one node's edges as pprof: by |weight|, then by the
// other end's name.
func sortEdges(es []Edge, nodes *nodeTable) []Edge {
	out := slices.Clone(es)
	if out == nil {
		out = []Edge{}
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
