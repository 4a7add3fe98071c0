package pinflate

import (
	"encoding/binary"
	"errors"
	"sync/atomic"
)

var (
	errCorrupt  = errors.New("pinflate: corrupt deflate data")
	errShort    = errors.New("pinflate: the input ends inside the stream")
	errTooBig   = errors.New("pinflate: a chunk expands past its limit")
	errCanceled = errors.New("pinflate: canceled")
	// errBytes tells a marker decoder that its window holds no marker
	// any more: the rest decodes to plain bytes.
	errBytes = errors.New("pinflate: window resolved")
)

// padBytes is how far past the end of its input the bit reader reads
// zeros before the input counts as short. A symbol decoded from the
// zeros is never kept: offset then lies past the input, which the
// decoders report as errShort.
const padBytes = 16

// windowSize is deflate's window: the farthest a match reaches back.
const windowSize = 32 << 10

// bitReader reads deflate's least-significant-bit-first bit stream
// from an in-memory input, 64 bits at a time.
type bitReader struct {
	in  []byte
	pos int    // the next byte of in to load into b (past len(in) in the padding)
	b   uint64 // the loaded bits, the next one lowest
	nb  uint   // how many bits of b are loaded
}

func newBitReader(in []byte, bit int64) bitReader {
	r := bitReader{in: in, pos: int(bit >> 3)}
	r.refill()
	r.b >>= uint(bit & 7)
	r.nb -= uint(bit & 7)
	return r
}

// offset is the bit offset in in of the next unread bit.
func (r *bitReader) offset() int64 { return int64(r.pos)*8 - int64(r.nb) }

// short reports whether the reader consumed bits past the end of in.
func (r *bitReader) short() bool { return r.offset() > int64(len(r.in))*8 }

// refill loads bytes until at least 56 bits are loaded.
func (r *bitReader) refill() {
	if r.pos+8 <= len(r.in) {
		r.b |= binary.LittleEndian.Uint64(r.in[r.pos:]) << r.nb
		r.pos += int(63-r.nb) >> 3
		r.nb |= 56
		return
	}
	for r.nb <= 56 {
		if r.pos < len(r.in) {
			r.b |= uint64(r.in[r.pos]) << r.nb
		}
		r.pos++
		r.nb += 8
	}
}

// bits consumes and returns the next n bits (n <= 56).
func (r *bitReader) bits(n uint) uint64 {
	if r.nb < n {
		r.refill()
	}
	v := r.b & (1<<n - 1)
	r.b >>= n
	r.nb -= n
	return v
}

// codeOrder is the order of the code length code's lengths in a
// dynamic block header (RFC 1951 3.2.7).
var codeOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

func clenEntry(sym int) uint32 { return uint32(sym) << valueShift }

// tables are a dynamic block's codes and the scratch to read them.
type tables struct {
	lit, dist, clen huffman
	lens            [286 + 30]uint8
}

// readDynamic reads a dynamic block's header (after its three header
// bits) into t, with the checks klauspost's decoder makes.
func (r *bitReader) readDynamic(t *tables) error {
	v := r.bits(14)
	nlit := int(v&31) + 257
	ndist := int(v>>5&31) + 1
	nclen := int(v>>10) + 4
	if nlit > 286 || ndist > 30 {
		return errCorrupt
	}
	var cl [19]uint8
	for i := range nclen {
		cl[codeOrder[i]] = uint8(r.bits(3))
	}
	if !t.clen.build(cl[:], 7, clenEntry) {
		return errCorrupt
	}
	n := nlit + ndist
	for i := 0; i < n; {
		if r.nb < 16 {
			r.refill()
			if r.pos > len(r.in)+padBytes {
				return errShort
			}
		}
		e := t.clen.table[r.b&127]
		l := uint(e & entryLenMask)
		if l == 0 {
			return errCorrupt
		}
		r.b >>= l
		r.nb -= l
		sym := uint8(e >> valueShift)
		if sym < 16 {
			t.lens[i] = sym
			i++
			continue
		}
		var rep int
		var val uint8
		switch sym {
		case 16:
			if i == 0 {
				return errCorrupt
			}
			val, rep = t.lens[i-1], 3+int(r.bits(2))
		case 17:
			rep = 3 + int(r.bits(3))
		default:
			rep = 11 + int(r.bits(7))
		}
		if i+rep > n {
			return errCorrupt
		}
		for range rep {
			t.lens[i] = val
			i++
		}
	}
	if !t.lit.build(t.lens[:nlit], litPrimaryBits, litEntry) || !t.dist.build(t.lens[nlit:n], distPrimaryBits, distEntry) {
		return errCorrupt
	}
	return nil
}

// symbol is an output symbol: a byte, or for a decoder that starts
// without its window, also a marker (windowMarker+i names byte i of the
// unknown 32 KiB before the start).
type symbol interface{ ~byte | ~uint16 }

const windowMarker = 0x8000

// decoder decodes deflate blocks into out, which starts with the
// window (the 32 KiB before the first block, or what there is of it, or
// markers for it).
type decoder[T symbol] struct {
	bitReader
	out   []T
	limit int  // the most len(out) may grow to, roughly (errTooBig)
	final bool // the last block read was the stream's final one
	// markers: out holds markers; run stops with errBytes at a block
	// boundary once its last 32 KiB holds none.
	markers bool
	t       tables
}

