package symbolize

import (
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"runtime"
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
	d, err := loadDWARF(src.ef)
	if err != nil {
		b.dwErr = fmt.Errorf("%s: DWARF: %w", src.path, err)
		return nil, b.dwErr
	}
	b.dw, b.dwErr = newDWARFIndex(d)
	if b.dwErr != nil {
		b.dwErr = fmt.Errorf("%s: DWARF: %w", src.path, b.dwErr)
	}
	return b.dw, b.dwErr
}

// loadDWARF reads the sections for line tables, ranges and names: not
// the location lists, frame tables, macros or type units.
func loadDWARF(ef *elf.File) (*dwarf.Data, error) {
	if ef.Type == elf.ET_REL {
		return ef.DWARF() // it applies the relocations
	}
	read := func(name string) ([]byte, error) {
		s := ef.Section(".debug_" + name)
		if s == nil {
			s = ef.Section(".zdebug_" + name)
		}
		if s == nil {
			return nil, nil
		}
		return sectionData(s)
	}
	var sec [5][]byte
	for i, name := range []string{"abbrev", "info", "line", "ranges", "str"} {
		data, err := read(name)
		if err != nil {
			return nil, err
		}
		sec[i] = data
	}
	d, err := dwarf.New(sec[0], nil, nil, sec[1], sec[2], nil, sec[3], sec[4])
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"addr", "line_str", "str_offsets", "rnglists"} {
		data, err := read(name)
		if err != nil {
			return nil, err
		}
		if data != nil {
			if err := d.AddSection(".debug_"+name, data); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}

// dwarfIndex finds compilation units by address and parses each one (its
// line table and its tree of functions and inlined calls) the first time
// an address falls in it.
type dwarfIndex struct {
	d      *dwarf.Data
	ranges []cuRange // sorted by lo
	units  []*cuInfo
}

type cuRange struct {
	lo, hi uint64
	unit   int
}

type cuInfo struct {
	entry  *dwarf.Entry
	parsed bool
	err    error

	lines []lineRow // the line table's row for each of pcs
	files []string  // the line table's file names, by index
	pcs   []uint64  // the addresses scopes was read for, sorted

	scopes []scope
	roots  []scopeRange // ranges of the outermost functions, sorted
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
// (DW_TAG_inlined_subroutine) with the address ranges of its code.
type scope struct {
	ranges   [][2]uint64
	entry    dwarf.Offset // where its name comes from
	inlined  bool
	callFile int64 // for inlined calls: where the call is,
	callLine int64 // in the enclosing scope
	children []int32
}

type scopeRange struct {
	lo, hi uint64
	scope  int32
}

func newDWARFIndex(d *dwarf.Data) (*dwarfIndex, error) {
	x := &dwarfIndex{d: d}
	r := d.Reader()
	var err error
	for {
		var e *dwarf.Entry
		e, err = r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag == dwarf.TagCompileUnit || e.Tag == dwarf.TagPartialUnit {
			rs, rerr := d.Ranges(e)
			if rerr == nil && len(rs) > 0 {
				unit := len(x.units)
				x.units = append(x.units, &cuInfo{entry: e})
				for _, rg := range rs {
					if rg[0] < rg[1] && rg[0] != 0 {
						x.ranges = append(x.ranges, cuRange{rg[0], rg[1], unit})
					}
				}
			}
		}
		r.SkipChildren()
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
			res := &resolver{r: x.d.Reader(), names: map[dwarf.Offset]string{}}
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
	cu.lines, cu.files, cu.err = x.readLines(cu.entry, cu.pcs)
	cu.scopes, cu.roots = nil, nil
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

func (x *dwarfIndex) readLines(cuEntry *dwarf.Entry, pcs []uint64) ([]lineRow, []string, error) {
	lr, err := x.d.LineReader(cuEntry)
	if err != nil || lr == nil {
		return nil, nil, err
	}
	found := make([]lineRow, len(pcs))
	for i := range found {
		found[i].file = endOfSequence // not found
	}
	var (
		fileIdx = map[*dwarf.LineFile]int32{}
		e       dwarf.LineEntry
		prev    lineRow
		inSeq   bool
		skip    bool
		k       int // the first of pcs not yet resolved in this sequence
	)
	// The rows are streamed: within a sequence addresses only grow, so
	// the row that holds pcs[k] is the last one at or before it. Rows
	// name files by their index in the line table's file table, which is
	// also what DW_AT_call_file means.
	for {
		if err = lr.Next(&e); err != nil {
			break
		}
		fi, ok := fileIdx[e.File]
		if !ok {
			fi = -1
			for i, f := range lr.Files() {
				if f == e.File {
					fi = int32(i)
					break
				}
			}
			fileIdx[e.File] = fi
		}
		row := lineRow{addr: e.Address, file: fi, line: int32(e.Line)}
		switch {
		case !inSeq:
			// A sequence a linker discarded has its code removed and
			// its address zeroed or set to a tombstone.
			inSeq, skip = true, e.Address == 0 || e.Address >= ^uint64(0)-1
			k = sort.Search(len(pcs), func(i int) bool { return pcs[i] >= e.Address })
		case skip:
		case e.Address < prev.addr:
			skip = true // malformed
		default:
			for ; k < len(pcs) && pcs[k] < e.Address; k++ {
				found[k] = prev
			}
		}
		prev = row
		if e.EndSequence {
			inSeq = false
		}
	}
	if err == io.EOF {
		err = nil
	}
	lf := lr.Files()
	files := make([]string, len(lf))
	for i, f := range lf {
		if f != nil {
			files[i] = f.Name
		}
	}
	return found, files, err
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
	r := x.d.Reader()
	r.Seek(cu.entry.Offset)
	if _, err := r.Next(); err != nil { // the unit itself
		return err
	}
	if !cu.entry.Children {
		return nil
	}
	// stack holds, per open entry with children, the scope its children
	// belong to (-1 at the top level).
	stack := []int32{-1}
	for len(stack) > 0 {
		e, err := r.Next()
		if err != nil {
			return err
		}
		if e == nil {
			return nil
		}
		if e.Tag == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		parent := stack[len(stack)-1]
		switch e.Tag {
		case dwarf.TagSubprogram, dwarf.TagInlinedSubroutine:
			rs, err := x.d.Ranges(e)
			if err != nil || len(rs) == 0 || !overlaps(rs, pcs) {
				r.SkipChildren()
				continue
			}
			s := scope{ranges: rs, entry: e.Offset, inlined: e.Tag == dwarf.TagInlinedSubroutine}
			if s.inlined {
				s.callFile, _ = e.Val(dwarf.AttrCallFile).(int64)
				s.callLine, _ = e.Val(dwarf.AttrCallLine).(int64)
			} else {
				parent = -1 // a nested function starts a new chain
			}
			idx := int32(len(cu.scopes))
			cu.scopes = append(cu.scopes, s)
			if parent >= 0 && s.inlined {
				cu.scopes[parent].children = append(cu.scopes[parent].children, idx)
			} else {
				for _, rg := range rs {
					cu.roots = append(cu.roots, scopeRange{rg[0], rg[1], idx})
				}
			}
			if e.Children {
				stack = append(stack, idx)
			}
		case dwarf.TagLexDwarfBlock, dwarf.TagNamespace, dwarf.TagModule,
			dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType:
			// Blocks hold inlined calls; namespaces and classes hold
			// functions (C++, Fortran modules).
			if e.Children {
				stack = append(stack, parent)
			}
		default:
			r.SkipChildren()
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
	chain := cu.chain(pc)
	if len(chain) == 0 {
		if !ok {
			return nil
		}
		return []Frame{{File: file, Line: line}} // the caller names it from the symbol table
	}
	if noInlines {
		return []Frame{{Func: res.name(cu.scopes[chain[0]].entry), File: file, Line: line}}
	}
	frames := make([]Frame, 0, len(chain))
	for i := len(chain) - 1; i >= 0; i-- {
		s := &cu.scopes[chain[i]]
		frames = append(frames, Frame{Func: res.name(s.entry), File: file, Line: line})
		if s.inlined {
			file, line = cu.fileName(s.callFile), s.callLine
		}
	}
	return frames
}

// chain returns the scopes holding pc, outermost first.
func (cu *cuInfo) chain(pc uint64) []int32 {
	i := sort.Search(len(cu.roots), func(i int) bool { return cu.roots[i].lo > pc }) - 1
	var root int32 = -1
	for j := i; j >= 0 && j > i-8; j-- {
		if pc < cu.roots[j].hi {
			root = cu.roots[j].scope
			break
		}
	}
	if root < 0 {
		return nil
	}
	chain := []int32{root}
	for cur := root; ; {
		next := int32(-1)
		for _, c := range cu.scopes[cur].children {
			if contains(cu.scopes[c].ranges, pc) {
				next = c
				break
			}
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
// C++ method), else its plain name.
func (res *resolver) name(off dwarf.Offset) string {
	if n, ok := res.names[off]; ok {
		return n
	}
	n := res.resolveName(off, 0)
	res.names[off] = n
	return n
}

// resolver follows references between entries for names; one per
// goroutine (a dwarf.Reader is not shared).
type resolver struct {
	r     *dwarf.Reader
	names map[dwarf.Offset]string
}

const attrMIPSLinkageName dwarf.Attr = 0x2007

func (res *resolver) resolveName(off dwarf.Offset, depth int) string {
	if depth > 8 {
		return ""
	}
	res.r.Seek(off)
	e, err := res.r.Next()
	if err != nil || e == nil {
		return ""
	}
	for _, a := range []dwarf.Attr{dwarf.AttrLinkageName, attrMIPSLinkageName} {
		if s, ok := e.Val(a).(string); ok && s != "" {
			return s
		}
	}
	plain, _ := e.Val(dwarf.AttrName).(string)
	for _, a := range []dwarf.Attr{dwarf.AttrAbstractOrigin, dwarf.AttrSpecification} {
		if ref, ok := e.Val(a).(dwarf.Offset); ok && ref != off {
			if n := res.resolveName(ref, depth+1); n != "" {
				return n
			}
		}
	}
	return plain
}
