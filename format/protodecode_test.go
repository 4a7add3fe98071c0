package format

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protowire"
)

// TestEquivalentEncodings: stacks and label sets are interned by their
// encoding, so the encodings profile.proto allows for the same ids and
// labels (padded varints, unpacked or split location_id fields, label
// fields in another order) must still give one stack and one label set.
func TestEquivalentEncodings(t *testing.T) {
	raw := func(num int, b ...byte) pb { return pb(nil).msg(protowire.Number(num), pb(b)) }
	label := raw(3, 0x08, 3, 0x10, 4) // {key: 3 "k", str: 4 "v"}
	samples := []pb{
		raw(1, 1, 2).packed(2, 1).append(label),
		raw(1, 0x81, 0x00, 2).packed(2, 1).append(raw(3, 0x10, 4, 0x08, 3)),
		pb(nil).varint(1, 1).varint(1, 2).packed(2, 1).append(raw(3, 0x08, 0x83, 0x00, 0x10, 4)),
		raw(1, 1).append(raw(1, 2)).packed(2, 1).append(label),
	}
	data := pb(nil).msg(1, pb(nil).varint(1, 1).varint(2, 2))
	for _, s := range samples {
		data = data.msg(2, s)
	}
	for id := uint64(1); id <= 2; id++ {
		data = data.msg(4, pb(nil).varint(1, id))
	}
	data = data.str("").str("samples").str("count").str("k").str("v")
	p, err := Parse(bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Samples.Len() != len(samples) || p.Stacks.Len() != 1 || p.LabelSets.Len() != 2 {
		t.Fatalf("%d samples, %d stacks, %d label sets; want %d, 1, 2 (the empty set and k=v)",
			p.Samples.Len(), p.Stacks.Len(), p.LabelSets.Len(), len(samples))
	}
	for i := range samples {
		if p.Samples.Stack[i] != 0 || p.Samples.Labels[i] != 1 {
			t.Errorf("sample %d: stack %d, label set %d; want 0, 1", i, p.Samples.Stack[i], p.Samples.Labels[i])
		}
	}
	if got := p.Stacks.At(0); len(got) != 2 || p.Locations[got[0]].ID != 1 || p.Locations[got[1]].ID != 2 {
		t.Errorf("stack %v", got)
	}
}

func (b pb) append(c pb) pb { return append(b, c...) }

// TestUvarint: uvarint and uvarintLong, which read several bytes at once,
// agree with protowire on random, truncated and overlong input.
func TestUvarint(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		n := r.IntN(14)
		b := make([]byte, n)
		for j := range b {
			switch r.IntN(4) {
			case 0:
				b[j] = byte(r.Uint32())
			case 1:
				b[j] = 0x80 | byte(r.Uint32())
			case 2:
				b[j] = 0xff
			default:
				b[j] = byte(r.IntN(3))
			}
		}
		want, wantN := protowire.ConsumeVarint(b)
		for name, f := range map[string]func([]byte) (uint64, int){"uvarint": uvarint, "uvarintLong": uvarintLong} {
			if v, n := f(b); (n <= 0) != (wantN < 0) || wantN > 0 && (n != wantN || v != want) {
				t.Fatalf("%s(%x) = %d, %d; want %d, %d", name, b, v, n, want, wantN)
			}
		}
	}
	for _, v := range []uint64{0, 1, 127, 128, 1 << 20, 1<<56 - 1, 1 << 56, 1<<63 - 1, 1 << 63, ^uint64(0)} {
		b := protowire.AppendVarint(nil, v)
		for pad := 0; pad < 10; pad++ {
			c := append(append([]byte(nil), b...), make([]byte, pad)...)
			if got, n := uvarintLong(c); len(b) > 1 && (got != v || n != len(b)) {
				t.Fatalf("%d pad %d: %d %d", v, pad, got, n)
			}
		}
	}
}

