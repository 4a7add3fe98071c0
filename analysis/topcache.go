package analysis

import (
	"strconv"
)

// aggregateKey is what a Top's aggregate depends on: its options but
// for the edge fraction and the order.
func aggregateKey(k Options) Options {
	k.EdgeFraction, k.Sort = 0, ""
	return k
}

// recentAggregate is the aggregate of a kept Top whose options are k's
// but for the edge fraction and order, or nil.
func (e *Engine) recentAggregate(k Options) *aggregate {
	if t := e.keptTop(func(key Options, t *Top) bool { return t.agg != nil && aggregateKey(key) == k }); t != nil {
		return t.agg
	}
	return nil
}

// keptTop is a kept Top table for whose (spelled-out) options and self
// ok holds, or nil.
func (e *Engine) keptTop(ok func(key Options, t *Top) bool) *Top {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, t := range e.tops.vals {
		if ok(e.tops.keys[i], t) {
			return t
		}
	}
	return nil
}

// completeTop is the Top table kept for opt if it is complete (not
// Partial), else nil: one a listing can take without waiting.
func (e *Engine) completeTop(opt Options) *Top {
	if top := e.recentTop(e.topKey(opt)); top != nil && !top.Partial() {
		return top
	}
	return nil
}

// TopKept reports whether the Top table for opt is kept, so that Top
// returns it without computing.
func (e *Engine) TopKept(opt Options) bool {
	return e.recentTop(e.topKey(opt)) != nil
}

// topKey spells opt's defaults out, so that options that differ only in
// how they name the same thing (the default sample type and the same
// type by name or index; no granularity and "functions") share a result.
func (e *Engine) topKey(opt Options) Options {
	if vi, err := SampleIndex(e.p, opt.SampleIndex); err == nil {
		opt.SampleIndex = strconv.Itoa(vi)
	}
	if opt.Granularity == "" {
		opt.Granularity = "functions"
	}
	return opt
}

// recentTops is how many Top results an Engine keeps, and recentRows how
// many rows in all (about 56 MB): on a profile with a million nodes (lines
// of 100,000 functions) one result is already that big.
const (
	recentTops = 8
	recentRows = 1 << 20
)

func (e *Engine) recentTop(opt Options) *Top {
	e.mu.Lock()
	defer e.mu.Unlock()
	t, _ := e.tops.get(opt)
	return t
}

func (e *Engine) keepTop(opt Options, t *Top) {
	if len(t.Rows) > recentRows {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.tops.add(opt, t, recentTops, func(kept []*Top, t *Top) bool {
		rows := len(t.Rows)
		for _, k := range kept {
			rows += len(k.Rows)
		}
		return rows > recentRows
	})
}
