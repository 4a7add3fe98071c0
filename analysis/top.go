package analysis

import (
	"cmp"
	"errors"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pprof-tui/pprof-tui/format"
)

// Row is one line of the top table.
//
// Its name, as pprof prints it without the inline marker, is the table's
// Nodes.Name(Node): at the lines granularity names are made when asked
// for, as a table can have a million rows and a screen shows forty.
type Row struct {
	Node   int32 // node id, stable for the Engine and granularity
	Flat   int64
	Cum    int64
	Inline Marker
}

// Marker is a row's inline marker, printed after its name as pprof does:
// "(inline)" when every call into it was inlined, "(partial-inline)"
// when some were. A number, not a string, so that rows hold no pointer:
// a million of them cost the garbage collector nothing.
type Marker uint8

const (
	NotInlined Marker = iota
	Inlined
	PartlyInlined
)

// String is the marker as pprof prints it between parentheses, or "".
func (m Marker) String() string {
	switch m {
	case Inlined:
		return "inline"
	case PartlyInlined:
		return "partial-inline"
	}
	return ""
}

// Top is pprof's -top report.
type Top struct {
	SampleType format.ValueType
	// Total is the percentage denominator: the sum of |value| over all
	// samples (over the filtered ones with RelativePercentages).
	Total int64
	Rows  []Row
	// ShownTotal is the sum of the rows' flat values.
	ShownTotal int64
	// DroppedNodes were below NodeCutoff (by |cum|); NodeCutoff is 0 when
	// NodeFraction is 0.
	DroppedNodes int
	NodeCutoff   int64
	// AllNodes is the node count after NodeFraction, before NodeCount.
	AllNodes int
	Nodes    *NodeSet

	// agg is the aggregate the table was made from, when its call edges
	// were summed with it (every node a row): a table that differs only in
	// edge fraction or order is made from it again (see Engine.Top).
	agg *aggregate
	// inexact is how many of the last rows are not exact: in a table
	// from TopFirst that Top completes (Partial).
	inexact int
}

// Partial reports whether the table is exact only in its first rows
// (ExactRows), those TopFirst was asked for: the others' flat values,
// names and number are exact, their cum and inline markers are not (cum
// is 0), and rows of equal flat and name may be out of order. Top(opt)
// returns it complete.
func (t *Top) Partial() bool { return t.inexact > 0 }

// ExactRows is how many of the first rows are exact: all of them unless
// the table is partial.
func (t *Top) ExactRows() int { return len(t.Rows) - t.inexact }

// NodeSet names the nodes of a result; row.Node indexes it.
type NodeSet struct{ t *nodeTable }

// Info returns node n's identity.
func (s *NodeSet) Info(n int32) NodeInfo { return s.t.info(n) }

// Name returns node n's printable name.
func (s *NodeSet) Name(n int32) string { return s.t.name(n) }

// AppendName appends node n's printable name to b: for looking at every
// row's name without making a string of each.
func (s *NodeSet) AppendName(b []byte, n int32) []byte { return s.t.appendName(b, n) }

// CompareNames orders nodes a and b by printable name as strings.Compare
// would, through the ranks the table keeps for sorting rows where it has
// them.
func (s *NodeSet) CompareNames(a, b int32) int {
	if a == b {
		return 0
	}
	if rank, _ := s.t.ranks(); rank != nil {
		return cmp.Compare(rank[a], rank[b])
	}
	return strings.Compare(s.t.name(a), s.t.name(b))
}

// Find returns, per name, a node with that printable name, or -1: for
// following a selection from one table to another without making the
// names of a million rows. Only the lines of functions whose name starts
// one of names are printed.
func (s *NodeSet) Find(names []string) []int32 {
	t := s.t
	out := make([]int32, len(names))
	want := make(map[string]int, len(names)) // name → its first index in names
	for i, name := range names {
		out[i] = -1
		if _, ok := want[name]; !ok {
			want[name] = i
		}
	}
	for k, name := range t.keptNames {
		if i, ok := want[name]; ok && out[i] < 0 {
			out[i] = int32(len(t.line) + k)
		}
	}
	if len(t.line) > 0 {
		// A line's name is its function's name, then a space and more,
		// or nothing (no file, no line).
		heads := map[string]bool{}
		for name := range want {
			heads[name] = true
			for j := 0; j < len(name); j++ {
				if name[j] == ' ' {
					heads[name[:j]] = true
				}
			}
		}
		wanted := make([]bool, len(t.funcs))
		for f := range t.funcs {
			wanted[f] = heads[t.funcs[f].Name]
		}
		var buf []byte
		for n := range t.line {
			if !wanted[t.nodeFunc[n]] {
				continue
			}
			buf = t.appendName(buf[:0], int32(n))
			if i, ok := want[string(buf)]; ok && out[i] < 0 {
				out[i] = int32(n)
			}
		}
	}
	for i, name := range names {
		out[i] = out[want[name]]
	}
	return out
}

