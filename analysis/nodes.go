package analysis

import (
	"bytes"
	"cmp"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pprof-tui/pprof-tui/format"
)

// NodeInfo identifies a node of the report at some granularity: the
// fields pprof keeps for it, the rest zero. Two frames are one node when
// their NodeInfos are equal.
type NodeInfo struct {
	Name      string
	File      string
	Line      int64
	Column    int64
	Address   uint64
	Objfile   string // the mapping, named when nothing else is known
	StartLine int64
}

// PrintableName is the node's name as pprof prints it in -top.
func (n *NodeInfo) PrintableName() string {
	return string(n.appendName(make([]byte, 0, len(n.Name)+len(n.File)+32)))
}

// appendName appends PrintableName to b. Built by hand rather than with
// fmt: a million nodes at the lines granularity each get one.
func (n *NodeInfo) appendName(b []byte) []byte {
	start := len(b)
	sep := func() {
		if len(b) > start {
			b = append(b, ' ')
		}
	}
	if n.Address != 0 {
		h := strconv.FormatUint(n.Address, 16)
		for i := len(h); i < 16; i++ {
			b = append(b, '0')
		}
		b = append(b, h...)
	}
	if n.Name != "" {
		sep()
		b = append(b, n.Name...)
	}
	switch {
	case n.Line != 0:
		sep()
		b = append(b, n.File...)
		b = append(b, ':')
		b = strconv.AppendInt(b, n.Line, 10)
		if n.Column != 0 {
			b = append(b, ':')
			b = strconv.AppendInt(b, n.Column, 10)
		}
	case n.File != "":
		sep()
		b = append(b, n.File...)
	case n.Name != "":
	case n.Objfile != "":
		sep()
		b = append(b, '[')
		b = append(b, filepath.Base(n.Objfile)...)
		b = append(b, ']')
	default:
		sep()
		b = append(b, "<unknown>"...)
	}
	return b
}

// lineTable numbers every frame slot of the profile: each Line of each
// Location, and one slot for a Location without lines.
type lineTable struct {
	off []int32 // location l's slots are off[l]:off[l+1], innermost first
}

func newLineTable(p *format.Profile) lineTable {
	off := make([]int32, len(p.Locations)+1)
	n := int32(0)
	for i := range p.Locations {
		off[i] = n
		n += max(1, p.Locations[i].Lines.N)
	}
	off[len(p.Locations)] = n
	return lineTable{off: off}
}

// nodeTable maps every frame slot to its node at one granularity.
//
// At the lines granularity the nodes of named functions' lines come
// first and are kept as a function and a line (lineNodes): their
// NodeInfo and printable name are made when asked for (info, name), as
// a screen shows a few of a million rows. The other nodes keep both.
type nodeTable struct {
	granularity string
	noInlines   bool
	lineNodes
	// kept and keptNames are the NodeInfo and printable name of nodes
	// len(lineNodes.line) and up.
	kept      []NodeInfo
	keptNames []string
	slotNode  []int32 // frame slot → node
	// nodeFunc is each node's function, an index into funcs, or -1:
	// functions with one name share nothing else.
	nodeFunc []int32
	// funcs are the functions' shares of their nodes' NodeInfo: the
	// name, and the file and start line where the granularity keeps them.
	funcs []NodeInfo
	// funcOf is, per entry of funcs, a profile function it stands for.
	funcOf []int32
	names  *nameRanks // the profile's function names in order

	// plain flags per stack whether no node occurs in it twice
	// (plainStack, repeatStack, or unknownStack for a stack no walk has
	// seen yet), once a walk has told it (see aggregate.sumRange); nil
	// before. Set once, never modified.
	plain atomic.Pointer[[]uint8]

	staticOnce sync.Once
	statics    *staticEdges

	rankOnce sync.Once
	// nameRank and infoRank order the nodes for sorting rows, and
	// byInfo lists the nodes by infoRank (see ranks); nil at the
	// addresses granularity.
	nameRank, infoRank, byInfo []int32

	namesOnce sync.Once
	everyName []string // every node's name, once allNames made them
}

