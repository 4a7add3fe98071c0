package symbolize

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"sync"
)

// dwarf loads the DWARF index of the binary (or of its separate debug
// file), reading only the sections symbolization needs. Called with b.mu
// held. A binary without DWARF gives nil and no error.
func (b *Binary) dwarf() (*dwarfIndex, error) {
	if b.dwSet {
		return b.dw, b.dwErr
	}
	b.dwSet = true
	src := b
	if !b.hasDWARF() {
		src = b.debugBinary()
		if src == nil {
			return nil, nil
		}
	}
	sec, err := src.loadDWARF()
	if err != nil {
		b.dwErr = fmt.Errorf("%s: DWARF: %w", src.path, err)
		return nil, b.dwErr
	}
	b.dw, b.dwErr = newDWARFIndex(sec, src.ef.ByteOrder, src.ef.Type == elf.ET_REL)
	if b.dwErr != nil {
		b.dwErr = fmt.Errorf("%s: DWARF: %w", src.path, b.dwErr)
	}
	return b.dw, b.dwErr
}

// loadDWARF reads the sections for line tables, ranges and names: not
// the location lists, frame tables, macros or type units.
func (b *Binary) loadDWARF() (dwarfSections, error) {
	ef := b.ef
	var sec dwarfSections
	for _, r := range []struct {
		name string
		dst  *[]byte
	}{
		{"abbrev", &sec.abbrev}, {"info", &sec.info}, {"line", &sec.line}, {"ranges", &sec.ranges},
		{"str", &sec.str}, {"addr", &sec.addr}, {"line_str", &sec.lineStr},
		{"str_offsets", &sec.strOffsets}, {"rnglists", &sec.rnglists},
	} {
		s := ef.Section(".debug_" + r.name)
		if s == nil {
			s = ef.Section(".zdebug_" + r.name)
		}
		if s == nil {
			continue
		}
		data, err := b.section(s)
		if err == nil && ef.Type == elf.ET_REL {
			data = slices.Clone(data) // not the mapped file's pages
			err = b.relocate(s, data)
		}
		if err != nil {
			return sec, err
		}
		*r.dst = data
	}
	return sec, nil
}

// dwarfIndex finds compilation units by address and parses each one (its
// line table and its tree of functions and inlined calls) the first time
// an address falls in it.
type dwarfIndex struct {
	info   *infoData
	ranges []cuRange // sorted by lo
	units  []*cuInfo
	// zero is the address where code that a linker discarded was
	// (0, or a tombstone), except in a relocatable object, whose code
	// does start at 0.
	zero uint64
}

type cuRange struct {
	lo, hi uint64
	unit   int
}

type cuInfo struct {
	unit   *infoUnit
	parsed bool
	err    error

	lines []lineRow // the line table's row for each of pcs
	files []string  // the line table's file names, by index
	pcs   []uint64  // the addresses scopes was read for, sorted

	scopes []scope
	roots  []scopeRange // ranges of the outermost functions, sorted
	ranges [][2]uint64  // the scopes' ranges, one after the other
}

// lineRow is one row of a line table; file is endOfSequence for the row
// that ends a sequence.
type lineRow struct {
	addr uint64
	file int32
	line int32
}

const endOfSequence = -2

// scope is a function (DW_TAG_subprogram) or an inlined call of one
// (DW_TAG_inlined_subroutine) with the address ranges of its code. Its
// inlined calls are a list: first, then each one's next.
type scope struct {
	ranges      [][2]uint64 // in cuInfo.ranges
	entry       uint64      // where its name comes from
	callFile    int64       // for inlined calls: where the call is,
	callLine    int64       // in the enclosing scope
	first, last int32       // its first and last inlined calls, or -1
	next        int32       // the next inlined call of its parent, or -1
	inlined     bool
}

type scopeRange struct {
	lo, hi uint64
	scope  int32
}

