package analysis

import (
	"path/filepath"
	"strconv"

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
	// Built by hand rather than with fmt: a million nodes at the lines
	// granularity each get one.
	b := make([]byte, 0, len(n.Name)+len(n.File)+32)
	sep := func() {
		if len(b) > 0 {
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
	return string(b)
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
type nodeTable struct {
	granularity string
	noInlines   bool
	nodes       []NodeInfo
	names       []string // PrintableName of each node
	slotNode    []int32  // frame slot → node
}

// newNodeTable builds the nodes as pprof's Aggregate and nodeInfo do:
// granularity decides which of name, file, line and address survive, and
// showColumns whether columns do at the lines and addresses granularities.
func newNodeTable(p *format.Profile, lt lineTable, granularity string, noInlines, showColumns bool) *nodeTable {
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
	t := &nodeTable{granularity: granularity, noInlines: noInlines, slotNode: make([]int32, lt.off[len(lt.off)-1])}
	index := make(map[NodeInfo]int32)
	// Where a named function's node depends on the function alone
	// (functions, filefunctions), it is looked up once per function, not
	// once per frame slot: profiles with a million locations spent most
	// of this table's time hashing NodeInfos (issue 11).
	var byFunc []int32 // function → node+1, 0 until seen
	if keepFunc && !keepLine && !keepAddr && !keepCol {
		byFunc = make([]int32, len(p.Functions))
	}
	for li := range p.Locations {
		loc := &p.Locations[li]
		var objfile string
		if loc.Mapping >= 0 {
			objfile = p.Mappings[loc.Mapping].File
		}
		addr := uint64(0)
		if keepAddr {
			addr = loc.Address
		}
		base := lt.off[li]
		lines := p.LinesOf(loc)
		n := max(1, len(lines))
		for k := 0; k < n; k++ {
			var ni NodeInfo
			if byFunc != nil && len(lines) > 0 && lines[k].Function >= 0 {
				if id := byFunc[lines[k].Function]; id > 0 {
					t.slotNode[base+int32(k)] = id - 1
					continue
				}
			}
			if len(lines) == 0 || lines[k].Function < 0 {
				ni = NodeInfo{Address: addr, Objfile: objfile}
			} else {
				ln := lines[k]
				fn := &p.Functions[ln.Function]
				ni.Address = addr
				if keepLine {
					ni.Line = ln.Line
				}
				if keepCol {
					ni.Column = ln.Column
				}
				if keepFunc {
					ni.Name = fn.Name
				}
				if keepFile && fn.Filename != "" {
					ni.File = filepath.Clean(fn.Filename)
				}
				if ni.Name == "" {
					ni.Objfile = objfile
					ni.StartLine = fn.StartLine
				}
			}
			id, ok := index[ni]
			if !ok {
				id = int32(len(t.nodes))
				t.nodes = append(t.nodes, ni)
				t.names = append(t.names, ni.PrintableName())
				index[ni] = id
			}
			t.slotNode[base+int32(k)] = id
			if byFunc != nil && ni.Name != "" {
				byFunc[lines[k].Function] = id + 1
			}
		}
	}
	return t
}