// Len returns the number of nodes.
func (s *NodeSet) Len() int { return s.t.len() }

// Top computes pprof's -top report. The result is shared: do not modify.
// The last few results are kept, so going back to options computed a
// moment ago (clearing a filter, the sample type cycling back) costs
// nothing.
func (e *Engine) Top(opt Options) (*Top, error) { return e.topRows(opt, 0, nil) }

// TopBackground is Top for work nobody waits for (completing a partial
// table while a person reads it): now and then its walk of the stacks
// waits while busy reports more urgent work, unless someone asks for the
// same table meanwhile (Top, TopFirst) and so waits for it.
func (e *Engine) TopBackground(opt Options, busy func() bool) (*Top, error) {
	return e.topRows(opt, 0, busy)
}

// TopFirst is Top for a screen that shows the first rows of the table
// (rows of them, or more): those rows are exact, and while the engine
// still walks stacks node by node (see aggregateFirst) the others' cum
// and inline markers are left out (Top.Partial). Top(opt) then completes
// the table: the explorer shows the first screen and asks for the rest
// in the background.
func (e *Engine) TopFirst(opt Options, rows int) (*Top, error) {
	return e.topRows(opt, max(rows, 1), nil)
}

// topRows is Top (rows 0), TopFirst or TopBackground (busy not nil).
func (e *Engine) topRows(opt Options, rows int, busy func() bool) (*Top, error) {
	key := e.topKey(opt)
	for {
		if t := e.recentTop(key); t != nil && (rows > 0 || !t.Partial()) {
			return t, nil
		}
		// One computation per table at a time: a second asker (s pressed
		// while the explorer prefetches that table) waits for the first's.
		e.mu.Lock()
		c := e.computing[key]
		if c == nil {
			break // with e.mu held
		}
		if busy == nil {
			// Someone waits for it: its walk no longer pauses. A second
			// background asker (the explorer completing a table it showed
			// again) waits as the first does.
			c.waiters.Add(1)
		}
		e.mu.Unlock()
		<-c.done
		if c.err != nil || rows > 0 || !c.t.Partial() {
			return c.t, c.err
		}
		// A partial table is done: complete it.
	}
	c := &topCall{done: make(chan struct{})}
	if e.computing == nil {
		e.computing = map[Options]*topCall{}
	}
	e.computing[key] = c
	e.mu.Unlock()
	defer func() {
		if c.t == nil && c.err == nil {
			c.err = errors.New("the table's computation failed") // it panicked
		}
		e.mu.Lock()
		delete(e.computing, key)
		e.mu.Unlock()
		close(c.done)
	}()
	// A partial table is completed by the whole walk (rows 0).
	var pause func()
	if busy != nil {
		pause = func() {
			for c.waiters.Load() == 0 && busy() {
				time.Sleep(2 * time.Millisecond)
			}
		}
	}
	c.t, c.err = e.top(opt, key, rows, pause)
	return c.t, c.err
}

// topCall is a Top table being computed.
type topCall struct {
	done    chan struct{}
	t       *Top
	err     error
	waiters atomic.Int32 // others who wait for it
}

