package format

import (
	"errors"
	"fmt"
	"math"
	"regexp"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of profile.proto.
const (
	fProfileSampleType        = 1
	fProfileSample            = 2
	fProfileMapping           = 3
	fProfileLocation          = 4
	fProfileFunction          = 5
	fProfileStringTable       = 6
	fProfileDropFrames        = 7
	fProfileKeepFrames        = 8
	fProfileTimeNanos         = 9
	fProfileDurationNanos     = 10
	fProfilePeriodType        = 11
	fProfilePeriod            = 12
	fProfileComment           = 13
	fProfileDefaultSampleType = 14
	fProfileDocURL            = 15
)

// idMap maps the ids of a profile.proto message kind to dense indices.
// Ids are usually 1..N, so small ids use a slice and others a map.
type idMap struct {
	small []int32 // id → index+1
	big   map[uint64]int32
}

const idMapSmall = 1 << 22

func (m *idMap) get(id uint64) (int32, bool) {
	if id < uint64(len(m.small)) {
		i := m.small[id]
		return i - 1, i != 0
	}
	if id < idMapSmall {
		return 0, false
	}
	i, ok := m.big[id]
	return i, ok
}

func (m *idMap) set(id uint64, idx int32) {
	if id < idMapSmall {
		if id >= uint64(len(m.small)) {
			n := max(2*len(m.small), int(id)+1, 64)
			m.small = append(m.small, make([]int32, min(n, idMapSmall)-len(m.small))...)
		}
		m.small[id] = idx + 1
		return
	}
	if m.big == nil {
		m.big = make(map[uint64]int32)
	}
	m.big[id] = idx
}

// ref records where an id was first referenced before its definition, so
// a dangling reference can be reported precisely.
type ref struct {
	defined bool
	from    int32 // index of the first referencing message
}

type rawValueType struct{ typ, unit int64 }

type rawMapping struct {
	Mapping
	file, buildID int64
}

type rawFunction struct {
	name, systemName, filename int64
}

// protoDecoder decodes profile.proto message by message. References may
// precede their definitions (a file may hold samples before locations, and
// the string table last), so ids get dense indices on first sight and
// strings are resolved when the whole stream has been read.
type protoDecoder struct {
	p *Profile
	b *builder

	sampleTypes []rawValueType
	periodType  rawValueType
	dropFrames  int64
	keepFrames  int64
	comments    []int64
	defaultType int64
	docURL      int64

	locIDs, funcIDs, mapIDs idMap
	locRef, funcRef, mapRef []ref
	funcs                   []rawFunction
	maps                    []rawMapping

	nValues  int // values per sample, fixed by the first sample
	nSamples int32
	it       *interner    // the second stage, interning stacks and labels
	cur      *sampleBatch // the batch being filled

	sizeHint    int64 // decompressed size, or 0
	sampleBytes int64 // bytes of the samples so far

}

// decodeProto decodes profile.proto from s. sizeHint is the decompressed
// size if known (0 if not), used to size the sample columns once instead
// of growing them.
func decodeProto(s *byteStream, sizeHint int64) (*Profile, error) {
	p := &Profile{}
	d := &protoDecoder{p: p, b: newBuilder(p), sizeHint: sizeHint}
	d.it = newInterner(d.b)
	stopped := false
	defer func() {
		if !stopped {
			d.it.close(nil)
		}
	}()
	for !s.atEOF() {
		at := s.offset()
		tag, err := s.varint("field tag")
		if err != nil {
			return nil, err
		}
		num, typ := protowire.DecodeTag(tag)
		if num < 1 {
			return nil, fmt.Errorf("byte %d: invalid field number %d", at, num)
		}
		if err := d.field(s, at, num, typ); err != nil {
			return nil, err
		}
	}
	stopped = true
	if err := d.it.close(d.cur); err != nil {
		return nil, err
	}
	if err := d.finish(); err != nil {
		return nil, err
	}
	return p, nil
}

var fieldNames = [...]string{
	fProfileSampleType: "sample_type", fProfileSample: "sample", fProfileMapping: "mapping",
	fProfileLocation: "location", fProfileFunction: "function", fProfileStringTable: "string_table",
	fProfileDropFrames: "drop_frames", fProfileKeepFrames: "keep_frames", fProfileTimeNanos: "time_nanos",
	fProfileDurationNanos: "duration_nanos", fProfilePeriodType: "period_type", fProfilePeriod: "period",
	fProfileComment: "comment", fProfileDefaultSampleType: "default_sample_type", fProfileDocURL: "doc_url",
}

func (d *protoDecoder) field(s *byteStream, at int64, num protowire.Number, typ protowire.Type) error {
	if int(num) >= len(fieldNames) || fieldNames[num] == "" {
		return skipField(s, at, num, typ)
	}
	name := fieldNames[num]
	switch typ {
	case protowire.VarintType:
		v, err := s.varint(name)
		if err != nil {
			return err
		}
		return d.scalar(num, name, at, v)
	case protowire.BytesType:
		n, err := s.varint(name)
		if err != nil {
			return err
		}
		if n > math.MaxInt32 {
			return fmt.Errorf("%s at byte %d: length %d is too large", name, at, n)
		}
		b, err := s.next(int(n), name)
		if err != nil {
			return err
		}
		if num == fProfileSample {
			d.sampleBytes += int64(len(b)) + 4
			if d.nSamples == reserveAfter && d.sizeHint > 0 {
				d.reserve(s.offset())
			}
		}
		return d.message(num, name, at, b)
	default:
		return fmt.Errorf("%s at byte %d: wire type %d is not valid for this field", name, at, typ)
	}
}

func skipField(s *byteStream, at int64, num protowire.Number, typ protowire.Type) error {
	what := fmt.Sprintf("unknown field %d", num)
	switch typ {
	case protowire.VarintType:
		_, err := s.varint(what)
		return err
	case protowire.Fixed32Type:
		return s.skip(4, what)
	case protowire.Fixed64Type:
		return s.skip(8, what)
	case protowire.BytesType:
		n, err := s.varint(what)
		if err != nil {
			return err
		}
		if n > math.MaxInt64 {
			return fmt.Errorf("%s at byte %d: length %d is too large", what, at, n)
		}
		return s.skip(int64(n), what)
	default:
		return fmt.Errorf("%s at byte %d: unsupported wire type %d", what, at, typ)
	}
}

// scalar handles a varint-encoded top-level field.
func (d *protoDecoder) scalar(num protowire.Number, name string, at int64, v uint64) error {
	switch num {
	case fProfileDropFrames:
		d.dropFrames = int64(v)
	case fProfileKeepFrames:
		d.keepFrames = int64(v)
	case fProfileTimeNanos:
		d.p.TimeNanos = int64(v)
	case fProfileDurationNanos:
		d.p.DurationNanos = int64(v)
	case fProfilePeriod:
		d.p.Period = int64(v)
	case fProfileComment:
		d.comments = append(d.comments, int64(v))
	case fProfileDefaultSampleType:
		d.defaultType = int64(v)
	case fProfileDocURL:
		d.docURL = int64(v)
	default:
		return fmt.Errorf("%s at byte %d: wire type 0 is not valid for this field", name, at)
	}
	return nil
}

// message handles a length-delimited top-level field.
func (d *protoDecoder) message(num protowire.Number, name string, at int64, b []byte) error {
	var err error
	switch num {
	case fProfileSampleType:
		var vt rawValueType
		vt, err = decodeValueType(b)
		d.sampleTypes = append(d.sampleTypes, vt)
		if err == nil && d.nSamples > 0 && len(d.sampleTypes) > d.nValues {
			err = fmt.Errorf("sample 0: %d values, but the profile has at least %d sample types", d.nValues, len(d.sampleTypes))
		}
	case fProfileSample:
		err = d.sample(b)
	case fProfileMapping:
		err = d.mapping(b)
	case fProfileLocation:
		err = d.location(b)
	case fProfileFunction:
		err = d.function(b)
	case fProfileStringTable:
		d.p.Strings = append(d.p.Strings, string(b))
		return nil
	case fProfilePeriodType:
		d.periodType, err = decodeValueType(b)
	case fProfileComment:
		err = eachVarint(b, func(v uint64) { d.comments = append(d.comments, int64(v)) })
	default:
		// A packed encoding of a scalar field is not valid.
		return fmt.Errorf("%s at byte %d: wire type 2 is not valid for this field", name, at)
	}
	if err != nil {
		return fmt.Errorf("%s (at byte %d): %w", name, at, err)
	}
	return nil
}

// fields walks the fields of one message, calling fn with each field's
// number, wire type and raw value (the varint for scalars, the bytes for
// length-delimited fields).
func fields(b []byte, fn func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var v uint64
		var data []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			data, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("field %d: %w", num, protowire.ParseError(n))
		}
		b = b[n:]
		if typ != protowire.VarintType && typ != protowire.BytesType {
			continue // fixed-width fields are not part of profile.proto
		}
		if err := fn(num, typ, v, data); err != nil {
			return err
		}
	}
	return nil
}

