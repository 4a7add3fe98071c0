package pinflate

import (
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
)

// ErrFallback is returned by Reader.Read when the stream cannot be
// decoded here (corrupt, truncated, or a chunk expanding past its
// limit): the bytes returned before it are right, and the caller
// decodes the stream again with a sequential decoder to get the rest
// or its error.
var ErrFallback = errors.New("pinflate: decode sequentially")

// Config sizes the parallel decode.
type Config struct {
	// ChunkSize is how many compressed bytes one worker takes.
	ChunkSize int
	// Procs is how many chunks are decoded at once.
	Procs int
	// MaxChunkOut caps the output of one chunk; a chunk that expands
	// further makes Read return ErrFallback.
	MaxChunkOut int
}

// DefaultConfig suits profiles: 4 MiB chunks (5 to 40 MiB of output
// each; smaller ones spend more of their output as markers), as many
// workers as GOMAXPROCS, and a chunk expanding more than 16 times falls
// back (a run of zeros, or a bomb). At most Procs+1 chunks are in
// memory at once, each its input and at most MaxChunkOut bytes of
// output (twice that while they are markers).
func DefaultConfig() Config {
	return Config{ChunkSize: 4 << 20, Procs: runtime.GOMAXPROCS(0), MaxChunkOut: 64 << 20}
}

// Reader returns the output of the deflate stream that starts at byte
// start of an input of size bytes.
type Reader struct {
	ra          io.ReaderAt
	start, size int64
	cfg         Config

	jobs   []*job // launched, not yet used, in order
	next   int64  // the start of the next chunk to launch
	sem    chan struct{}
	cancel atomic.Bool
	wg     sync.WaitGroup

	pos     int64  // the verified bit offset: everything before it is out
	final   bool   // the final block is out
	window  []byte // the last 32 KiB of output (less at the start)
	pending []piece
	pools   pools
	err     error
	stats   Stats
}

// Stats counts how the chunks were decoded.
type Stats struct {
	Chunks  int // chunks whose worker's decode was used
	Decoded int // decodes from a verified offset, after a wrong or missing guess
	// Marked is how many output bytes were decoded as 16-bit symbols
	// (before a chunk's window held no marker), Out all output bytes.
	Marked, Out int64
}

// Stats says how the stream was decoded so far.
func (r *Reader) Stats() Stats { return r.stats }

// job is one chunk's speculative decode.
type job struct {
	first      bool  // the chunk that starts the stream: no search, no markers
	start, end int64 // the chunk's bytes; its decode starts at a block in them
	done       chan struct{}
	res        result
}

// result is a decode from startBit to endBit (absolute bit offsets):
// first what was decoded before its window was known, then bytes.
type result struct {
	ok       bool
	startBit int64
	endBit   int64
	final    bool
	prefix   []uint16
	bytes    []byte
	buf      []byte // bytes' buffer, to recycle
	// panicked: the worker panicked (a bug): the stream falls back to
	// the sequential reader rather than crash the program.
	panicked bool
}

// NewReader starts decoding the deflate stream at byte start of ra.
// Close it to stop its workers.
func NewReader(ra io.ReaderAt, start, size int64, cfg Config) *Reader {
	cfg.Procs = max(cfg.Procs, 1)
	r := &Reader{ra: ra, start: start, size: size, cfg: cfg, next: start, pos: start * 8,
		sem: make(chan struct{}, cfg.Procs)}
	r.pools = pools{bytes: make(pool[byte], cfg.Procs+4), syms: make(pool[uint16], cfg.Procs+2)}
	r.launch()
	return r
}

// End is the byte offset just past the stream, once Read returned io.EOF.
func (r *Reader) End() int64 { return (r.pos + 7) / 8 }

// Offset is how many input bytes are decoded and verified so far.
func (r *Reader) Offset() int64 { return r.pos / 8 }

// Close stops the workers and waits for them.
func (r *Reader) Close() {
	r.cancel.Store(true)
	r.wg.Wait()
}

