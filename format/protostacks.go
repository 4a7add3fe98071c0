package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"google.golang.org/protobuf/encoding/protowire"
)

// A sample's stack is interned by the bytes of its location_id field: a
// stack seen before (most samples, in a real profile) costs one hash and
// one comparison and no varint decoding; only a new stack is decoded,
// which validates its ids and gives new locations their indices. The new
// stacks' bytes wait in an arena, a third of the size of int32 indices,
// and Stacks is built from it once at the end, at its exact size, instead
// of growing by copying. Label sets are interned the same way, by their
// string labels' encoding.

// keyTable interns byte strings (keys), numbering them from 0.
type keyTable struct {
	// An open-addressing hash table, at most 3/4 full: slot j is empty
	// when tags[j] is 0, else it holds a key whose hash has the tag
	// tags[j] and whose arena entry is at pos[j]. The one-byte tags spare
	// most comparisons and are dense, so probing is cheap; five bytes a
	// slot keep the table small next to the profile it builds.
	tags []uint8
	pos  []uint32
	n    int
	// arena holds one entry per key, in order: the key's number (4 bytes,
	// little-endian), its length (uvarint) and the key. An entry never
	// straddles two chunks; a key larger than a chunk gets a chunk of its
	// own. An entry's position is chunk<<arenaShift | offset.
	arena [][]byte
}

const (
	arenaShift     = 18
	arenaChunk     = 1 << arenaShift
	maxArenaChunks = 1 << (32 - arenaShift) // positions fit in 32 bits
	firstChunk     = 4 << 10                // chunks double up to arenaChunk
)

// hashKey hashes a key (wyhash's mixing, 16 bytes a step).
func hashKey(b []byte) uint32 {
	const k0, k1 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db
	h := uint64(len(b)) ^ k0
	for len(b) > 16 {
		h = mix64(binary.LittleEndian.Uint64(b)^k1, binary.LittleEndian.Uint64(b[8:])^h)
		b = b[16:]
	}
	var x, y uint64
	switch n := len(b); {
	case n >= 8:
		x, y = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:])
	case n >= 4:
		x, y = uint64(binary.LittleEndian.Uint32(b)), uint64(binary.LittleEndian.Uint32(b[n-4:]))
	case n > 0:
		x = uint64(b[0])<<16 | uint64(b[n>>1])<<8 | uint64(b[n-1])
	}
	h = mix64(x^k1, y^h)
	return uint32(h ^ h>>32)
}

