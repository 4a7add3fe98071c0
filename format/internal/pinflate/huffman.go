package pinflate

import (
	"math/bits"
	"sync"
)

// A table entry is one uint32:
//
//	bits 0-4   code length to consume (0: no code has these bits)
//	bit  5     link: the value is a subtable's offset, bits 0-4 its index width
//	bits 6-7   kind (kindLit, kindLen, kindEOB, kindBad)
//	bits 8-11  extra bits that follow the code (lengths and distances)
//	bits 16-31 value: the literal, the length or distance base, or the offset
const (
	entryLenMask = 0x1f
	entryLink    = 1 << 5
	kindShift    = 6
	extraShift   = 8
	valueShift   = 16

	kindLit = 0 // a literal byte, or any distance code
	kindLen = 1 // a match length
	kindEOB = 2 // the end of the block
	kindBad = 3 // a symbol deflate reserves (lengths 286-287, distances 30-31)
)

const (
	litPrimaryBits  = 10
	distPrimaryBits = 8
	maxCodeLen      = 15
)

// lengthBase and lengthExtra give the match length of symbols 257-285.
var lengthBase = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
var lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}

// distBase and distExtra give the distance of symbols 0-29.
var distBase = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
var distExtra = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}

// huffman is a two-level decoding table: the primary table is indexed
// by the next primary bits of input (deflate packs codes from the least
// significant bit, so by the bit-reversed code); longer codes continue
// in a subtable named by their primary entry.
type huffman struct {
	table   []uint32
	primary uint
}

// symbolEntry is the payload of a table entry for symbol sym of a
// literal/length code (lit) or of a distance code.
type symbolEntry func(sym int) uint32

func litEntry(sym int) uint32 {
	switch {
	case sym < 256:
		return uint32(sym)<<valueShift | kindLit<<kindShift
	case sym == 256:
		return kindEOB << kindShift
	case sym < 286:
		i := sym - 257
		return uint32(lengthBase[i])<<valueShift | uint32(lengthExtra[i])<<extraShift | kindLen<<kindShift
	}
	return kindBad << kindShift
}

func distEntry(sym int) uint32 {
	if sym < 30 {
		return uint32(distBase[sym])<<valueShift | uint32(distExtra[sym])<<extraShift | kindLit<<kindShift
	}
	return kindBad << kindShift
}

// build makes the table for the code lengths. It accepts exactly the
// codes klauspost's decoder accepts: complete codes, a single code of
// length one, and the empty code (which fails when used); it returns
// false for the others (over- or under-subscribed).
func (h *huffman) build(lengths []uint8, primary uint, entry symbolEntry) bool {
	var count [maxCodeLen + 1]int
	maxLen := 0
	for _, n := range lengths {
		if n != 0 {
			count[n]++
			maxLen = max(maxLen, int(n))
		}
	}
	h.primary = primary
	size := 1 << primary
	if cap(h.table) < size {
		h.table = make([]uint32, size, size*2)
	}
	h.table = h.table[:size]
	clear(h.table)
	if maxLen == 0 {
		return true // empty: every lookup finds no code
	}
	var next [maxCodeLen + 2]int
	code := 0
	for l := 1; l <= maxLen; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	if code+count[maxLen] != 1<<maxLen && !(maxLen == 1 && count[1] == 1) {
		return false
	}
	subBits := uint(0)
	if maxLen > int(primary) {
		subBits = uint(maxLen) - primary
	}
	for sym, n := range lengths {
		if n == 0 {
			continue
		}
		l := uint(n)
		c := next[l]
		next[l]++
		rev := int(bits.Reverse16(uint16(c)) >> (16 - l))
		e := entry(sym) | uint32(l)
		if l <= primary {
			for i := rev; i < size; i += 1 << l {
				h.table[i] = e
			}
			continue
		}
		p := rev & (size - 1)
		link := h.table[p]
		if link&entryLink == 0 {
			off := len(h.table)
			h.table = append(h.table, make([]uint32, 1<<subBits)...)
			link = uint32(off)<<valueShift | entryLink | uint32(subBits)
			h.table[p] = link
		}
		sub := h.table[link>>valueShift:][:1<<subBits]
		for i := rev >> primary; i < len(sub); i += 1 << (l - primary) {
			sub[i] = e
		}
	}
	return true
}

// fixedTables are the codes of fixed-Huffman blocks (RFC 1951 3.2.6).
var fixedTables = sync.OnceValues(func() (*huffman, *huffman) {
	var lengths [288]uint8
	for i := range lengths {
		switch {
		case i < 144:
			lengths[i] = 8
		case i < 256:
			lengths[i] = 9
		case i < 280:
			lengths[i] = 7
		default:
			lengths[i] = 8
		}
	}
	lit, dist := new(huffman), new(huffman)
	lit.build(lengths[:], litPrimaryBits, litEntry)
	var d [32]uint8
	for i := range d {
		d[i] = 5
	}
	dist.build(d[:], distPrimaryBits, distEntry)
	return lit, dist
})