// launch starts workers on the chunks ahead, one more than run at once
// so that a worker never waits for the reader to take a result.
func (r *Reader) launch() {
	for len(r.jobs) <= r.cfg.Procs && r.next < r.size {
		first := r.next == r.start
		size := int64(r.cfg.ChunkSize)
		if first {
			// The first chunk's output is the first the reader gets:
			// a small one lets it start while the next chunks decode.
			size = max(size/8, 1)
		}
		j := &job{first: first, start: r.next, end: min(r.next+size, r.size), done: make(chan struct{})}
		if r.size-j.end < int64(r.cfg.ChunkSize)/2 {
			j.end = r.size // no small chunk at the end
		}
		r.next = j.end
		if j.end*8 <= r.pos {
			continue // the verified decode is past it already
		}
		r.jobs = append(r.jobs, j)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			defer close(j.done)
			defer func() {
				if p := recover(); p != nil {
					j.res = result{panicked: true}
				}
			}()
			r.sem <- struct{}{}
			defer func() { <-r.sem }()
			j.res = r.work(j)
		}()
	}
}

func (r *Reader) Read(b []byte) (int, error) {
	for len(r.pending) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if r.final {
			r.err = io.EOF
			continue
		}
		if err := r.advance(); err != nil {
			r.err = err
		}
	}
	p := &r.pending[0]
	n := copy(b, p.data)
	p.data = p.data[n:]
	if len(p.data) == 0 {
		r.pools.bytes.put(p.buf)
		r.pending = r.pending[1:]
	}
	return n, nil
}

// advance extends the verified output by one chunk: the worker's
// result if it starts where the output ends, else a decode from there.
func (r *Reader) advance() error {
	for len(r.jobs) > 0 && r.jobs[0].end*8 <= r.pos {
		r.jobs = r.jobs[1:] // the verified decode ran past this chunk
	}
	r.launch()
	if len(r.jobs) == 0 {
		return ErrFallback // past the end without the final block
	}
	j := r.jobs[0]
	<-j.done
	res := j.res
	if res.panicked {
		return ErrFallback
	}
	if res.ok && res.startBit == r.pos {
		r.jobs = r.jobs[1:]
		r.stats.Chunks++
		r.stats.Marked += int64(len(res.prefix))
		if len(res.prefix) > 0 {
			out, err := resolve(r.pools.bytes.get(len(res.prefix)), res.prefix, r.window)
			r.pools.syms.put(res.prefix)
			if err != nil {
				return ErrFallback
			}
			r.emit(out, out)
		}
		r.emit(res.bytes, res.buf)
		r.pos, r.final = res.endBit, res.final
		r.launch()
		return nil
	}
	stopAt := j.end * 8
	switch {
	case res.ok && res.startBit > r.pos:
		// Decode up to the worker's start: its result may fit there,
		// so it stays as it is.
		stopAt = res.startBit
	case res.ok:
		// A start before the verified offset was a false one.
		r.pools.syms.put(res.prefix)
		r.pools.bytes.put(res.buf)
		j.res = result{}
	}
	if j.end == r.size {
		stopAt = -1
	}
	res, err := r.decode(r.pos, r.window, stopAt)
	if err != nil {
		return ErrFallback
	}
	r.stats.Decoded++
	r.emit(res.bytes, res.buf)
	r.pos, r.final = res.endBit, res.final
	return nil
}

// piece is output to return, and its buffer to recycle once returned.
type piece struct{ data, buf []byte }

// pools recycles the output buffers of chunks: allocating (and so
// zeroing) megabytes for each chunk costs about as much as decoding it.
type pools struct {
	bytes pool[byte]
	syms  pool[uint16]
}

// pool holds a few buffers; get returns one emptied (or a new one of
// capacity n), put keeps b if there is room.
type pool[T any] chan []T

func (p pool[T]) get(n int) []T {
	select {
	case b := <-p:
		return b[:0]
	default:
		return make([]T, 0, n)
	}
}

