package analysis

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pprof-tui/pprof-tui/format"
)

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
		// The names beside their functions' indices: sorted through
		// the indices, every comparison would read two functions at
		// random.
		type fnName struct {
			name string
			f    int32
		}
		fns := r.p.Functions
		order := make([]fnName, len(fns))
		for f := range fns {
			order[f] = fnName{fns[f].Name, int32(f)}
		}
		slices.SortFunc(order, func(a, b fnName) int { return strings.Compare(a.name, b.name) })
		rank := make([]int32, len(order))
		k := int32(0)
		for i := 1; i < len(order); i++ {
			prev, cur := order[i-1].name, order[i].name
			if cur != prev {
				// Names with a prefix follow it, the smallest next byte first.
				if strings.HasPrefix(cur, prev) && cur[len(prev)] <= ' ' {
					return
				}
				k++
			}
			rank[order[i].f] = k
		}
		r.rank = rank
	})
	return r.rank
}

// compareNames orders two nodes by printable name as pprof does:
// addresses numerically when both have one, else the names as strings.
func compareNames(l, r *NodeInfo, ln, rn string) (equal, less bool) {
	if *l == *r {
		return true, false
	}
	if l.Address != 0 && r.Address != 0 && l.Address != r.Address {
		return false, l.Address < r.Address
	}
	return false, ln < rn
}

// lessInfo breaks the last ties between distinct nodes with one printable
// name (files granularity keeps a node per function start line): pprof
// compares the nodes' fields printed as one string.
func lessInfo(l, r *NodeInfo) bool {
	return infoString(l) < infoString(r)
}

func infoString(n *NodeInfo) string {
	return fmt.Sprintf("{%s %s %d %s %d %d %d %s}", n.Name, "", n.Address, n.File, n.StartLine, n.Line, n.Column, n.Objfile)
}
