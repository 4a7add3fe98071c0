package synth

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// Shape names the kind of stacks a profile has. The Zipf shape (the
// default) is a busy server's CPU profile: a few thousand stacks carry most
// samples. The others are the shapes people open that the Zipf one does
// not exercise: merged fleet profiles and long server profiles with mostly
// distinct stacks, very many functions, very deep recursion.
type Shape string

const (
	// Zipf: Zipf-skewed walks over a layered call graph (see Config).
	Zipf Shape = "zipf"
	// Distinct: a random walk over a call graph of Config.Functions
	// functions, depth 3–30 locations, at least 90% of the stacks distinct;
	// a third of the locations carry a chain of 2–3 lines (inlined calls);
	// labels worker and route on every sample and a numeric bytes label on
	// every fourth.
	Distinct Shape = "distinct"
	// Wide: as Distinct over 100,000 functions (unless Config.Functions
	// says otherwise), 2–6 locations deep.
	Wide Shape = "wide"
	// Deep: 200–500 locations deep, recursive (self and mutual), over
	// 20,000 stacks drawn Zipf-skewed, so that the decoded profile stays
	// small though every sample is long.
	Deep Shape = "deep"
)

// Shapes lists every shape, the default first.
var Shapes = []Shape{Zipf, Distinct, Wide, Deep}

const (
	wideFunctions = 100_000
	walkCallees   = 16 // call sites per function in the walk shapes
	walkRoots     = 64 // entry points (goroutine functions); Wide has more
	deepStacks    = 20_000
)

// walkGraph builds the call graph of the walk shapes: every function calls
// walkCallees others, drawn uniformly from the graph, each from a line of
// its own (a walk picks among the call sites Zipf-skewed, s=0.7, so some
// paths are warmer than others); a third of the call sites and leaf lines
// inline a chain of one or two small functions (so their location has 2–3
// lines).
func (g *generator) walkGraph() {
	r := g.rng
	n := g.cfg.Functions
	names := map[string]bool{}
	// A tenth of the functions are small and always inlined: they only
	// ever appear inside a chain.
	inl := n / 10
	for i := range n {
		f := goFunction(r, names, float64(i%10)/10)
		f.layer = 1
		f.inline = i < inl
		f.layOutBody(r)
		g.fns = append(g.fns, f)
	}
	callable := n - inl
	g.chains = make([][]int32, 0, callable*(walkCallees+len(function{}.leafLines)))
	for i := inl; i < n; i++ {
		f := &g.fns[i]
		for range walkCallees {
			f.callees = append(f.callees, int32(inl+r.IntN(callable)))
			f.calls = append(f.calls, f.startLine+1+int32(r.IntN(150)))
		}
		f.locs = make([]uint64, walkCallees+len(f.leafLines))
		f.chain = make([]int32, len(f.locs))
		for s := range f.chain {
			f.chain[s] = -1
			if r.IntN(3) == 0 {
				chain := []int32{int32(r.IntN(inl))}
				if r.IntN(2) == 0 {
					chain = append(chain, int32(r.IntN(inl)))
				}
				f.chain[s] = int32(len(g.chains))
				g.chains = append(g.chains, chain)
			}
		}
	}
	roots := walkRoots
	if g.cfg.Shape == Wide {
		roots = callable / 50 // so that even 2-deep stacks are mostly distinct
	}
	for i := range roots {
		g.roots = append(g.roots, int32(inl+i%callable))
	}
	g.slotCDF = zipfCDF(walkCallees, 0.7)
	if g.cfg.Shape == Deep {
		g.deepIDs = make([][]byte, deepStacks)
		g.deepCDF = zipfCDF(deepStacks, 1.0)
	}
}

// walkDepth draws a stack's depth in locations.
func (g *generator) walkDepth() int {
	switch g.cfg.Shape {
	case Wide:
		return 2 + g.rng.IntN(5)
	case Deep:
		return 200 + g.rng.IntN(301)
	}
	return minDepth + g.rng.IntN(28)
}

