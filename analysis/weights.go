package analysis

import (
	"sync"

	"github.com/pprof-tui/pprof-tui/format"
)

// stackWeights sums the selected value (and the count, for mean) of the
// samples that pass the tag filters, per distinct stack, and the
// percentage denominator over all samples. The sums depend on the sample
// type, mean and the tag filters alone, so the engine keeps the last
// ones (recentWeights) for the trees, graphs and walks after: the Tree,
// the flame graph's, a pivot's two. They are never modified.
func (q *query) stackWeights() (w, dw []int64, total, totalDiv int64) {
	k := weightKey{vi: q.vi, mean: q.mean, baseOnly: q.baseOnly}
	filterValues(&q.opt, selectsSamples, k.tags[:])
	e := q.e
	e.mu.Lock()
	ws, ok := e.weights.get(k)
	if !ok {
		ws = &keptWeights{}
		e.weights.add(k, ws, recentWeights, nil)
	}
	e.mu.Unlock()
	ws.once.Do(func() { ws.w, ws.dw, ws.total, ws.totalDiv = q.sumStacks() })
	return ws.w, ws.dw, ws.total, ws.totalDiv
}

// weightKey is what a query's stack weights depend on: the value index,
// mean, the samples kept (the -diff_base ones only, or all) and the tag
// filters' values (filterValues).
type weightKey struct {
	vi             int
	mean, baseOnly bool
	tags           [2]string
}

// keptWeights is stackWeights' result, made once per key.
type keptWeights struct {
	once            sync.Once
	w, dw           []int64
	total, totalDiv int64
}

// recentWeights is how many sets of stack weights an Engine keeps: the
// current sample type's and the one before (s and back).
const recentWeights = 2

// sumStacks is stackWeights' walk over the samples.
func (q *query) sumStacks() (w, dw []int64, total, totalDiv int64) {
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

// stackWeight is stack s's weight and count sum (0 without mean), from
// stackWeights' w and dw; ok is false for a stack with neither, which
// every walk passes over.
func stackWeight(w, dw []int64, s int) (sw, sdw int64, ok bool) {
	sw = w[s]
	if dw != nil {
		sdw = dw[s]
	}
	return sw, sdw, sw != 0 || sdw != 0
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

// survivingTotal is Σ|v| (and the count sum) over samples that pass every
// filter, kept flagging the stacks the filters over frames keep: the
// denominator under relative_percentages.
func (q *query) survivingTotal(kept []bool) (total, div int64) {
	p := q.e.p
	vals := p.Samples.Values[q.vi]
	base := q.e.baseSets()
	var baseTotal, baseDiv int64
	for i, s := range p.Samples.Stack {
		if !kept[s] || (q.keep != nil && !q.keep(i)) {
			continue
		}
		total += abs64(vals[i])
		if q.mean {
			div += p.Samples.Values[0][i]
		}
		if base != nil && base[p.Samples.Labels[i]] {
			baseTotal += abs64(vals[i])
			if q.mean {
				baseDiv += p.Samples.Values[0][i]
			}
		}
	}
	if baseTotal > 0 {
		return baseTotal, baseDiv
	}
	return total, div
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
