package analysis

import (
	"slices"
	"strconv"
	"strings"
)

// Pivot is every stack through one function, split at it (speedscope's
// and Grafana's sandwich, pprof's flame graph "viewing callers"): the
// tree of its callees, whose roots are the function, and the inverted
// tree of its callers, of whose roots those of the function are the
// pivot's. Each half merges all the function's call sites, and both are
// as wide as its cum.
type Pivot struct {
	Callees, Callers *Tree
	// CallerRoots are the Callers roots that are the function.
	CallerRoots []*TreeNode
	// Flat is the function's flat: the value of the stacks it ends.
	Flat int64
}

// Pivot computes the pivot on the function named name (as FuncName
// names nodes), its two trees on two cores. Its callees' tree is
// pprof's -focus=^name$ -show_from=^name$ (each stack through it cut
// above its outermost call), its callers' -focus=^name$
// -prune_from=^name$ (cut below its innermost call) read leaf first.
// Unlike prune_from, which matches a name cut at its first "(", the cut
// is made at the function itself, a method too.
func (e *Engine) Pivot(opt Options, name string) (*Pivot, error) {
	q, err := e.newQuery(opt)
	if err != nil {
		return nil, err
	}
	from := make([]bool, q.nodes.len())
	ns := &NodeSet{q.nodes}
	for i := range from {
		from[i] = ns.FuncName(int32(i)) == name
	}
	through, inner, outer := stacksThrough(q, from)
	p := &Pivot{}
	var err2 error
	both(func() {
		p.Callers, err2 = e.Tree(opt, TreeOptions{Inverted: true, From: from, through: through, throughAt: inner})
	}, func() {
		p.Callees, err = e.Tree(opt, TreeOptions{From: from, through: through, throughAt: outer})
	})
	if err == nil {
		err = err2
	}
	if err != nil {
		return nil, err
	}
	p.CallerRoots = p.Callers.Roots()
	for _, r := range p.Callees.Roots() {
		p.Flat += p.Callees.Flat(r.Node)
	}
	return p, nil
}

// FuncName is what a selection names node n by, the key every view
// passes the selected node by: its function's name, or its file or
// object where it has none — what focus regexps match. A node with none
// of the three (code no symbol names, in no named mapping) is named as
// pprof labels it: its address at the addresses granularity, else
// "<unknown>" (Unnamed tells such a key from a name).
func (s *NodeSet) FuncName(n int32) string {
	info := s.Info(n)
	switch {
	case info.Name != "":
		return info.Name
	case info.File != "":
		return info.File
	case info.Objfile != "":
		return info.Objfile
	}
	return s.Name(n)
}

// Unnamed reports whether key, a FuncName, is the label of a node with
// no function, file or object name: one no focus, ignore or hide regexp
// can match (pprof's match names, not addresses), so no filter selects
// it.
func Unnamed(key string) bool {
	rest, ok := strings.CutSuffix(key, "<unknown>")
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	addr, ok := strings.CutSuffix(rest, " ")
	if !ok || len(addr) != 16 {
		return false
	}
	_, err := strconv.ParseUint(addr, 16, 64)
	return err == nil
}

// stacksThrough returns the stacks with a location that has a frame of
// a from node in q's location view, ascending, scanned in two halves on
// two cores: every stack whose path has such a frame, after the filters
// and any fold, which only take frames away. inner and outer are, per
// stack returned, the index in Stacks.Locs of its innermost and its
// outermost such location: where the pivot's callers and callees start.
func stacksThrough(q *query, from []bool) (stacks, inner, outer []int32) {
	at := q.locsWith(from)
	st := &q.e.p.Stacks
	n := st.Len()
	type part struct{ stacks, inner, outer []int32 }
	var parts [2]part
	inHalves(n, parallelGroup, func(k, lo, hi int) {
		var p part
		for s := lo; s < hi; s++ {
			locs := st.At(int32(s))
			in := slices.IndexFunc(locs, func(l int32) bool { return at[l] })
			if in < 0 {
				continue
			}
			out := len(locs) - 1
			for !at[locs[out]] {
				out--
			}
			base := st.Off[s]
			p.stacks = append(p.stacks, int32(s))
			p.inner = append(p.inner, base+int32(in))
			p.outer = append(p.outer, base+int32(out))
		}
		parts[k] = p
	})
	return append(parts[0].stacks, parts[1].stacks...),
		append(parts[0].inner, parts[1].inner...),
		append(parts[0].outer, parts[1].outer...)
}