// lineNodes are the lines granularity's nodes of named functions: node
// n is line[n] (and column col[n], if columns are kept) of the function
// whose NodeInfo is funcs[nodeFunc[n]].
type lineNodes struct {
	line, col []int64
}

// funcName is function f's name (at the files granularity, "").
func (t *nodeTable) funcName(f int32) string { return t.funcs[f].Name }

// len is the number of nodes.
func (t *nodeTable) len() int { return len(t.line) + len(t.kept) }

// info returns node n's NodeInfo.
func (t *nodeTable) info(n int32) NodeInfo {
	if int(n) >= len(t.line) {
		return t.kept[int(n)-len(t.line)]
	}
	ni := t.funcs[t.nodeFunc[n]]
	ni.Line = t.line[n]
	if t.col != nil {
		ni.Column = t.col[n]
	}
	return ni
}

// name returns node n's printable name.
func (t *nodeTable) name(n int32) string {
	if int(n) >= len(t.line) {
		return t.keptNames[int(n)-len(t.line)]
	}
	ni := t.info(n)
	return ni.PrintableName()
}

// appendName appends node n's printable name to b.
func (t *nodeTable) appendName(b []byte, n int32) []byte {
	if int(n) >= len(t.line) {
		return append(b, t.keptNames[int(n)-len(t.line)]...)
	}
	ni := t.info(n)
	return ni.appendName(b)
}

// allNames returns every node's printable name, made once, for the few
// who look at all of them (the folded report; sorting names where
// ranks has no shortcut). Safe for concurrent use.
func (t *nodeTable) allNames() []string {
	t.namesOnce.Do(func() {
		if len(t.line) == 0 {
			t.everyName = t.keptNames
			return
		}
		size := 0
		for n := range t.line {
			ni := &t.funcs[t.nodeFunc[n]]
			// name file:line:column, numbers at most 20 bytes each.
			size += len(ni.Name) + len(ni.File) + 44
		}
		buf := make([]byte, 0, size)
		ends := make([]int, len(t.line))
		for n := range t.line {
			buf = t.appendName(buf, int32(n))
			ends[n] = len(buf)
		}
		all := string(buf)
		names := make([]string, t.len())
		from := 0
		for n, end := range ends {
			names[n] = all[from:end]
			from = end
		}
		copy(names[len(t.line):], t.keptNames)
		t.everyName = names
	})
	return t.everyName
}

// plainStacks returns the per-stack flags of plain, or nil.
func (t *nodeTable) plainStacks() []uint8 {
	if f := t.plain.Load(); f != nil {
		return *f
	}
	return nil
}

// setPlainStacks keeps flags unless some were kept already.
func (t *nodeTable) setPlainStacks(flags []uint8) {
	t.plain.CompareAndSwap(nil, &flags)
}

// staticEdges are a node table's call edges within locations: from each
// line to the next-inner line of its location, where their nodes differ.
// Walks sum them by id (edgeSums.static) instead of looking each up per
// location.
type staticEdges struct {
	// slot is, per frame slot, the id of the edge into it, or -1 for
	// the outermost line and where both lines are one node.
	slot  []int32
	index edgeIndex // the edges by id
}

// staticEdges numbers t's static edges, once.
func (t *nodeTable) staticEdges(p *format.Profile, lt lineTable) *staticEdges {
	t.staticOnce.Do(func() {
		se := &staticEdges{slot: make([]int32, len(t.slotNode)), index: newEdgeIndex(0)}
		for l := range p.Locations {
			from, to := lt.off[l], lt.off[l+1]
			for s := from; s < to; s++ {
				se.slot[s] = -1
				if s+1 < to {
					if parent, n := t.slotNode[s+1], t.slotNode[s]; parent != n {
						se.slot[s], _ = se.index.number(edgeKey{parent, n})
					}
				}
			}
		}
		t.statics = se
	})
	return t.statics
}

