package symbolize

import (
	"debug/elf"
	"debug/gosym"
	"encoding/binary"
	"fmt"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
)

// goTable reads a Go binary's pclntab, the table the Go runtime itself
// uses for tracebacks: it is in every Go binary, with or without DWARF.
// For Go 1.18 and later the table is read here, inline tree included, so
// that an address inside inlined code gives the same frames the runtime
// gives; older tables go through debug/gosym, one frame per address.
type goTable struct {
	order     binary.ByteOrder
	quantum   uint64
	v120      bool // Go 1.20 or later layout
	nfunc     int
	textStart uint64

	funcnametab, cutab, filetab, pctab, functab []byte

	// gofunc is the address funcdata offsets are relative to, and
	// gofuncData the bytes from there to the end of its section: the
	// inline trees live there. nil: no inline frames.
	gofunc     uint64
	gofuncData []byte

	old *gosym.Table // pre-1.18 tables
}

const (
	pcdataInlTreeIndex = 2
	funcdataInlTree    = 3
)

// goSection returns the pclntab section, or nil.
func (b *Binary) goSection() *elf.Section {
	if s := b.ef.Section(".gopclntab"); s != nil {
		return s
	}
	return b.ef.Section(".data.rel.ro.gopclntab") // PIE
}

// goTab loads the pclntab; nil without error for a binary that is not Go.
// Called with b.mu held.
func (b *Binary) goTab() (*goTable, error) {
	if b.gotabSet {
		return b.gotab, b.goErr
	}
	b.gotabSet = true
	sect := b.goSection()
	if sect == nil {
		return nil, nil
	}
	data, err := b.section(sect)
	if err != nil {
		b.goErr = fmt.Errorf("%s: Go pclntab: %w", b.path, err)
		return nil, b.goErr
	}
	var textStart, gofunc uint64
	if s := b.ef.Section(".text"); s != nil {
		textStart = s.Addr
	}
	syms := b.symbolValues("runtime.text", "go:func.*", "go.func.*")
	if v, ok := syms["runtime.text"]; ok {
		textStart = v
	}
	for _, name := range []string{"go.func.*", "go:func.*"} {
		if v, ok := syms[name]; ok {
			gofunc = v
		}
	}
	t, err := newGoTable(data, textStart)
	if err != nil {
		b.goErr = fmt.Errorf("%s: Go pclntab: %w", b.path, err)
		return nil, b.goErr
	}
	if t.old == nil && gofunc != 0 {
		for _, s := range b.ef.Sections {
			if s.Flags&elf.SHF_ALLOC != 0 && s.Type != elf.SHT_NOBITS && gofunc >= s.Addr && gofunc-s.Addr < s.Size {
				if d, err := b.section(s); err == nil && uint64(len(d)) == s.Size {
					t.gofunc, t.gofuncData = gofunc, d[gofunc-s.Addr:]
				}
				break
			}
		}
	}
	b.gotab = t
	return t, nil
}