// eachVarint decodes a packed repeated varint field.
func eachVarint(b []byte, fn func(uint64)) error {
	for len(b) > 0 {
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return fmt.Errorf("packed field: %w", protowire.ParseError(n))
		}
		fn(v)
		b = b[n:]
	}
	return nil
}

func wantVarint(num protowire.Number, typ protowire.Type) error {
	if typ != protowire.VarintType {
		return fmt.Errorf("field %d: wire type %d, want 0 (varint)", num, typ)
	}
	return nil
}

func decodeValueType(b []byte) (rawValueType, error) {
	var vt rawValueType
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
		switch num {
		case 1, 2:
			if err := wantVarint(num, typ); err != nil {
				return err
			}
			if num == 1 {
				vt.typ = int64(v)
			} else {
				vt.unit = int64(v)
			}
		}
		return nil
	})
	return vt, err
}

// reserveAfter is how many samples are read before the sample count is
// estimated from their average size.
const reserveAfter = 1024

// reserve sizes the sample columns for the samples the rest of the input
// probably holds, so a million-sample profile does not grow (and copy)
// its columns a dozen times on the way.
func (d *protoDecoder) reserve(offset int64) {
	avg := d.sampleBytes / int64(d.nSamples)
	left := d.sizeHint - offset
	if avg <= 0 || left <= 0 {
		return
	}
	est := int64(d.nSamples) + left/avg + left/avg/50 + 16
	if est > 1<<31-2 {
		return
	}
	if d.cur == nil {
		d.cur = d.it.batch(d.nSamples, d.nValues)
	}
	d.cur.reserve = int(est)
}