// ranks numbers the nodes in the order of pprof's name tie-breaks:
// nameRank by printable name (equal names, equal ranks) and infoRank by
// name and then the printed NodeInfo (lessInfo). Sorting rows then
// compares integers, not strings: sorting a million rows by name took
// 1.5 s, for every table at the lines granularity. At the
// addresses granularity names and addresses interleave (compareNames)
// and rows are sorted by them directly.
func (t *nodeTable) ranks() (nameRank, infoRank []int32) {
	if t.granularity == "addresses" {
		return nil, nil
	}
	t.rankOnce.Do(func() {
		order, same := t.nameOrder()
		t.nameRank, t.infoRank = make([]int32, len(order)), make([]int32, len(order))
		r := int32(0)
		for i, id := range order {
			if !same[i] {
				r = int32(i)
			}
			t.nameRank[id], t.infoRank[id] = r, int32(i)
		}
		t.byInfo = order
	})
	return t.nameRank, t.infoRank
}

// nameOrder lists the nodes by printable name, then by printed NodeInfo
// (lessInfo). Where every name is "function suffix" (functionRanks),
// the nodes are put in order of their function's name by a counting
// sort and only each function's few nodes are compared: a string sort
// of a million names sharing long package paths took 0.9 s. There the
// names of one function's nodes are compared past the function's name,
// which they share, printed for the comparison and dropped. same[i]
// reports whether order[i] has the name of order[i-1].
func (t *nodeTable) nameOrder() (order []int32, same []bool) {
	order = make([]int32, t.len())
	same = make([]bool, len(order))
	byInfo := func(a, b int32) int {
		ia, ib := t.info(a), t.info(b)
		return strings.Compare(infoString(&ia), infoString(&ib))
	}
	fn := t.functionRanks()
	if fn == nil {
		names := t.allNames()
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortFunc(order, func(a, b int32) int {
			if c := strings.Compare(names[a], names[b]); c != 0 {
				return c
			}
			return byInfo(a, b)
		})
		for i := 1; i < len(order); i++ {
			same[i] = names[order[i]] == names[order[i-1]]
		}
		return order, same
	}
	start := make([]int32, len(t.funcs)+1) // function rank r's nodes are order[start[r]:start[r+1]]
	for _, r := range fn {
		start[r+1]++
	}
	for r := 1; r < len(start); r++ {
		start[r] += start[r-1]
	}
	next := slices.Clone(start)
	for i, r := range fn {
		order[next[r]] = int32(i)
		next[r]++
	}
	// A node's name past its function's name, in buf.
	type rest struct{ from, to, n int32 }
	var buf []byte
	var rests []rest
	restOf := func(r rest) []byte { return buf[r.from:r.to] }
	for r := 0; r+1 < len(start); r++ {
		group := order[start[r]:start[r+1]]
		if len(group) < 2 {
			continue
		}
		buf, rests = buf[:0], rests[:0]
		if t.oneFunction(group) {
			// The lines of one function: their names share the function
			// and its file, and differ from ":" on (there is none for
			// line 0, which goes first), so that is what is printed.
			for _, n := range group {
				at := len(buf)
				if line := t.line[n]; line != 0 {
					buf = strconv.AppendInt(buf, line, 10)
					if t.col != nil && t.col[n] != 0 {
						buf = append(buf, ':')
						buf = strconv.AppendInt(buf, t.col[n], 10)
					}
				}
				rests = append(rests, rest{int32(at), int32(len(buf)), n})
			}
		} else {
			for _, n := range group {
				at := len(buf)
				buf = t.appendName(buf, n)
				rests = append(rests, rest{int32(at + len(t.funcName(t.nodeFunc[n]))), int32(len(buf)), n})
			}
		}
		slices.SortFunc(rests, func(a, b rest) int {
			if c := bytes.Compare(restOf(a), restOf(b)); c != 0 {
				return c
			}
			return byInfo(a.n, b.n)
		})
		for i, x := range rests {
			group[i] = x.n
			same[int(start[r])+i] = i > 0 && bytes.Equal(restOf(x), restOf(rests[i-1]))
		}
	}
	return order, same
}