// walkIDs returns the location ids of one random walk, root first, as
// packed varints (in g.packed).
func (g *generator) walkIDs() []byte {
	depth := g.walkDepth()
	f := g.roots[g.rng.IntN(len(g.roots))]
	ids := g.ids[:0]
	caller := int32(-1)
	for d := 1; ; d++ {
		fn := &g.fns[f]
		x := g.pcg.Uint64()
		if d == depth {
			ids = append(ids, g.walkLocation(f, fn.leafSlot(skewed(x>>32))))
			break
		}
		slot := int32(pick(g.slotCDF, uint32(x)))
		if g.cfg.Shape == Deep && x>>32&1 == 0 {
			// A run of recursion, 20-100 calls: f calls itself, or f and
			// its caller call each other. A location names the call
			// site, not the callee, so one call site serves the run.
			run := min(20+int(x>>40)%81, depth-d)
			me := g.walkLocation(f, slot)
			if caller < 0 || x>>36&1 == 0 {
				for range run {
					ids = append(ids, me)
				}
			} else {
				back := g.walkLocation(caller, 0)
				for k := range run {
					if k&1 == 0 {
						ids = append(ids, me)
					} else {
						ids = append(ids, back)
					}
				}
				if run&1 == 0 {
					f = caller // the run ended in f's caller
				}
			}
			d += run - 1
			continue
		}
		ids = append(ids, g.walkLocation(f, slot))
		caller, f = f, g.fns[f].callees[slot]
	}
	g.ids = ids
	g.packed = g.packed[:0]
	for i := len(ids) - 1; i >= 0; i-- {
		g.packed = protowire.AppendVarint(g.packed, ids[i])
	}
	return g.packed
}

// walkLocation is the location of function f at slot (a call site or a
// leaf line), with the slot's inline chain, if any, innermost first.
func (g *generator) walkLocation(f, slot int32) uint64 {
	fn := &g.fns[f]
	id := &fn.locs[slot]
	if *id != 0 {
		return *id
	}
	var line int32
	if int(slot) < len(fn.calls) {
		line = fn.calls[slot]
	} else {
		line = fn.leafLines[int(slot)-len(fn.calls)]
	}
	frames := []step{{f, line}} // outermost first
	if c := fn.chain[slot]; c >= 0 {
		for _, in := range g.chains[c] {
			callee := &g.fns[in]
			frames = append(frames, step{in, callee.leafLines[int(slot)%len(callee.leafLines)]})
		}
	}
	key := g.key[:0]
	for i := len(frames) - 1; i >= 0; i-- {
		key = g.frameKey(key, frames[i])
	}
	g.key = key
	*id = g.location(key, frames)
	return *id
}

// appendWalkSample appends one Sample of a walk shape: its stack, values
// and labels.
func (g *generator) appendWalkSample(b []byte, i int) ([]byte, int64) {
	var packed []byte
	if g.cfg.Shape == Deep {
		k := g.draw(g.deepCDF)
		if g.deepIDs[k] == nil {
			g.deepIDs[k] = append([]byte(nil), g.walkIDs()...)
		}
		packed = g.deepIDs[k]
	} else {
		packed = g.walkIDs()
	}
	m := appendMessage(g.body[:0], sampleLocationID, packed)
	x := g.pcg.Uint64()
	m, cpu := g.appendValues(m, x)
	if g.cfg.Labels {
		m = g.walkLabels.append(m, g, x, i%4 == 0)
	}
	g.body = m
	return appendMessage(b, profSample, m), cpu
}

// walkLabeler draws the walk shapes' labels: worker (16 values), route
// (48, Zipf-skewed) and, when asked, a numeric bytes label.
type walkLabeler struct {
	worker, route, bytes, unit int64
	workers, routes            []int64
	routeC                     []uint32
}

func newWalkLabeler(g *generator) walkLabeler {
	l := walkLabeler{worker: g.str("worker"), route: g.str("route"), bytes: g.str("bytes"), unit: g.str("bytes")}
	for i := range 16 {
		l.workers = append(l.workers, g.str(fmt.Sprintf("w%d", i)))
	}
	for _, m := range methods[:3] {
		for _, r := range resources {
			l.routes = append(l.routes, g.str(m+" /api/v1/"+r))
		}
	}
	l.routeC = zipfCDF(len(l.routes), 1.1)
	return l
}

func (l *walkLabeler) append(m []byte, g *generator, x uint64, withBytes bool) []byte {
	var lb []byte
	lb = appendVarintField(lb, labelKey, uint64(l.worker))
	lb = appendVarintField(lb, labelStr, uint64(l.workers[x>>8&15]))
	m = appendMessage(m, sampleLabel, lb)
	lb = appendVarintField(lb[:0], labelKey, uint64(l.route))
	lb = appendVarintField(lb, labelStr, uint64(l.routes[pick(l.routeC, uint32(x>>12))]))
	m = appendMessage(m, sampleLabel, lb)
	if withBytes {
		size := uint64(64) << (x >> 44 & 15)
		size += (x >> 48) % size
		lb = appendVarintField(lb[:0], labelKey, uint64(l.bytes))
		lb = appendVarintField(lb, labelNum, size)
		lb = appendVarintField(lb, labelNumUnit, uint64(l.unit))
		m = appendMessage(m, sampleLabel, lb)
	}
	return m
}