// uvarint decodes a varint from b, returning the value and its length,
// or a length <= 0 when b is truncated or the varint malformed. The
// one-byte case, most location ids and counts, is inlined by the caller.
func uvarint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return protowire.ConsumeVarint(b)
}

// sample decodes one Sample. It is the hot path: a million-sample profile
// spends most of its decode time here, so it avoids closures and maps.
func (d *protoDecoder) sample(b []byte) error {
	si := d.nSamples
	if si == math.MaxInt32-1 {
		return fmt.Errorf("too many samples")
	}
	// Decode straight into the batch the interner will get.
	bt := d.cur
	if bt == nil {
		bt = d.it.batch(si, d.nValues)
		d.cur = bt
	}
	l0, v0, p0, n0 := len(bt.locs), len(bt.vals), len(bt.pairs), len(bt.nums)
	locs, vals, pairs, nums := bt.locs, bt.vals, bt.pairs, bt.nums
	for len(b) > 0 {
		tag, n := uvarint(b)
		if n <= 0 {
			return fmt.Errorf("sample %d: %w", si, protowire.ParseError(n))
		}
		b = b[n:]
		num, typ := protowire.Number(tag>>3), protowire.Type(tag&7)
		switch {
		case (num == 1 || num == 2 || num == 3) && typ == protowire.BytesType:
			l, n := uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return fmt.Errorf("sample %d: field %d: %w", si, num, errTruncated)
			}
			data := b[n : n+int(l)]
			b = b[n+int(l):]
			switch num {
			case 1:
				// The hot loop of the whole decoder: ids of one or two
				// bytes that are already known take no call.
				small := d.locIDs.small
				for len(data) > 0 {
					var v uint64
					if c := data[0]; c < 0x80 {
						v, data = uint64(c), data[1:]
					} else if len(data) > 1 && data[1] < 0x80 {
						v, data = uint64(c&0x7f)|uint64(data[1])<<7, data[2:]
					} else {
						var m int
						if v, m = uvarint(data); m <= 0 {
							return fmt.Errorf("sample %d: location_id: %w", si, errTruncated)
						}
						data = data[m:]
					}
					if v < uint64(len(small)) && small[v] != 0 {
						locs = append(locs, small[v]-1)
						continue
					}
					locs = append(locs, d.locIndex(v, si))
					small = d.locIDs.small // locIndex may have grown it
				}
			case 2:
				for len(data) > 0 {
					v, m := uvarint(data)
					if m <= 0 {
						return fmt.Errorf("sample %d: value: %w", si, errTruncated)
					}
					data = data[m:]
					vals = append(vals, int64(v))
				}
			case 3:
				if k, v, ok := shortStrLabel(data); ok {
					pairs = append(pairs, StrLabel{Key: k, Value: v})
					continue
				}
				if nl, ok := shortNumLabel(data); ok {
					nums = append(nums, nl)
					continue
				}
				var err error
				if pairs, nums, err = decodeLabel(data, pairs, nums); err != nil {
					return fmt.Errorf("sample %d: label %d: %w", si, len(pairs)-p0+len(nums)-n0, err)
				}
			}
		case (num == 1 || num == 2) && typ == protowire.VarintType:
			v, n := uvarint(b)
			if n <= 0 {
				return fmt.Errorf("sample %d: field %d: %w", si, num, errTruncated)
			}
			b = b[n:]
			if num == 1 {
				locs = append(locs, d.locIndex(v, si))
			} else {
				vals = append(vals, int64(v))
			}
		case num >= 1 && num <= 3:
			return fmt.Errorf("sample %d: field %d has wire type %d", si, num, typ)
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return fmt.Errorf("sample %d: %w", si, protowire.ParseError(n))
			}
			b = b[n:]
		}
	}
	for _, l := range locs[l0:] {
		if l < 0 {
			return fmt.Errorf("sample %d: location_id 0 (ids must be non-zero)", si)
		}
	}
	nv := len(vals) - v0
	if si == 0 {
		d.nValues = nv
		bt.nv = nv
		if len(d.sampleTypes) > 0 && nv != len(d.sampleTypes) {
			return fmt.Errorf("sample 0: %d values, want %d (one per sample_type)", nv, len(d.sampleTypes))
		}
	} else if nv != d.nValues {
		want := d.nValues
		if len(d.sampleTypes) > 0 {
			want = len(d.sampleTypes)
		}
		return fmt.Errorf("sample %d: %d values, want %d (one per sample_type)", si, nv, want)
	}
	bt.locs, bt.vals, bt.pairs, bt.nums = locs, vals, pairs, nums
	bt.endSample()
	d.nSamples++
	if bt.len() == batchSize {
		d.it.in <- bt
		d.cur = nil
	}
	return nil
}