func mix64(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// entry returns the index and key of the arena entry at pos.
func (t *keyTable) entry(pos uint32) (int32, []byte) {
	c := t.arena[pos>>arenaShift][pos&(arenaChunk-1):]
	idx := int32(binary.LittleEndian.Uint32(c))
	n, m := uvarint(c[4:])
	return idx, c[4+m : 4+m+int(n)]
}

// tag is the tag of hash h: its top bits, never 0.
func tag(h uint32) uint8 { return uint8(h>>24) | 1 }

// find returns the number of key, or the slot where it belongs and false.
func (t *keyTable) find(key []byte, h uint32) (int32, int, bool) {
	if 4*(t.n+1) > 3*len(t.tags) {
		t.grow()
	}
	mask := len(t.tags) - 1
	tg := tag(h)
	j := int(h) & mask
	for ; t.tags[j] != 0; j = (j + 1) & mask {
		if t.tags[j] != tg {
			continue
		}
		if idx, k := t.entry(t.pos[j]); bytes.Equal(k, key) {
			return idx, j, true
		}
	}
	return 0, j, false
}

// grow doubles the table, rehashing the keys from the arena.
func (t *keyTable) grow() {
	size := max(1024, 2*len(t.tags))
	t.tags, t.pos = make([]uint8, size), make([]uint32, size)
	for ci, c := range t.arena {
		for off := 0; off < len(c); {
			n, m := uvarint(c[off+4:])
			h := hashKey(c[off+4+m : off+4+m+int(n)])
			j := int(h) & (size - 1)
			for t.tags[j] != 0 {
				j = (j + 1) & (size - 1)
			}
			t.tags[j], t.pos[j] = tag(h), uint32(ci)<<arenaShift|uint32(off)
			off += 4 + m + int(n)
		}
	}
}

// insert stores a new key in slot j (from find) and returns its number.
func (t *keyTable) insert(key []byte, h uint32, j int) (int32, error) {
	if t.n >= math.MaxInt32-1 {
		return 0, errTooMany
	}
	need := 4 + protowire.SizeVarint(uint64(len(key))) + len(key)
	last := len(t.arena) - 1
	if last < 0 || cap(t.arena[last])-len(t.arena[last]) < need {
		if len(t.arena) == maxArenaChunks {
			return 0, errTooMany
		}
		size := firstChunk
		if last >= 0 {
			size = min(2*cap(t.arena[last]), arenaChunk)
		}
		t.arena = append(t.arena, make([]byte, 0, max(size, need)))
		last++
	}
	c := t.arena[last]
	pos := uint32(last)<<arenaShift | uint32(len(c))
	c = binary.LittleEndian.AppendUint32(c, uint32(t.n))
	c = protowire.AppendVarint(c, uint64(len(key)))
	t.arena[last] = append(c, key...)
	t.tags[j], t.pos[j] = tag(h), pos
	t.n++
	return int32(t.n - 1), nil
}

var errTooMany = errors.New("too many")

// each calls fn with every key, in order.
func (t *keyTable) each(fn func(key []byte)) {
	for _, c := range t.arena {
		for len(c) > 0 {
			n, m := uvarint(c[4:])
			fn(c[4+m : 4+m+int(n)])
			c = c[4+m+int(n):]
		}
	}
}

// stack returns the index of sample si's stack, whose location_id fields
// hold key (hashed to h), adding the stack if it is new.
func (l *linker) stack(key []byte, h uint32, si int32) (int32, error) {
	t := &l.stacks
	idx, j, ok := t.find(key, h)
	if ok {
		return idx, nil
	}
	// A new stack: check its ids, and give new locations their indices in
	// the order they are first referenced.
	nlocs, canonical := 0, true
	small := l.locIDs.small
	for b := key; len(b) > 0; nlocs++ {
		id, m := uint64(b[0]), 1
		if id >= 0x80 {
			if id, m = uvarintLong(b); m <= 0 {
				return 0, fmt.Errorf("sample %d: location_id: %w", si, errTruncated)
			}
			canonical = canonical && b[m-1] != 0
		}
		b = b[m:]
		if id < uint64(len(small)) && small[id] != 0 {
			continue
		}
		if id == 0 {
			return 0, fmt.Errorf("sample %d: location_id 0 (ids must be non-zero)", si)
		}
		l.locIndex(id, si)
		small = l.locIDs.small // locIndex may have grown it
	}
	if !canonical {
		// Padded varints: the same ids have a shorter key, which may be
		// an existing stack's.
		l.canon = l.canon[:0]
		for b := key; len(b) > 0; {
			id, m := uvarint(b)
			l.canon = protowire.AppendVarint(l.canon, id)
			b = b[m:]
		}
		key = l.canon
		h = hashKey(key)
		if idx, j, ok = t.find(key, h); ok {
			return idx, nil
		}
	}
	if l.nlocs+nlocs >= math.MaxInt32 {
		return 0, fmt.Errorf("too many distinct stacks")
	}
	idx, err := t.insert(key, h, j)
	if err != nil {
		return 0, fmt.Errorf("%w distinct stacks", err)
	}
	l.nlocs += nlocs
	return idx, nil
}

// buildStacks lays the interned stacks out as p.Stacks, mapping ids to
// location indices, once every stack is known.
func (l *linker) buildStacks() {
	st := &l.p.Stacks
	st.Off = make([]int32, 1, l.stacks.n+1)
	st.Locs = make([]int32, 0, l.nlocs)
	small := l.locIDs.small
	l.stacks.each(func(ids []byte) {
		for len(ids) > 0 {
			id, m := uint64(ids[0]), 1
			if id >= 0x80 {
				id, m = uvarintLong(ids)
			}
			ids = ids[m:]
			if id < uint64(len(small)) {
				st.Locs = append(st.Locs, small[id]-1)
			} else {
				i, _ := l.locIDs.get(id)
				st.Locs = append(st.Locs, i)
			}
		}
		st.Off = append(st.Off, int32(len(st.Locs)))
	})
	l.stacks = keyTable{}
}
