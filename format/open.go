package format

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/pprof-tui/pprof-tui/format/symbolize"
)

// Options control reading a profile.
type Options struct {
	// MaxBytes caps the decompressed size; 0 means DefaultMaxBytes.
	MaxBytes int64
	// Budget is charged for the memory the decoded profile takes (see
	// Budget); nil means a budget of its own for each source, of
	// BudgetPerMaxByte times MaxBytes.
	Budget *Budget
	// Progress, if set, is called now and then with the number of (possibly
	// compressed) input bytes consumed so far.
	Progress func(read int64)
	// Seconds and Timeout (in seconds) apply to URL sources (see Fetch).
	Seconds int
	Timeout int
	// Status, if set, receives one-line progress messages (fetching) and
	// symbolization's warnings (binaries not found, build-ID mismatches,
	// stripped binaries), each once per Load.
	Status func(msg string)

	// Symbolize is pprof's -symbolize option for Load: "" (symbolize
	// the mappings that lack functions from their binaries, then
	// demangle and simplify C++ names), "none", "local", "fastlocal"
	// (names only), "force" (also re-symbolize mappings that have
	// functions), "demangle=none|full|templates|default", joined by ':'.
	Symbolize string
	// NoInlines symbolizes each address to one frame, the function that
	// holds the code, at the line the line table gives for the address,
	// instead of the chain of inlined calls. That is what go tool pprof
	// reports (its symbolizer has no inline frames), so -noinlines
	// reports equal its reports at every granularity.
	NoInlines bool
	// BinaryPath is pprof's $PPROF_BINARY_PATH: a list of directories
	// (filepath.ListSeparator) searched for the binaries of mappings.
	// "" means pprof's default, $HOME/pprof/binaries.
	BinaryPath string
	// Binaries keeps opened binaries from one Load to the next; nil
	// means a cache for this Load only.
	Binaries *symbolize.Cache
	// NoPrograms refuses inputs that only another program can read
	// (perf.data, which needs `perf script`): a server reading files a
	// stranger wrote must not run a program on their behalf.
	NoPrograms bool
}

func (o *Options) maxBytes() int64 {
	if o.MaxBytes > 0 {
		return o.MaxBytes
	}
	return DefaultMaxBytes
}

func (o *Options) budget() *Budget {
	if o.Budget != nil {
		return o.Budget
	}
	limit := int64(math.MaxInt64)
	if m := o.maxBytes(); m <= math.MaxInt64/BudgetPerMaxByte {
		limit = m * BudgetPerMaxByte
	}
	return NewBudget(limit)
}

// Formats lists the input formats Parse recognises, for error messages.
const Formats = "gzip, profile.proto, legacy gperftools CPU, pprof legacy text (heap, contention, thread, goroutine), perf.data and perf script, V8 .cpuprofile, folded stacks"

// ErrUnknownFormat is returned (wrapped) when no decoder recognises the input.
var ErrUnknownFormat = errors.New("unrecognized profile format")

// memoryFormats are decoded from one in-memory copy of the input; they are
// small in practice. profile.proto, the one format that gets big, streams.
// Sniff names them by label (see Sniff).
var memoryFormats = []struct {
	name  string // prefixes its parse errors ("" when they name it already)
	label string // what Sniff calls it
	sniff func(head []byte) bool
	parse func(data []byte, m *meter) (*Profile, error)
}{
	{"", "gperftools CPU", isLegacyCPU, parseLegacyCPU},
	{"legacy text profile", "legacy text", isLegacyText, parseLegacyText},
	{"", "perf.data", isPerfData, nil}, // parsePerfData, which runs perf
	{"perf script", "perf script", isPerfScript, parsePerfScript},
	{"V8 CPU profile", "V8 .cpuprofile", isCPUProfile, parseCPUProfile},
	{"folded stacks", "folded stacks", isFolded, parseFolded},
}

// Parse reads one profile in any supported format, gzipped or not.
// What it decodes is charged to opt's budget; a failed load releases its
// charges, a successful one leaves charged what the profile holds.
func Parse(r io.Reader, opt Options) (*Profile, error) {
	m := newMeter(opt.budget())
	p, err := parse(r, opt, m)
	if err != nil {
		m.release(m.charged)
		return nil, err
	}
	return p, nil
}

func parse(r io.Reader, opt Options, m *meter) (*Profile, error) {
	sizeHint := decompressedSize(r)
	if pgz, ok := parallelGzipSource(r, opt.Progress); ok {
		// The pipe's goroutine closes pgz when it is done with it.
		pipe := newPipeReader(pgz, opt.maxBytes())
		defer pipe.Close()
		return parseStream(newByteStream(pipe), opt, m, sizeHint)
	}
	if opt.Progress != nil {
		r = &progressReader{r: r, fn: opt.Progress}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	magic, _ := br.Peek(2)
	var src io.Reader
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := newGzipErrReader(br)
		if err != nil {
			return nil, err
		}
		pipe := newPipeReader(gz, opt.maxBytes())
		defer pipe.Close()
		src = pipe
	} else {
		src = &limitReader{r: br, max: opt.maxBytes()}
	}
	return parseStream(newByteStream(src), opt, m, sizeHint)
}