func (p pool[T]) put(b []T) {
	if cap(b) == 0 {
		return
	}
	select {
	case p <- b:
	default:
	}
}

// emit queues verified output and keeps the window; buf is its
// buffer, recycled once the output is read.
func (r *Reader) emit(out, buf []byte) {
	if len(out) == 0 {
		r.pools.bytes.put(buf)
		return
	}
	r.pending = append(r.pending, piece{out, buf})
	r.stats.Out += int64(len(out))
	if len(out) >= windowSize {
		r.window = append(r.window[:0], out[len(out)-windowSize:]...)
		return
	}
	r.window = append(r.window, out...)
	if extra := len(r.window) - windowSize; extra > 0 {
		r.window = r.window[:copy(r.window, r.window[extra:])]
	}
}

// resolve replaces the markers of prefix by the bytes of the window
// before it.
func resolve(out []byte, prefix []uint16, window []byte) ([]byte, error) {
	out = append(out[:0], make([]byte, len(prefix))...)
	missing := windowSize - len(window)
	for i, v := range prefix {
		if v < 0x100 {
			out[i] = byte(v)
			continue
		}
		k := int(v-windowMarker) - missing
		if k < 0 {
			return nil, errCorrupt // a match reaching before the stream
		}
		out[i] = window[k]
	}
	return out, nil
}

