package format

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"regexp"
	"slices"

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
// Ids are usually 1..N, so small ids use a slice and others a map. The
// slice covers ids up to about twice the number of ids set (and at most
// idMapSmall): a file of a few large ids cannot make it megabytes long.
type idMap struct {
	small []int32          // id → index+1
	big   map[uint64]int32 // the ids past small
	n     int              // ids set
}

const idMapSmall = 1 << 22

func (m *idMap) get(id uint64) (int32, bool) {
	if id < uint64(len(m.small)) {
		i := m.small[id]
		return i - 1, i != 0
	}
	i, ok := m.big[id]
	return i, ok
}

func (m *idMap) set(id uint64, idx int32) {
	m.n++
	if id >= uint64(len(m.small)) && id < idMapSmall && id < uint64(2*m.n+1024) {
		m.grow(id)
	}
	if id < uint64(len(m.small)) {
		m.small[id] = idx + 1
		return
	}
	if m.big == nil {
		m.big = make(map[uint64]int32)
	}
	m.big[id] = idx
}

// grow makes small cover id, and moves there the ids of big it covers.
func (m *idMap) grow(id uint64) {
	n := min(max(2*len(m.small), int(id)+1, 64), idMapSmall)
	m.small = append(m.small, make([]int32, n-len(m.small))...)
	for k, i := range m.big {
		if k < uint64(n) {
			m.small[k] = i + 1
			delete(m.big, k)
		}
	}
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
// strings are resolved when the whole stream has been read. It runs on the
// caller's goroutine and hands what depends on the order of references to
// its linker (see protolink.go).
type protoDecoder struct {
	p *Profile
	*linker

	sampleTypes []rawValueType
	periodType  rawValueType
	dropFrames  int64
	keepFrames  int64
	comments    []int64
	defaultType int64
	docURL      int64

	nValues   int // values per sample, fixed by the first sample
	nSamples  int32
	sets      keyTable // label sets but the empty one, by their keys
	setFirst  []int32  // label set → first sample using it, for errors
	anyNum    bool     // whether a sample had numeric labels yet
	kinds     numKinds
	kindCache [16]kindCacheEntry
	setCache  [1 << setCacheBits]setCacheEntry
	scratch   sampleScratch
	cur       *linkBatch // the batch being filled
	vals      []int64    // sampleFields' scratch
	lkey      []byte

	sizeHint    int64 // decompressed size, or 0
	mem         *meter
	uncharged   int64 // decoded bytes not yet charged to mem
	sampleBytes int64 // bytes of the samples so far
	est         int   // estimated number of samples, once known
}

// decodeProto decodes profile.proto from s. sizeHint is the decompressed
// size if known (0 if not), used to size the sample columns once instead
// of growing them.
func decodeProto(s *byteStream, sizeHint int64, m *meter) (*Profile, error) {
	p := &Profile{LabelSets: LabelSets{Off: []int32{0, 0}}}
	pipe, gzipped := s.src.(*pipeReader)
	d := &protoDecoder{p: p, linker: newLinker(p, !gzipped), sizeHint: sizeHint, setFirst: []int32{-1}, mem: m}
	if gzipped {
		// gzip links when it would wait for the decoder, and the decoder
		// when it would wait for gzip.
		help := d.linker.help
		pipe.idle.Store(&help)
	}
	err := d.decode(s)
	if err == nil && s.err != nil && s.err != io.EOF {
		// The stream ended in an error after the last whole field: a
		// gzip checksum or length that does not match, or bytes after
		// the gzip stream.
		err = s.err
	}
	if err == nil {
		err = d.chargeGathered()
	}
	if gzipped {
		pipe.idle.Store(nil)
	}
	if err != nil {
		// The linker's error, if any, comes from earlier in the file.
		if lerr := d.close(nil); lerr != nil {
			return nil, lerr
		}
		return nil, err
	}
	if err := d.close(d.cur); err != nil {
		return nil, err
	}
	d.buildStacks()
	// The lines keep the room they were given (two per location, see
	// addLocation): the part not used is not written, so it takes address
	// space rather than memory; copying them to their exact size (40 MB
	// on 1.1M locations) cost the load 60 ms.
	if err := d.finish(); err != nil {
		return nil, err
	}
	return p, nil
}

func (d *protoDecoder) decode(s *byteStream) error {
	for !s.atEOF() {
		if err := d.samples(s); err != nil {
			return err
		}
		if s.atEOF() {
			break
		}
		at := s.offset()
		tag, err := s.varint("field tag")
		if err != nil {
			return err
		}
		num, typ := protowire.DecodeTag(tag)
		if num < 1 {
			return fmt.Errorf("byte %d: invalid field number %d", at, num)
		}
		if err := d.field(s, at, num, typ); err != nil {
			return err
		}
	}
	return nil
}

// batch returns the batch being filled, sending it first if it is full.
func (d *protoDecoder) batch() (*linkBatch, error) {
	bt := d.cur
	if bt != nil && bt.full() {
		if d.failed.Load() {
			return nil, errLinker
		}
		d.send(bt)
		bt = nil
	}
	if bt == nil {
		bt = d.linker.batch(d.nSamples)
		d.cur = bt
	}
	return bt, nil
}

// charge adds n to what the decoder has taken and charges it to the
// meter once enough has gathered: a sample is too small a step to charge
// one at a time on the hot path. It is small enough to be inlined there.
func (d *protoDecoder) charge(n int64) error {
	if d.uncharged += n; d.uncharged < 1<<18 {
		return nil
	}
	return d.chargeGathered()
}

// chargeGathered charges the meter for what has gathered. Kept out of
// line so that charge, which calls it, is inlined.
//
//go:noinline
func (d *protoDecoder) chargeGathered() error {
	err := d.mem.charge(d.uncharged)
	d.uncharged = 0
	return err
}

// errLinker stops the decoder when the linker has failed; decodeProto
// returns the linker's error instead.
var errLinker = errors.New("linker failed")

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
	case fProfileMapping, fProfileLocation, fProfileFunction:
		// For the linker, in order.
		bt, err := d.batch()
		if err != nil {
			return err
		}
		if err := d.charge(int64(len(b)) + 64); err != nil {
			return err
		}
		bt.msgData = append(bt.msgData, b...)
		bt.msgs = append(bt.msgs, linkMsg{num: num, at: at, before: int32(bt.samples()), end: int32(len(bt.msgData))})
		return nil
	case fProfileStringTable:
		d.p.Strings = append(d.p.Strings, string(b))
		return d.charge(int64(len(b)) + 16)
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

// maxReserve caps the samples reserve sizes the columns for (about 400 MB
// of address space with two sample types): the size it goes by is only
// the file's word, and a small file that claims gigabytes must not make
// the decoder ask for them. Beyond it, the columns grow as they fill.
const maxReserve = 1 << 24

// reserve sizes the sample columns for the samples the rest of the input
// probably holds, so a million-sample profile does not grow (and copy)
// its columns a dozen times on the way.
func (d *protoDecoder) reserve(offset int64) {
	avg := d.sampleBytes / int64(d.nSamples)
	left := d.sizeHint - offset
	if avg <= 0 || left <= 0 {
		return
	}
	est := min(int64(d.nSamples)+left/avg+left/avg/50+16, maxReserve)
	d.est = int(est)
	s := &d.p.Samples
	s.Labels = grow(s.Labels, d.est)
	for t := range s.Values {
		s.Values[t] = grow(s.Values[t], d.est)
	}
	if d.anyNum {
		s.NumOff = grow(s.NumOff, d.est+1)
		n := int(float64(len(s.NumValue)) / float64(d.nSamples) * 1.02 * float64(d.est))
		s.NumKind = grow(s.NumKind, n)
		s.NumValue = grow(s.NumValue, n)
	}
	bt, err := d.batch()
	if err == nil {
		bt.reserve = d.est
	}
}

// uvarint decodes a varint from b, returning the value and its length,
// or a length <= 0 when b is truncated or the varint malformed. It is
// small enough to inline, so the one-byte case (most tags, lengths and
// counts) takes no call.
func uvarint(b []byte) (uint64, int) {
	if len(b) != 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return uvarintLong(b)
}

// uvarintLong is uvarint for varints of two bytes or more: it reads four
// or eight bytes at once when it can, without a loop.
func uvarintLong(b []byte) (uint64, int) {
	var x, stop uint64
	switch {
	case len(b) >= 8:
		x = binary.LittleEndian.Uint64(b)
		if stop = ^x & 0x8080808080808080; stop == 0 {
			return uvarint9(b, x)
		}
	case len(b) >= 4:
		x = uint64(binary.LittleEndian.Uint32(b))
		if stop = ^x & 0x80808080; stop == 0 {
			return protowire.ConsumeVarint(b)
		}
	default:
		return protowire.ConsumeVarint(b)
	}
	n := bits.TrailingZeros64(stop)/8 + 1
	return squeeze(x & (1<<(8*n) - 1)), n // n == 8 shifts 1 out: all ones
}

// squeeze drops the continuation bits of up to eight varint bytes:
// 7-bit groups into 14, 28, then 56 bits.
func squeeze(x uint64) uint64 {
	x = x&0x007f007f007f007f | x&0x7f007f007f007f00>>1
	x = x&0x00003fff00003fff | x&0x3fff00003fff0000>>2
	return x&0x000000000fffffff | x&0x0fffffff00000000>>4
}

// uvarint9 finishes a varint of nine or ten bytes whose first eight are x.
func uvarint9(b []byte, x uint64) (uint64, int) {
	if len(b) < 9 {
		return protowire.ConsumeVarint(b)
	}
	x = squeeze(x) | uint64(b[8]&0x7f)<<56
	if b[8] < 0x80 {
		return x, 9
	}
	if len(b) < 10 || b[9] > 1 {
		return protowire.ConsumeVarint(b) // truncated, or past 64 bits
	}
	return x | uint64(b[9])<<63, 10
}

// samples decodes the run of samples at the head of s that lie wholly in
// its window, skipping the general field machinery.
func (d *protoDecoder) samples(s *byteStream) error {
	b := s.buf[s.pos:s.end]
	i := 0
	for i < len(b) && b[i] == fProfileSample<<3|byte(protowire.BytesType) {
		l, n := uvarint(b[i+1:])
		if n <= 0 || l > uint64(len(b)-i-1-n) {
			break // not all here: the general path reads it
		}
		start, end := i+1+n, i+1+n+int(l)
		d.sampleBytes += int64(l) + 4
		if d.nSamples == reserveAfter && d.sizeHint > 0 {
			d.reserve(s.off + int64(s.pos+end))
		}
		if err := d.sample(b[start:end]); err != nil {
			return fmt.Errorf("sample (at byte %d): %w", s.off+int64(s.pos+i), err)
		}
		i = end
	}
	s.pos += i
	return nil
}

// sample decodes one Sample. It is the hot path: a million-sample profile
// spends most of its decode time here. The location ids go to the linker
// as they are, with their hash.
func (d *protoDecoder) sample(b []byte) error {
	si := d.nSamples
	if si == math.MaxInt32-1 {
		return fmt.Errorf("too many samples")
	}
	bt, err := d.batch()
	if err != nil {
		return err
	}
	k0 := len(bt.keys)
	sc := &d.scratch
	var vals []int64
	var lkey []byte
	set, cache := int32(-1), false
	if key, nv, nk, ok := d.commonFields(b, sc); ok {
		bt.keys = append(bt.keys, key...)
		vals, lkey = sc.vals[:nv], sc.lkey[:nk]
		if cache = nk <= 16; cache {
			set = d.cachedSet(sc, nk)
		}
	} else if vals, lkey, err = d.sampleFields(b, bt, si); err != nil {
		return err
	}
	s := &d.p.Samples
	keys := bt.keys
	nv := len(vals)
	if si == 0 {
		d.nValues = nv
		if len(d.sampleTypes) > 0 && nv != len(d.sampleTypes) {
			return fmt.Errorf("sample 0: %d values, want %d (one per sample_type)", nv, len(d.sampleTypes))
		}
		s.Values = make([][]int64, nv)
	} else if nv != d.nValues {
		want := d.nValues
		if len(d.sampleTypes) > 0 {
			want = len(d.sampleTypes)
		}
		return fmt.Errorf("sample %d: %d values, want %d (one per sample_type)", si, nv, want)
	}
	if len(keys) > math.MaxInt32 {
		return fmt.Errorf("sample %d: too many location ids", si)
	}
	bt.keyEnd = append(bt.keyEnd, int32(len(keys)))
	bt.hashes = append(bt.hashes, hashKey(keys[k0:]))
	if set < 0 {
		if set, err = d.labelSet(lkey, si); err != nil {
			return err
		}
		if cache {
			d.cacheSet(sc, len(lkey), set)
		}
	}
	if err := d.charge(8 + 8*int64(nv)); err != nil {
		return err
	}
	s.Labels = append(s.Labels, set)
	for t, v := range vals {
		s.Values[t] = append(s.Values[t], v)
	}
	if len(s.NumValue) > 0 {
		if !d.anyNum {
			// The first numeric label: a leading 0 and the (empty) ends
			// of the samples before this one.
			d.anyNum = true
			s.NumOff = make([]uint32, si+1, max(d.est, int(si))+2)
		}
		if uint64(len(s.NumValue)) >= math.MaxUint32 {
			return fmt.Errorf("too many numeric labels")
		}
		s.NumOff = append(s.NumOff, uint32(len(s.NumValue)))
	}
	d.nSamples++
	return nil
}

var errTruncated = errors.New("truncated or malformed")

// sampleScratch holds a sample's values and label-set key while it is
// decoded, for the few a sample has.
type sampleScratch struct {
	vals [8]int64
	lkey [64]byte
}

// setCacheEntry remembers the label set of a key of up to 16 bytes (one
// to three string labels): its bytes, zero-padded, and its length (0 when
// the entry is empty).
type setCacheEntry struct {
	a, b uint64
	n    int32
	set  int32
}

const setCacheBits = 11

// setCacheSlot returns the cache entry for the first n bytes of
// sc.lkey, packed into a and b.
func (d *protoDecoder) setCacheSlot(sc *sampleScratch, n int) (c *setCacheEntry, a, b uint64) {
	a = binary.LittleEndian.Uint64(sc.lkey[:])
	b = binary.LittleEndian.Uint64(sc.lkey[8:])
	// Bytes past the key are left over from other samples.
	if n < 8 {
		a &= 1<<(8*n) - 1
		b = 0
	} else {
		b &= 1<<(8*(n-8)) - 1 // n == 16 shifts 1 out: all ones
	}
	h := (a*0x9e3779b97f4a7c15 ^ b*0xc2b2ae3d27d4eb4f ^ uint64(n)) >> (64 - setCacheBits)
	return &d.setCache[h], a, b
}

// cachedSet returns the label set of the first n bytes of sc.lkey if the
// cache has it, else -1. Label sets repeat across samples, and this spares
// them the hash table.
func (d *protoDecoder) cachedSet(sc *sampleScratch, n int) int32 {
	if n == 0 {
		return 0
	}
	c, a, b := d.setCacheSlot(sc, n)
	if c.n == int32(n) && c.a == a && c.b == b {
		return c.set
	}
	return -1
}

// cacheSet remembers that the first n bytes of sc.lkey are label set set.
func (d *protoDecoder) cacheSet(sc *sampleScratch, n int, set int32) {
	if n == 0 {
		return
	}
	c, a, b := d.setCacheSlot(sc, n)
	*c = setCacheEntry{a: a, b: b, n: int32(n), set: set}
}

// commonFields decodes a Sample of the common shape, in the order Go's
// runtime and pprof write it: one packed location_id field, one packed
// value field of at most eight values, then labels of the short forms
// (see canonicalStrLabel and shortNumLabel) whose key fits in sc. It
// returns the location ids, the number of values and of key bytes in sc,
// and whether b had that shape; if not, it changed nothing and
// sampleFields decodes b. Expecting the fields in order keeps the loops
// small and their variables in registers: it is several times faster
// than the general decoder.
func (d *protoDecoder) commonFields(b []byte, sc *sampleScratch) (key []byte, nv, nk int, ok bool) {
	s := &d.p.Samples
	n0 := len(s.NumValue)
	i := 0
	if len(b) >= 2 && b[0] == 1<<3|2 { // location_id
		l, n := int(b[1]), 2
		if l >= 0x80 {
			if len(b) < 3 || b[2] >= 0x80 {
				return nil, 0, 0, false
			}
			l, n = l&0x7f|int(b[2])<<7, 3
		}
		if n+l > len(b) {
			return nil, 0, 0, false
		}
		key, i = b[n:n+l], n+l
	}
	if i+1 < len(b) && b[i] == 2<<3|2 { // value
		end := i + 2 + int(b[i+1])
		if b[i+1] >= 0x80 || end > len(b) {
			return nil, 0, 0, false
		}
		for i += 2; i < end; nv++ {
			v, m := uint64(b[i]), 1
			if v >= 0x80 {
				if v, m = uvarintLong(b[i:end]); m <= 0 {
					return nil, 0, 0, false
				}
			}
			if nv == len(sc.vals) {
				return nil, 0, 0, false
			}
			sc.vals[nv] = int64(v)
			i += m
		}
	}
	for i+1 < len(b) && b[i] == 3<<3|2 { // label
		l := int(b[i+1])
		i += 2
		end := i + l
		if l >= 0x80 || end > len(b) {
			goto general
		}
		// The commonest forms first, by their first four bytes, with a
		// one-byte key: the string label {key, str} with a one-byte str,
		// and the numeric label {key, num[, num_unit]}.
		if l >= 4 {
			w := binary.LittleEndian.Uint32(b[i:])
			if l == 4 && w&0x80ff80ff == 0x00100008 && w>>24 != 0 {
				if nk+4 > len(sc.lkey) {
					goto general
				}
				binary.LittleEndian.PutUint32(sc.lkey[nk:], w)
				nk += 4
				i = end
				continue
			}
			if w&0x00ff80ff == 0x00180008 {
				j := i + 3
				v, m := uint64(b[j]), 1
				if v >= 0x80 {
					v, m = uvarintLong(b[j:end])
				}
				j += m
				unit := -1
				switch {
				case m <= 0 || v == 0:
				case j == end:
					unit = 0
				case j+2 == end && b[j] == 0x20 && b[j+1] < 0x80:
					unit = int(b[j+1])
				}
				if unit >= 0 {
					k, ok := d.cachedKind(uint64(w>>8&0x7f)<<32 | uint64(unit))
					if !ok {
						var err error
						if k, err = d.numKind(NumKind{Key: int32(w >> 8 & 0x7f), Unit: int32(unit)}); err != nil {
							goto general
						}
					}
					s.NumKind = append(s.NumKind, k)
					s.NumValue = append(s.NumValue, int64(v))
					i = end
					continue
				}
			}
		}
		if label := b[i:end]; canonicalStrLabel(label) {
			if nk+8 > len(sc.lkey) {
				goto general
			}
			// Four to six bytes: copy eight when b has them.
			if i+8 <= len(b) {
				binary.LittleEndian.PutUint64(sc.lkey[nk:], binary.LittleEndian.Uint64(b[i:]))
			} else {
				copy(sc.lkey[nk:], label)
			}
			nk += l
		} else if nl, ok := shortNumLabel(label); ok {
			k, err := d.numKind(NumKind{Key: nl.Key, Unit: nl.Unit})
			if err != nil {
				goto general
			}
			s.NumKind = append(s.NumKind, k)
			s.NumValue = append(s.NumValue, nl.Value)
		} else {
			goto general
		}
		i = end
	}
	if i == len(b) {
		return key, nv, nk, true
	}
general:
	s.NumKind, s.NumValue = s.NumKind[:n0], s.NumValue[:n0]
	return nil, 0, 0, false
}

// sampleFields decodes sample si's fields in any valid form, appending
// its location ids to bt.keys and returning its values and label-set key.
func (d *protoDecoder) sampleFields(b []byte, bt *linkBatch, si int32) (vals []int64, lkey []byte, err error) {
	s := &d.p.Samples
	keys := bt.keys
	vals, lkey, n0, nstr := d.vals[:0], d.lkey[:0], len(s.NumValue), 0
	defer func() { bt.keys, d.vals, d.lkey = keys, vals, lkey }()
	for i := 0; i < len(b); {
		tag, n := uint64(b[i]), 1
		if tag >= 0x80 {
			if tag, n = uvarintLong(b[i:]); n <= 0 {
				return nil, nil, fmt.Errorf("sample %d: %w", si, protowire.ParseError(n))
			}
		}
		i += n
		switch tag {
		case 1<<3 | 2, 2<<3 | 2, 3<<3 | 2: // location_id, value, label
		case 1<<3 | 0, 2<<3 | 0: // location_id, value, unpacked
			v, n := uvarint(b[i:])
			if n <= 0 {
				return nil, nil, fmt.Errorf("sample %d: field %d: %w", si, tag>>3, errTruncated)
			}
			if tag>>3 == 1 {
				keys = append(keys, b[i:i+n]...) // joins the packed ids
			} else {
				vals = append(vals, int64(v))
			}
			i += n
			continue
		default:
			num, typ := protowire.Number(tag>>3), protowire.Type(tag&7)
			if num >= 1 && num <= 3 {
				return nil, nil, fmt.Errorf("sample %d: field %d has wire type %d", si, num, typ)
			}
			if n = protowire.ConsumeFieldValue(num, typ, b[i:]); n < 0 {
				return nil, nil, fmt.Errorf("sample %d: %w", si, protowire.ParseError(n))
			}
			i += n
			continue
		}
		l, n := uint64(0), 0
		if i < len(b) && b[i] < 0x80 {
			l, n = uint64(b[i]), 1
		} else if l, n = uvarintLong(b[i:]); n <= 0 {
			return nil, nil, fmt.Errorf("sample %d: field %d: %w", si, tag>>3, errTruncated)
		}
		start := i + n
		if l > uint64(len(b)-start) {
			return nil, nil, fmt.Errorf("sample %d: field %d: %w", si, tag>>3, errTruncated)
		}
		end := start + int(l)
		i = end
		switch tag >> 3 {
		case 1:
			keys = append(keys, b[start:end]...)
		case 2:
			for j := start; j < end; {
				v, m := uint64(b[j]), 1
				if v >= 0x80 {
					if v, m = uvarintLong(b[j:end]); m <= 0 {
						return nil, nil, fmt.Errorf("sample %d: value: %w", si, errTruncated)
					}
				}
				j += m
				vals = append(vals, int64(v))
			}
		case 3:
			// String labels join the label set's key, numeric ones the
			// columns.
			data := b[start:end]
			if canonicalStrLabel(data) {
				lkey = append(lkey, data...)
				nstr++
				continue
			}
			nl, ok := shortNumLabel(data)
			if !ok {
				var str int32
				var err error
				if str, nl, err = decodeLabel(data); err != nil {
					return nil, nil, fmt.Errorf("sample %d: label %d: %w", si, nstr+len(s.NumValue)-n0, err)
				}
				// As pprof reads it: a non-empty str makes a string
				// label; otherwise a non-zero num or a unit makes a
				// numeric one; a label with neither is dropped.
				if str != 0 {
					lkey = appendStrLabel(lkey, nl.Key, str)
					nstr++
					continue
				}
				if nl.Value == 0 && nl.Unit == 0 {
					continue
				}
			}
			k, err := d.numKind(NumKind{Key: nl.Key, Unit: nl.Unit})
			if err != nil {
				return nil, nil, fmt.Errorf("sample %d: %w", si, err)
			}
			s.NumKind = append(s.NumKind, k)
			s.NumValue = append(s.NumValue, nl.Value)
		}
	}
	return vals, lkey, nil
}

// numKind returns the index of k in Samples.NumKinds, adding it if it is
// new. A small cache in front of the map serves the few kinds a profile
// usually has.
func (d *protoDecoder) numKind(k NumKind) (uint16, error) {
	key := uint64(uint32(k.Key))<<32 | uint64(uint32(k.Unit))
	if i, ok := d.cachedKind(key); ok {
		return i, nil
	}
	return d.newNumKind(k, &d.kindCache[kindSlot(key)])
}

// cachedKind looks the kind Key<<32 | Unit up in the cache, inline.
func (d *protoDecoder) cachedKind(key uint64) (uint16, bool) {
	c := &d.kindCache[kindSlot(key)]
	return uint16(c.index - 1), c.index != 0 && c.key == key
}

func kindSlot(key uint64) uint64 { return key * 0x9e3779b97f4a7c15 >> 60 }

func (d *protoDecoder) newNumKind(k NumKind, c *kindCacheEntry) (uint16, error) {
	i, err := d.kinds.index(&d.p.Samples, k)
	if err != nil {
		return 0, err
	}
	*c = kindCacheEntry{key: uint64(uint32(k.Key))<<32 | uint64(uint32(k.Unit)), index: uint32(i) + 1}
	return i, nil
}

type kindCacheEntry struct {
	key   uint64 // Key<<32 | Unit
	index uint32 // in Samples.NumKinds, plus one; 0 when empty
}

// labelSet returns the index of the set of string labels whose key (see
// appendStrLabel) is key, adding the set if it is new. Set 0 is the
// empty set.
func (d *protoDecoder) labelSet(key []byte, si int32) (int32, error) {
	if len(key) == 0 {
		return 0, nil
	}
	h := hashKey(key)
	i, j, ok := d.sets.find(key, h)
	if ok {
		return i + 1, nil
	}
	ls := &d.p.LabelSets
	n := len(ls.Pairs)
	for b := key; len(b) > 0; {
		k, m := uvarint(b[1:])
		b = b[1+m:]
		v, m := uvarint(b[1:])
		b = b[1+m:]
		ls.Pairs = append(ls.Pairs, StrLabel{Key: int32(k), Value: int32(v)})
	}
	if len(ls.Pairs) >= math.MaxInt32 {
		return 0, fmt.Errorf("too many distinct label sets")
	}
	if _, err := d.sets.insert(key, h, j); err != nil {
		ls.Pairs = ls.Pairs[:n]
		return 0, fmt.Errorf("%w distinct label sets", err)
	}
	ls.Off = append(ls.Off, int32(len(ls.Pairs)))
	d.setFirst = append(d.setFirst, si)
	return int32(len(ls.Off) - 2), nil
}

// appendStrLabel appends the label-set key of string label k=v: the
// label's own encoding with both fields, in order, in minimal varints.
// Equal sets have equal keys, whatever the file's encoding.
func appendStrLabel(b []byte, k, v int32) []byte {
	b = protowire.AppendVarint(append(b, 0x08), uint64(k))
	return protowire.AppendVarint(append(b, 0x10), uint64(v))
}

// canonicalStrLabel reports whether the Label b is already its own
// label-set key, with key and str below 2¹⁴: the common case, which then
// needs no decoding.
func canonicalStrLabel(b []byte) bool {
	if len(b) < 4 || len(b) > 6 || b[0] != 0x08 {
		return false
	}
	i := 2 // after the key
	if b[1] >= 0x80 {
		if b[2]-1 >= 0x7f { // not a minimal second byte
			return false
		}
		i = 3
	}
	if i+2 > len(b) || b[i] != 0x10 {
		return false
	}
	if v := b[i+1]; v < 0x80 {
		return v != 0 && i+2 == len(b) // str 0 is no string label
	}
	return i+3 == len(b) && b[i+2]-1 < 0x7f
}

// shortNumLabel decodes the common numeric label {key: k, num: n} or
// {key: k, num: n, num_unit: u} with key and unit below 2¹⁴ and n != 0;
// ok is false for anything else.
func shortNumLabel(b []byte) (NumLabel, bool) {
	if len(b) < 4 || b[0] != 0x08 {
		return NumLabel{}, false
	}
	var nl NumLabel
	i := 2
	if c := b[1]; c < 0x80 {
		nl.Key = int32(c)
	} else if k, j, ok := short14(b, 1); ok {
		nl.Key, i = k, j
	} else {
		return NumLabel{}, false
	}
	if i+1 >= len(b) || b[i] != 0x18 {
		return NumLabel{}, false
	}
	i++
	v, m := uint64(b[i]), 1
	if v >= 0x80 {
		if v, m = uvarintLong(b[i:]); m <= 0 {
			return NumLabel{}, false
		}
	}
	if v == 0 {
		return NumLabel{}, false
	}
	nl.Value = int64(v)
	i += m
	switch {
	case i == len(b):
		return nl, true
	case i+2 == len(b) && b[i] == 0x20 && b[i+1] < 0x80:
		nl.Unit = int32(b[i+1])
		return nl, true
	case b[i] != 0x20:
		return NumLabel{}, false
	}
	var ok bool
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

// decodeLabel decodes one Label: its str, or (when str is 0) the key, num
// and unit of a numeric label.
func decodeLabel(b []byte) (str int32, nl NumLabel, err error) {
	var key, strv, num, unit uint64
	for len(b) > 0 {
		tag, n := uvarint(b)
		if n <= 0 {
			return 0, nl, errTruncated
		}
		b = b[n:]
		f, typ := tag>>3, protowire.Type(tag&7)
		if f >= 1 && f <= 4 {
			if typ != protowire.VarintType {
				return 0, nl, fmt.Errorf("field %d: wire type %d, want 0 (varint)", f, typ)
			}
			v, n := uvarint(b)
			if n <= 0 {
				return 0, nl, errTruncated
			}
			b = b[n:]
			switch f {
			case 1:
				key = v
			case 2:
				strv = v
			case 3:
				num = v
			case 4:
				unit = v
			}
			continue
		}
		n = protowire.ConsumeFieldValue(protowire.Number(f), typ, b)
		if n < 0 {
			return 0, nl, protowire.ParseError(n)
		}
		b = b[n:]
	}
	if key > math.MaxInt32 || strv > math.MaxInt32 || unit > math.MaxInt32 {
		return 0, nl, fmt.Errorf("string index out of range")
	}
	if strv != 0 && num != 0 {
		return 0, nl, fmt.Errorf("has both str and num (at most one may be set)")
	}
	return int32(strv), NumLabel{Key: int32(key), Unit: int32(unit), Value: int64(num)}, nil
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
	if err := d.checkRefs(); err != nil {
		return err
	}
	if err := d.resolveHeader(); err != nil {
		return err
	}
	if err := d.resolveNames(); err != nil {
		return err
	}
	return d.checkLabelStrings()
}

// strAt returns the string at index i, what (formatted with args) naming
// the field for the error when i is out of range.
func (d *protoDecoder) strAt(i int64, what string, args ...any) (string, error) {
	if nstr := int64(len(d.p.Strings)); i < 0 || i >= nstr {
		return "", fmt.Errorf("%s: string index %d out of range (string_table has %d entries)", fmt.Sprintf(what, args...), i, nstr)
	}
	return d.p.Strings[i], nil
}

// checkRefs fails at the first id used but never defined: a sample's
// location, a location's function or mapping.
func (d *protoDecoder) checkRefs() error {
	p := d.p
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
	return nil
}

// resolveHeader sets the profile's own fields from their string indices
// and checks them: sample types against the samples' values, the frame
// regexps, the default sample type.
func (d *protoDecoder) resolveHeader() error {
	p, str := d.p, d.strAt
	var err error
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
	return nil
}

// resolveNames sets the mappings' and functions' names from their string
// indices.
func (d *protoDecoder) resolveNames() error {
	p, str := d.p, d.strAt
	var err error
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
	return nil
}

// checkLabelStrings fails where a label's key, value or unit does not
// index the string table.
func (d *protoDecoder) checkLabelStrings() error {
	p := d.p
	nstr := int64(len(p.Strings))
	ls := &p.LabelSets
	for set := 1; set < ls.Len(); set++ {
		for _, kv := range ls.At(int32(set)) {
			if int64(kv.Key) >= nstr || int64(kv.Value) >= nstr {
				return fmt.Errorf("sample %d: label string index %d out of range (string_table has %d entries)",
					d.setFirst[set], max(kv.Key, kv.Value), nstr)
			}
		}
	}
	s := &p.Samples
	for k, nk := range s.NumKinds {
		if int64(nk.Key) < nstr && int64(nk.Unit) < nstr {
			continue
		}
		// The first sample with the bad kind, for the message.
		j := slices.Index(s.NumKind, uint16(k))
		si, _ := slices.BinarySearch(s.NumOff, uint32(j)+1)
		return fmt.Errorf("sample %d: numeric label string index %d out of range (string_table has %d entries)",
			si-1, max(nk.Key, nk.Unit), nstr)
	}
	return nil
}

func trimForError(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