var errTruncated = errors.New("truncated or malformed")

// shortStrLabel decodes the common string label {key: k, str: v} with
// both indices below 2¹⁴, without the general loop; ok is false for
// anything else, which decodeLabel then handles.
func shortStrLabel(b []byte) (k, v int32, ok bool) {
	if len(b) < 4 || b[0] != 0x08 {
		return 0, 0, false
	}
	i := 1
	k, i, ok = short14(b, i)
	if !ok || i >= len(b) || b[i] != 0x10 {
		return 0, 0, false
	}
	v, i, ok = short14(b, i+1)
	if !ok || i != len(b) || v == 0 {
		return 0, 0, false
	}
	return k, v, true
}

// shortNumLabel decodes the common numeric label {key: k, num: n} or
// {key: k, num: n, num_unit: u} with key and unit below 2¹⁴ and n != 0;
// ok is false for anything else.
func shortNumLabel(b []byte) (NumLabel, bool) {
	if len(b) < 4 || b[0] != 0x08 {
		return NumLabel{}, false
	}
	k, i, ok := short14(b, 1)
	if !ok || i >= len(b) || b[i] != 0x18 {
		return NumLabel{}, false
	}
	num, m := uvarint(b[i+1:])
	if m <= 0 || num == 0 {
		return NumLabel{}, false
	}
	i += 1 + m
	nl := NumLabel{Key: k, Value: int64(num)}
	if i == len(b) {
		return nl, true
	}
	if b[i] != 0x20 {
		return NumLabel{}, false
	}
	if nl.Unit, i, ok = short14(b, i+1); !ok || i != len(b) {
		return NumLabel{}, false
	}
	return nl, true
}

