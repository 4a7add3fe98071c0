package symbolize

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/pprof-tui/pprof-tui/internal/radix"
)

// Frame is one function at an address. Symbolize returns the frames of
// an address innermost first: an inlined function, then the function it
// was inlined into, and so on out to the function that holds the code.
type Frame struct {
	// Func is the name as the binary spells it: mangled for C++ (the
	// caller demangles), the full import path for Go. "" when unknown.
	Func string
	// File and Line are the source position of the address in Func,
	// or of the call to the next inner frame. "" and 0 when unknown.
	File string
	Line int64
	// StartLine is the line Func starts at, when the binary says (Go).
	StartLine int64
}

// Mode selects what Symbolize reports.
type Mode struct {
	// NoInlines gives one frame per address: the function that holds
	// the code (the outermost one), at the file and line the line table
	// gives for the address. It is what `go tool pprof` reports, whose
	// symbolizer has no inline frames.
	NoInlines bool
	// SymbolsOnly gives function names from the symbol table and nothing
	// else (pprof's -symbolize=fastlocal, its nm path).
	SymbolsOnly bool
}

// ErrNoSymbols is returned (wrapped) for a binary that has no symbol
// table, no DWARF and no Go pclntab: a stripped binary.
var ErrNoSymbols = errors.New("no symbols (stripped binary?)")

// maxSectionSize bounds what is read of one section, so that a corrupt
// header cannot make us allocate without limit.
const maxSectionSize = 1 << 30

// Binary is an opened ELF file. Its methods are safe for concurrent use.
type Binary struct {
	path    string
	closer  io.Closer
	mapped  []byte // the file mapped into memory, or nil
	ef      *elf.File
	buildID string
	loads   []elf.ProgHeader // PT_LOAD headers with file contents

	// inUse is held for reading by whoever reads the mapped file without
	// holding mu (Disassembler.Decode); Close takes it to unmap, so that
	// the pages are not taken away under a reader. Unmapped, they fault
	// (or, once the addresses are mapped again, read something else).
	inUse sync.RWMutex

	mu     sync.Mutex // guards everything below
	closed bool

	// debugFile is the separate debug file (/usr/lib/debug/.build-id/...)
	// used for symbols and DWARF when the binary itself has none.
	debugFile  *Binary
	debugTried bool

	syms    *symtab
	symsErr error
	symsSet bool

	dw    *dwarfIndex
	dwErr error
	dwSet bool

	gotab    *goTable
	goErr    error
	gotabSet bool

	memo map[Mode]*memo
}

// scratch is one goroutine's while it symbolizes: frames are cut from
// big blocks (one allocation for thousands of addresses), and strings
// read from the binary are kept by where they are, so that each is
// allocated once and the frames of one function share it.
type scratch struct {
	slab   []Frame
	frames []Frame // a frame list being built
	strs   map[uint64]string
	// The last two strings asked for: sorted addresses ask for the
	// same few again and again.
	last [2]struct {
		key uint64
		s   string
	}
}

func newScratch() *scratch { return &scratch{strs: map[uint64]string{}} }

// alloc returns an empty slice with room for n frames.
func (s *scratch) alloc(n int) []Frame {
	if n > cap(s.slab)-len(s.slab) {
		s.slab = make([]Frame, 0, max(n, 1024))
	}
	f := s.slab[len(s.slab) : len(s.slab) : len(s.slab)+n]
	s.slab = s.slab[:len(s.slab)+n]
	return f
}

// str returns the NUL-terminated string at the start of b, which key
// names.
func (s *scratch) str(key uint64, b []byte) string {
	key++ // 0 is the empty cache entry
	for _, l := range s.last {
		if l.key == key {
			return l.s
		}
	}
	v, ok := s.strs[key]
	if !ok {
		if i := bytes.IndexByte(b, 0); i >= 0 {
			b = b[:i]
		}
		v = string(b)
		s.strs[key] = v
	}
	s.last[1], s.last[0].key, s.last[0].s = s.last[0], key, v
	return v
}

// memo is what Symbolize found for one Mode: addresses, sorted, and
// their frames. (A sorted list merged once per call is cheaper than a
// map of tens of thousands of addresses.)
type memo struct {
	addrs  []uint64
	frames [][]Frame
}