// oneFunction reports whether nodes are all lines (lineNodes) of one
// function.
func (t *nodeTable) oneFunction(nodes []int32) bool {
	for _, n := range nodes {
		if int(n) >= len(t.line) || t.nodeFunc[n] != t.nodeFunc[nodes[0]] {
			return false
		}
	}
	return true
}

// functionRanks returns, per node, the rank of its function name among
// the nodes' function names, when ordering printable names is ordering
// by that rank and then by the rest of the name: every node is named
// (its printable name starts with NodeInfo.Name) and no function name
// is another's prefix followed by a byte that sorts before the space
// after it. Otherwise nil.
func (t *nodeTable) functionRanks() []int32 {
	for i, f := range t.nodeFunc {
		if f < 0 || t.funcName(f) == "" {
			return nil
		}
		// A line node's name starts with its function's by construction.
		if k := i - len(t.line); k >= 0 && !strings.HasPrefix(t.keptNames[k], t.funcName(f)) {
			return nil
		}
	}
	rank := t.names.get()
	if rank == nil {
		return nil
	}
	fn := make([]int32, len(t.nodeFunc))
	for i, f := range t.nodeFunc {
		fn[i] = rank[t.funcOf[f]]
	}
	return fn
}

// nameRanks ranks a profile's function names once for all its node
// tables (sorting wide's 100,000 names took ~130 ms, for each table).
type nameRanks struct {
	p    *format.Profile
	once sync.Once
	rank []int32
}

// get returns each profile function's name's rank among the distinct
// names (equal names share one; fewer ranks than functions), or nil when
// a name is another's prefix followed by a byte that sorts before the
// space after it (see functionRanks).
func (r *nameRanks) get() []int32 {
	r.once.Do(func() {
		fns := r.p.Functions
		order := make([]int32, len(fns))
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortFunc(order, func(a, b int32) int { return strings.Compare(fns[a].Name, fns[b].Name) })
		rank := make([]int32, len(order))
		k := int32(0)
		for i := 1; i < len(order); i++ {
			prev, cur := fns[order[i-1]].Name, fns[order[i]].Name
			if cur != prev {
				// Names with a prefix follow it, the smallest next byte first.
				if strings.HasPrefix(cur, prev) && cur[len(prev)] <= ' ' {
					return
				}
				k++
			}
			rank[order[i]] = k
		}
		r.rank = rank
	})
	return r.rank
}