// short14 reads a varint of one or two bytes at b[i].
func short14(b []byte, i int) (int32, int, bool) {
	if i < len(b) && b[i] < 0x80 {
		return int32(b[i]), i + 1, true
	}
	if i+1 < len(b) && b[i+1] < 0x80 {
		return int32(b[i]&0x7f) | int32(b[i+1])<<7, i + 2, true
	}
	return 0, i, false
}

// decodeLabel decodes one Label into the string or numeric list.
func decodeLabel(b []byte, pairs []StrLabel, nums []NumLabel) ([]StrLabel, []NumLabel, error) {
	var key, str, num, unit uint64
	for len(b) > 0 {
		tag, n := uvarint(b)
		if n <= 0 {
			return nil, nil, errTruncated
		}
		b = b[n:]
		f, typ := tag>>3, protowire.Type(tag&7)
		if f >= 1 && f <= 4 {
			if typ != protowire.VarintType {
				return nil, nil, fmt.Errorf("field %d: wire type %d, want 0 (varint)", f, typ)
			}
			v, n := uvarint(b)
			if n <= 0 {
				return nil, nil, errTruncated
			}
			b = b[n:]
			switch f {
			case 1:
				key = v
			case 2:
				str = v
			case 3:
				num = v
			case 4:
				unit = v
			}
			continue
		}
		n = protowire.ConsumeFieldValue(protowire.Number(f), typ, b)
		if n < 0 {
			return nil, nil, protowire.ParseError(n)
		}
		b = b[n:]
	}
	if key > math.MaxInt32 || str > math.MaxInt32 || unit > math.MaxInt32 {
		return nil, nil, fmt.Errorf("string index out of range")
	}
	if str != 0 && num != 0 {
		return nil, nil, fmt.Errorf("has both str and num (at most one may be set)")
	}
	// As pprof reads it: a non-empty str makes a string label; otherwise a
	// non-zero num or a unit makes a numeric one; a label with neither is
	// dropped.
	switch {
	case str != 0:
		pairs = append(pairs, StrLabel{Key: int32(key), Value: int32(str)})
	case num != 0 || unit != 0:
		nums = append(nums, NumLabel{Key: int32(key), Unit: int32(unit), Value: int64(num)})
	}
	return pairs, nums, nil
}

// locIndex returns the dense index of location id, reserving one if the
// Location has not been seen yet. Id 0 yields -1 (an error for the caller).
func (d *protoDecoder) locIndex(id uint64, from int32) int32 {
	if id < uint64(len(d.locIDs.small)) {
		if i := d.locIDs.small[id]; i != 0 {
			return i - 1
		}
	}
	if id == 0 {
		return -1
	}
	if i, ok := d.locIDs.get(id); ok {
		return i
	}
	i := int32(len(d.p.Locations))
	d.p.Locations = append(d.p.Locations, Location{ID: id, Mapping: -1})
	d.locRef = append(d.locRef, ref{from: from})
	d.locIDs.set(id, i)
	return i
}

func (d *protoDecoder) funcIndex(id uint64, from int32) int32 {
	if i, ok := d.funcIDs.get(id); ok {
		return i
	}
	i := int32(len(d.funcs))
	d.funcs = append(d.funcs, rawFunction{})
	d.p.Functions = append(d.p.Functions, Function{ID: id})
	d.funcRef = append(d.funcRef, ref{from: from})
	d.funcIDs.set(id, i)
	return i
}

func (d *protoDecoder) mapIndex(id uint64, from int32) int32 {
	if i, ok := d.mapIDs.get(id); ok {
		return i
	}
	i := int32(len(d.maps))
	d.maps = append(d.maps, rawMapping{Mapping: Mapping{ID: id}})
	d.mapRef = append(d.mapRef, ref{from: from})
	d.mapIDs.set(id, i)
	return i
}