func (m *memo) find(a uint64) ([]Frame, bool) {
	i, ok := slices.BinarySearch(m.addrs, a)
	if !ok {
		return nil, false
	}
	return m.frames[i], true
}

// add merges in sorted addresses that m does not have, and their frames.
func (m *memo) add(addrs []uint64, frames [][]Frame) {
	if len(m.addrs) == 0 {
		m.addrs, m.frames = addrs, frames
		return
	}
	n := len(m.addrs) + len(addrs)
	out := &memo{make([]uint64, 0, n), make([][]Frame, 0, n)}
	i, j := 0, 0
	for i < len(m.addrs) || j < len(addrs) {
		if j == len(addrs) || i < len(m.addrs) && m.addrs[i] < addrs[j] {
			out.addrs, out.frames = append(out.addrs, m.addrs[i]), append(out.frames, m.frames[i])
			i++
		} else {
			out.addrs, out.frames = append(out.addrs, addrs[j]), append(out.frames, frames[j])
			j++
		}
	}
	*m = *out
}

// Open opens the ELF file at path. It reads the headers only; where it
// can, it maps the file into memory rather than read what it needs. The
// path usually comes from a profile: anything but a regular file is
// refused before it is opened (opening a FIFO waits for a writer).
func Open(path string) (*Binary, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var r io.ReaderAt = f
	mapped := mapFile(f)
	if mapped != nil {
		r = bytes.NewReader(mapped)
	}
	b, err := newBinary(path, r, mapped)
	if err != nil {
		unmapFile(mapped)
		f.Close()
		return nil, err
	}
	b.closer = f
	return b, nil
}

// NewBinary reads an ELF file from r; name is used in messages.
func NewBinary(name string, r io.ReaderAt) (*Binary, error) { return newBinary(name, r, nil) }

func newBinary(name string, r io.ReaderAt, mapped []byte) (b *Binary, err error) {
	defer recoverError(&err, name)
	defer safely(debug.SetPanicOnFault(true))
	ef, err := elf.NewFile(r)
	if err != nil {
		return nil, fmt.Errorf("%s: not an ELF binary: %w", name, err)
	}
	b = &Binary{path: name, mapped: mapped, ef: ef, memo: map[Mode]*memo{}}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD && p.Filesz > 0 {
			b.loads = append(b.loads, p.ProgHeader)
		}
	}
	b.buildID = b.readBuildID()
	return b, nil
}

// safely is deferred by every goroutine that reads a binary's tables, as
//
//	defer safely(debug.SetPanicOnFault(true))
//
// A mapped file that is cut short while mapped (copied over in place)
// faults when the missing pages are read; with SetPanicOnFault the fault
// is a panic, which the recoverError or recover deferred before it
// turns into an error, instead of killing the program.
func safely(old bool) { debug.SetPanicOnFault(old) }

// recoverError turns a panic in the standard library's ELF, DWARF or
// pclntab readers (they are not hardened against every corrupt input)
// into an error, so that a bad binary never takes the program down.
func recoverError(err *error, name string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s: corrupt binary (%v)", name, r)
		if os.Getenv("PPROF_TUI_DEBUG") != "" {
			debug.PrintStack()
		}
	}
}

// Path returns the file name the binary was opened with.
func (b *Binary) Path() string { return b.path }

// BuildID returns the GNU build ID in hex, or "".
func (b *Binary) BuildID() string { return b.buildID }

// Close releases the file. The binary answers no more questions.
func (b *Binary) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	if b.debugFile != nil {
		b.debugFile.Close()
	}
	mapped := b.mapped
	b.mapped = nil
	b.mu.Unlock()
	// Not under mu: a reader holds inUse while it takes mu to see closed.
	b.inUse.Lock()
	unmapFile(mapped)
	b.inUse.Unlock()
	if b.closer != nil {
		return b.closer.Close()
	}
	return nil
}

// HasSymbols reports whether the binary (or its separate debug file) has
// a symbol table, DWARF or a Go pclntab. A binary without any is stripped;
// its dynamic symbols, if any, may still name some exported functions.
func (b *Binary) HasSymbols() (has bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	defer func() {
		if recover() != nil {
			has = false
		}
	}()
	defer safely(debug.SetPanicOnFault(true))
	return b.hasSymbols()
}

