package analysis

import (
	"path/filepath"
	"strconv"
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
	if n.Address == 0 && n.Line == 0 && n.File == "" && n.Name != "" {
		return n.Name // a function's node: its name, not a copy
	}
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
