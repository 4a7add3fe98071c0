package analysis

import (
	"slices"
	"unsafe"

	"github.com/pprof-tui/pprof-tui/format"
)

// Filtered returns the profile that remains after opt's filters, as
// pprof's -proto writes it: the samples that survive focus, ignore,
// show_from and the tag filters, their stacks cut by prune_from and the
// profile's drop_frames, locations keeping the lines hide, show and
// noinlines leave, and only the label keys tagshow/taghide keep. Every
// sample type is kept; granularity does not apply (pprof writes
// addresses). The result shares nothing mutable with the engine's profile.
func (e *Engine) Filtered(opt Options) (*format.Profile, error) {
	opt.Granularity = "addresses"
	q, err := e.newQuery(opt)
	if err != nil {
		return nil, err
	}
	keyOK, err := LabelKeyFilter(opt)
	if err != nil {
		return nil, err
	}
	p := e.p
	out := &format.Profile{
		SampleTypes:       append([]format.ValueType(nil), p.SampleTypes...),
		DefaultSampleType: p.DefaultSampleType,
		PeriodType:        p.PeriodType,
		Period:            p.Period,
		TimeNanos:         p.TimeNanos,
		DurationNanos:     p.DurationNanos,
		Comments:          append([]string(nil), p.Comments...),
		DocURL:            p.DocURL,
		Mappings:          append([]format.Mapping(nil), p.Mappings...),
		Functions:         append([]format.Function(nil), p.Functions...),
		Strings:           append([]string(nil), p.Strings...),
	}
	// The profile's drop_frames have been applied; do not apply them twice.
	filteredLocations(out, p, q.view)
	stackOf := filteredStacks(out, q)
	setOf := filteredLabelSets(out, p, keyOK)
	filteredSamples(out, q, stackOf, setOf, keyOK)
	return out, nil
}

// filteredLocations sets out's locations: p's, keeping the lines v keeps.
func filteredLocations(out, p *format.Profile, v *locView) {
	out.Locations = make([]format.Location, len(p.Locations))
	var lines []format.Line
	for l, loc := range p.Locations {
		all := p.LinesOf(&loc)
		lines = lines[:0]
		for _, k := range v.lines[v.off[l]:v.off[l+1]] {
			lines = append(lines, all[k])
		}
		loc.Lines = out.AddLines(lines...)
		out.Locations[l] = loc
	}
}

// filteredStacks sets out's stacks: the parts of the profile's stacks
// that survive q's filters, without hidden locations, each once. It
// returns each profile stack's in out, or -1 where it is filtered out.
func filteredStacks(out *format.Profile, q *query) (stackOf []int32) {
	p, v := q.e.p, q.view
	stackIndex := map[string]int32{}
	out.Stacks.Off = []int32{0}
	stackOf = make([]int32, p.Stacks.Len())
	var kept []int32
	for s := range stackOf {
		locs := p.Stacks.At(int32(s))
		lo, hi, ok := 0, len(locs), true
		if q.filtering {
			lo, hi, ok = v.stackRange(locs, q.c, q.hidden, q.names, q.drop)
		}
		kept = kept[:0]
		for _, l := range locs[lo:hi] {
			if v.flags[l]&fHidden == 0 {
				kept = append(kept, l)
			}
		}
		if !ok || len(kept) == 0 && len(locs) > 0 {
			stackOf[s] = -1
			continue
		}
		key := unsafe.String((*byte)(unsafe.Pointer(unsafe.SliceData(kept))), len(kept)*4)
		if i, ok := stackIndex[key]; ok {
			stackOf[s] = i
			continue
		}
		i := int32(len(out.Stacks.Off) - 1)
		out.Stacks.Locs = append(out.Stacks.Locs, kept...)
		out.Stacks.Off = append(out.Stacks.Off, int32(len(out.Stacks.Locs)))
		stackIndex[string([]byte(key))] = i
		stackOf[s] = i
	}
	return stackOf
}

// filteredLabelSets sets out's label sets: p's without the keys
// tagshow/taghide drop (keyOK), each once. It returns each of p's sets'
// in out.
func filteredLabelSets(out, p *format.Profile, keyOK func(string) bool) (setOf []int32) {
	setOf = make([]int32, p.LabelSets.Len())
	out.LabelSets.Off = []int32{0, 0}
	setIndex := map[string]int32{"": 0}
	var pairs []format.StrLabel
	for set := range setOf {
		pairs = pairs[:0]
		for _, kv := range p.LabelSets.At(int32(set)) {
			if keyOK == nil || keyOK(p.Strings[kv.Key]) {
				pairs = append(pairs, kv)
			}
		}
		key := unsafe.String((*byte)(unsafe.Pointer(unsafe.SliceData(pairs))), len(pairs)*8)
		if i, ok := setIndex[key]; ok {
			setOf[set] = i
			continue
		}
		i := int32(len(out.LabelSets.Off) - 1)
		out.LabelSets.Pairs = append(out.LabelSets.Pairs, pairs...)
		out.LabelSets.Off = append(out.LabelSets.Off, int32(len(out.LabelSets.Pairs)))
		setIndex[string([]byte(key))] = i
		setOf[set] = i
	}
	return setOf
}

// filteredSamples sets out's samples: those of surviving stacks that
// pass the tag filters, with their stacks and label sets in out, and the
// numeric labels keyOK keeps.
func filteredSamples(out *format.Profile, q *query, stackOf, setOf []int32, keyOK func(string) bool) {
	p := q.e.p
	s := &p.Samples
	o := &out.Samples
	o.Values = make([][]int64, len(s.Values))
	hasNum := s.NumOff != nil
	if hasNum {
		o.NumOff = []uint32{0}
		o.NumKinds = slices.Clip(s.NumKinds)
	}
	for i, st := range s.Stack {
		if stackOf[st] < 0 || (q.keep != nil && !q.keep(i)) {
			continue
		}
		o.Stack = append(o.Stack, stackOf[st])
		for t := range s.Values {
			o.Values[t] = append(o.Values[t], s.Values[t][i])
		}
		o.Labels = append(o.Labels, setOf[s.Labels[i]])
		if hasNum {
			for j, nl := range s.NumLabels(i) {
				if keyOK == nil || keyOK(p.Strings[nl.Key]) {
					o.NumKind = append(o.NumKind, s.NumKind[j])
					o.NumValue = append(o.NumValue, nl.Value)
				}
			}
			o.NumOff = append(o.NumOff, uint32(len(o.NumValue)))
		}
	}
}