// FuzzSampleFast checks the fast path for samples (commonFields) against
// the general one (sampleFields): whatever the fast path accepts, the
// general path must decode to the same location ids, values, string
// labels and numeric labels; and what it declines it must leave as it
// found it.
//
//	go test ./format -run XXX -fuzz FuzzSampleFast -fuzztime 2m
func FuzzSampleFast(f *testing.F) {
	raw := func(num int, b ...byte) pb { return pb(nil).msg(protowire.Number(num), pb(b)) }
	for _, s := range []pb{
		raw(1, 1, 2, 3).packed(2, 1, 10000000).append(raw(3, 0x08, 1, 0x10, 9)),
		raw(1, 0x81, 0x01, 2).packed(2, 5).append(raw(3, 0x08, 4, 0x18, 0x5b, 0x20, 5)),
		raw(1, 7).packed(2, 1).append(raw(3, 0x08, 6, 0x18, 0xe9, 0xbd, 0xb6, 0xbc, 0xd9, 0xe6, 0x80, 0xa7, 0x60)),
		raw(1, 7).append(raw(3, 0x08, 6, 0x18, 0)).append(raw(3, 0x08, 6, 0x18, 0, 0x20, 3)),
		raw(1, 7).append(raw(3, 0x08, 0x81, 0x01, 0x10, 0x82, 0x01)).append(raw(3, 0x08, 2, 0x18, 1, 0x20, 0x81, 0x01)),
		raw(1, 7).append(raw(3, 0x08, 1, 0x10, 0)).append(raw(3, 0x10, 4, 0x08, 3)).append(raw(3, 0x08, 1, 0x10, 0x80, 0x00)),
		raw(1, 7).append(raw(3, 0x08, 1, 0x18, 1, 0x20, 0)).append(raw(3, 0x08, 1, 0x18, 1, 0x20, 0x80)),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fast := &protoDecoder{p: &Profile{}}
		key, nv, nk, ok := fast.commonFields(b, &fast.scratch)
		fs := &fast.p.Samples
		if !ok {
			if len(fs.NumKind) != 0 || len(fs.NumValue) != 0 {
				t.Fatalf("declined, but left %d numeric labels behind", len(fs.NumValue))
			}
			return
		}
		slow := &protoDecoder{p: &Profile{}}
		var bt linkBatch
		vals, lkey, err := slow.sampleFields(b, &bt, 0)
		if err != nil {
			t.Fatalf("the fast path accepted what the general one rejects: %v", err)
		}
		ss := &slow.p.Samples
		switch {
		case !bytes.Equal(key, bt.keys):
			t.Fatalf("location ids % x, want % x", key, bt.keys)
		case !slices.Equal(fast.scratch.vals[:nv], vals):
			t.Fatalf("values %v, want %v", fast.scratch.vals[:nv], vals)
		case !bytes.Equal(fast.scratch.lkey[:nk], lkey):
			t.Fatalf("label-set key % x, want % x", fast.scratch.lkey[:nk], lkey)
		case !slices.Equal(fs.NumKind, ss.NumKind) || !slices.Equal(fs.NumValue, ss.NumValue) ||
			!slices.Equal(fs.NumKinds, ss.NumKinds):
			t.Fatalf("numeric labels %v %v %v, want %v %v %v",
				fs.NumKind, fs.NumValue, fs.NumKinds, ss.NumKind, ss.NumValue, ss.NumKinds)
		}
	})
}