// run decodes blocks until the final block ends or the next block
// starts at or after the bit offset stopAt (never if stopAt < 0).
func (d *decoder[T]) run(stopAt int64, cancel *atomic.Bool) error {
	for !d.final {
		if stopAt >= 0 && d.offset() >= stopAt {
			break
		}
		if cancel != nil && cancel.Load() {
			return errCanceled
		}
		if d.markers && len(d.out) >= 2*windowSize && !anyMarker(d.out[len(d.out)-windowSize:]) {
			return errBytes
		}
		if err := d.block(); err != nil {
			if d.short() || err == errShort {
				return errShort
			}
			return err
		}
	}
	if d.short() {
		return errShort
	}
	return nil
}

func anyMarker[T symbol](w []T) bool {
	var acc T
	for _, v := range w {
		acc |= v
	}
	return acc > 0xff
}

// block decodes one block.
func (d *decoder[T]) block() error {
	h := d.bits(3)
	d.final = h&1 == 1
	switch h >> 1 {
	case 0:
		return d.stored()
	case 1:
		lit, dist := fixedTables()
		return d.huffmanBlock(lit, dist)
	case 2:
		if err := d.readDynamic(&d.t); err != nil {
			return err
		}
		return d.huffmanBlock(&d.t.lit, &d.t.dist)
	}
	return errCorrupt
}

// stored copies a stored block.
func (d *decoder[T]) stored() error {
	d.bits(d.nb & 7) // to the byte boundary
	v := d.bits(32)
	n := int(v & 0xffff)
	if uint16(v>>16) != ^uint16(n) {
		return errCorrupt
	}
	for ; n > 0 && d.nb > 0; n-- {
		d.out = append(d.out, T(d.bits(8)))
	}
	if n == 0 {
		return nil
	}
	d.b = 0 // the bits loaded ahead are from before pos moves
	if n > len(d.in)-d.pos {
		return errShort
	}
	for _, c := range d.in[d.pos : d.pos+n] {
		d.out = append(d.out, T(c))
	}
	d.pos += n
	if len(d.out) > d.limit {
		return errTooBig
	}
	return nil
}

// huffmanBlock decodes the symbols of a fixed or dynamic block up to
// its end-of-block code. It keeps the reader's state in locals, which
// the compiler keeps in registers.
func (d *decoder[T]) huffmanBlock(lh, dh *huffman) error {
	in, pos, b, nb := d.in, d.pos, d.b, d.nb
	out, limit := d.out, d.limit
	lt, lprim := lh.table, lh.primary
	dt, dprim := dh.table, dh.primary
	lmask, dmask := uint64(1)<<lprim-1, uint64(1)<<dprim-1
	var err error
loop:
	for {
		// The longest symbol, a length and a distance with their extra
		// bits, takes 15+5+15+13 = 48 bits.
		if nb < 48 {
			if pos+8 <= len(in) {
				b |= binary.LittleEndian.Uint64(in[pos:]) << nb
				pos += int(63-nb) >> 3
				nb |= 56
			} else {
				for nb <= 56 {
					if pos < len(in) {
						b |= uint64(in[pos]) << nb
					}
					pos++
					nb += 8
				}
				if pos > len(in)+padBytes {
					err = errShort
					break loop
				}
			}
		}
		e := lt[b&lmask]
		if e&entryLink != 0 {
			e = lt[e>>valueShift+uint32(b>>lprim)&(1<<(e&entryLenMask)-1)]
		}
		n := uint(e & entryLenMask)
		if n == 0 {
			err = errCorrupt
			break
		}
		b >>= n
		nb -= n
		switch e >> kindShift & 3 {
		case kindLit:
			out = append(out, T(e>>valueShift))
			continue
		case kindEOB:
			break loop
		case kindBad:
			err = errCorrupt
			break loop
		}
		x := uint(e >> extraShift & 15)
		length := int(e>>valueShift) + int(b&(1<<x-1))
		b >>= x
		nb -= x

		e = dt[b&dmask]
		if e&entryLink != 0 {
			e = dt[e>>valueShift+uint32(b>>dprim)&(1<<(e&entryLenMask)-1)]
		}
		n = uint(e & entryLenMask)
		if n == 0 || e>>kindShift&3 == kindBad {
			err = errCorrupt
			break
		}
		b >>= n
		nb -= n
		x = uint(e >> extraShift & 15)
		dist := int(e>>valueShift) + int(b&(1<<x-1))
		b >>= x
		nb -= x
		if dist > len(out) {
			err = errCorrupt
			break
		}
		if len(out) > limit {
			err = errTooBig
			break
		}
		start := len(out) - dist
		if dist >= length {
			out = append(out, out[start:start+length]...)
			continue
		}
		// An overlapping match repeats its first dist bytes: copying
		// from start onwards doubles what is copied each round.
		for length > 0 {
			k := min(length, len(out)-start)
			out = append(out, out[start:start+k]...)
			length -= k
		}
	}
	d.pos, d.b, d.nb, d.out = pos, b, nb, out
	return err
}