func newGoTable(data []byte, textStart uint64) (*goTable, error) {
	if len(data) < 16 || data[4] != 0 || data[5] != 0 {
		return nil, fmt.Errorf("bad header")
	}
	t := &goTable{quantum: uint64(data[6]), textStart: textStart}
	ptrSize := int(data[7])
	if t.quantum != 1 && t.quantum != 2 && t.quantum != 4 || ptrSize != 4 && ptrSize != 8 {
		return nil, fmt.Errorf("bad header")
	}
	le, be := binary.LittleEndian.Uint32(data), binary.BigEndian.Uint32(data)
	switch {
	case le == 0xfffffff0 || le == 0xfffffff1:
		t.order, t.v120 = binary.LittleEndian, le == 0xfffffff1
	case be == 0xfffffff0 || be == 0xfffffff1:
		t.order, t.v120 = binary.BigEndian, be == 0xfffffff1
	case le == 0xfffffffb || be == 0xfffffffb || le == 0xfffffffa || be == 0xfffffffa:
		// debug/gosym trusts the function count: check it fits first.
		order := binary.ByteOrder(binary.LittleEndian)
		if be == 0xfffffffb || be == 0xfffffffa {
			order = binary.BigEndian
		}
		word := func(off int) uint64 {
			if off+ptrSize > len(data) {
				return ^uint64(0)
			}
			if ptrSize == 4 {
				return uint64(order.Uint32(data[off:]))
			}
			return order.Uint64(data[off:])
		}
		n, tab := word(8), uint64(8+ptrSize) // Go 1.2: the table follows the count
		if le == 0xfffffffa || be == 0xfffffffa {
			tab = word(8 + 6*ptrSize) // Go 1.16: its offset is in the header
		}
		if n > uint64(len(data)) || tab > uint64(len(data)) || (2*n+1)*uint64(ptrSize) > uint64(len(data))-tab {
			return nil, fmt.Errorf("function table out of range")
		}
		tab2, err := gosym.NewTable(nil, gosym.NewLineTable(data, textStart))
		if err != nil {
			return nil, err
		}
		return &goTable{old: tab2}, nil
	default:
		return nil, fmt.Errorf("unknown pclntab version %#x", le)
	}
	word := func(i int) uint64 {
		off := 8 + i*ptrSize
		if off+ptrSize > len(data) {
			return ^uint64(0)
		}
		if ptrSize == 4 {
			return uint64(t.order.Uint32(data[off:]))
		}
		return t.order.Uint64(data[off:])
	}
	from := func(i int) ([]byte, error) {
		off := word(i)
		if off > uint64(len(data)) {
			return nil, fmt.Errorf("table %d out of range", i)
		}
		return data[off:], nil
	}
	n := word(0)
	if n > uint64(len(data)) {
		return nil, fmt.Errorf("implausible function count %d", n)
	}
	t.nfunc = int(n)
	var err error
	for i, dst := range []*[]byte{&t.funcnametab, &t.cutab, &t.filetab, &t.pctab, &t.functab} {
		if *dst, err = from(i + 3); err != nil {
			return nil, err
		}
	}
	if len(t.functab) < (2*t.nfunc+1)*4 {
		return nil, fmt.Errorf("function table truncated")
	}
	return t, nil
}

// goFunc is one function of the table.
type goFunc struct {
	entry, end uint64
	raw        []byte // the runtime's _func record and the arrays after it
}

func (t *goTable) u32(b []byte, off int) uint32 {
	if off < 0 || off+4 > len(b) {
		return 0
	}
	return t.order.Uint32(b[off:])
}

// find returns the function holding pc.
func (t *goTable) find(pc uint64) (goFunc, bool) {
	if pc < t.textStart {
		return goFunc{}, false
	}
	off := pc - t.textStart
	entry := func(i int) uint64 { return uint64(t.u32(t.functab, 8*i)) }
	i := sort.Search(t.nfunc, func(i int) bool { return entry(i) > off }) - 1
	if i < 0 || off >= entry(i+1) {
		return goFunc{}, false
	}
	fo := int(t.u32(t.functab, 8*i+4))
	if fo >= len(t.functab) {
		return goFunc{}, false
	}
	return goFunc{entry: t.textStart + entry(i), end: t.textStart + entry(i+1), raw: t.functab[fo:]}, true
}

// The fields of the runtime's _func, as byte offsets.
const (
	funcNameOff   = 4
	funcPCFile    = 20
	funcPCLine    = 24
	funcNPCData   = 28
	funcCUOffset  = 32
	funcStartLine = 36 // Go 1.20 and later
)

func (t *goTable) headerSize() int {
	if t.v120 {
		return 44
	}
	return 40
}

func (t *goTable) name(off uint32, s *scratch) string {
	if int(off) >= len(t.funcnametab) {
		return ""
	}
	return s.str(uint64(off), t.funcnametab[off:])
}

func (t *goTable) funcName(f goFunc, s *scratch) string {
	return t.name(t.u32(f.raw, funcNameOff), s)
}

