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
	k := keptFields(granularity, noInlines, showColumns)
	t := &nodeTable{granularity: granularity, noInlines: noInlines, names: names, slotNode: make([]int32, lt.off[len(lt.off)-1])}
	fns := t.canonFunctions(p, k)
	objs := canonMappings(p)
	// Where a named function's node depends on the function alone
	// (functions, filefunctions), it is found once per function.
	var byFunc []int32 // canonical function → node+1, 0 until seen
	var index map[slotKey]int32
	switch {
	case k.fn && !k.line && !k.addr && !k.col:
		byFunc = make([]int32, len(fns.info))
		index = make(map[slotKey]int32)
		// About a node per function: grown by appends, the tables were
		// copied over and over (50 MB allocated for wide's 100,000).
		t.kept = make([]NodeInfo, 0, len(fns.info))
		t.keptNames = make([]string, 0, len(fns.info))
		t.nodeFunc = make([]int32, 0, len(fns.info))
	case k.grouped():
		index = make(map[slotKey]int32)
		t.numberLines(p, lt, fns.canon, fns.info, fns.named, k.col)
	default:
		// About a node per slot (every line its own) is the common case.
		index = make(map[slotKey]int32, len(t.slotNode))
		t.kept = make([]NodeInfo, 0, len(t.slotNode))
		t.keptNames = make([]string, 0, len(t.slotNode))
		t.nodeFunc = make([]int32, 0, len(t.slotNode))
	}
	t.numberSlots(p, lt, k, fns, objs, index, byFunc)
	return t
}

// nodeFields are the NodeInfo fields a granularity keeps.
type nodeFields struct {
	fn, file, line, addr, col bool
}

func keptFields(granularity string, noInlines, showColumns bool) nodeFields {
	k := nodeFields{fn: true}
	switch granularity {
	case "filefunctions":
		k.file = true
	case "files":
		k.fn, k.file = false, true
	case "lines":
		k.file, k.line, k.col = true, true, showColumns
	case "addresses":
		k.file, k.line, k.addr = true, true, true
		// pprof skips aggregation entirely for addresses with inlines,
		// so columns always survive there.
		k.col = showColumns || !noInlines
	}
	return k
}

// grouped: at the lines granularity, named functions' slots are
// numbered without the slot index (numberLines).
func (k nodeFields) grouped() bool { return k.line && !k.addr }

// canonFuncs are the profile's functions reduced to their share of
// their frames' NodeInfo: name, file and, when the name is not kept,
// start line (with the mapping then).
type canonFuncs struct {
	canon []int32    // per profile function: its canonical function
	info  []NodeInfo // per canonical function
	named []bool     // per canonical function: its name is kept
}

// canonFunctions numbers the canonical functions, and sets t.funcs and
// t.funcOf.
func (t *nodeTable) canonFunctions(p *format.Profile, k nodeFields) canonFuncs {
	type funcKey struct {
		name, file string
		startLine  int64
	}
	// Where no file is kept, a named function is its name: a map keyed
	// by the name alone is hashed and probed in less time than one keyed
	// by funcKey (the wide shape's 100,000 functions).
	var byName map[string]int32
	funcIDs := map[funcKey]int32{}
	if !k.file {
		byName = make(map[string]int32, len(p.Functions))
	} else {
		funcIDs = make(map[funcKey]int32, len(p.Functions))
	}
	c := canonFuncs{canon: make([]int32, len(p.Functions)), info: make([]NodeInfo, 0, len(p.Functions)), named: make([]bool, 0, len(p.Functions))}
	t.funcOf = make([]int32, 0, len(p.Functions))
	for f := range p.Functions {
		fn := &p.Functions[f]
		var ni NodeInfo
		if k.fn {
			ni.Name = fn.Name
		}
		if k.file && fn.Filename != "" {
			ni.File = filepath.Clean(fn.Filename)
		}
		if ni.Name == "" {
			ni.StartLine = fn.StartLine
		}
		key := funcKey{ni.Name, ni.File, ni.StartLine}
		var id int32
		var ok bool
		keyName := byName != nil && ni.Name != ""
		if keyName {
			id, ok = byName[ni.Name]
		} else {
			id, ok = funcIDs[key]
		}
		if !ok {
			id = int32(len(c.info))
			c.info = append(c.info, ni)
			t.funcOf = append(t.funcOf, int32(f))
			c.named = append(c.named, ni.Name != "")
			if keyName {
				byName[ni.Name] = id
			} else {
				funcIDs[key] = id
			}
		}
		c.canon[f] = id
	}
	t.funcs = c.info
	return c
}

// canonObjs are the mappings reduced to their share of a frame's
// NodeInfo: the file, when a frame's NodeInfo keeps it.
type canonObjs struct {
	canon []int32  // per mapping: its file's id
	files []string // by id; 0 is ""
}

func canonMappings(p *format.Profile) canonObjs {
	ids := map[string]int32{"": 0}
	c := canonObjs{canon: make([]int32, len(p.Mappings)), files: []string{""}}
	for m := range p.Mappings {
		file := p.Mappings[m].File
		id, ok := ids[file]
		if !ok {
			id = int32(len(c.files))
			c.files = append(c.files, file)
			ids[file] = id
		}
		c.canon[m] = id
	}
	return c
}

// slotKey is what a frame slot's node is found by.
type slotKey struct {
	fn        int32 // canonical function, or -1
	obj       int32 // canonical mapping file, when kept
	line, col int64
	addr      uint64
}

// numberSlots gives every frame slot numberLines has not numbered its
// node, found through index (and byFunc, when not nil), made when new.
func (t *nodeTable) numberSlots(p *format.Profile, lt lineTable, k nodeFields, fns canonFuncs, objs canonObjs, index map[slotKey]int32, byFunc []int32) {
	grouped := k.grouped()
	canonFn, fnInfo, fnNamed := fns.canon, fns.info, fns.named
	for li := range p.Locations {
		loc := &p.Locations[li]
		obj := int32(0)
		if loc.Mapping >= 0 {
			obj = objs.canon[loc.Mapping]
		}
		addr := uint64(0)
		if k.addr {
			addr = loc.Address
		}
		base := lt.off[li]
		lines := p.LinesOf(loc)
		n := max(1, len(lines))
		for i := 0; i < n; i++ {
			key := slotKey{fn: -1, obj: obj, addr: addr}
			if len(lines) > 0 && lines[i].Function >= 0 {
				ln := lines[i]
				key.fn = canonFn[ln.Function]
				named := fnNamed[key.fn]
				if grouped && named {
					continue
				}
				if byFunc != nil && named {
					// The function alone is the node: no other key
					// names it, and the index need not hold it.
					id := byFunc[key.fn] - 1
					if id < 0 {
						id = t.addNode(fnInfo[key.fn], key.fn)
						byFunc[key.fn] = id + 1
					}
					t.slotNode[base+int32(i)] = id
					continue
				}
				if named {
					key.obj = -1
				}
				if k.line {
					key.line = ln.Line
				}
				if k.col {
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
					ni.Objfile = objs.files[key.obj]
				}
				id = t.addNode(ni, key.fn)
				index[key] = id
			}
			t.slotNode[base+int32(i)] = id
		}
	}
}

// addNode adds a node of function fn (or -1) after the others, and
// returns its id.
func (t *nodeTable) addNode(ni NodeInfo, fn int32) int32 {
	id := int32(t.len())
	t.kept = append(t.kept, ni)
	t.keptNames = append(t.keptNames, ni.PrintableName())
	t.nodeFunc = append(t.nodeFunc, fn)
	return id
}
