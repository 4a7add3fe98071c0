package format

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"slices"
	"sync/atomic"
)

// DefaultMaxBytes caps the decompressed size of one profile (4 GiB), so a
// zip bomb ends in an error instead of an out-of-memory kill.
const DefaultMaxBytes = 4 << 30

// ErrTooLarge is returned (wrapped) when the decompressed input exceeds
// Options.MaxBytes.
var ErrTooLarge = errors.New("decompressed profile exceeds the size limit")

// chunkSize is the unit handed from the decompressing goroutine to the
// decoder. Large enough to amortise channel hand-offs, small enough that
// two cores overlap well.
const chunkSize = 64 << 10

// pipeChunks is how many chunks may wait for the decoder: half a
// megabyte, a couple of milliseconds of gzip's output, so that neither
// side stalls the other when the scheduler runs one of them late.
const pipeChunks = 8

type chunk struct {
	b   []byte
	err error
}

// pipeReader decompresses src on its own goroutine and hands the bytes to
// the reader in chunks, so decompression and decoding use both cores and
// neither side ever holds the whole decompressed stream.
type pipeReader struct {
	ch   chan chunk
	free chan []byte
	done chan struct{}
	// idle, if set, is called by either side when it would wait for the
	// other; it returns whether it found other work to do (see linker).
	idle atomic.Pointer[func() bool]
	buf  []byte // the chunk being read, to recycle once read
	cur  []byte // its unread bytes
	err  error
}

func newPipeReader(src io.Reader, maxBytes int64) *pipeReader {
	p := &pipeReader{
		ch:   make(chan chunk, pipeChunks),
		free: make(chan []byte, pipeChunks+2),
		done: make(chan struct{}),
	}
	go p.run(src, maxBytes)
	return p
}

func (p *pipeReader) run(src io.Reader, maxBytes int64) {
	defer close(p.ch)
	if c, ok := src.(io.Closer); ok {
		defer c.Close()
	}
	defer func() {
		if r := recover(); r != nil {
			p.idle.Store(nil) // no more help from here
			p.send(chunk{nil, &internalError{r, debug.Stack()}})
		}
	}()
	var total int64
	for {
		var buf []byte
		select {
		case buf = <-p.free:
		default:
			buf = make([]byte, chunkSize)
		}
		n, err := io.ReadFull(src, buf)
		total += int64(n)
		if total > maxBytes {
			err = fmt.Errorf("%w (%d bytes; raise -max_bytes to read it)", ErrTooLarge, maxBytes)
			n = 0
		} else if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		if !p.send(chunk{buf[:n], err}) {
			return
		}
		if err != nil {
			return
		}
	}
}

// send hands c to the reader, doing idle work while the reader is
// behind; it returns false if the reader is gone.
func (p *pipeReader) send(c chunk) bool {
	for {
		select {
		case p.ch <- c:
			return true
		case <-p.done:
			return false
		default:
		}
		if f := p.idle.Load(); f != nil && (*f)() {
			continue
		}
		select {
		case p.ch <- c:
			return true
		case <-p.done:
			return false
		}
	}
}

// receive returns the next chunk, doing idle work while gzip is behind.
func (p *pipeReader) receive() (chunk, bool) {
	for {
		select {
		case c, ok := <-p.ch:
			return c, ok
		default:
		}
		if f := p.idle.Load(); f != nil && (*f)() {
			continue
		}
		c, ok := <-p.ch
		return c, ok
	}
}