func (t *goTable) startLine(f goFunc) int64 {
	if !t.v120 {
		return 0
	}
	return int64(int32(t.u32(f.raw, funcStartLine)))
}

// pcvalues decodes the table at off in pctab (a run of value deltas
// and pc deltas, as the runtime's pcvalue) and sets out[k] to its value
// at pcs[k], in one pass for the sorted pcs of f; -1 where it has none.
func (t *goTable) pcvalues(f goFunc, off uint32, pcs []uint64, out []int32) {
	for k := range out {
		out[k] = -1
	}
	if off == 0 || int(off) >= len(t.pctab) {
		return
	}
	p := t.pctab[off:]
	cur, val := f.entry, int32(-1)
	for k, first := 0, true; k < len(pcs); first = false {
		uv, n := binary.Uvarint(p)
		if n <= 0 || uv == 0 && !first {
			return
		}
		p = p[n:]
		val += int32(-(uv & 1) ^ (uv >> 1))
		pcd, n := binary.Uvarint(p)
		if n <= 0 {
			return
		}
		p = p[n:]
		cur += pcd * t.quantum
		for ; k < len(pcs) && pcs[k] < cur; k++ {
			out[k] = val
		}
	}
}

// pcvalue is pcvalues for one pc.
func (t *goTable) pcvalue(f goFunc, off uint32, pc uint64) int32 {
	var v [1]int32
	t.pcvalues(f, off, []uint64{pc}, v[:])
	return v[0]
}

// fileName returns the name of file number fno of f's compilation unit.
func (t *goTable) fileName(f goFunc, fno int32, s *scratch) string {
	if fno < 0 {
		return ""
	}
	cu := t.u32(f.raw, funcCUOffset)
	fo := t.u32(t.cutab, int(cu+uint32(fno))*4)
	if fo == ^uint32(0) || int(fo) >= len(t.filetab) {
		return ""
	}
	return s.str(1<<32|uint64(fo), t.filetab[fo:])
}

// inlineCall is one entry of a function's inline tree.
type inlineCall struct {
	name      string
	parentPC  uint64 // offset from the function entry of an instruction at the call
	startLine int64
}

// inlineTable returns the offset in pctab of f's table of indexes into
// its inline tree; 0 for none.
func (t *goTable) inlineTable(f goFunc) uint32 {
	npc := int(t.u32(f.raw, funcNPCData))
	if t.gofuncData == nil || npc <= pcdataInlTreeIndex || npc > 1<<16 {
		return 0
	}
	return t.u32(f.raw, t.headerSize()+4*pcdataInlTreeIndex)
}

// inlineAt returns entry ix of f's inline tree: the innermost inlined
// call at a pc whose index (in inlineTable) is ix, if any.
func (t *goTable) inlineAt(f goFunc, ix int32, s *scratch) (inlineCall, bool) {
	if ix < 0 || t.inlineTable(f) == 0 {
		return inlineCall{}, false
	}
	hs := t.headerSize()
	npc := int(t.u32(f.raw, funcNPCData))
	nfd := 0
	if len(f.raw) >= hs {
		nfd = int(f.raw[hs-1])
	}
	if nfd <= funcdataInlTree {
		return inlineCall{}, false
	}
	tree := t.u32(f.raw, hs+4*npc+4*funcdataInlTree)
	if tree == ^uint32(0) {
		return inlineCall{}, false
	}
	size, nameAt, parentAt := 16, 4, 8 // Go 1.20 and later
	if !t.v120 {
		size, nameAt, parentAt = 20, 12, 16
	}
	at := int(tree) + int(ix)*size
	if at < 0 || at+size > len(t.gofuncData) {
		return inlineCall{}, false
	}
	e := t.gofuncData[at : at+size]
	c := inlineCall{
		name:     t.name(t.u32(e, nameAt), s),
		parentPC: uint64(int64(int32(t.u32(e, parentAt)))),
	}
	if t.v120 {
		c.startLine = int64(int32(t.u32(e, 12)))
	}
	return c, true
}

