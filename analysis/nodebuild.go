package analysis

import (
	"cmp"
	"path/filepath"
	"slices"

	"github.com/pprof-tui/pprof-tui/format"
)

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
