package format

import (
	"bufio"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protowire"
)

// Write encodes p as gzipped profile.proto. Definitions are written before
// their uses (mappings, functions, locations, then samples), so decoding
// the output assigns the same dense indices: Parse(Write(p)) equals p.
func Write(w io.Writer, p *Profile) error {
	gz, err := gzip.NewWriterLevel(w, gzip.DefaultCompression)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(gz, 256<<10)
	if err := encode(bw, p); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return gz.Close()
}

type encoder struct {
	w       *bufio.Writer
	strings []string
	index   map[string]int64
	msg     []byte // the message being built
	sub     []byte // a nested message being built
	err     error

	// shifted says the profile's string table lacks the leading "" and
	// its indices move up by one.
	shifted bool
	// The ids written for p's mappings, functions and locations.
	mapIDs, funcIDs, locIDs []uint64
}

// str returns the string-table index of s, adding it if needed.
func (e *encoder) str(s string) int64 {
	if i, ok := e.index[s]; ok {
		return i
	}
	i := int64(len(e.strings))
	e.strings = append(e.strings, s)
	e.index[s] = i
	return i
}

// field writes one top-level length-delimited field.
func (e *encoder) field(num protowire.Number, b []byte) {
	if e.err != nil {
		return
	}
	var hdr [20]byte
	h := protowire.AppendTag(hdr[:0], num, protowire.BytesType)
	h = protowire.AppendVarint(h, uint64(len(b)))
	if _, err := e.w.Write(h); err != nil {
		e.err = err
		return
	}
	_, e.err = e.w.Write(b)
}

func (e *encoder) scalar(num protowire.Number, v uint64) {
	if e.err != nil || v == 0 {
		return
	}
	var hdr [20]byte
	h := protowire.AppendTag(hdr[:0], num, protowire.VarintType)
	h = protowire.AppendVarint(h, v)
	_, e.err = e.w.Write(h)
}

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendBoolField(b []byte, num protowire.Number, v bool) []byte {
	if v {
		return appendVarintField(b, num, 1)
	}
	return b
}

func (e *encoder) valueType(num protowire.Number, vt ValueType) {
	e.msg = appendVarintField(e.msg[:0], 1, uint64(e.str(vt.Type)))
	e.msg = appendVarintField(e.msg, 2, uint64(e.str(vt.Unit)))
	e.field(num, e.msg)
}

// ids returns the id to write for each element: the original ids when
// they are usable (non-zero and unique), else 1..n.
func ids(n int, id func(int) uint64) []uint64 {
	out := make([]uint64, n)
	seen := make(map[uint64]bool, n)
	ok := true
	for i := range out {
		out[i] = id(i)
		if out[i] == 0 || seen[out[i]] {
			ok = false
			break
		}
		seen[out[i]] = true
	}
	if !ok {
		for i := range out {
			out[i] = uint64(i) + 1
		}
	}
	return out
}

func encode(w *bufio.Writer, p *Profile) error {
	e := newEncoder(w, p)
	for _, st := range p.SampleTypes {
		e.valueType(fProfileSampleType, st)
	}
	e.mapIDs = ids(len(p.Mappings), func(i int) uint64 { return p.Mappings[i].ID })
	e.funcIDs = ids(len(p.Functions), func(i int) uint64 { return p.Functions[i].ID })
	e.locIDs = ids(len(p.Locations), func(i int) uint64 { return p.Locations[i].ID })
	e.mappings(p)
	e.functions(p)
	if err := e.locations(p); err != nil {
		return err
	}
	e.samples(p)
	e.scalars(p)
	// Strings last: every str() call above has happened.
	for _, str := range e.strings {
		e.field(fProfileStringTable, []byte(str))
	}
	return e.err
}

// newEncoder starts the string table with p's, keeping its indices:
// labels refer to them.
func newEncoder(w *bufio.Writer, p *Profile) *encoder {
	e := &encoder{w: w, index: make(map[string]int64, len(p.Strings))}
	if len(p.Strings) == 0 || p.Strings[0] != "" {
		e.str("")
	}
	for _, s := range p.Strings {
		if _, ok := e.index[s]; !ok {
			e.index[s] = int64(len(e.strings))
		}
		e.strings = append(e.strings, s)
	}
	e.shifted = len(p.Strings) > 0 && p.Strings[0] != ""
	return e
}

// labelStr returns the index written for p's string index i.
func (e *encoder) labelStr(i int32) uint64 {
	if e.shifted {
		i++ // shifted by the "" we had to add
	}
	return uint64(i)
}

func (e *encoder) mappings(p *Profile) {
	for i, m := range p.Mappings {
		b := appendVarintField(e.msg[:0], 1, e.mapIDs[i])
		b = appendVarintField(b, 2, m.Start)
		b = appendVarintField(b, 3, m.Limit)
		b = appendVarintField(b, 4, m.Offset)
		b = appendVarintField(b, 5, uint64(e.str(m.File)))
		b = appendVarintField(b, 6, uint64(e.str(m.BuildID)))
		b = appendBoolField(b, 7, m.HasFunctions)
		b = appendBoolField(b, 8, m.HasFilenames)
		b = appendBoolField(b, 9, m.HasLineNumbers)
		b = appendBoolField(b, 10, m.HasInlineFrames)
		e.msg = b
		e.field(fProfileMapping, b)
	}
}