func (d *protoDecoder) location(b []byte) error {
	var loc Location
	var mapID uint64
	var lines []Line
	var fnIDs []uint64
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error {
		switch num {
		case 1, 2, 3, 5:
			if err := wantVarint(num, typ); err != nil {
				return err
			}
		}
		switch num {
		case 1:
			loc.ID = v
		case 2:
			mapID = v
		case 3:
			loc.Address = v
		case 5:
			loc.IsFolded = v != 0
		case 4:
			if typ != protowire.BytesType {
				return fmt.Errorf("line: wire type %d, want 2", typ)
			}
			var ln Line
			var fnID uint64
			err := fields(data, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
				if num < 1 || num > 3 {
					return nil
				}
				if err := wantVarint(num, typ); err != nil {
					return err
				}
				switch num {
				case 1:
					fnID = v
				case 2:
					ln.Line = int64(v)
				case 3:
					ln.Column = int64(v)
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("line %d: %w", len(lines), err)
			}
			lines = append(lines, ln)
			fnIDs = append(fnIDs, fnID)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("location id %d: %w", loc.ID, err)
	}
	if loc.ID == 0 {
		return fmt.Errorf("location with address %#x: id 0 (ids must be non-zero)", loc.Address)
	}
	i := d.locIndex(loc.ID, -1)
	if d.locRef[i].defined {
		return fmt.Errorf("location %d: duplicate id %d", i, loc.ID)
	}
	d.locRef[i].defined = true
	loc.Mapping = -1
	if mapID != 0 {
		loc.Mapping = d.mapIndex(mapID, i)
	}
	for j, id := range fnIDs {
		lines[j].Function = -1
		if id != 0 {
			lines[j].Function = d.funcIndex(id, i)
		}
	}
	loc.Lines = lines
	d.p.Locations[i] = loc
	return nil
}

func (d *protoDecoder) function(b []byte) error {
	var f Function
	var raw rawFunction
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
		if num < 1 || num > 5 {
			return nil
		}
		if err := wantVarint(num, typ); err != nil {
			return err
		}
		switch num {
		case 1:
			f.ID = v
		case 2:
			raw.name = int64(v)
		case 3:
			raw.systemName = int64(v)
		case 4:
			raw.filename = int64(v)
		case 5:
			f.StartLine = int64(v)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("function id %d: %w", f.ID, err)
	}
	if f.ID == 0 {
		return fmt.Errorf("function %d: id 0 (ids must be non-zero)", len(d.funcs))
	}
	i := d.funcIndex(f.ID, -1)
	if d.funcRef[i].defined {
		return fmt.Errorf("function %d: duplicate id %d", i, f.ID)
	}
	d.funcRef[i].defined = true
	d.p.Functions[i] = f
	d.funcs[i] = raw
	return nil
}

func (d *protoDecoder) mapping(b []byte) error {
	var m rawMapping
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
		if num < 1 || num > 10 {
			return nil
		}
		if err := wantVarint(num, typ); err != nil {
			return err
		}
		switch num {
		case 1:
			m.ID = v
		case 2:
			m.Start = v
		case 3:
			m.Limit = v
		case 4:
			m.Offset = v
		case 5:
			m.file = int64(v)
		case 6:
			m.buildID = int64(v)
		case 7:
			m.HasFunctions = v != 0
		case 8:
			m.HasFilenames = v != 0
		case 9:
			m.HasLineNumbers = v != 0
		case 10:
			m.HasInlineFrames = v != 0
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("mapping id %d: %w", m.ID, err)
	}
	if m.ID == 0 {
		return fmt.Errorf("mapping %d: id 0 (ids must be non-zero)", len(d.maps))
	}
	i := d.mapIndex(m.ID, -1)
	if d.mapRef[i].defined {
		return fmt.Errorf("mapping %d: duplicate id %d", i, m.ID)
	}
	d.mapRef[i].defined = true
	d.maps[i] = m
	return nil
}

// finish checks what could only be checked once everything was read —
// dangling ids and string indices — and resolves the strings.
func (d *protoDecoder) finish() error {
	p := d.p
	if len(p.Strings) == 0 {
		return fmt.Errorf("string_table is empty (string_table[0] must be \"\")")
	}
	if p.Strings[0] != "" {
		return fmt.Errorf("string_table[0] is %q, want \"\"", trimForError(p.Strings[0]))
	}
	nstr := int64(len(p.Strings))
	str := func(i int64, what string, args ...any) (string, error) {
		if i < 0 || i >= nstr {
			return "", fmt.Errorf("%s: string index %d out of range (string_table has %d entries)", fmt.Sprintf(what, args...), i, nstr)
		}
		return p.Strings[i], nil
	}
	var err error

	for i, r := range d.locRef {
		if !r.defined {
			return fmt.Errorf("sample %d: location_id %d has no Location", r.from, p.Locations[i].ID)
		}
	}
	for i, r := range d.funcRef {
		if !r.defined {
			loc := p.Locations[r.from]
			return fmt.Errorf("location %d (id %d): function_id %d has no Function", r.from, loc.ID, p.Functions[i].ID)
		}
	}
	for i, r := range d.mapRef {
		if !r.defined {
			loc := p.Locations[r.from]
			return fmt.Errorf("location %d (id %d): mapping_id %d has no Mapping", r.from, loc.ID, d.maps[i].ID)
		}
	}

	if d.nSamples > 0 && d.nValues != len(d.sampleTypes) {
		return fmt.Errorf("sample 0: %d values, want %d (one per sample_type)", d.nValues, len(d.sampleTypes))
	}
	if d.nSamples == 0 {
		p.Samples.Values = make([][]int64, len(d.sampleTypes))
	}
	p.SampleTypes = make([]ValueType, len(d.sampleTypes))
	for i, vt := range d.sampleTypes {
		if p.SampleTypes[i].Type, err = str(vt.typ, "sample_type %d type", i); err != nil {
			return err
		}
		if p.SampleTypes[i].Unit, err = str(vt.unit, "sample_type %d unit", i); err != nil {
			return err
		}
	}
	if p.PeriodType.Type, err = str(d.periodType.typ, "period_type type"); err != nil {
		return err
	}
	if p.PeriodType.Unit, err = str(d.periodType.unit, "period_type unit"); err != nil {
		return err
	}
	if p.DocURL, err = str(d.docURL, "doc_url"); err != nil {
		return err
	}
	if p.DropFrames, err = str(d.dropFrames, "drop_frames"); err != nil {
		return err
	}
	if p.KeepFrames, err = str(d.keepFrames, "keep_frames"); err != nil {
		return err
	}
	for _, rx := range []struct{ name, re string }{{"drop_frames", p.DropFrames}, {"keep_frames", p.KeepFrames}} {
		if _, err := regexp.Compile("^(" + rx.re + ")$"); rx.re != "" && err != nil {
			return fmt.Errorf("%s %q is not a valid regexp: %v", rx.name, trimForError(rx.re), err)
		}
	}
	for i, c := range d.comments {
		s, err := str(c, "comment %d", i)
		if err != nil {
			return err
		}
		p.Comments = append(p.Comments, s)
	}
	if d.defaultType != 0 {
		if p.DefaultSampleType, err = str(d.defaultType, "default_sample_type"); err != nil {
			return err
		}
		if p.SampleTypeIndex(p.DefaultSampleType) < 0 {
			return fmt.Errorf("default_sample_type %q names no sample_type", trimForError(p.DefaultSampleType))
		}
	}

	p.Mappings = make([]Mapping, len(d.maps))
	for i, m := range d.maps {
		if m.File, err = str(m.file, "mapping %d (id %d) filename", i, m.ID); err != nil {
			return err
		}
		if m.BuildID, err = str(m.buildID, "mapping %d (id %d) build_id", i, m.ID); err != nil {
			return err
		}
		p.Mappings[i] = m.Mapping
	}
	for i, f := range d.funcs {
		fn := &p.Functions[i]
		if fn.Name, err = str(f.name, "function %d (id %d) name", i, fn.ID); err != nil {
			return err
		}
		if fn.SystemName, err = str(f.systemName, "function %d (id %d) system_name", i, fn.ID); err != nil {
			return err
		}
		if fn.Filename, err = str(f.filename, "function %d (id %d) filename", i, fn.ID); err != nil {
			return err
		}
	}

	// Labels: every key, value and unit must index the string table.
	ls := &p.LabelSets
	for set := 1; set < ls.Len(); set++ {
		for _, kv := range ls.At(int32(set)) {
			if int64(kv.Key) >= nstr || int64(kv.Value) >= nstr {
				return fmt.Errorf("sample %d: label string index %d out of range (string_table has %d entries)",
					d.it.setFirst[set], max(kv.Key, kv.Value), nstr)
			}
		}
	}
	if p.Samples.NumOff != nil {
		si := 0
		for j, nl := range p.Samples.Num {
			if int64(nl.Key) < nstr && int64(nl.Unit) < nstr {
				continue
			}
			for p.Samples.NumOff[si+1] <= uint32(j) {
				si++
			}
			return fmt.Errorf("sample %d: numeric label string index %d out of range (string_table has %d entries)",
				si, max(nl.Key, nl.Unit), nstr)
		}
	}
	return nil
}

func trimForError(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
