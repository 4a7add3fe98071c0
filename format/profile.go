package format

import (
	"fmt"
	"iter"
	"math"
	"math/bits"
	"strconv"
)

// Profile is a decoded, validated profile laid out for analysis: every
// reference is a dense index into a slice of this struct, the samples are
// columns, and identical stacks and string-label sets are stored once.
//
// Indices are int32 throughout: a profile with more than 2³¹ locations,
// stacks or samples is rejected at decode time.
type Profile struct {
	// SampleTypes describes each value of a sample, in order.
	SampleTypes []ValueType
	// DefaultSampleType is the Type of the preferred sample type, or "".
	DefaultSampleType string

	PeriodType    ValueType
	Period        int64
	TimeNanos     int64
	DurationNanos int64
	Comments      []string
	// DocURL links to documentation of the profile's kind ("" if none).
	DocURL string
	// DropFrames and KeepFrames are the profile's own frame-pruning
	// regexps ("" when unset), applied by analysis.
	DropFrames string
	KeepFrames string

	Mappings  []Mapping
	Locations []Location
	Functions []Function
	// Lines holds the frames of every location (see Location.Lines).
	Lines []Line

	// Strings is the profile's string table, with Strings[0] == "".
	// Label keys, values and units are indices into it.
	Strings []string

	Stacks    Stacks
	LabelSets LabelSets
	Samples   Samples

	// Holds are kept alive for as long as the profile is, or a copy of
	// it, or a profile merged from it: a server ties the memory it
	// reserved for the profile to one, and takes it back once the
	// profile is collected.
	Holds []any
}

// ValueType names what a sample value measures and in which unit, such as
// {"cpu", "nanoseconds"} or {"alloc_space", "bytes"}.
type ValueType struct {
	Type string
	Unit string
}

// Mapping is a binary or library mapped into the profiled process.
type Mapping struct {
	ID              uint64 // the id in the source file
	Start           uint64
	Limit           uint64
	Offset          uint64
	File            string
	BuildID         string
	HasFunctions    bool
	HasFilenames    bool
	HasLineNumbers  bool
	HasInlineFrames bool
}

// Location is one program counter, symbolized into zero or more lines.
type Location struct {
	ID      uint64 // the id in the source file
	Address uint64
	// Lines locates the frames at this address in Profile.Lines (read
	// them with Profile.LinesOf): more than one when functions were
	// inlined, the first the innermost (leaf-most) function, the last
	// the function the others were inlined into. Location holds no
	// pointer, so a million of them cost the garbage collector nothing.
	Lines    LineSpan
	Mapping  int32 // index into Profile.Mappings, or -1
	IsFolded bool
}

// LineSpan is a run of Profile.Lines: Lines[Off:Off+N].
type LineSpan struct {
	Off, N int32
}

// LinesOf returns the frames of location l, innermost first. The slice
// aliases the profile; appending to it cannot overwrite other locations'.
func (p *Profile) LinesOf(l *Location) []Line {
	end := l.Lines.Off + l.Lines.N
	return p.Lines[l.Lines.Off:end:end]
}

// AddLines stores frames in Profile.Lines and returns where, for a
// Location's Lines.
func (p *Profile) AddLines(lines ...Line) LineSpan {
	if len(lines) == 0 {
		return LineSpan{}
	}
	off := len(p.Lines)
	if len(p.Lines)+len(lines) > cap(p.Lines) {
		// Doubled: append grows a large slice by a quarter at a time,
		// copying it about four times over in all (a tenth of the
		// decode of a profile with 1.1M locations).
		p.Lines = grow(p.Lines, max(64, 2*cap(p.Lines), len(p.Lines)+len(lines)))
	}
	p.Lines = append(p.Lines, lines...)
	return LineSpan{Off: int32(off), N: int32(len(lines))}
}

// Line is one frame of a Location.
type Line struct {
	Function int32 // index into Profile.Functions, or -1
	Line     int64
	Column   int64
}

// Function is a function of the profiled program.
type Function struct {
	ID         uint64 // the id in the source file
	Name       string
	SystemName string
	Filename   string
	StartLine  int64
}

// Stacks holds the distinct call stacks of the profile in one flat array.
type Stacks struct {
	// Stack i is Locs[Off[i]:Off[i+1]]: location indices, leaf first.
	Off  []int32
	Locs []int32
}

// Len returns the number of distinct stacks.
func (s *Stacks) Len() int { return len(s.Off) - 1 }

