package format

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync"

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
	// An open-addressing hash table, at most 3/4 full, of eight-byte
	// slots in one byte slice: a slot holds a key's 32-bit hash in its
	// high half and its arena position plus one in its low half, 0 when
	// the slot is empty. A probe is one load, a stored hash spares most
	// key comparisons, and growing rehashes from the slots alone. When the
	// table grows, the old slice becomes arena chunks instead of garbage.
	slots []byte
	n     int
	// arena holds one entry per key, in order: the key's number (4 bytes,
	// little-endian), its length (uvarint) and the key. An entry never
	// straddles two chunks; a key larger than a chunk gets a chunk of its
	// own. An entry's position is chunk<<arenaShift | offset.
	arena [][]byte
	spare [][]byte // empty chunks for the arena, from old tables
}

const (
	arenaShift = 18
	arenaChunk = 1 << arenaShift
	// Positions plus one fit in 32 bits.
	maxArenaChunks = 1<<(32-arenaShift) - 1
	firstChunk     = 4 << 10 // chunks double up to arenaChunk
	slotBytes      = 8
)

// slot returns slot j.
func (t *keyTable) slot(j int) uint64 {
	return binary.LittleEndian.Uint64(t.slots[slotBytes*j:])
}

// size is the number of slots.
func (t *keyTable) size() int { return len(t.slots) / slotBytes }

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

// match reports whether the arena entry at pos holds key, which is
// shorter than 128 bytes (its length one byte), and returns its number.
func (t *keyTable) match(pos uint32, key []byte) (int32, bool) {
	c := t.arena[pos>>arenaShift][pos&(arenaChunk-1):]
	if n := int(c[4]); n == len(key) && 5+n <= len(c) && string(c[5:5+n]) == string(key) {
		return int32(binary.LittleEndian.Uint32(c)), true
	}
	return 0, false
}

// find returns the number of key, or the slot where it belongs and false.
func (t *keyTable) find(key []byte, h uint32) (int32, int, bool) {
	if 4*(t.n+1) > 3*t.size() {
		t.grow()
	}
	mask := t.size() - 1
	for j := int(h) & mask; ; j = (j + 1) & mask {
		sl := t.slot(j)
		if sl == 0 {
			return 0, j, false
		}
		if uint32(sl>>32) != h {
			continue
		}
		p := uint32(sl) - 1
		if len(key) < 0x80 {
			if idx, ok := t.match(p, key); ok {
				return idx, j, true
			}
			continue
		}
		if idx, k := t.entry(p); bytes.Equal(k, key) {
			return idx, j, true
		}
	}
}

// grow doubles the table, rehashing from the stored hashes, and keeps the
// old one's memory for the arena.
func (t *keyTable) grow() {
	old := t.slots
	size := max(1024, 2*t.size())
	t.slots = make([]byte, slotBytes*size)
	mask := size - 1
	for i := 0; i+slotBytes <= len(old); i += slotBytes {
		sl := binary.LittleEndian.Uint64(old[i:])
		if sl == 0 {
			continue
		}
		j := int(sl>>32) & mask
		for t.slot(j) != 0 {
			j = (j + 1) & mask
		}
		binary.LittleEndian.PutUint64(t.slots[slotBytes*j:], sl)
	}
	for len(old) > 0 {
		n := min(len(old), arenaChunk)
		t.spare = append(t.spare, old[:0:n])
		old = old[n:]
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
		t.arena = append(t.arena, t.chunk(need))
		last++
	}
	c := t.arena[last]
	pos := uint32(last)<<arenaShift | uint32(len(c))
	c = binary.LittleEndian.AppendUint32(c, uint32(t.n))
	c = protowire.AppendVarint(c, uint64(len(key)))
	t.arena[last] = append(c, key...)
	binary.LittleEndian.PutUint64(t.slots[slotBytes*j:], uint64(h)<<32|uint64(pos+1))
	t.n++
	return int32(t.n - 1), nil
}