// FuzzLocationFast checks the fast path for location messages
// (parseLocationFast) against the general one (parseLocation): whatever
// the fast path accepts, the general path must decode to the same
// location, mapping id, lines and function ids.
//
//	go test ./format -run XXX -fuzz FuzzLocationFast -fuzztime 2m
func FuzzLocationFast(f *testing.F) {
	line := func(fn, n, col uint64) pb { return pb(nil).varint(1, fn).varint(2, n).varint(3, col) }
	for _, s := range []pb{
		pb(nil).varint(1, 7).varint(2, 1).varint(3, 0x4a3f20).msg(4, line(3, 120, 0)),
		pb(nil).varint(1, 300).varint(3, 1<<40).msg(4, line(9, 1, 2)).msg(4, line(10, 1<<33, 0)).varint(5, 1),
		pb(nil).varint(1, 1).msg(4, pb(nil)).varint(9, 4),
		pb(nil).varint(1, 2).msg(4, line(1, 2, 3).varint(7, 1)).msg(6, pb("x")),
		pb(nil).varint(1, 2).varint(4, 1),
		pb(nil).varint(16, 1).varint(1, 5),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fast := &linker{p: &Profile{}}
		loc, mapID, ok := fast.parseLocationFast(b)
		if !ok {
			return
		}
		slow := &linker{p: &Profile{}}
		sloc, smapID, err := slow.parseLocation(b)
		if err != nil {
			t.Fatalf("the fast path accepted what the general one rejects: %v", err)
		}
		if loc != sloc || mapID != smapID {
			t.Fatalf("location %+v mapping %d, want %+v %d", loc, mapID, sloc, smapID)
		}
		if !slices.Equal(fast.lineScratch, slow.lineScratch) || !slices.Equal(fast.fnIDScratch, slow.fnIDScratch) {
			t.Fatalf("lines %v %v, want %v %v", fast.lineScratch, fast.fnIDScratch, slow.lineScratch, slow.fnIDScratch)
		}
	})
}

// TestLyingSizeHint: the gzip trailer's size only sizes buffers. A small
// file whose trailer claims gigabytes must not make the decoder reserve
// columns for them (it would ask for that much memory up front, and die
// where the address space is limited) before the end of the stream shows
// that the trailer lies.
func TestLyingSizeHint(t *testing.T) {
	data := pb(nil).msg(1, pb(nil).varint(1, 1).varint(2, 2))
	for range 5000 {
		data = data.msg(2, pb(nil).packed(2, 1))
	}
	data = data.str("").str("samples").str("count")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	for _, isize := range []uint32{0xfffffff0, 1 << 30, 1032 * uint32(buf.Len())} {
		z := bytes.Clone(buf.Bytes())
		binary.LittleEndian.PutUint32(z[len(z)-4:], isize)
		var err error
		alloc := allocatedBy(func() { _, err = Parse(bytes.NewReader(z), Options{}) })
		if err == nil || !strings.Contains(err.Error(), "CRC-32 or length") {
			t.Fatalf("trailer size %d: got %v, want the length refused", isize, err)
		}
		if alloc > 16<<20 {
			t.Errorf("trailer size %d: %d bytes allocated for a %d-byte input", isize, alloc, len(z))
		}
	}
}

// TestIDMapStaysSmall: dense ids use the slice; a large id among few
// goes to the map, and the slice does not grow to cover it until enough
// ids are set, when it moves there.
func TestIDMapStaysSmall(t *testing.T) {
	var m idMap
	for id := uint64(1); id <= 100; id++ {
		m.set(id, int32(id-1))
	}
	const far = idMapSmall - 1
	m.set(far, 100)
	m.set(5000, 101)
	if len(m.small) > 4096 || len(m.big) != 2 {
		t.Fatalf("after 100 dense ids and two far ones: slice of %d, map of %d", len(m.small), len(m.big))
	}
	for id := uint64(101); id <= 4200; id++ {
		m.set(id, int32(id+1))
	}
	if len(m.big) != 1 || len(m.small) <= 5000 {
		t.Fatalf("after 4,200 dense ids: slice of %d, map of %d (5000 should have moved to the slice)", len(m.small), len(m.big))
	}
	for _, c := range []struct {
		id   uint64
		want int32
	}{{1, 0}, {100, 99}, {far, 100}, {5000, 101}, {4200, 4201}} {
		if got, ok := m.get(c.id); !ok || got != c.want {
			t.Errorf("get(%d) = %d, %v; want %d", c.id, got, ok, c.want)
		}
	}
	if _, ok := m.get(4500); ok {
		t.Error("get(4500) found an id never set")
	}
}
