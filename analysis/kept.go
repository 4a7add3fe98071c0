package analysis

import (
	"regexp"
	"slices"
)

// Kept is what the filters keep: the sum of the selected value over
// the samples that pass every filter of the options, as pprof's
// "Showing nodes accounting for X, P% of T total" says before
// nodefraction and nodecount trim nodes (the same X with
// -nodefraction=0), and T, that header's total (Top.Total).
type Kept struct {
	Value, Total int64
}

// Kept sums what opt's filters keep. With focus non-nil, only samples
// that one of focus's frames also keeps count, as if -focus=RE were
// added to opt's filters (both focuses must match): a search's share of
// the profile. Like Top, it reads every sample, without building a
// table: a million samples take some milliseconds.
func (e *Engine) Kept(opt Options, focus *regexp.Regexp) (Kept, error) {
	q, err := e.newQuery(opt)
	if err != nil {
		return Kept{}, err
	}
	var also *locView
	if focus != nil {
		// Focus flags only: the lines and other flags are q's view's.
		also = q.e.buildLocView(&compiled{focus: focus}, q.opt.NoInlines, q.view)
	}
	p := q.e.p
	// Per stack: opt's filters keep it (kept), and it has a frame
	// focus also keeps (counted: the samples whose value is summed).
	kept := make([]bool, p.Stacks.Len())
	counted := make([]bool, len(kept))
	for s := range kept {
		locs := p.Stacks.At(int32(s))
		lo, hi, ok := q.pathRange(locs)
		if !ok {
			continue
		}
		kept[s] = true
		counted[s] = lo < hi && (also == nil || slices.ContainsFunc(locs[lo:hi], func(l int32) bool { return also.flags[l]&fFocus != 0 }))
	}
	w, _, total, _ := q.stackWeights()
	k := Kept{Total: total}
	for s, v := range w {
		if counted[s] {
			k.Value += v
		}
	}
	if q.opt.RelativePercentages {
		k.Total, _ = q.survivingTotal(kept)
	}
	return k, nil
}