func (p *pipeReader) Read(b []byte) (int, error) {
	for len(p.cur) == 0 {
		if p.buf != nil {
			select {
			case p.free <- p.buf[:cap(p.buf)]:
			default:
			}
			p.buf = nil
		}
		if p.err != nil {
			return 0, p.err
		}
		c, ok := p.receive()
		if !ok {
			p.err = io.EOF
			continue
		}
		p.buf, p.cur, p.err = c.b, c.b, c.err
	}
	n := copy(b, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}

// Close stops the decompressing goroutine.
func (p *pipeReader) Close() {
	select {
	case <-p.done:
	default:
		close(p.done)
	}
	// Drain so the goroutine is not left blocked on a send.
	go func() {
		for range p.ch {
		}
	}()
}

// limitReader returns ErrTooLarge once more than n bytes were read.
type limitReader struct {
	r   io.Reader
	n   int64
	max int64
}

func (l *limitReader) Read(b []byte) (int, error) {
	n, err := l.r.Read(b)
	l.n += int64(n)
	if l.n > l.max {
		return 0, fmt.Errorf("%w (%d bytes; raise -max_bytes to read it)", ErrTooLarge, l.max)
	}
	return n, err
}

// byteStream gives the decoder contiguous windows of the input without
// ever holding all of it: next(n) returns the next n bytes, copying only
// when a window straddles two reads.
type byteStream struct {
	src      io.Reader
	buf      []byte
	pos, end int
	off      int64 // stream offset of buf[0]
	err      error // sticky error from src (io.EOF at the end)
}

func newByteStream(src io.Reader) *byteStream {
	return &byteStream{src: src, buf: make([]byte, 64<<10)}
}

// offset is the stream position of the next unread byte.
func (s *byteStream) offset() int64 { return s.off + int64(s.pos) }

// fill makes at least n bytes available unless the stream ends first; it
// returns how many are available.
func (s *byteStream) fill(n int) int {
	for s.end-s.pos < n && s.err == nil {
		if s.pos > 0 {
			copy(s.buf, s.buf[s.pos:s.end])
			s.off += int64(s.pos)
			s.end -= s.pos
			s.pos = 0
		}
		if s.end == len(s.buf) {
			// A message longer than the window: grow by doubling. Growth
			// is bounded by the bytes actually present, so a hostile
			// length ends at EOF, not in a huge allocation.
			nb := make([]byte, 2*len(s.buf))
			copy(nb, s.buf[:s.end])
			s.buf = nb
		}
		m, err := s.src.Read(s.buf[s.end:])
		s.end += m
		if err != nil {
			s.err = err
		}
	}
	return s.end - s.pos
}

// atEOF reports whether the stream is exhausted.
func (s *byteStream) atEOF() bool { return s.fill(1) == 0 }

// readErr explains why fewer bytes than wanted were available.
func (s *byteStream) readErr(what string) error {
	if s.err != nil && s.err != io.EOF {
		return s.err
	}
	return fmt.Errorf("%s at byte %d: unexpected end of data (truncated file?)", what, s.offset())
}

// next returns the next n bytes; the slice is valid until the next call.
func (s *byteStream) next(n int, what string) ([]byte, error) {
	if s.fill(n) < n {
		return nil, s.readErr(what)
	}
	b := s.buf[s.pos : s.pos+n]
	s.pos += n
	return b, nil
}

// skip discards n bytes without buffering them all.
func (s *byteStream) skip(n int64, what string) error {
	for n > 0 {
		step := int(min(n, int64(len(s.buf))))
		if _, err := s.next(step, what); err != nil {
			return err
		}
		n -= int64(step)
	}
	return nil
}

// varint reads a base-128 varint.
func (s *byteStream) varint(what string) (uint64, error) {
	avail := s.fill(10)
	var x uint64
	for i := 0; i < avail && i < 10; i++ {
		c := s.buf[s.pos+i]
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			if i == 9 && c > 1 {
				break
			}
			s.pos += i + 1
			return x, nil
		}
	}
	if avail < 10 && (avail == 0 || s.buf[s.pos+avail-1] >= 0x80) {
		return 0, s.readErr(what)
	}
	return 0, fmt.Errorf("%s at byte %d: malformed varint", what, s.offset())
}

// peek returns up to n upcoming bytes without consuming them.
func (s *byteStream) peek(n int) []byte {
	m := s.fill(n)
	return s.buf[s.pos : s.pos+min(n, m)]
}

// readAll returns the rest of the stream (for formats parsed in memory),
// charging m for the copy as it grows. sizeHint, the input's size if
// known, sizes the copy at once.
func (s *byteStream) readAll(m *meter, sizeHint int64) ([]byte, error) {
	have := s.end - s.pos
	if err := m.charge(int64(have)); err != nil {
		return nil, err
	}
	charged := int64(have)
	size := have
	if s.err == nil && sizeHint > int64(have) && sizeHint <= math.MaxInt32 && m.charge(sizeHint-int64(have)) == nil {
		size, charged = int(sizeHint), sizeHint
	}
	rest := append(make([]byte, 0, size), s.buf[s.pos:s.end]...)
	s.pos = s.end
	if s.err != nil && s.err != io.EOF {
		return nil, s.err
	}
	for s.err == nil {
		if len(rest) < cap(rest) {
			n, err := s.src.Read(rest[len(rest):cap(rest)])
			rest = rest[:len(rest)+n]
			s.err = err
			continue
		}
		// Full: read a little first, so that input of the hinted size
		// ends here without growing the copy for nothing.
		var probe [512]byte
		n, err := s.src.Read(probe[:])
		s.err = err
		if n == 0 {
			continue
		}
		// Grown by doubling, as append would, but charged first.
		more := max(cap(rest), 64<<10)
		if err := m.charge(int64(more)); err != nil {
			return nil, err
		}
		charged += int64(more)
		rest = append(slices.Grow(rest, more), probe[:n]...)
	}
	if s.err != io.EOF {
		return nil, s.err
	}
	// What was charged beyond the bytes is given back.
	m.release(charged - int64(len(rest)))
	return rest, nil
}