// parseStream decodes the (decompressed) input.
func parseStream(s *byteStream, opt Options, m *meter, sizeHint int64) (*Profile, error) {
	head := s.peek(4096)
	if len(head) == 0 {
		if s.err != nil && s.err != io.EOF {
			return nil, s.err
		}
		return nil, fmt.Errorf("empty profile")
	}
	for _, f := range memoryFormats {
		if !f.sniff(head) {
			continue
		}
		if f.parse == nil && opt.NoPrograms {
			return nil, errNoPerf
		}
		data, err := s.readAll(m, sizeHint)
		if err != nil {
			return nil, err
		}
		m.bound(int64(len(data)))
		var p *Profile
		if f.parse == nil {
			p, err = parsePerfData(data, opt.maxBytes(), m)
		} else {
			p, err = f.parse(data, m)
		}
		m.release(int64(len(data))) // the copy is garbage now
		if err != nil && f.name != "" {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	if !looksLikeProto(head) || looksLikeText(head) {
		return nil, fmt.Errorf("%w: tried %s (input starts with %q)", ErrUnknownFormat, Formats, firstBytes(head))
	}
	p, err := decodeProto(s, sizeHint, m)
	if err != nil {
		return nil, fmt.Errorf("profile.proto: %w", err)
	}
	return p, nil
}

// readerAtSize returns r as an io.ReaderAt and its size, for regular
// files and in-memory readers.
func readerAtSize(r io.Reader) (io.ReaderAt, int64, bool) {
	ra, ok := r.(io.ReaderAt)
	if !ok {
		return nil, 0, false
	}
	switch f := r.(type) {
	case interface{ Stat() (os.FileInfo, error) }:
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return nil, 0, false
		}
		return ra, st.Size(), true
	case interface{ Size() int64 }:
		return ra, f.Size(), true
	}
	return nil, 0, false
}

// decompressedSize guesses the decompressed size of a file or an
// in-memory reader (bytes.Reader, io.SectionReader): its size, or for gzip
// the trailer's ISIZE (the size mod 2³²). It returns 0 for other readers
// or when the guess is implausible. Only used to size buffers.
func decompressedSize(r io.Reader) int64 {
	ra, size, ok := readerAtSize(r)
	if !ok || size < 20 {
		return 0
	}
	var b [4]byte
	if _, err := ra.ReadAt(b[:2], 0); err != nil || b[0] != 0x1f || b[1] != 0x8b {
		return size
	}
	if _, err := ra.ReadAt(b[:], size-4); err != nil {
		return 0
	}
	isize := int64(b[0]) | int64(b[1])<<8 | int64(b[2])<<16 | int64(b[3])<<24
	for isize < size && isize < 1<<40 {
		isize += 1 << 32 // the size wrapped: gzip stores it mod 2^32
	}
	if isize/maxDeflateRatio > size {
		return 0 // more than deflate can expand to: the trailer lies
	}
	return isize
}

// maxDeflateRatio is the most deflate can expand its input by: a 258-byte
// match in about two bits.
const maxDeflateRatio = 1032

// looksLikeProto checks that the input starts with a plausible
// profile.proto field: number 1..14 (or beyond, as unknown fields are
// legal) with a wire type other than the deprecated groups.
func looksLikeProto(head []byte) bool {
	c := head[0]
	num, typ := c>>3, c&7
	return num >= 1 && (typ == 0 || typ == 1 || typ == 2 || typ == 5)
}

// looksLikeText reports whether the input starts with a line or more of
// printable text, which a profile.proto never does (its field lengths and
// varints are binary) but a mistaken source file or log does.
func looksLikeText(head []byte) bool {
	n := min(len(head), 256)
	switch {
	case n < 16:
		// A whole input this short (head is the input's first 4 KB)
		// is text when it is a line or has words: a profile.proto of
		// a few printable bytes sets a field or two and holds no
		// sample.
		if !utf8.Valid(head) || !bytes.ContainsAny(head, " \n") {
			return false
		}
	case !utf8.Valid(head[:n-utf8.UTFMax]):
		return false
	}
	for _, c := range head[:n] {
		if c < 0x20 && c != '\n' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

func firstBytes(b []byte) string {
	if len(b) > 16 {
		b = b[:16]
	}
	return string(b)
}

type progressReader struct {
	r    io.Reader
	n    int64
	last int64
	fn   func(int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if p.n-p.last >= 1<<20 || err != nil {
		p.last = p.n
		p.fn(p.n)
	}
	return n, err
}

// Open reads a profile from a source: a file path, "-" for stdin, or an
// http(s) URL of a net/http/pprof endpoint.
func Open(ctx context.Context, source string, opt Options) (*Profile, error) {
	switch {
	case source == "-":
		p, err := Parse(os.Stdin, opt)
		if err != nil {
			return nil, fmt.Errorf("stdin: %w", err)
		}
		return p, nil
	case strings.HasPrefix(source, "http://") || strings.HasPrefix(source, "https://"):
		return Fetch(ctx, source, opt)
	}
	f, err := os.Open(source)
	if err != nil {
		return nil, err // already names the path
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory", source)
	}
	p, err := Parse(f, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return p, nil
}

// isFolded recognises Brendan Gregg's collapsed stacks: text lines of
// "frame;frame;frame count".
func isFolded(head []byte) bool {
	line, _, complete := bytes.Cut(head, []byte{'\n'})
	line = bytes.TrimRight(line, "\r")
	if len(line) == 0 || !isPrintableText(line) || !utf8.Valid(line) {
		return false
	}
	if !complete {
		// A first line longer than the sniffed head: text that ends in a
		// count cannot be told yet, so take printable text with a space.
		return bytes.IndexByte(line, ' ') > 0
	}
	_, _, _, ok := splitFoldedLine(string(line))
	return ok
}

func isPrintableText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' {
			return false
		}
	}
	return true
}