var errTooMany = errors.New("too many")

// chunk returns an empty arena chunk for at least need bytes: a spare one
// if one is big enough, else a new one twice the size of the last.
func (t *keyTable) chunk(need int) []byte {
	for i := len(t.spare) - 1; i >= 0; i-- {
		if c := t.spare[i]; cap(c) >= need {
			t.spare = append(t.spare[:i], t.spare[i+1:]...)
			return c
		}
	}
	size := firstChunk
	if n := len(t.arena); n > 0 {
		size = min(2*cap(t.arena[n-1]), arenaChunk)
	}
	return make([]byte, 0, max(size, need))
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
	for i := 0; i < len(key); nlocs++ {
		id := uint64(key[i])
		switch {
		case id < 0x80:
			i++
		case i+1 < len(key) && key[i+1]-1 < 0x7f: // a minimal two-byte varint
			id = id&0x7f | uint64(key[i+1])<<7
			i += 2
		case i+2 < len(key) && key[i+1] >= 0x80 && key[i+2]-1 < 0x7f: // three bytes
			id = id&0x7f | uint64(key[i+1]&0x7f)<<7 | uint64(key[i+2])<<14
			i += 3
		default:
			var m int
			if id, m = uvarintLong(key[i:]); m <= 0 {
				return 0, fmt.Errorf("sample %d: location_id: %w", si, errTruncated)
			}
			canonical = canonical && key[i+m-1] != 0
			i += m
		}
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
	if len(l.chunkLocs) < len(t.arena) {
		l.chunkLocs = append(l.chunkLocs, 0)
		l.chunkStacks = append(l.chunkStacks, 0)
	}
	l.chunkLocs[len(t.arena)-1] += nlocs
	l.chunkStacks[len(t.arena)-1]++
	return idx, nil
}

// buildStacks lays the interned stacks out as p.Stacks, mapping ids to
// location indices, once every stack is known. gzip and the other stages
// are done by then, so it decodes the two halves of the arena on two
// goroutines.
func (l *linker) buildStacks() {
	t := &l.stacks
	st := &l.p.Stacks
	st.Off = make([]int32, t.n+1)
	st.Locs = make([]int32, l.nlocs)
	half, s, o := 0, 0, 0
	for half < len(t.arena) && 2*o < l.nlocs {
		s += l.chunkStacks[half]
		o += l.chunkLocs[half]
		half++
	}
	var wg sync.WaitGroup
	var crash any
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer func() { crash = recover() }() // raised again below, on ours
		l.layOut(t.arena[half:], s, o)
	}()
	l.layOut(t.arena[:half], 0, 0)
	wg.Wait()
	if crash != nil {
		panic(crash)
	}
	l.stacks = keyTable{}
}

// layOut decodes the stacks in arena chunks into p.Stacks, the first one
// being stack s, at Locs[o].
func (l *linker) layOut(chunks [][]byte, s, o int) {
	st := &l.p.Stacks
	locs, off := st.Locs, st.Off
	small := l.locIDs.small
	for _, c := range chunks {
		for i := 0; i < len(c); {
			n, m := uvarint(c[i+4:])
			i += 4 + m
			end := i + int(n)
			for i < end {
				// The keys are canonical varints: ids of up to three
				// bytes (below 2^21) are read here, longer ones called for.
				id := uint64(c[i])
				switch {
				case id < 0x80:
					i++
				case c[i+1] < 0x80:
					id = id&0x7f | uint64(c[i+1])<<7
					i += 2
				case c[i+2] < 0x80:
					id = id&0x7f | uint64(c[i+1]&0x7f)<<7 | uint64(c[i+2])<<14
					i += 3
				default:
					id, m = uvarintLong(c[i:end])
					i += m
				}
				if id < uint64(len(small)) {
					locs[o] = small[id] - 1
				} else {
					locs[o], _ = l.locIDs.get(id)
				}
				o++
			}
			s++
			off[s] = int32(o)
		}
	}
}
