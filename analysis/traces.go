package analysis

import (
	"github.com/pprof-tui/pprof-tui/format"
)

// Frame is one frame of a trace.
type Frame struct {
	Node    int32
	Inlined bool // inlined into the next frame (its caller)
}

// Trace is one sample as pprof -traces prints it.
type Trace struct {
	Sample int   // index into the profile's samples
	Value  int64 // the selected value (divided by the count under mean)
	Frames []Frame
}

// Traces is pprof's -traces report: every sample that survives the
// filters, in file order, with its stack leaf first.
type Traces struct {
	SampleType format.ValueType
	// Total is the percentage denominator, as pprof computes it for
	// -traces: every sample, or under RelativePercentages the samples
	// that pass the filters (frames or not).
	Total  int64
	Traces []Trace
	Nodes  *NodeSet
	// LabelUnits is the unit of each numeric label key (NumLabelUnits).
	LabelUnits map[string]string
}

// Traces computes pprof's -traces report.
func (e *Engine) Traces(opt Options) (*Traces, error) {
	q, err := e.newQuery(opt)
	if err != nil {
		return nil, err
	}
	p := e.p
	out := &Traces{SampleType: p.SampleTypes[q.vi], Nodes: &NodeSet{q.nodes}, LabelUnits: e.NumLabelUnits()}
	_, _, total, div := q.stackWeights()
	// Frames per distinct stack, computed once.
	type stackFrames struct {
		frames []Frame
		ok     bool
		done   bool
	}
	cache := make([]stackFrames, p.Stacks.Len())
	fold := q.folder()
	out.Traces = make([]Trace, 0, p.Samples.Len())
	vals := p.Samples.Values[q.vi]
	for i, s := range p.Samples.Stack {
		if q.keep != nil && !q.keep(i) {
			continue
		}
		sf := &cache[s]
		if !sf.done {
			sf.done = true
			var path []int32
			var inl []bool
			path, sf.ok = q.appendPath(fold, nil, &inl, p.Stacks.At(s))
			leafFirst := make([]Frame, len(path))
			for k, n := range path {
				leafFirst[len(path)-1-k] = Frame{Node: n, Inlined: inl[k]}
			}
			sf.frames = leafFirst
		}
		if !sf.ok || len(sf.frames) == 0 {
			continue
		}
		v := vals[i]
		if q.mean {
			if d := p.Samples.Values[0][i]; d != 0 {
				v /= d
			}
		}
		out.Traces = append(out.Traces, Trace{Sample: i, Value: v, Frames: sf.frames})
	}
	if opt.RelativePercentages {
		kept := make([]bool, p.Stacks.Len())
		for s := range kept {
			kept[s] = cache[s].ok || (!cache[s].done && q.filtersPass(p.Stacks.At(int32(s))))
		}
		total, div = q.survivingTotal(kept)
	}
	if q.mean && div != 0 {
		total /= div
	}
	out.Total = total
	return out, nil
}