func (b *Binary) hasSymbols() bool {
	if b.ef.Section(".symtab") != nil || b.hasDWARF() || b.goSection() != nil {
		return true
	}
	if d := b.debugBinary(); d != nil {
		return d.ef.Section(".symtab") != nil || d.hasDWARF()
	}
	return false
}

func (b *Binary) hasDWARF() bool {
	return b.ef.Section(".debug_info") != nil || b.ef.Section(".zdebug_info") != nil
}

// ObjAddr converts addr, a runtime address inside a mapping of this file
// ([start, limit) mapped from file offset offset), to the virtual address
// the binary's symbols use. Position-independent executables and shared
// libraries are loaded at an address of the kernel's choosing; the
// mapping's start and offset give the difference.
func (b *Binary) ObjAddr(start, limit, offset, addr uint64) (uint64, error) {
	if start == 0 && offset == 0 && (limit == 0 || limit == ^uint64(0)) {
		// A made-up mapping covering everything: addresses are the
		// binary's own (a non-PIE executable).
		return addr, nil
	}
	ph, err := b.loadSegment(start, limit, offset, addr)
	if err != nil {
		return 0, err
	}
	switch b.ef.Type {
	case elf.ET_EXEC:
		if ph == nil {
			return addr, nil // fixed-address executable
		}
		if start >= 1<<63 {
			return 0, fmt.Errorf("%s: kernel mappings are not supported", b.path)
		}
		return addr - (start - offset + ph.Off - ph.Vaddr), nil
	case elf.ET_DYN:
		if ph == nil {
			return addr - (start - offset), nil
		}
		return addr - (start - offset + ph.Off - ph.Vaddr), nil
	case elf.ET_REL:
		if offset != 0 {
			return 0, fmt.Errorf("%s: relocatable object mapped at an offset", b.path)
		}
		return addr - start, nil
	}
	return 0, fmt.Errorf("%s: cannot map addresses of ELF type %v", b.path, b.ef.Type)
}

// loadSegment finds the PT_LOAD segment a mapping comes from: the one
// whose file range the mapping's file range overlaps, narrowed by the
// file offset of addr when the mapping spans several.
func (b *Binary) loadSegment(start, limit, offset, addr uint64) (*elf.ProgHeader, error) {
	if len(b.loads) == 0 {
		return nil, nil
	}
	if start >= limit || limit >= 1<<63 {
		return b.textSegment(), nil
	}
	const page = 4096
	mapEnd := offset + (limit - start)
	var found []*elf.ProgHeader
	for i := range b.loads {
		p := &b.loads[i]
		segEnd := p.Off + p.Memsz
		if offset >= segEnd || p.Off >= mapEnd {
			continue
		}
		// A mapping that starts before the segment's first page maps
		// another segment.
		aligned := uint64(0)
		if p.Off > p.Vaddr&(page-1) {
			aligned = p.Off - p.Vaddr&(page-1)
		}
		if offset < aligned {
			continue
		}
		// A mapping that covers only the tail page of the segment and
		// goes on past it belongs to the next segment.
		if offset > p.Off && segEnd < offset+page && mapEnd >= segEnd+page {
			continue
		}
		found = append(found, p)
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%s: no program segment matches the mapping (start %#x, limit %#x, offset %#x): is it the profiled binary?", b.path, start, limit, offset)
	case 1:
		return found[0], nil
	}
	fileOff := addr - start + offset
	var ph *elf.ProgHeader
	for _, p := range found {
		if fileOff >= p.Off && fileOff < p.Off+p.Memsz {
			if ph != nil {
				return nil, fmt.Errorf("%s: two program segments hold file offset %#x", b.path, fileOff)
			}
			ph = p
		}
	}
	if ph == nil {
		return nil, fmt.Errorf("%s: no program segment holds file offset %#x", b.path, fileOff)
	}
	return ph, nil
}

// textSegment is the executable PT_LOAD segment that holds .text.
func (b *Binary) textSegment() *elf.ProgHeader {
	text := b.ef.Section(".text")
	for i := range b.loads {
		p := &b.loads[i]
		if p.Flags&elf.PF_X == 0 {
			continue
		}
		if text == nil || text.Addr >= p.Vaddr && text.Addr < p.Vaddr+p.Memsz {
			return p
		}
	}
	return nil
}

// Symbolize returns the frames of each address (binary virtual addresses,
// see ObjAddr), innermost first; nil for an address it knows nothing of.
// The error reports a problem with the binary's tables; frames found
// before it are still returned.
func (b *Binary) Symbolize(addrs []uint64, mode Mode) (frames [][]Frame, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, fmt.Errorf("%s: closed", b.path)
	}
	frames = make([][]Frame, len(addrs))
	defer recoverError(&err, b.path)
	defer safely(debug.SetPanicOnFault(true))

	m := b.memo[mode]
	if m == nil {
		m = &memo{}
		b.memo[mode] = m
	}
	// The distinct addresses not seen before, sorted: the readers below
	// walk their tables in address order.
	var ask []int32 // indices of addrs not in m
	for i, a := range addrs {
		if f, ok := m.find(a); ok {
			frames[i] = f
			continue
		}
		ask = append(ask, int32(i))
	}
	if len(ask) == 0 {
		return frames, nil
	}
	sortByAddr(ask, addrs)
	todo := make([]uint64, 0, len(ask))
	at := make([]int32, len(ask)) // at[k]: the index in todo of addrs[ask[k]]
	for k, i := range ask {
		if len(todo) == 0 || todo[len(todo)-1] != addrs[i] {
			todo = append(todo, addrs[i])
		}
		at[k] = int32(len(todo) - 1)
	}
	found, err := b.symbolize(todo, mode)
	for k, i := range ask {
		frames[i] = found[at[k]]
	}
	m.add(todo, found)
	return frames, err
}

