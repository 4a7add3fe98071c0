package format

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Merge combines profiles of the same kind into one, as pprof does when
// given several sources: samples are concatenated (pprof also sums
// identical samples; values and every report are the same either way),
// metadata comes from the first profile, the time is the earliest, the
// duration the sum and the period the largest.
func Merge(ps []*Profile) (*Profile, error) {
	if len(ps) == 0 {
		return nil, fmt.Errorf("no profiles to merge")
	}
	if len(ps) == 1 {
		return ps[0], nil
	}
	first := ps[0]
	for i, p := range ps[1:] {
		if err := compatible(first, p); err != nil {
			return nil, fmt.Errorf("profile %d: %w", i+2, err)
		}
	}
	out := &Profile{
		SampleTypes:       append([]ValueType(nil), first.SampleTypes...),
		DefaultSampleType: first.DefaultSampleType,
		PeriodType:        first.PeriodType,
		DropFrames:        first.DropFrames,
		KeepFrames:        first.KeepFrames,
		DocURL:            first.DocURL,
	}
	b := newBuilder(out)
	b.str("")
	out.Samples.Values = make([][]int64, len(out.SampleTypes))
	for _, p := range ps {
		if p.TimeNanos != 0 && (out.TimeNanos == 0 || p.TimeNanos < out.TimeNanos) {
			out.TimeNanos = p.TimeNanos
		}
		out.DurationNanos += p.DurationNanos
		out.Holds = append(out.Holds, p.Holds...)
		out.Period = max(out.Period, p.Period)
		out.Comments = append(out.Comments, p.Comments...)
		if err := b.append(p); err != nil {
			return nil, err
		}
	}
	return combineIdentical(out)
}