func newDWARFIndex(sec dwarfSections, order binary.ByteOrder, relocatable bool) (*dwarfIndex, error) {
	info, err := newInfoData(sec, order)
	x := &dwarfIndex{info: info}
	if relocatable {
		x.zero = ^uint64(0)
	}
	var rs [][2]uint64
	for i := range info.units {
		u := &info.units[i]
		var e die
		if _, uerr := info.readDIE(u, u.first, &e); uerr != nil {
			err = errors.Join(err, uerr)
			continue
		}
		if e.tag != dwarf.TagCompileUnit && e.tag != dwarf.TagPartialUnit {
			continue
		}
		rs, rerr := info.ranges(u, &e, rs[:0])
		if rerr != nil || len(rs) == 0 {
			continue
		}
		unit := len(x.units)
		x.units = append(x.units, &cuInfo{unit: u})
		for _, rg := range rs {
			if rg[0] < rg[1] && rg[0] != x.zero {
				x.ranges = append(x.ranges, cuRange{rg[0], rg[1], unit})
			}
		}
	}
	sort.Slice(x.ranges, func(i, j int) bool { return x.ranges[i].lo < x.ranges[j].lo })
	if err != nil && len(x.units) == 0 {
		return nil, err
	}
	return x, err
}

// unitFor returns the compilation unit whose ranges hold pc, or -1.
func (x *dwarfIndex) unitFor(pc uint64) int {
	i := sort.Search(len(x.ranges), func(i int) bool { return x.ranges[i].lo > pc }) - 1
	// Ranges rarely overlap; look back a little in case they do.
	for j := i; j >= 0 && j > i-8; j-- {
		if pc < x.ranges[j].hi {
			return x.ranges[j].unit
		}
	}
	return -1
}

// symbolize returns the frames of each of the sorted addresses. The
// compilation units are independent: they are parsed on all CPUs.
func (x *dwarfIndex) symbolize(addrs []uint64, noInlines bool) ([][]Frame, error) {
	out := make([][]Frame, len(addrs))
	byUnit := map[int][]int{}
	var order []int
	for i, a := range addrs {
		u := x.unitFor(a)
		if u < 0 {
			continue
		}
		if _, ok := byUnit[u]; !ok {
			order = append(order, u)
		}
		byUnit[u] = append(byUnit[u], i)
	}
	work := make(chan int)
	workers := min(runtime.GOMAXPROCS(0), len(order))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := &resolver{scratch: newScratch(), info: x.info, names: map[uint64]string{}}
			for u := range work {
				if err := x.unitFrames(u, byUnit[u], addrs, out, noInlines, res); err != nil {
					errs[w] = errors.Join(errs[w], err)
				}
			}
		}()
	}
	for _, u := range order {
		work <- u
	}
	close(work)
	wg.Wait()
	return out, errors.Join(errs...)
}

// unitFrames symbolizes the addresses addrs[idx] of unit u into out.
func (x *dwarfIndex) unitFrames(u int, idx []int, addrs []uint64, out [][]Frame, noInlines bool, res *resolver) (err error) {
	defer recoverError(&err, "DWARF")
	defer safely(debug.SetPanicOnFault(true))
	cu := x.units[u]
	pcs := make([]uint64, len(idx))
	for j, i := range idx {
		pcs[j] = addrs[i]
	}
	if !cu.parsed || !subset(pcs, cu.pcs) {
		x.parse(cu, pcs)
		err = cu.err
	}
	for _, i := range idx {
		out[i] = x.frames(cu, addrs[i], noInlines, res)
	}
	return err
}

// parse reads a unit's line table and function tree for the addresses
// pcs (sorted). Only the rows of pcs are kept, and functions that none of
// pcs falls in are skipped without reading their insides, so a later
// request for other addresses of the unit reads both again, for the
// union of the addresses.
func (x *dwarfIndex) parse(cu *cuInfo, pcs []uint64) {
	cu.pcs = union(cu.pcs, pcs)
	cu.lines, cu.files, cu.err = x.readLines(cu.unit, cu.pcs)
	cu.scopes, cu.roots, cu.ranges = nil, nil, nil
	if err := x.readScopes(cu, cu.pcs); err != nil && cu.err == nil {
		cu.err = err
	}
	cu.parsed = true
}

// subset reports whether every element of a is in b (both sorted).
func subset(a, b []uint64) bool {
	j := 0
	for _, v := range a {
		for j < len(b) && b[j] < v {
			j++
		}
		if j == len(b) || b[j] != v {
			return false
		}
	}
	return true
}

