package symbolize

import (
	"bytes"
	"debug/elf"
	"debug/gosym"
	"encoding/binary"
	"fmt"
	"runtime"
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
	data, err := sectionData(sect)
	if err != nil {
		b.goErr = fmt.Errorf("%s: Go pclntab: %w", b.path, err)
		return nil, b.goErr
	}
	var textStart, gofunc uint64
	if s := b.ef.Section(".text"); s != nil {
		textStart = s.Addr
	}
	if syms, err := b.ef.Symbols(); err == nil {
		for _, s := range syms {
			switch s.Name {
			case "runtime.text":
				textStart = s.Value
			case "go:func.*", "go.func.*":
				gofunc = s.Value
			}
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
				if d, err := sectionData(s); err == nil && uint64(len(d)) == s.Size {
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
	entry uint64
	raw   []byte // the runtime's _func record and the arrays after it
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
	return goFunc{entry: t.textStart + entry(i), raw: t.functab[fo:]}, true
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

func (t *goTable) name(off uint32) string {
	if int(off) >= len(t.funcnametab) {
		return ""
	}
	s := t.funcnametab[off:]
	if i := bytes.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return string(s)
}

func (t *goTable) funcName(f goFunc) string { return t.name(t.u32(f.raw, funcNameOff)) }

func (t *goTable) startLine(f goFunc) int64 {
	if !t.v120 {
		return 0
	}
	return int64(int32(t.u32(f.raw, funcStartLine)))
}

// pcvalue decodes the table at off in pctab (a run of value deltas and
// pc deltas, as the runtime's pcvalue) and returns the value at pc.
func (t *goTable) pcvalue(f goFunc, off uint32, pc uint64) (int32, bool) {
	if off == 0 || int(off) >= len(t.pctab) {
		return -1, false
	}
	p := t.pctab[off:]
	cur, val := f.entry, int32(-1)
	for first := true; ; first = false {
		uv, n := binary.Uvarint(p)
		if n <= 0 || uv == 0 && !first {
			return -1, false
		}
		p = p[n:]
		val += int32(-(uv & 1) ^ (uv >> 1))
		pcd, n := binary.Uvarint(p)
		if n <= 0 {
			return -1, false
		}
		p = p[n:]
		cur += pcd * t.quantum
		if pc < cur {
			return val, true
		}
	}
}

// position returns the file and line of pc in f.
func (t *goTable) position(f goFunc, pc uint64) (string, int64) {
	line, _ := t.pcvalue(f, t.u32(f.raw, funcPCLine), pc)
	fno, ok := t.pcvalue(f, t.u32(f.raw, funcPCFile), pc)
	file := ""
	if ok && fno >= 0 {
		cu := t.u32(f.raw, funcCUOffset)
		fo := t.u32(t.cutab, int(cu+uint32(fno))*4)
		if fo != ^uint32(0) && int(fo) < len(t.filetab) {
			s := t.filetab[fo:]
			if i := bytes.IndexByte(s, 0); i >= 0 {
				s = s[:i]
			}
			file = string(s)
		}
	}
	return file, int64(line)
}

// inlineCall is one entry of a function's inline tree.
type inlineCall struct {
	name      string
	parentPC  uint64 // offset from the function entry of an instruction at the call
	startLine int64
}

// inlineAt returns the innermost inlined call at pc, if any.
func (t *goTable) inlineAt(f goFunc, pc uint64) (inlineCall, bool) {
	if t.gofuncData == nil {
		return inlineCall{}, false
	}
	hs := t.headerSize()
	npc := int(t.u32(f.raw, funcNPCData))
	if npc <= pcdataInlTreeIndex || npc > 1<<16 {
		return inlineCall{}, false
	}
	ix, ok := t.pcvalue(f, t.u32(f.raw, hs+4*pcdataInlTreeIndex), pc)
	if !ok || ix < 0 {
		return inlineCall{}, false
	}
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
		name:     t.name(t.u32(e, nameAt)),
		parentPC: uint64(int64(int32(t.u32(e, parentAt)))),
	}
	if t.v120 {
		c.startLine = int64(int32(t.u32(e, 12)))
	}
	return c, true
}

// framesAll sets out[i] to the frames of addrs[i], on all CPUs for a big
// batch: the table is read-only.
func (t *goTable) framesAll(addrs []uint64, out [][]Frame, noInlines bool) {
	workers := min(runtime.GOMAXPROCS(0), len(addrs)/4096+1)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*len(addrs)/workers, (w+1)*len(addrs)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { recover() }() // a corrupt table: leave the rest to DWARF and symbols
			for i := lo; i < hi; i++ {
				out[i] = t.frames(addrs[i], noInlines)
			}
		}()
	}
	wg.Wait()
}

// frames returns the frames of pc, or nil if pc is not in Go code.
func (t *goTable) frames(pc uint64, noInlines bool) []Frame {
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
	var frames []Frame
	cur := pc
	for !noInlines && len(frames) < 100 {
		c, ok := t.inlineAt(f, cur)
		if !ok {
			break
		}
		file, line := t.position(f, cur)
		frames = append(frames, Frame{Func: c.name, File: file, Line: line, StartLine: c.startLine})
		cur = f.entry + c.parentPC
	}
	file, line := t.position(f, cur)
	return append(frames, Frame{Func: t.funcName(f), File: file, Line: line, StartLine: t.startLine(f)})
}