// combineIdentical does what pprof's merge does after concatenating:
// locations that are the same place (same binary, offset and lines) become
// one, and samples with the same stack and labels become one sample with
// the values summed. A profile minus its base then has one sample, often
// with value 0, where the two agree, which is what pprof's totals count.
func combineIdentical(p *Profile) (*Profile, error) {
	// Locations.
	locMap := make([]int32, len(p.Locations))
	locIndex := map[string]int32{}
	var sb strings.Builder
	var kept []Location
	for i, l := range p.Locations {
		sb.Reset()
		addr := l.Address
		if l.Mapping >= 0 {
			m := &p.Mappings[l.Mapping]
			addr -= m.Start
			fmt.Fprintf(&sb, "%s\x00%s\x00%x\x00%x", m.File, m.BuildID, m.Limit-m.Start, m.Offset)
		}
		fmt.Fprintf(&sb, "\x00%x\x00%t", addr, l.IsFolded)
		for _, ln := range p.LinesOf(&l) {
			if ln.Function >= 0 {
				f := &p.Functions[ln.Function]
				fmt.Fprintf(&sb, "\x00%s\x00%s\x00%s\x00%d", f.Name, f.SystemName, f.Filename, f.StartLine)
			}
			fmt.Fprintf(&sb, "\x00%d\x00%d", ln.Line, ln.Column)
		}
		key := sb.String()
		j, ok := locIndex[key]
		if !ok {
			j = int32(len(kept))
			l.ID = uint64(j) + 1
			kept = append(kept, l)
			locIndex[key] = j
		}
		locMap[i] = j
	}

	out := &Profile{
		SampleTypes: p.SampleTypes, DefaultSampleType: p.DefaultSampleType,
		PeriodType: p.PeriodType, Period: p.Period, TimeNanos: p.TimeNanos, DurationNanos: p.DurationNanos,
		Comments: p.Comments, DocURL: p.DocURL, DropFrames: p.DropFrames, KeepFrames: p.KeepFrames,
		Mappings: p.Mappings, Functions: p.Functions, Locations: kept, Strings: p.Strings,
		Lines: p.Lines[:len(p.Lines):len(p.Lines)], // shared; appends copy
		Holds: p.Holds,
	}
	b := newBuilder(out)
	out.Samples.Values = make([][]int64, len(p.SampleTypes))
	stackMap := make([]int32, p.Stacks.Len())
	var locs []int32
	for s := range stackMap {
		locs = locs[:0]
		for _, l := range p.Stacks.At(int32(s)) {
			locs = append(locs, locMap[l])
		}
		st, err := b.stack(locs)
		if err != nil {
			return nil, err
		}
		stackMap[s] = st
	}
	// Label sets compare as pprof's label maps: by key, values in order.
	setMap := make([]int32, p.LabelSets.Len())
	var pairs []StrLabel
	for set := range setMap {
		pairs = append(pairs[:0], p.LabelSets.At(int32(set))...)
		slices.SortStableFunc(pairs, func(a, b StrLabel) int { return strings.Compare(p.Strings[a.Key], p.Strings[b.Key]) })
		ls, err := b.labelSet(pairs)
		if err != nil {
			return nil, err
		}
		setMap[set] = ls
	}
	// Samples.
	type sampleKey struct {
		stack, set int32
		num        string
	}
	sampleIndex := map[sampleKey]int{}
	vals := make([]int64, len(p.SampleTypes))
	var nums []NumLabel
	for i, st := range p.Samples.Stack {
		nums = nums[:0]
		for _, nl := range p.Samples.NumLabels(i) {
			nums = append(nums, nl)
		}
		slices.SortStableFunc(nums, func(a, b NumLabel) int { return strings.Compare(p.Strings[a.Key], p.Strings[b.Key]) })
		sb.Reset()
		for _, nl := range nums {
			fmt.Fprintf(&sb, "%s\x00%d\x00%s\x00", p.Strings[nl.Key], nl.Value, p.Strings[nl.Unit])
		}
		k := sampleKey{stackMap[st], setMap[p.Samples.Labels[i]], sb.String()}
		if j, ok := sampleIndex[k]; ok {
			for t := range vals {
				out.Samples.Values[t][j] += p.Samples.Values[t][i]
			}
			continue
		}
		for t := range vals {
			vals[t] = p.Samples.Values[t][i]
		}
		sampleIndex[k] = out.Samples.Len()
		if err := b.sample(k.stack, vals, k.set, nums); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func compatible(a, b *Profile) error {
	if len(a.SampleTypes) != len(b.SampleTypes) {
		return fmt.Errorf("incompatible sample types %v and %v", a.SampleTypes, b.SampleTypes)
	}
	for i := range a.SampleTypes {
		if a.SampleTypes[i] != b.SampleTypes[i] {
			return fmt.Errorf("incompatible sample types %v and %v", a.SampleTypes, b.SampleTypes)
		}
	}
	if a.PeriodType != b.PeriodType && a.PeriodType != (ValueType{}) && b.PeriodType != (ValueType{}) {
		return fmt.Errorf("incompatible period types %v and %v", a.PeriodType, b.PeriodType)
	}
	return nil
}

// append copies p's mappings, functions, locations and samples into the
// builder's profile, renumbering everything.
func (b *builder) append(p *Profile) error {
	out := b.p
	mapBase, funcBase, locBase := int32(len(out.Mappings)), int32(len(out.Functions)), int32(len(out.Locations))
	if int64(len(out.Locations))+int64(len(p.Locations)) >= math.MaxInt32 {
		return fmt.Errorf("merged profile has too many locations")
	}
	for _, m := range p.Mappings {
		m.ID = uint64(len(out.Mappings)) + 1
		out.Mappings = append(out.Mappings, m)
	}
	for _, f := range p.Functions {
		f.ID = uint64(len(out.Functions)) + 1
		out.Functions = append(out.Functions, f)
	}
	for _, l := range p.Locations {
		l.ID = uint64(len(out.Locations)) + 1
		if l.Mapping >= 0 {
			l.Mapping += mapBase
		}
		lines := p.LinesOf(&l)
		l.Lines = out.AddLines(lines...)
		for i, ln := range lines {
			if ln.Function >= 0 {
				out.Lines[int(l.Lines.Off)+i].Function = ln.Function + funcBase
			}
		}
		out.Locations = append(out.Locations, l)
	}
	strs := make([]int32, len(p.Strings))
	for i, s := range p.Strings {
		strs[i] = b.str(s)
	}
	stackMap := make([]int32, p.Stacks.Len())
	var locs []int32
	for s := range stackMap {
		locs = locs[:0]
		for _, l := range p.Stacks.At(int32(s)) {
			locs = append(locs, l+locBase)
		}
		st, err := b.stack(locs)
		if err != nil {
			return err
		}
		stackMap[s] = st
	}
	setMap := make([]int32, p.LabelSets.Len())
	var pairs []StrLabel
	for set := range setMap {
		pairs = pairs[:0]
		for _, kv := range p.LabelSets.At(int32(set)) {
			pairs = append(pairs, StrLabel{Key: strs[kv.Key], Value: strs[kv.Value]})
		}
		ls, err := b.labelSet(pairs)
		if err != nil {
			return err
		}
		setMap[set] = ls
	}
	vals := make([]int64, len(p.Samples.Values))
	var nums []NumLabel
	for i, st := range p.Samples.Stack {
		for t := range vals {
			vals[t] = p.Samples.Values[t][i]
		}
		nums = nums[:0]
		for _, nl := range p.Samples.NumLabels(i) {
			nums = append(nums, NumLabel{Key: strs[nl.Key], Unit: strs[nl.Unit], Value: nl.Value})
		}
		if err := b.sample(stackMap[st], vals, setMap[p.Samples.Labels[i]], nums); err != nil {
			return err
		}
	}
	return nil
}

// Scale multiplies every sample value by factor, rounding as pprof does.
// Scale(p, -1) turns a base profile into a subtrahend.
func Scale(p *Profile, factor float64) {
	for _, col := range p.Samples.Values {
		for i, v := range col {
			col[i] = int64(math.Round(float64(v) * factor))
		}
	}
}

// Normalize scales p so that each sample type's total equals base's, as
// pprof's -normalize does before subtracting a base.
func Normalize(p, base *Profile) error {
	if err := compatible(p, base); err != nil {
		return err
	}
	for t, col := range p.Samples.Values {
		pt, bt := p.Total(t), base.Total(t)
		ratio := 0.0
		if pt != 0 {
			ratio = float64(bt) / float64(pt)
		}
		for i, v := range col {
			col[i] = int64(math.Round(float64(v) * ratio))
		}
	}
	return nil
}

// BaseLabel marks the samples of a -diff_base profile, as pprof marks
// them, so the report takes its percentage denominator from them.
const BaseLabel = "pprof::base"

// MarkBase adds the label pprof::base=true to every sample of p.
func MarkBase(p *Profile) error {
	key, val := (&builder{p: p}).str(BaseLabel), (&builder{p: p}).str("true")
	nb := &builder{p: &Profile{LabelSets: LabelSets{Off: []int32{0, 0}}}}
	remap := make([]int32, p.LabelSets.Len())
	var pairs []StrLabel
	for set := range remap {
		pairs = append(pairs[:0], p.LabelSets.At(int32(set))...)
		pairs = append(pairs, StrLabel{Key: key, Value: val})
		ls, err := nb.labelSet(pairs)
		if err != nil {
			return err
		}
		remap[set] = ls
	}
	p.LabelSets = nb.p.LabelSets
	for i, s := range p.Samples.Labels {
		p.Samples.Labels[i] = remap[s]
	}
	return nil
}