func (e *Engine) top(opt, key Options, rows int, pause func()) (*Top, error) {
	akey := aggregateKey(key)
	if a := e.recentAggregate(akey); a != nil {
		// Only the edge fraction or the order differ from a kept
		// table's: its aggregate's sums and call edges serve (Peek's
		// table, with every edge, and sorting by cum skip the walk of
		// the stacks).
		r := opt.Trimmed()
		q := *a.q
		q.opt.EdgeFraction, q.opt.Sort = r.EdgeFraction, r.Sort
		b := *a
		b.q = &q
		t := b.top()
		t.agg = a
		e.keepTop(key, t)
		return t, nil
	}
	q, err := e.newQuery(opt)
	if err != nil {
		return nil, err
	}
	q.pause = pause
	a := q.aggregateFirst(rows)
	t := a.top()
	// A partial table is not kept as an aggregate: Top walks the stacks
	// again.
	if a.first == nil && a.inlEdges != nil {
		// The per-stack arrays are not needed to make a table again
		// with the edges summed, nor the edges' index.
		a.stackW, a.stackDW, a.kept = nil, nil, nil
		a.inlEdges.keep()
		t.agg = a
	}
	e.keepTop(key, t)
	return t, nil
}

// valued lists the nodes that are rows before any trimming: those with a
// value (or that appear, in a partial table) but for what DropNegative
// drops; and the sum of their flat values.
func (a *aggregate) valued() (all []int32, flatSum int64) {
	for n := range a.flat {
		if a.flat[n] == 0 && a.cum[n] == 0 && (a.appears == nil || !a.appears[n]) {
			continue
		}
		if a.q.opt.DropNegative && (a.flat[n] < 0 || (a.flat[n] == 0 && a.cum[n] < 0)) {
			continue
		}
		all = append(all, int32(n))
		flatSum += a.flat[n]
	}
	return all, flatSum
}

func (a *aggregate) top() *Top {
	q := a.q
	t := &Top{SampleType: q.e.p.SampleTypes[q.vi], Total: a.total, Nodes: &NodeSet{q.nodes}}
	all, flatSum := a.valued()
	// pprof's nodefraction is taken of the graph's own total (Σ flat), not
	// of the denominator.
	kept := all
	if f := q.opt.NodeFraction; f > 0 {
		cutoff := fractionOf(flatSum, f)
		t.NodeCutoff = cutoff
		if cutoff > 0 {
			kept = kept[:0:0]
			for _, n := range all {
				if abs64(a.cum[n]) >= cutoff {
					kept = append(kept, n)
				}
			}
			t.DroppedNodes = len(all) - len(kept)
		}
	}
	t.AllNodes = len(kept)
	a.sortNodes(kept, q.opt.Sort == "cum")
	if c := q.opt.NodeCount; c > 0 && c < len(kept) {
		kept = kept[:c]
	}
	edgeCutoff := fractionOf(flatSum, q.opt.EdgeFraction)
	markers := a.inlineMarkers(kept, edgeCutoff)
	t.Rows = make([]Row, len(kept))
	// Rows [lo, hi); their flat sum and how many are inexact.
	rows := func(lo, hi int) (shown int64, inexact int) {
		for i := lo; i < hi; i++ {
			n := kept[i]
			t.Rows[i] = Row{Node: n, Flat: a.flatValue(n), Cum: a.cumValue(n)}
			if markers != nil {
				t.Rows[i].Inline = markers[n].marker()
			}
			shown += t.Rows[i].Flat
			if a.first != nil && !a.first[n] {
				inexact++ // the first nodes are the first rows
			}
		}
		return shown, inexact
	}
	// A million rows (wide's lines), read from the sums at random: in
	// two halves.
	var shown [2]int64
	var inexact [2]int
	inHalves(len(kept), parallelRows, func(part, lo, hi int) { shown[part], inexact[part] = rows(lo, hi) })
	t.ShownTotal, t.inexact = shown[0]+shown[1], inexact[0]+inexact[1]
	return t
}

// sortNodes orders nodes as pprof's FlatNameOrder / CumNameOrder.
func (a *aggregate) sortNodes(ns []int32, byCum bool) {
	if nameRank, infoRank := a.q.nodes.ranks(); nameRank != nil {
		// The same order, by integers (see nodeTable.ranks).
		if !byCum && len(ns) > 4096 {
			ns = a.sortZeroFlatLast(ns)
		}
		first, second := a.flat, a.cum // FlatNameOrder; CumNameOrder swaps them
		if byCum {
			first, second = a.cum, a.flat
		}
		sortInTwo(ns, func(l, r int32) int {
			if c := cmp.Compare(abs64(first[r]), abs64(first[l])); c != 0 {
				return c
			}
			if c := cmp.Compare(nameRank[l], nameRank[r]); c != 0 {
				return c
			}
			if c := cmp.Compare(abs64(second[r]), abs64(second[l])); c != 0 {
				return c
			}
			return cmp.Compare(infoRank[l], infoRank[r])
		})
		return
	}
	a.sortNodesByName(ns, byCum)
}