func (e *encoder) functions(p *Profile) {
	for i, f := range p.Functions {
		b := appendVarintField(e.msg[:0], 1, e.funcIDs[i])
		b = appendVarintField(b, 2, uint64(e.str(f.Name)))
		b = appendVarintField(b, 3, uint64(e.str(f.SystemName)))
		b = appendVarintField(b, 4, uint64(e.str(f.Filename)))
		b = appendVarintField(b, 5, uint64(f.StartLine))
		e.msg = b
		e.field(fProfileFunction, b)
	}
}

// locations fails for a location that refers to a mapping or function
// the profile lacks.
func (e *encoder) locations(p *Profile) error {
	mapIDs, funcIDs := e.mapIDs, e.funcIDs
	for i, l := range p.Locations {
		b := appendVarintField(e.msg[:0], 1, e.locIDs[i])
		if l.Mapping >= 0 {
			if int(l.Mapping) >= len(mapIDs) {
				return fmt.Errorf("location %d: mapping %d out of range", i, l.Mapping)
			}
			b = appendVarintField(b, 2, mapIDs[l.Mapping])
		}
		b = appendVarintField(b, 3, l.Address)
		for _, ln := range p.LinesOf(&p.Locations[i]) {
			s := e.sub[:0]
			if ln.Function >= 0 {
				if int(ln.Function) >= len(funcIDs) {
					return fmt.Errorf("location %d: function %d out of range", i, ln.Function)
				}
				s = appendVarintField(s, 1, funcIDs[ln.Function])
			}
			s = appendVarintField(s, 2, uint64(ln.Line))
			s = appendVarintField(s, 3, uint64(ln.Column))
			e.sub = s
			b = protowire.AppendTag(b, 4, protowire.BytesType)
			b = protowire.AppendBytes(b, s)
		}
		b = appendBoolField(b, 5, l.IsFolded)
		e.msg = b
		e.field(fProfileLocation, b)
	}
	return nil
}

func (e *encoder) samples(p *Profile) {
	s := &p.Samples
	locIDs := e.locIDs
	for i := range s.Stack {
		b := e.msg[:0]
		stack := p.Stacks.At(s.Stack[i])
		if len(stack) > 0 {
			e.sub = e.sub[:0]
			for _, l := range stack {
				e.sub = protowire.AppendVarint(e.sub, locIDs[l])
			}
			b = protowire.AppendTag(b, 1, protowire.BytesType)
			b = protowire.AppendBytes(b, e.sub)
		}
		if len(s.Values) > 0 {
			e.sub = e.sub[:0]
			for _, col := range s.Values {
				e.sub = protowire.AppendVarint(e.sub, uint64(col[i]))
			}
			b = protowire.AppendTag(b, 2, protowire.BytesType)
			b = protowire.AppendBytes(b, e.sub)
		}
		for _, kv := range p.LabelSets.At(s.Labels[i]) {
			l := appendVarintField(e.sub[:0], 1, e.labelStr(kv.Key))
			l = appendVarintField(l, 2, e.labelStr(kv.Value))
			e.sub = l
			b = protowire.AppendTag(b, 3, protowire.BytesType)
			b = protowire.AppendBytes(b, l)
		}
		for _, nl := range s.NumLabels(i) {
			l := appendVarintField(e.sub[:0], 1, e.labelStr(nl.Key))
			// num is written even when 0: it is what makes the label numeric.
			l = protowire.AppendTag(l, 3, protowire.VarintType)
			l = protowire.AppendVarint(l, uint64(nl.Value))
			l = appendVarintField(l, 4, e.labelStr(nl.Unit))
			e.sub = l
			b = protowire.AppendTag(b, 3, protowire.BytesType)
			b = protowire.AppendBytes(b, l)
		}
		e.msg = b
		e.field(fProfileSample, b)
	}
}

// scalars writes the profile's fields after the samples, the string
// table apart.
func (e *encoder) scalars(p *Profile) {
	e.scalar(fProfileDropFrames, uint64(e.str(p.DropFrames)))
	e.scalar(fProfileKeepFrames, uint64(e.str(p.KeepFrames)))
	e.scalar(fProfileTimeNanos, uint64(p.TimeNanos))
	e.scalar(fProfileDurationNanos, uint64(p.DurationNanos))
	if p.PeriodType != (ValueType{}) {
		e.valueType(fProfilePeriodType, p.PeriodType)
	}
	e.scalar(fProfilePeriod, uint64(p.Period))
	for _, c := range p.Comments {
		// Written even when it is index 0: an empty comment is a comment.
		var buf [20]byte
		b := protowire.AppendTag(buf[:0], fProfileComment, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(e.str(c)))
		if e.err == nil {
			_, e.err = e.w.Write(b)
		}
	}
	if p.DefaultSampleType != "" {
		e.scalar(fProfileDefaultSampleType, uint64(e.str(p.DefaultSampleType)))
	}
	e.scalar(fProfileDocURL, uint64(e.str(p.DocURL)))
}