// numberLines makes the nodes of named functions' frame slots at the
// lines granularity, function by function: the slots are grouped by
// function with a counting sort and each function's few slots sorted by
// line and column, so that a node's slots are adjacent. Finding the
// nodes through a map of the 1.7M slots of a profile with 1.1M
// locations took 1.0 s of the table's 1.2 s. The nodes keep
// their function and line: making a NodeInfo and a name for each of
// them took 0.25 s more, and their strings were most of the collector's
// work after it.
func (t *nodeTable) numberLines(p *format.Profile, lt lineTable, canonFn []int32, fnInfo []NodeInfo, fnNamed []bool, keepCol bool) {
	named := func(ln format.Line) (int32, bool) {
		if ln.Function < 0 {
			return 0, false
		}
		f := canonFn[ln.Function]
		return f, fnNamed[f]
	}
	start := make([]int32, len(fnInfo)+1) // function f's slots are slots[start[f]:start[f+1]]
	for li := range p.Locations {
		for _, ln := range p.LinesOf(&p.Locations[li]) {
			if f, ok := named(ln); ok {
				start[f+1]++
			}
		}
	}
	for f := 1; f < len(start); f++ {
		start[f] += start[f-1]
	}
	type slot struct {
		line, col int64
		at        int32 // the frame slot
	}
	slots := make([]slot, start[len(fnInfo)])
	next := slices.Clone(start[:len(fnInfo)])
	for li := range p.Locations {
		loc := &p.Locations[li]
		for k, ln := range p.LinesOf(loc) {
			if f, ok := named(ln); ok {
				s := slot{line: ln.Line, at: lt.off[li] + int32(k)}
				if keepCol {
					s.col = ln.Column
				}
				slots[next[f]] = s
				next[f]++
			}
		}
	}
	// Sorted, and counted, so that the tables are allocated once: grown
	// by appends, they were copied over and over (0.3 s). Functions
	// [lo, hi) at a time: with many slots, the two halves of the slots on
	// two goroutines.
	sortCount := func(lo, hi int) (nodes int) {
		for f := lo; f < hi; f++ {
			group := slots[start[f]:start[f+1]]
			if len(group) > 1 {
				slices.SortFunc(group, func(a, b slot) int {
					if c := cmp.Compare(a.line, b.line); c != 0 {
						return c
					}
					return cmp.Compare(a.col, b.col)
				})
			}
			for i, s := range group {
				if i == 0 || s.line != group[i-1].line || s.col != group[i-1].col {
					nodes++
				}
			}
		}
		return nodes
	}
	// Functions [lo, hi)'s nodes, numbered from at.
	fill := func(lo, hi, at int) {
		for f := lo; f < hi; f++ {
			group := slots[start[f]:start[f+1]]
			for i, s := range group {
				if i == 0 || s.line != group[i-1].line || s.col != group[i-1].col {
					t.line[at] = s.line
					if keepCol {
						t.col[at] = s.col
					}
					t.nodeFunc[at] = int32(f)
					at++
				}
				t.slotNode[s.at] = int32(at - 1)
			}
		}
	}
	nf := len(fnInfo)
	h := nf
	if len(slots) >= parallelLocations {
		// The function whose slots start past half of them.
		h, _ = slices.BinarySearch(start[:nf], int32(len(slots)/2))
	}
	var counts [2]int
	splitAt(h, nf, func(part, lo, hi int) { counts[part] = sortCount(lo, hi) })
	nodes := counts[0] + counts[1]
	t.line = make([]int64, nodes)
	if keepCol {
		t.col = make([]int64, nodes)
	}
	t.nodeFunc = make([]int32, nodes)
	splitAt(h, nf, func(part, lo, hi int) { fill(lo, hi, part*counts[0]) })
}