// sortNodesByName is sortNodes comparing names and addresses as pprof
// does (compareNames), for the addresses granularity.
func (a *aggregate) sortNodesByName(ns []int32, byCum bool) {
	t := a.q.nodes
	names := t.allNames()
	byName := func(l, r int32) (less, decided bool) {
		li, ri := t.info(l), t.info(r)
		if names[l] == names[r] && li.Address == ri.Address {
			return false, false
		}
		_, less = compareNames(&li, &ri, names[l], names[r])
		return less, true
	}
	sort.Slice(ns, func(i, j int) bool {
		l, r := ns[i], ns[j]
		lf, rf := abs64(a.flat[l]), abs64(a.flat[r])
		lc, rc := abs64(a.cum[l]), abs64(a.cum[r])
		if byCum {
			if lc != rc {
				return lc > rc
			}
			if less, ok := byName(l, r); ok {
				return less
			}
			if lf != rf {
				return lf > rf
			}
		} else {
			if lf != rf {
				return lf > rf
			}
			if less, ok := byName(l, r); ok {
				return less
			}
			if lc != rc {
				return lc > rc
			}
		}
		li, ri := t.info(l), t.info(r)
		return lessInfo(&li, &ri)
	})
}

// sortZeroFlatLast puts ns's nodes with no flat value last, in their
// order by name (nodeTable.byInfo: most rows at the lines granularity
// are such inner frames), and returns the others, for sorting.
func (a *aggregate) sortZeroFlatLast(ns []int32) (rest []int32) {
	t := a.q.nodes
	in := make([]bool, t.len())
	zeros := 0
	for _, n := range ns {
		if a.flat[n] == 0 {
			in[n] = true
			zeros++
		}
	}
	if zeros == 0 {
		return ns
	}
	k := 0
	for _, n := range ns {
		if !in[n] {
			ns[k] = n
			k++
		}
	}
	z := ns[k:k]
	for _, n := range t.byInfo {
		if in[n] {
			z = append(z, n)
		}
	}
	// Nodes with one printable name (rare) go by cum, then infoRank.
	for i := 0; i < len(z); {
		j := i + 1
		for j < len(z) && t.nameRank[z[j]] == t.nameRank[z[i]] {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(z[i:j], func(l, r int32) int {
				return cmp.Compare(abs64(a.cum[r]), abs64(a.cum[l]))
			})
		}
		i = j
	}
	return ns[:k]
}

// fractionOf is pprof's cutoff for a nodefraction or edgefraction f of
// sum (a graph's Σ flat; a tree's total).
func fractionOf(sum int64, f float64) int64 { return abs64(int64(float64(sum) * f)) }

// BaseTop is Top over the -diff_base samples alone, valued as the base
// profile had them (positive): the "before" of a diff, to show next to
// the deltas Top gives. Its rows' nodes are Top's for the same
// granularity, and no row is trimmed. It is nil when the profile has no
// -diff_base samples (with -base they cannot be told apart).
func (e *Engine) BaseTop(opt Options) (*Top, error) {
	opt.NodeFraction, opt.NodeCount = 0, 0
	q, err := e.newQuery(opt)
	if err != nil {
		return nil, err
	}
	base := q.e.baseSets()
	if base == nil {
		return nil, nil
	}
	labels, keep := q.e.p.Samples.Labels, q.keep
	q.keep = func(i int) bool { return base[labels[i]] && (keep == nil || keep(i)) }
	q.baseOnly = true
	t := q.aggregate().top()
	for i := range t.Rows {
		t.Rows[i].Flat, t.Rows[i].Cum = -t.Rows[i].Flat, -t.Rows[i].Cum
	}
	t.ShownTotal = -t.ShownTotal
	return t, nil
}
