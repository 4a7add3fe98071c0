package format

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"runtime"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/pprof-tui/pprof-tui/format/internal/pinflate"
)

// parallelGzipMin is the smallest gzipped file inflated on several
// cores: two of pinflate's default chunks.
var parallelGzipMin int64 = 8 << 20

// parallelGzipProcs is the fewest cores (GOMAXPROCS) on which Parse
// inflates gzip on several. It is out of reach, so Parse does not: on
// two cores the profile decoder and its linker keep both busy, and
// parallel inflate made the first screen slower, with 60-250 MB more
// peak RSS (docs/performance.md); on more cores it is not measured yet.
// Tests lower it to reach the path.
var parallelGzipProcs = math.MaxInt

// inflateConfig sizes the parallel inflate (tests make its chunks tiny).
var inflateConfig = pinflate.DefaultConfig

// parallelGzipSource returns the gzip file r inflated on several cores
// when that applies: a file (or another io.ReaderAt that knows its size)
// read from its start, large enough, on a machine with cores to spare
// beside the profile decoder's two.
func parallelGzipSource(r io.Reader, progress func(int64)) (io.ReadCloser, bool) {
	if runtime.GOMAXPROCS(0) < parallelGzipProcs {
		return nil, false // before any I/O: the default path does none
	}
	ra, size, ok := readerAtSize(r)
	if !ok || size < parallelGzipMin {
		return nil, false
	}
	if s, ok := r.(io.Seeker); !ok {
		return nil, false
	} else if off, err := s.Seek(0, io.SeekCurrent); err != nil || off != 0 {
		return nil, false
	}
	return newParallelGzip(ra, size, inflateConfig(), progress)
}

// parallelGzip reads a gzip file's first member with pinflate, checking
// its CRC-32 and length, and the rest as gzipErrReader does. Whatever
// pinflate cannot decode, and any member or trailer that does not check
// out, is read again from the start by gzipErrReader, past the bytes
// already returned: so the bytes and the errors are gzipErrReader's.
type parallelGzip struct {
	ra       io.ReaderAt
	size     int64
	z        *pinflate.Reader
	crc      uint32
	n        int64     // bytes out of the first member
	rest     io.Reader // what follows the first member, or the fallback
	progress func(int64)
	reported int64
}

func newParallelGzip(ra io.ReaderAt, size int64, cfg pinflate.Config, progress func(int64)) (*parallelGzip, bool) {
	head := make([]byte, min(size, 64<<10))
	if _, err := ra.ReadAt(head, 0); err != nil {
		return nil, false
	}
	n := gzipHeaderLen(head)
	if n < 0 {
		return nil, false
	}
	return &parallelGzip{ra: ra, size: size, z: pinflate.NewReader(ra, int64(n), size, cfg), progress: progress}, true
}

// gzipHeaderLen returns the length of the gzip member header that
// starts head, as gzip.Reader reads it, or -1 if the header is not there
// whole or is one gzip.Reader refuses.
func gzipHeaderLen(head []byte) int {
	br := bytes.NewReader(head)
	if _, err := gzip.NewReader(br); err != nil {
		return -1
	}
	return len(head) - br.Len()
}

func (g *parallelGzip) Read(b []byte) (int, error) {
	if g.rest != nil {
		return g.rest.Read(b)
	}
	n, err := g.z.Read(b)
	g.crc = crc32.Update(g.crc, crc32.IEEETable, b[:n])
	g.n += int64(n)
	if g.progress != nil && (g.z.Offset()-g.reported >= 1<<20 || err != nil) {
		g.reported = g.z.Offset()
		g.progress(g.reported)
	}
	switch {
	case err == io.EOF:
		g.rest = g.afterMember()
	case err != nil:
		g.rest = g.fallback()
	}
	if n == 0 && g.rest != nil {
		return g.rest.Read(b)
	}
	return n, nil
}

// afterMember checks the first member's trailer and returns what reads
// the rest of the file.
func (g *parallelGzip) afterMember() io.Reader {
	end := g.z.End()
	var t [8]byte
	if _, err := g.ra.ReadAt(t[:], end); err != nil {
		return g.fallback() // truncated: its error is gzipErrReader's
	}
	crc := uint32(t[0]) | uint32(t[1])<<8 | uint32(t[2])<<16 | uint32(t[3])<<24
	isize := uint32(t[4]) | uint32(t[5])<<8 | uint32(t[6])<<16 | uint32(t[7])<<24
	if crc != g.crc || isize != uint32(g.n) {
		return g.fallback()
	}
	if end+8 == g.size {
		return eofReader{}
	}
	src := bufio.NewReaderSize(g.section(end+8), 64<<10)
	return &gzipErrReader{src: src} // the next member, or trailing garbage
}

// section is the input from off on, counted by progress.
func (g *parallelGzip) section(off int64) io.Reader {
	var r io.Reader = io.NewSectionReader(g.ra, off, g.size-off)
	if g.progress != nil {
		r = &progressReader{r: r, n: off, last: off, fn: g.progress}
	}
	return r
}

// fallback reads the file again from its start as parse does without
// pinflate, past the bytes already returned.
func (g *parallelGzip) fallback() io.Reader {
	r, err := newGzipErrReader(bufio.NewReaderSize(g.section(0), 64<<10))
	if err != nil {
		return errReader{err}
	}
	if _, err := io.CopyN(io.Discard, r, g.n); err != nil {
		return errReader{err}
	}
	return r
}

// Close stops the workers.
func (g *parallelGzip) Close() error {
	g.z.Close()
	return nil
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// gzipErrReader reads the members of a gzip stream, each checked against
// its CRC-32 and length, and names decompression errors. As gzip -t and
// go tool pprof do, it refuses bytes after the last member that do not
// start another one. A nil gz means it is between members.
type gzipErrReader struct {
	gz  *gzip.Reader
	src *bufio.Reader
}

// newGzipErrReader starts reading the gzip stream in src at its first
// member's header; a header gzip.Reader refuses is the error.
func newGzipErrReader(src *bufio.Reader) (*gzipErrReader, error) {
	gz, err := gzip.NewReader(src)
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	gz.Multistream(false)
	return &gzipErrReader{gz: gz, src: src}, nil
}

func (g *gzipErrReader) Read(b []byte) (int, error) {
	var n int
	var err error
	if g.gz == nil {
		err = g.nextMember()
	}
	if err == nil {
		n, err = g.gz.Read(b)
		if err == io.EOF {
			err = g.nextMember()
		}
	}
	if err != nil && err != io.EOF {
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			err = errors.New("gzip: unexpected end of compressed data (truncated file?)")
		case errors.Is(err, gzip.ErrChecksum):
			err = errors.New("gzip: the data does not match its CRC-32 or length (corrupt file?)")
		case !strings.HasPrefix(err.Error(), "gzip: "):
			err = fmt.Errorf("gzip: %w", err)
		}
	}
	return n, err
}

// nextMember starts the next member after one ended (concatenated gzip
// files make one stream), or returns io.EOF at the end of the input.
func (g *gzipErrReader) nextMember() error {
	magic, err := g.src.Peek(2)
	if len(magic) == 0 && err == io.EOF {
		return io.EOF
	}
	if len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
		return errors.New("gzip: trailing garbage after the compressed data")
	}
	if g.gz == nil {
		g.gz = new(gzip.Reader)
	}
	if err := g.gz.Reset(g.src); err != nil {
		return err
	}
	g.gz.Multistream(false)
	return nil
}