// sortByAddr sorts idx, indices of addrs, by address: a radix sort,
// several times faster than a comparison sort of tens of thousands of
// indirect keys.
func sortByAddr(idx []int32, addrs []uint64) {
	radix.Sort(idx, make([]int32, len(idx)), func(i int32) uint64 { return addrs[i] })
}

// symbolize does the work for sorted, distinct addresses: the Go pclntab
// for Go code, DWARF for the rest, the symbol table where neither knows
// the address (or for a name DWARF lacks).
func (b *Binary) symbolize(addrs []uint64, mode Mode) ([][]Frame, error) {
	out := make([][]Frame, len(addrs))
	if mode.SymbolsOnly {
		syms, symErr := b.symbols()
		for i, a := range addrs {
			if name, _ := syms.lookup(a); name != "" {
				out[i] = []Frame{{Func: name}}
			}
		}
		return out, symErr
	}
	var errs []error
	rest := make([]int, 0, len(addrs)) // indices DWARF should try
	gt, err := b.goTab()
	if err != nil {
		errs = append(errs, err)
	}
	if gt != nil {
		gt.framesAll(addrs, out, mode.NoInlines)
	}
	for i := range addrs {
		if out[i] == nil {
			rest = append(rest, i)
		}
	}
	if len(rest) > 0 {
		dw, err := b.dwarf()
		if err != nil {
			errs = append(errs, err)
		}
		if dw != nil {
			sub := make([]uint64, len(rest))
			for j, i := range rest {
				sub[j] = addrs[i]
			}
			found, err := dw.symbolize(sub, mode.NoInlines)
			if err != nil {
				errs = append(errs, err)
			}
			for j, i := range rest {
				out[i] = found[j]
			}
		}
	}
	var (
		syms   *symtab
		loaded bool
	)
	for _, i := range rest {
		f := out[i]
		if !loaded && (f == nil || f[len(f)-1].Func == "") {
			var err error
			if syms, err = b.symbols(); err != nil {
				errs = append(errs, err)
			}
			loaded = true
		}
		switch {
		case f == nil:
			if name, file := syms.lookup(addrs[i]); name != "" {
				out[i] = []Frame{{Func: name, File: file}}
			}
		case f[len(f)-1].Func == "":
			// DWARF had the line but not the function.
			f[len(f)-1].Func, _ = syms.lookup(addrs[i])
		}
	}
	return out, errors.Join(errs...)
}
