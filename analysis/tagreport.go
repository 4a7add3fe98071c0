package analysis

import (
	"io"

	"github.com/pprof-tui/pprof-tui/format"
)

// TagReport is pprof's -tags report: every label key with its values'
// totals, over the samples the filters keep.
type TagReport struct {
	SampleType format.ValueType
	Keys       []TagKey
	// Total is the percentage denominator: all samples, or the kept ones
	// under RelativePercentages.
	Total int64
}

// Tags computes the label summary over the samples that survive every
// filter of opt, showing the keys tagshow/taghide leave, as pprof -tags.
func (e *Engine) Tags(opt Options) (*TagReport, error) {
	q, err := e.newQuery(opt)
	if err != nil {
		return nil, err
	}
	keyOK, err := labelKeyFilter(&opt)
	if err != nil {
		return nil, err
	}
	vi := q.vi
	var f sampleFilter
	if q.keep != nil || q.names || q.c.showFrom != nil {
		p := e.p
		stackOK := make([]int8, p.Stacks.Len()) // 0 unknown, 1 no, 2 yes
		f = func(i int) bool {
			if q.keep != nil && !q.keep(i) {
				return false
			}
			s := p.Samples.Stack[i]
			if stackOK[s] == 0 {
				stackOK[s] = 1
				if q.filtersPass(p.Stacks.At(s)) {
					stackOK[s] = 2
				}
			}
			return stackOK[s] == 2
		}
	}
	r := &TagReport{SampleType: e.p.SampleTypes[vi], Keys: Tags(e.p, vi, f, keyOK, e.NumLabelUnits())}
	if opt.RelativePercentages {
		r.Total = tagsTotal(e.p, vi, f, e.baseSets())
	} else {
		r.Total = tagsTotal(e.p, vi, nil, e.baseSets())
	}
	return r, nil
}

// WriteTags prints r as `go tool pprof -tags` does.
func WriteTags(w io.Writer, r *TagReport) error {
	return formatTagsText(w, r.Keys, r.SampleType.Unit, r.Total)
}