// At returns stack i, leaf first. The slice aliases the profile.
func (s *Stacks) At(i int32) []int32 { return s.Locs[s.Off[i]:s.Off[i+1]] }

// StrLabel is a string label: both fields index Profile.Strings.
type StrLabel struct {
	Key   int32
	Value int32
}

// NumLabel is a numeric label; Key and Unit index Profile.Strings
// (Unit is 0 when the file gives none).
type NumLabel struct {
	Key   int32
	Unit  int32
	Value int64
}

// NumKind is the key and unit of numeric labels, as in NumLabel.
type NumKind struct {
	Key  int32
	Unit int32
}

// MaxNumKinds is how many distinct numeric label keys and units (pairs)
// a profile may have.
const MaxNumKinds = 1 << 16

// LabelSets holds the distinct sets of string labels, each stored once.
// Set 0 is always the empty set.
type LabelSets struct {
	// Set i is Pairs[Off[i]:Off[i+1]], in the order the file gave them.
	Off   []int32
	Pairs []StrLabel
}

// Len returns the number of distinct label sets.
func (l *LabelSets) Len() int { return len(l.Off) - 1 }

// At returns set i. The slice aliases the profile.
func (l *LabelSets) At(i int32) []StrLabel { return l.Pairs[l.Off[i]:l.Off[i+1]] }

// Samples holds the samples as columns: sample i has stack Stack[i],
// values Values[t][i] and labels Labels[i] plus its numeric labels.
type Samples struct {
	Stack  []int32
	Values [][]int64 // one column per sample type
	Labels []int32   // index into Profile.LabelSets
	// Numeric labels, ten bytes each: label j has the value NumValue[j]
	// and the key and unit NumKinds[NumKind[j]]. Sample i's numeric
	// labels are labels NumOff[i] to NumOff[i+1]-1. NumOff is nil when no
	// sample has a numeric label.
	NumOff   []uint32
	NumKind  []uint16
	NumValue []int64
	NumKinds []NumKind // at most MaxNumKinds
}

// Len returns the number of samples.
func (s *Samples) Len() int { return len(s.Stack) }

// NumLabel returns numeric label j.
func (s *Samples) NumLabel(j int) NumLabel {
	k := s.NumKinds[s.NumKind[j]]
	return NumLabel{Key: k.Key, Unit: k.Unit, Value: s.NumValue[j]}
}

// NumLabels yields sample i's numeric labels, each with its index j (see
// NumLabel).
func (s *Samples) NumLabels(i int) iter.Seq2[int, NumLabel] {
	return func(yield func(int, NumLabel) bool) {
		if s.NumOff == nil {
			return
		}
		for j := int(s.NumOff[i]); j < int(s.NumOff[i+1]); j++ {
			if !yield(j, s.NumLabel(j)) {
				return
			}
		}
	}
}

// SampleTypeIndex returns the index of the sample type called name, or -1.
func (p *Profile) SampleTypeIndex(name string) int {
	for i, st := range p.SampleTypes {
		if st.Type == name {
			return i
		}
	}
	return -1
}

// DefaultSampleIndex is the sample type shown when the user picks none:
// DefaultSampleType if set, else the last type, as pprof does.
func (p *Profile) DefaultSampleIndex() int {
	if i := p.SampleTypeIndex(p.DefaultSampleType); p.DefaultSampleType != "" && i >= 0 {
		return i
	}
	return len(p.SampleTypes) - 1
}

// CheckSums reports an error when the magnitudes of a column's values add
// up past the int64 range: every sum the explorer makes of them (a total,
// a function's cum, a diff's Σ|v|) then fits. pprof wraps such sums
// silently; its reports keep doing so, the explorer refuses the profile.
func (p *Profile) CheckSums() error {
	for t, col := range p.Samples.Values {
		var sum uint64
		for _, v := range col {
			a := uint64(v)
			if v < 0 {
				a = -a
			}
			var carry uint64
			sum, carry = bits.Add64(sum, a, 0)
			if carry != 0 || sum > math.MaxInt64 {
				name := "sample type " + strconv.Itoa(t)
				if t < len(p.SampleTypes) {
					name = trimForError(p.SampleTypes[t].Type)
				}
				return fmt.Errorf("the %s values add up past the int64 range: their totals would wrap", name)
			}
		}
	}
	return nil
}

// Total returns the sum of column t over all samples.
func (p *Profile) Total(t int) int64 {
	var sum int64
	for _, v := range p.Samples.Values[t] {
		sum += v
	}
	return sum
}