// input reads the bytes [from, to) of the stream's input.
func (r *Reader) input(from, to int64) ([]byte, error) {
	buf := make([]byte, to-from)
	n, err := r.ra.ReadAt(buf, from)
	if n == len(buf) {
		return buf, nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return nil, err
}

// slack is how far past a chunk's end its input is read at first: a
// block that straddles the end is decoded to its end.
func (r *Reader) slack() int64 { return int64(r.cfg.ChunkSize)/4 + 64<<10 }

// decode decodes from the verified bit offset pos, after window, to the
// first block at or after stopAt (or the final block's end).
func (r *Reader) decode(pos int64, window []byte, stopAt int64) (result, error) {
	from := pos / 8
	to := r.size
	if stopAt >= 0 {
		to = min(r.size, stopAt/8+r.slack())
	}
	for {
		in, err := r.input(from, to)
		if err != nil {
			return result{}, err
		}
		d := &decoder[byte]{bitReader: newBitReader(in, pos-from*8), limit: len(window) + r.cfg.MaxChunkOut}
		d.out = append(r.pools.bytes.get(len(window)+2*len(in)), window...)
		local := int64(-1)
		if stopAt >= 0 {
			local = stopAt - from*8
		}
		err = d.run(local, &r.cancel)
		if err == errShort && to < r.size {
			to = min(r.size, from+2*(to-from))
			continue
		}
		if err != nil {
			r.pools.bytes.put(d.out)
			return result{}, err
		}
		return result{ok: true, startBit: pos, endBit: from*8 + d.offset(), final: d.final, bytes: d.out[len(window):], buf: d.out}, nil
	}
}

// work decodes chunk j: from its start if it starts the stream, else
// from the first bit offset in it where a dynamic block decodes.
func (r *Reader) work(j *job) result {
	if j.first {
		res, _ := r.decode(j.start*8, nil, j.end*8)
		return res
	}
	to := min(r.size, j.end+r.slack())
	in, err := r.input(j.start, to)
	if err != nil {
		return result{}
	}
	var scratch tables
	span := (j.end - j.start) * 8
	for bit := int64(0); bit < span; bit++ {
		if r.cancel.Load() {
			return result{}
		}
		bit = nextCandidate(in, bit, span, &scratch)
		if bit >= span {
			break
		}
		for {
			res, err := r.decodeMarked(in, bit, span, j.start)
			if err == errShort && to < r.size {
				to = min(r.size, j.start+2*(to-j.start))
				if in, err = r.input(j.start, to); err != nil {
					return result{}
				}
				continue
			}
			if err == nil {
				return res
			}
			if err == errTooBig || err == errCanceled {
				return result{}
			}
			break // a false start: look further
		}
	}
	return result{}
}

// decodeMarked decodes from the bit offset bit of in, whose byte 0 is
// byte base of the input, without the window before it, to the first
// block at or after stopAt.
func (r *Reader) decodeMarked(in []byte, bit, stopAt, base int64) (result, error) {
	d := &decoder[uint16]{bitReader: newBitReader(in, bit), markers: true, limit: windowSize + r.cfg.MaxChunkOut}
	d.out = r.pools.syms.get(windowSize + 2*len(in))
	for i := range windowSize {
		d.out = append(d.out, uint16(windowMarker+i))
	}
	res := result{ok: true, startBit: base*8 + bit}
	err := d.run(stopAt, &r.cancel)
	res.prefix = d.out[windowSize:]
	if err == errBytes {
		// The window holds bytes only now: go on with bytes.
		db := &decoder[byte]{bitReader: d.bitReader, final: d.final, limit: windowSize + r.cfg.MaxChunkOut - len(res.prefix)}
		db.out = r.pools.bytes.get(windowSize + 2*max(0, len(in)-d.pos))
		for _, v := range d.out[len(d.out)-windowSize:] {
			db.out = append(db.out, byte(v))
		}
		err = db.run(stopAt, &r.cancel)
		res.bytes, res.buf = db.out[windowSize:], db.out
		d.bitReader, d.final = db.bitReader, db.final
	}
	if err != nil {
		r.pools.syms.put(d.out)
		r.pools.bytes.put(res.buf)
		return result{}, err
	}
	res.endBit, res.final = base*8+d.offset(), d.final
	return res, nil
}

// kraft4 is the Kraft sum (in 1/128ths) of four 3-bit code lengths.
var kraft4 = func() (t [1 << 12]uint16) {
	for i := range t {
		for k := range 4 {
			if l := i >> (3 * k) & 7; l != 0 {
				t[i] += 128 >> l
			}
		}
	}
	return t
}()

// nextCandidate returns the first bit offset from bit (before end) of
// in where a non-final dynamic block's header reads without error, or
// end. Most offsets fail on their first bits, tested 32 offsets at a
// time; most others on the code counts and the code length code, which
// a compressor always makes complete.
func nextCandidate(in []byte, bit, end int64, scratch *tables) int64 {
	for ; bit < end; bit += 32 {
		i := int(bit >> 3)
		if i+24 > len(in) {
			return end
		}
		w := binary.LittleEndian.Uint64(in[i:]) >> uint(bit&7)
		// Offsets whose three bits are BFINAL 0 and BTYPE 2.
		m := ^w & ^(w >> 1) & (w >> 2) & (1<<32 - 1)
		for ; m != 0; m &= m - 1 {
			b := bit + int64(bits.TrailingZeros64(m))
			if b >= end {
				return end
			}
			if maybeDynamic(in, b) {
				br := newBitReader(in, b+3)
				if br.readDynamic(scratch) == nil && !br.short() {
					return b
				}
			}
		}
	}
	return end
}

// maybeDynamic checks the counts and the code length code of a dynamic
// block header at bit (with 16 bytes of in after it).
func maybeDynamic(in []byte, bit int64) bool {
	i := int(bit >> 3)
	v := binary.LittleEndian.Uint64(in[i:]) >> uint(bit&7)
	if v>>3&31 > 29 || v>>8&31 > 29 { // HLIT, HDIST
		return false
	}
	nclen := int(v>>13&15) + 4
	// The code length code's lengths start at bit 17.
	shift := uint(bit&7 + 1)
	w := binary.LittleEndian.Uint64(in[i+2:])>>shift | uint64(in[i+10])<<(64-shift)
	w &= 1<<(3*nclen) - 1
	return kraft4[w&0xfff]+kraft4[w>>12&0xfff]+kraft4[w>>24&0xfff]+kraft4[w>>36&0xfff]+kraft4[w>>48&0x1ff] == 128
}