// union merges two sorted sets.
func union(a, b []uint64) []uint64 {
	out := make([]uint64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// readLines returns the line table's row for each of pcs (sorted), and
// the table's file names.
func (x *dwarfIndex) readLines(u *infoUnit, pcs []uint64) ([]lineRow, []string, error) {
	var cu die
	if _, err := x.info.readDIE(u, u.first, &cu); err != nil {
		return nil, nil, err
	}
	lp, err := x.info.lineProgram(u, &cu)
	if err != nil || lp == nil {
		return nil, nil, err
	}
	found := make([]lineRow, len(pcs))
	for i := range found {
		found[i].file = endOfSequence // not found
	}
	var (
		e     lineState
		prev  lineRow
		inSeq bool
		skip  bool
		k     int // the first of pcs not yet resolved in this sequence
	)
	// The rows are streamed: within a sequence addresses only grow, so
	// the row that holds pcs[k] is the last one at or before it. Rows
	// name files by their index in the line table's file table, which is
	// also what DW_AT_call_file means.
	for lp.next(&e) {
		row := lineRow{addr: e.addr, file: -1, line: int32(e.line)}
		if e.file < uint64(len(lp.files)) {
			row.file = int32(e.file)
		}
		switch {
		case !inSeq:
			// A sequence a linker discarded has its code removed and
			// its address zeroed or set to a tombstone.
			inSeq, skip = true, e.addr == x.zero || e.addr >= ^uint64(0)-1
			k = sort.Search(len(pcs), func(i int) bool { return pcs[i] >= e.addr })
		case skip:
		case e.addr < prev.addr:
			skip = true // malformed
		default:
			for ; k < len(pcs) && pcs[k] < e.addr; k++ {
				found[k] = prev
			}
		}
		prev = row
		if e.end {
			inSeq = false
		}
	}
	return found, lp.files, lp.err
}

// line returns the file and line of pc (one of cu.pcs) from the line
// table.
func (cu *cuInfo) line(pc uint64) (string, int64, bool) {
	i, ok := slices.BinarySearch(cu.pcs, pc)
	if !ok || i >= len(cu.lines) || cu.lines[i].file == endOfSequence {
		return "", 0, false
	}
	r := cu.lines[i]
	return cu.fileName(int64(r.file)), int64(r.line), true
}

func (cu *cuInfo) fileName(i int64) string {
	if i < 0 || i >= int64(len(cu.files)) {
		return ""
	}
	return cu.files[i]
}

// readScopes walks the unit's entries for functions with code and the
// inlined calls inside them.
func (x *dwarfIndex) readScopes(cu *cuInfo, pcs []uint64) error {
	info, u := x.info, cu.unit
	var e die
	next, err := info.readDIE(u, u.first, &e) // the unit itself
	if err != nil || !e.children {
		return err
	}
	// stack holds, per open entry with children, the scope its children
	// belong to (-1 at the top level).
	stack := []int32{-1}
	var rs [][2]uint64
	for len(stack) > 0 {
		at := next
		a, c, err := info.entryAt(u, at)
		if err != nil {
			return err
		}
		if a == nil { // the end of a list of children
			stack, next = stack[:len(stack)-1], c.i
			continue
		}
		parent := stack[len(stack)-1]
		switch a.tag {
		case dwarf.TagSubprogram, dwarf.TagInlinedSubroutine:
			if err := readAttrs(u, at, a, &c, &e); err != nil {
				return err
			}
			next = c.i
			var rerr error
			rs, rerr = info.ranges(u, &e, rs[:0])
			if rerr != nil || len(rs) == 0 || !overlaps(rs, pcs) {
				if next, err = info.skipChildren(u, &e, next); err != nil {
					return err
				}
				continue
			}
			at := len(cu.ranges)
			cu.ranges = append(cu.ranges, rs...)
			s := scope{ranges: cu.ranges[at:len(cu.ranges):len(cu.ranges)], entry: e.off,
				first: -1, last: -1, next: -1, inlined: e.tag == dwarf.TagInlinedSubroutine}
			if e.linkageName.form == 0 && e.name.form == 0 && e.spec == 0 && e.origin != 0 {
				s.entry = e.origin // the name is the origin's: skip a step
			}
			if s.inlined {
				s.callFile, s.callLine = e.callFile, e.callLine
			} else {
				parent = -1 // a nested function starts a new chain
			}
			idx := int32(len(cu.scopes))
			cu.scopes = append(cu.scopes, s)
			if parent >= 0 && s.inlined {
				p := &cu.scopes[parent]
				if p.last >= 0 {
					cu.scopes[p.last].next = idx
				} else {
					p.first = idx
				}
				p.last = idx
			} else {
				for _, rg := range s.ranges {
					cu.roots = append(cu.roots, scopeRange{rg[0], rg[1], idx})
				}
			}
			if e.children {
				stack = append(stack, idx)
			}
		case dwarf.TagLexDwarfBlock, dwarf.TagNamespace, dwarf.TagModule,
			dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType:
			// Blocks hold inlined calls; namespaces and classes hold
			// functions (C++, Fortran modules).
			if err := skipAttrs(u, at, a, &c); err != nil {
				return err
			}
			next = c.i
			if a.children {
				stack = append(stack, parent)
			}
		default:
			if !a.children {
				if err := skipAttrs(u, at, a, &c); err != nil {
					return err
				}
				next = c.i
				continue
			}
			if err := readAttrs(u, at, a, &c, &e); err != nil {
				return err
			}
			if next, err = info.skipChildren(u, &e, c.i); err != nil {
				return err
			}
		}
	}
	sort.Slice(cu.roots, func(i, j int) bool { return cu.roots[i].lo < cu.roots[j].lo })
	return nil
}

// overlaps reports whether any of the sorted pcs falls in the ranges.
func overlaps(rs [][2]uint64, pcs []uint64) bool {
	for _, rg := range rs {
		i := sort.Search(len(pcs), func(i int) bool { return pcs[i] >= rg[0] })
		if i < len(pcs) && pcs[i] < rg[1] {
			return true
		}
	}
	return false
}

func contains(rs [][2]uint64, pc uint64) bool {
	for _, rg := range rs {
		if rg[0] <= pc && pc < rg[1] {
			return true
		}
	}
	return false
}

// frames builds the frames of pc: the line table gives the innermost
// position, each inlined call the position of the call in the scope
// around it.
func (x *dwarfIndex) frames(cu *cuInfo, pc uint64, noInlines bool, res *resolver) []Frame {
	file, line, ok := cu.line(pc)
	chain := cu.chain(pc, res.chain[:0])
	res.chain = chain
	if len(chain) == 0 {
		if !ok {
			return nil
		}
		return append(res.alloc(1), Frame{File: file, Line: line}) // the caller names it from the symbol table
	}
	if noInlines {
		return append(res.alloc(1), Frame{Func: res.name(cu.scopes[chain[0]].entry), File: file, Line: line})
	}
	frames := res.alloc(len(chain))
	for i := len(chain) - 1; i >= 0; i-- {
		s := &cu.scopes[chain[i]]
		frames = append(frames, Frame{Func: res.name(s.entry), File: file, Line: line})
		if s.inlined {
			file, line = cu.fileName(s.callFile), s.callLine
		}
	}
	return frames
}

// chain appends to dst the scopes holding pc, outermost first.
func (cu *cuInfo) chain(pc uint64, dst []int32) []int32 {
	i := sort.Search(len(cu.roots), func(i int) bool { return cu.roots[i].lo > pc }) - 1
	var root int32 = -1
	for j := i; j >= 0 && j > i-8; j-- {
		if pc < cu.roots[j].hi {
			root = cu.roots[j].scope
			break
		}
	}
	if root < 0 {
		return dst
	}
	chain := append(dst, root)
	for cur := root; ; {
		next := cu.scopes[cur].first
		for next >= 0 && !contains(cu.scopes[next].ranges, pc) {
			next = cu.scopes[next].next
		}
		if next < 0 || len(chain) > 1000 {
			return chain
		}
		chain = append(chain, next)
		cur = next
	}
}

// name returns the function name of a subprogram or inlined call entry:
// its linkage (mangled) name, found on it or on the entry it refers to
// (the abstract instance of an inlined function, the declaration of a
// C++ method), else its plain name. Every entry on the way is
// remembered: the inlined calls of a function share its abstract entry.
func (res *resolver) name(off uint64) string { return res.resolveName(off, 0) }

// resolver finds and keeps names; one per goroutine.
type resolver struct {
	*scratch
	info  *infoData
	names map[uint64]string
	chain []int32
}

const attrMIPSLinkageName dwarf.Attr = 0x2007

func (res *resolver) resolveName(off uint64, depth int) string {
	if n, ok := res.names[off]; ok {
		return n
	}
	u := res.info.unitOf(off)
	if depth > 8 || u == nil {
		return ""
	}
	var e die
	if _, err := res.info.readDIE(u, off, &e); err != nil || e.tag == 0 {
		return ""
	}
	n := res.info.str(u, e.linkageName)
	for _, ref := range []uint64{e.origin, e.spec} {
		if n == "" && ref != 0 && ref != off {
			n = res.resolveName(ref, depth+1)
		}
	}
	if n == "" {
		n = res.info.str(u, e.name)
	}
	res.names[off] = n
	return n
}