// newNodeTable builds the nodes as pprof's Aggregate and nodeInfo do:
// granularity decides which of name, file, line and address survive, and
// showColumns whether columns do at the lines and addresses granularities.
//
// Frames are matched by integers, not by NodeInfo: each function's and
// mapping's share of a NodeInfo is reduced to a number once, so a frame
// slot costs one lookup of a small pointer-free key. Hashing NodeInfos
// (two strings each) per slot took 2.7 s at the lines granularity of a
// profile with 1.1M locations.
func newNodeTable(p *format.Profile, lt lineTable, names *nameRanks, granularity string, noInlines, showColumns bool) *nodeTable {
	keepFunc, keepFile, keepLine, keepAddr, keepCol := true, false, false, false, false
	switch granularity {
	case "filefunctions":
		keepFile = true
	case "files":
		keepFunc, keepFile = false, true
	case "lines":
		keepFile, keepLine, keepCol = true, true, showColumns
	case "addresses":
		keepFile, keepLine, keepAddr = true, true, true
		// pprof skips aggregation entirely for addresses with inlines,
		// so columns always survive there.
		keepCol = showColumns || !noInlines
	}
	t := &nodeTable{granularity: granularity, noInlines: noInlines, names: names, slotNode: make([]int32, lt.off[len(lt.off)-1])}

	// A function's share of its frames' NodeInfo: name, file and, when
	// the name is not kept, start line (with the mapping then).
	type funcKey struct {
		name, file string
		startLine  int64
	}
	funcIDs := make(map[funcKey]int32, len(p.Functions))
	canonFn := make([]int32, len(p.Functions))
	fnInfo := make([]NodeInfo, 0, len(p.Functions))
	var fnNamed []bool // per canonical function: its name is kept
	for f := range p.Functions {
		fn := &p.Functions[f]
		var ni NodeInfo
		if keepFunc {
			ni.Name = fn.Name
		}
		if keepFile && fn.Filename != "" {
			ni.File = filepath.Clean(fn.Filename)
		}
		if ni.Name == "" {
			ni.StartLine = fn.StartLine
		}
		k := funcKey{ni.Name, ni.File, ni.StartLine}
		id, ok := funcIDs[k]
		if !ok {
			id = int32(len(fnInfo))
			fnInfo = append(fnInfo, ni)
			t.funcOf = append(t.funcOf, int32(f))
			fnNamed = append(fnNamed, ni.Name != "")
			funcIDs[k] = id
		}
		canonFn[f] = id
	}
	t.funcs = fnInfo
	// A mapping's share: its file, when a frame's NodeInfo keeps it.
	objIDs := map[string]int32{"": 0}
	objFiles := []string{""}
	canonObj := make([]int32, len(p.Mappings))
	for m := range p.Mappings {
		file := p.Mappings[m].File
		id, ok := objIDs[file]
		if !ok {
			id = int32(len(objFiles))
			objFiles = append(objFiles, file)
			objIDs[file] = id
		}
		canonObj[m] = id
	}

	type slotKey struct {
		fn        int32 // canonical function, or -1
		obj       int32 // canonical mapping file, when kept
		line, col int64
		addr      uint64
	}
	var index map[slotKey]int32
	// Where a named function's node depends on the function alone
	// (functions, filefunctions), it is found once per function.
	var byFunc []int32 // canonical function → node+1, 0 until seen
	// At the lines granularity, named functions' slots are numbered
	// without the map (numberLines); the loop below does the others.
	grouped := keepLine && !keepAddr
	switch {
	case keepFunc && !keepLine && !keepAddr && !keepCol:
		byFunc = make([]int32, len(fnInfo))
		index = make(map[slotKey]int32)
	case grouped:
		index = make(map[slotKey]int32)
		t.numberLines(p, lt, canonFn, fnInfo, fnNamed, keepCol)
	default:
		// About a node per slot (every line its own) is the common case.
		index = make(map[slotKey]int32, len(t.slotNode))
		t.kept = make([]NodeInfo, 0, len(t.slotNode))
		t.keptNames = make([]string, 0, len(t.slotNode))
		t.nodeFunc = make([]int32, 0, len(t.slotNode))
	}
	for li := range p.Locations {
		loc := &p.Locations[li]
		obj := int32(0)
		if loc.Mapping >= 0 {
			obj = canonObj[loc.Mapping]
		}
		addr := uint64(0)
		if keepAddr {
			addr = loc.Address
		}
		base := lt.off[li]
		lines := p.LinesOf(loc)
		n := max(1, len(lines))
		for k := 0; k < n; k++ {
			key := slotKey{fn: -1, obj: obj, addr: addr}
			if len(lines) > 0 && lines[k].Function >= 0 {
				ln := lines[k]
				key.fn = canonFn[ln.Function]
				named := fnNamed[key.fn]
				if grouped && named {
					continue
				}
				if byFunc != nil && named {
					if id := byFunc[key.fn]; id > 0 {
						t.slotNode[base+int32(k)] = id - 1
						continue
					}
				}
				if named {
					key.obj = -1
				}
				if keepLine {
					key.line = ln.Line
				}
				if keepCol {
					key.col = ln.Column
				}
			}
			id, ok := index[key]
			if !ok {
				var ni NodeInfo
				if key.fn >= 0 {
					ni = fnInfo[key.fn]
				}
				ni.Address, ni.Line, ni.Column = key.addr, key.line, key.col
				if key.obj >= 0 {
					ni.Objfile = objFiles[key.obj]
				}
				id = int32(t.len())
				t.kept = append(t.kept, ni)
				t.keptNames = append(t.keptNames, ni.PrintableName())
				t.nodeFunc = append(t.nodeFunc, key.fn)
				index[key] = id
			}
			t.slotNode[base+int32(k)] = id
			if byFunc != nil && key.fn >= 0 && fnNamed[key.fn] {
				byFunc[key.fn] = id + 1
			}
		}
	}
	return t
}