// framesAll sets out[i] to the frames of addrs[i] (sorted), on all CPUs
// for a big batch: the table is read-only.
func (t *goTable) framesAll(addrs []uint64, out [][]Frame, noInlines bool) {
	workers := min(runtime.GOMAXPROCS(0), len(addrs)/4096+1)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(addrs)/workers, (w+1)*len(addrs)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { recover() }() // a corrupt table: leave the rest to DWARF and symbols
			defer safely(debug.SetPanicOnFault(true))
			t.framesRange(addrs[lo:hi], out[lo:hi], noInlines, newScratch())
		}()
	}
	wg.Wait()
}

// framesRange sets out[i] to the frames of addrs[i] (sorted). The
// addresses of one function are done together: its line, file and
// inline tables are decoded once for all of them.
func (t *goTable) framesRange(addrs []uint64, out [][]Frame, noInlines bool, s *scratch) {
	if t.old != nil {
		for i, pc := range addrs {
			out[i] = t.frames(pc, noInlines, s)
		}
		return
	}
	var line, file, inl []int32
	for i := 0; i < len(addrs); {
		f, ok := t.find(addrs[i])
		if !ok {
			i++
			continue
		}
		j := i + 1
		for j < len(addrs) && addrs[j] < f.end {
			j++
		}
		pcs := addrs[i:j]
		line, file, inl = resize(line, len(pcs)), resize(file, len(pcs)), resize(inl, len(pcs))
		t.pcvalues(f, t.u32(f.raw, funcPCLine), pcs, line)
		t.pcvalues(f, t.u32(f.raw, funcPCFile), pcs, file)
		if !noInlines {
			t.pcvalues(f, t.inlineTable(f), pcs, inl)
		}
		for k := range pcs {
			out[i+k] = t.framesAt(f, line[k], file[k], inl[k], noInlines, s)
		}
		i = j
	}
}

func resize(v []int32, n int) []int32 {
	if cap(v) < n {
		return make([]int32, n)
	}
	return v[:n]
}

// frames returns the frames of pc, or nil if pc is not in Go code.
func (t *goTable) frames(pc uint64, noInlines bool, s *scratch) []Frame {
	if t.old != nil {
		file, line, fn := t.old.PCToLine(pc)
		if fn == nil {
			return nil
		}
		return []Frame{{Func: fn.Name, File: file, Line: int64(line)}}
	}
	f, ok := t.find(pc)
	if !ok {
		return nil
	}
	inl := int32(-1)
	if !noInlines {
		inl = t.pcvalue(f, t.inlineTable(f), pc)
	}
	return t.framesAt(f, t.pcvalue(f, t.u32(f.raw, funcPCLine), pc), t.pcvalue(f, t.u32(f.raw, funcPCFile), pc), inl, noInlines, s)
}

// framesAt returns the frames of a pc of f whose line, file number and
// inline tree index are given: the inlined calls there, innermost first,
// each at the position of the pc in it (the call in the next one out),
// then f itself.
func (t *goTable) framesAt(f goFunc, line, file, inl int32, noInlines bool, s *scratch) []Frame {
	frames := s.frames[:0]
	for !noInlines && len(frames) < 100 {
		c, ok := t.inlineAt(f, inl, s)
		if !ok {
			break
		}
		frames = append(frames, Frame{Func: c.name, File: t.fileName(f, file, s), Line: int64(line), StartLine: c.startLine})
		pc := f.entry + c.parentPC
		line, file, inl = t.pcvalue(f, t.u32(f.raw, funcPCLine), pc), t.pcvalue(f, t.u32(f.raw, funcPCFile), pc), t.pcvalue(f, t.inlineTable(f), pc)
	}
	frames = append(frames, Frame{Func: t.funcName(f, s), File: t.fileName(f, file, s), Line: int64(line), StartLine: t.startLine(f)})
	s.frames = frames
	return append(s.alloc(len(frames)), frames...)
}
