package analysis

import (
	"regexp"
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
	// Per stack: 1 opt's filters keep it, 2 focus too.
	pass := make([]uint8, p.Stacks.Len())
	for s := range pass {
		locs := p.Stacks.At(int32(s))
		lo, hi, ok := q.pathRange(locs)
		if !ok {
			continue
		}
		pass[s] = 1
		for _, l := range locs[lo:hi] {
			if also == nil || also.flags[l]&fFocus != 0 {
				pass[s] = 2
				break
			}
		}
	}
	var k Kept
	vals := p.Samples.Values[q.vi]
	base := q.e.baseSets()
	// The denominators over every sample and over the kept ones (under
	// relative_percentages), each of the -diff_base samples when any.
	var all, allBase, kept, keptBase int64
	for i, s := range p.Samples.Stack {
		v := abs64(vals[i])
		isBase := base != nil && base[p.Samples.Labels[i]]
		all += v
		if isBase {
			allBase += v
		}
		if pass[s] == 0 || (q.keep != nil && !q.keep(i)) {
			continue
		}
		kept += v
		if isBase {
			keptBase += v
		}
		if pass[s] == 2 {
			k.Value += vals[i]
		}
	}
	k.Total = all
	if allBase > 0 {
		k.Total = allBase
	}
	if q.opt.RelativePercentages {
		k.Total = kept
		if keptBase > 0 {
			k.Total = keptBase
		}
	}
	return k, nil
}
