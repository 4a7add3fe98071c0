package analysis

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pprof-tui/pprof-tui/format"
)

// Tree is a call tree: a trie of the filtered stacks, root first
// (top-down) or leaf first (inverted: who calls the hot functions). It is
// expanded lazily: each node's children are grouped only when asked for,
// so the first screen of a million-sample profile costs one pass over the
// stacks, not the whole trie.
//
// A tree holds no copy of the stacks' paths. A path is read in place from
// the profile's stacks through the query's location node lists, with a
// cursor per stack: the frame its next grouping will read. Grouping a
// node's children reads each of its paths' cursors and steps them once,
// so expanding costs what it costs to read the frames, and the tree's
// memory is a few words per stack, whatever the depth of the stacks.
// Path lists are one array partitioned in place: a node's paths are a
// contiguous range of its parent's.
type Tree struct {
	SampleType format.ValueType
	Total      int64 // the percentage denominator, as Top's
	Inverted   bool
	Nodes      *NodeSet

	fold bool // direct recursion folded
	// Path s is stack s's locations Locs[lo(s):hi(s)] (the part that
	// survives the filters), each location's frames being
	// locNodes[locOff[l]:locOff[l+1]] (outermost first); root first, the
	// path runs from the last location down; inverted, from the first up.
	locs     []int32
	stackOff []int32
	// Under recursion=all, the folded paths: index i >= fbase of a
	// path's locations is folded[i-fbase] (see loc); fbase is past
	// every index otherwise.
	folded           []int32
	fbase            int32
	lo, hi           []int32 // per stack, when a filter cut stacks; else nil (the whole stack)
	locOff, locNodes []int32
	w, dw            []int64 // per stack
	mean             bool
	// curLoc[s], curSlot[s] is path s's cursor: the index into locs and
	// into locNodes of the frame its next grouping reads; curSlot is -1
	// once the path has no more frames. They are nil while released
	// (Release); the cursors of a node not grouped yet are valid when
	// its epoch is the tree's (restore).
	curLoc, curSlot []int32
	stacks          int    // the profile's stacks: the cursors' length
	from            []bool // TreeOptions.From
	epoch           uint32
	cursorBytes     atomic.Int64 // what the cursors hold, for Bytes
	all             []int32      // the paths, partitioned in place by grouping
	// Cutoff is nodefraction of the total: nodes whose |total| is below
	// it are left out of the tree (0: none are).
	Cutoff int64
	roots  []*TreeNode
	// g is the grouping scratch of Children; g2 of the second core's
	// share of Expand.
	g, g2 grouper
}

// grouper is group's scratch: one per goroutine grouping at once.
type grouper struct {
	slot  []int32 // node → child index+1 while grouping
	slot2 []int32 // the same for the second half of a large grouping (stepHalves)
	// which and moved are group's buffers, kept between calls up to
	// keptBuffer paths (see buffer).
	which, moved []int32
}

// TreeNode is one node of a Tree.
type TreeNode struct {
	Node   int32 // into Tree.Nodes
	Depth  int
	Parent *TreeNode
	// Self is the value of the paths that end here; Total of all paths
	// through here (mean-divided under Options.Mean).
	Self, Total int64
	// Weight is the sum of |value| of the paths through here: the width
	// pprof's flame graph gives the node. It is Total unless a base
	// profile was subtracted, where growth and shrinkage below a node
	// both count and its children's weights never exceed its own.
	Weight int64

	self, total, weight, selfDiv, totalDiv int64
	paths                                  []int32 // the paths through this node, until grouped
	children                               []*TreeNode
	expanded                               bool
	epoch                                  uint32 // its paths' cursors are valid if it is the tree's
}

// TreeOptions adds tree-only choices to Options.
type TreeOptions struct {
	Inverted bool
	// FoldRecursion shows direct recursion A→A→A as one A.
	FoldRecursion bool
	// From, when set (a flag per node of the query's NodeSet), starts
	// each path at its first frame of a flagged node, in the tree's
	// direction: top-down the outermost (pprof's show_from), inverted the
	// innermost (prune_from); a path without one is left out.
	From []bool
	// through, when set with From, is the stacks that may have a frame
	// of a From node (ascending; a superset), so that the others are not
	// read: the pivot's two trees share one scan. throughAt, when set,
	// is where in the profile's Stacks.Locs each of them has the first
	// location with a From frame in the tree's direction, so
	// that the tree starts its path there instead of walking to it.
	through, throughAt []int32
}

// Tree builds the call tree for opt.
func (e *Engine) Tree(opt Options, to TreeOptions) (*Tree, error) {
	q, err := e.newQuery(opt)
	if err != nil {
		return nil, err
	}
	p := e.p
	w, dw, total, totalDiv := q.stackWeights()
	n := p.Stacks.Len()
	t := &Tree{SampleType: p.SampleTypes[q.vi], Inverted: to.Inverted, Nodes: &NodeSet{q.nodes}, mean: q.mean,
		fold: to.FoldRecursion || q.opt.Recursion == RecursionDirect, locs: p.Stacks.Locs, stackOff: p.Stacks.Off,
		locOff: q.locOff, locNodes: q.locNodes, w: w, dw: dw, fbase: math.MaxInt32,
		curLoc: make([]int32, n), curSlot: make([]int32, n), stacks: n, from: to.From}
	t.cursorBytes.Store(8 * int64(n))
	// Under recursion=all, stacks fold[k] read folded paths.
	var fold *foldedPaths
	if q.opt.Recursion == RecursionAll {
		fold = q.foldedPaths()
		t.folded, t.fbase = fold.folded, int32(len(p.Stacks.Locs))
		t.locOff, t.locNodes = fold.locOff, fold.locNodes
	}
	if q.filtering || fold != nil {
		t.lo, t.hi = make([]int32, n), make([]int32, n)
	}
	// fromLoc: the locations with a frame of a From node, so that the
	// stacks without one (most, for one function) are passed over by
	// their locations, without stepping a cursor over their frames.
	var fromLoc []bool
	if to.From != nil {
		fromLoc = locsWith(t.locOff, t.locNodes, to.From)
	}
	// The paths' first frames, in two halves of the stacks on two cores:
	// each reads every stack's last location, a cache miss apiece. With
	// to.through, the halves are of those stacks only.
	m, stackAt := n, func(x int) int { return x }
	if to.through != nil {
		m, stackAt = len(to.through), func(x int) int { return int(to.through[x]) }
		for s := range t.curSlot {
			t.curSlot[s] = -1
		}
	}
	all, heads := make([]int32, m), make([]int32, m)
	var kept [2]int
	inHalves(m, parallelGroup, func(part, from, end int) {
		k := 0 // fold.stacks[k] is the first folded stack from s on
		if fold != nil && from < end {
			k, _ = slices.BinarySearch(fold.stacks, int32(stackAt(from)))
		}
		out := from
		for x := from; x < end; x++ {
			s := stackAt(x)
			t.curSlot[s] = -1
			if _, _, ok := stackWeight(w, dw, s); !ok {
				continue
			}
			for fold != nil && k < len(fold.stacks) && fold.stacks[k] < int32(s) {
				k++
			}
			switch {
			case fold != nil && k < len(fold.stacks) && fold.stacks[k] == int32(s):
				t.lo[s], t.hi[s] = t.fbase+fold.off[k], t.fbase+fold.off[k+1]
			case q.filtering:
				lo, hi, ok := q.pathRange(p.Stacks.At(int32(s)))
				if !ok {
					continue
				}
				base := t.stackOff[s]
				t.lo[s], t.hi[s] = base+int32(lo), base+int32(hi)
			case t.lo != nil:
				t.lo[s], t.hi[s] = t.stackOff[s], t.stackOff[s+1]
			}
			var i, j int32
			if at := t.hint(to.throughAt, x, int32(s)); at >= 0 {
				i, j = t.start(int32(s), at)
			} else {
				if fromLoc != nil && !t.passes(int32(s), fromLoc) {
					continue
				}
				i, j = t.first(int32(s))
			}
			for to.From != nil && j >= 0 && !to.From[t.locNodes[j]] {
				i, j = t.next(int32(s), i, j)
			}
			if j < 0 {
				continue // nothing left of the stack
			}
			// The root's node, and the cursor stepped past it while its
			// location's lines are in the cache: grouping the roots then
			// reads heads in order instead of each stack's frame again.
			heads[out] = t.locNodes[j]
			t.curLoc[s], t.curSlot[s] = t.next(int32(s), i, j)
			all[out] = int32(s)
			out++
		}
		kept[part] = out - from
	})
	h := half(m, parallelGroup)
	t.all = append(all[:kept[0]], all[h:h+kept[1]]...)
	heads = append(heads[:kept[0]], heads[h:h+kept[1]]...)
	t.Total = total
	if q.mean && totalDiv != 0 {
		t.Total = total / totalDiv
	}
	if f := q.opt.NodeFraction; f > 0 {
		t.Cutoff = fractionOf(t.Total, f)
	}
	t.roots = t.groupHeads(&t.g, nil, t.all, 0, heads)
	return t, nil
}

// foldedPaths is the stacks' paths folded under recursion=all, for one
// location view. A path with no node twice is read as it is. The others
// (stacks, ascending) are written out, folded and leaf first, as stacks
// of pseudo-locations that are the nodes themselves (location nl+k is
// node k's one frame, in the extended locOff and locNodes): stacks[k]'s
// is folded[off[k]:off[k+1]]. A tree reads them through indices that
// count on from the profile's stacks' (Tree.fbase), as it reads stacks.
// The fold does not depend on the sample type or the tag filters, so it
// is made once per location view (locPaths.folded), and never modified.
type foldedPaths struct {
	stacks, off      []int32
	folded           []int32
	locOff, locNodes []int32
}

// foldedPaths returns the query's paths folded under recursion=all,
// made by the first query that asks for its location view. A background
// fold (q.pause set) gives way while busy, unless another query waits.
func (q *query) foldedPaths() *foldedPaths {
	lp := q.paths
	if q.pause == nil {
		lp.foldWaiters.Add(1)
		defer lp.foldWaiters.Add(-1)
	}
	lp.foldOnce.Do(func() { lp.folded.Store(foldAll(q)) })
	return lp.folded.Load()
}

// FoldKept reports whether the stacks of opt's location view are folded
// under recursion=all already (FoldBackground).
func (e *Engine) FoldKept(opt Options) bool {
	q, err := e.newQuery(opt)
	return err == nil && q.paths.folded.Load() != nil
}

// FoldBackground makes the paths of opt's location view folded under
// recursion=all ahead of the first tree that folds them (the explorer's
// R), on two cores, giving way while busy reports true (until a tree
// waits for the fold).
func (e *Engine) FoldBackground(opt Options, busy func() bool) error {
	opt.Recursion = RecursionAll
	q, err := e.newQuery(opt)
	if err != nil {
		return err
	}
	lp := q.paths
	q.pause = func() {
		for lp.foldWaiters.Load() == 0 && busy() {
			time.Sleep(2 * time.Millisecond)
		}
	}
	q.foldedPaths()
	return nil
}

// foldAll folds every stack's path under recursion=all.
func foldAll(q *query) *foldedPaths {
	p := q.e.p
	n := p.Stacks.Len()
	nl := len(q.locOff) - 1
	nodes := q.nodes.len()
	slots := len(q.locNodes)
	fp := &foldedPaths{}
	fp.locOff = make([]int32, nl+nodes+1)
	copy(fp.locOff, q.locOff)
	for k := 0; k <= nodes; k++ {
		fp.locOff[nl+k] = int32(slots + k)
	}
	fp.locNodes = make([]int32, slots+nodes)
	copy(fp.locNodes, q.locNodes)
	for k := 0; k < nodes; k++ {
		fp.locNodes[slots+k] = int32(k)
	}
	packed := packNodes(q.locOff, q.locNodes)
	// A stack the node table knows has no node twice has none in the
	// part of it the filters keep. Without a frame filter, the scan
	// tells the table which stacks are plain.
	plain := q.e.plainStacks(q.nodes)
	var seen []uint8
	if plain == nil && !q.filtering {
		seen = make([]uint8, n)
	}
	// The stacks are folded in two halves on two cores, in the
	// background too: a background fold gives way while the explorer is
	// busy, so it takes every gap between keys on both cores.
	h := half(n, parallelGroup)
	var halves [2]foldHalf
	// scan folds the paths of stacks [from, to), written out in chunks
	// (copied once, into fp.folded, when both halves are done).
	scan := func(from, to int) (stacks, off []int32, chunks [][]int32) {
		stamp := make([]int32, nodes) // node → the stack+1 it was last seen in
		at := make([]int32, nodes)    // node → its index+1 in the path being folded
		var path, folded []int32
		size := int32(0) // of the chunks before folded
		for s := from; s < to; s++ {
			if q.pause != nil && s&pauseEvery == 0 {
				q.pause()
			}
			if plain != nil && plain[s] == plainStack {
				continue
			}
			locs := p.Stacks.At(int32(s))
			lo, hi, ok := q.pathRange(locs)
			if !ok {
				continue
			}
			// A stack known to repeat a node is folded without a look:
			// the part a filter keeps may not, and folds to itself.
			rep := plain != nil && plain[s] == repeatStack ||
				repeats(q, packed, locs[lo:hi], stamp, int32(s+1))
			if seen != nil {
				seen[s] = plainStack
				if rep {
					seen[s] = repeatStack
				}
			}
			if !rep {
				continue
			}
			path = foldPacked(q, packed, at, path[:0], locs[lo:hi])
			if len(folded)+len(path) > cap(folded) {
				chunks, size = append(chunks, folded), size+int32(len(folded))
				folded = make([]int32, 0, max(foldChunk, len(path)))
			}
			stacks, off = append(stacks, int32(s)), append(off, size+int32(len(folded)))
			for i := len(path) - 1; i >= 0; i-- {
				folded = append(folded, int32(nl)+path[i])
			}
		}
		return stacks, off, append(chunks, folded)
	}
	bounds := [3]int{0, h, n}
	fold := func(i int) {
		hf := &halves[i]
		hf.stacks, hf.off, hf.chunks = scan(bounds[i], bounds[i+1])
	}
	if h < n {
		both(func() { fold(0) }, func() { fold(1) })
	} else {
		fold(0)
	}
	size := 0
	for _, hf := range halves {
		for _, c := range hf.chunks {
			size += len(c)
		}
	}
	fp.folded = make([]int32, 0, size)
	for _, hf := range halves {
		for _, o := range hf.off {
			fp.off = append(fp.off, o+int32(len(fp.folded)))
		}
		fp.stacks = append(fp.stacks, hf.stacks...)
		for _, c := range hf.chunks {
			fp.folded = append(fp.folded, c...)
		}
	}
	fp.off = append(fp.off, int32(len(fp.folded)))
	if seen != nil {
		q.nodes.setPlainStacks(seen)
	}
	return fp
}

// foldHalf is one half of foldAll's stacks folded: off counts from the
// start of its chunks.
type foldHalf struct {
	stacks, off []int32
	chunks      [][]int32
}

// foldChunk is how many nodes foldAll writes out before it starts a new
// chunk: chunks are copied once, where a growing slice is copied (and
// its new room cleared) at every doubling.
var foldChunk = 1 << 18

// Packed nodes: per location, its frames' nodes (up to three, each
// below 1<<21) in one word, the first repeated in the slots left over,
// or packedSlow for a location to read from the node lists (no frame,
// more than three, a node twice or too large). Most locations have one
// to three frames: a scan of every frame of every stack (repeats) then
// reads one table per location, without a loop whose length the branch
// predictor would guess wrong at every inline chain.
const (
	packedBits = 21
	packedMask = 1<<packedBits - 1
	packedSlow = 1 << 63
)

func packNodes(locOff, locNodes []int32) []uint64 {
	packed := make([]uint64, len(locOff)-1)
	for l := range packed {
		ns := locNodes[locOff[l]:locOff[l+1]]
		if len(ns) == 0 || len(ns) > 3 || slices.ContainsFunc(ns, func(n int32) bool { return n > packedMask }) ||
			len(ns) > 1 && ns[0] == ns[1] || len(ns) > 2 && (ns[0] == ns[2] || ns[1] == ns[2]) {
			packed[l] = packedSlow
			continue
		}
		var x uint64
		for k := range 3 {
			x |= uint64(ns[min(k, len(ns)-1)]) << (packedBits * k)
		}
		packed[l] = x
	}
	return packed
}

// foldPacked appends the nodes of locations locs (leaf first) to path,
// root first and folded under recursion=all as folder.fold folds them,
// in one pass reading packed (packNodes' table). at maps a node to its
// index+1 in path; it is zero on entry and on return.
func foldPacked(q *query, packed []uint64, at, path, locs []int32) []int32 {
	for i := len(locs) - 1; i >= 0; i-- {
		l := locs[i]
		x := packed[l]
		if x == packedSlow {
			for _, n := range q.locNodes[q.locOff[l]:q.locOff[l+1]] {
				path = foldStep(at, path, n)
			}
			continue
		}
		n0, n1, n2 := int32(x&packedMask), int32(x>>packedBits&packedMask), int32(x>>(2*packedBits)&packedMask)
		path = foldStep(at, path, n0)
		if n1 != n0 {
			path = foldStep(at, path, n1)
			if n2 != n0 {
				path = foldStep(at, path, n2)
			}
		}
	}
	for _, n := range path {
		at[n] = 0
	}
	return path
}

// foldStep appends node n to path folded under recursion=all: a node
// already on it takes the path back to it (at as in foldPacked).
func foldStep(at, path []int32, n int32) []int32 {
	if i := at[n]; i > 0 {
		for _, m := range path[i:] {
			at[m] = 0
		}
		return path[:i]
	}
	path = append(path, n)
	at[n] = int32(len(path))
	return path
}

// repeats reports whether a node is on the path of locations locs twice,
// marking the nodes seen in stamp with mark (a mark per path); packed is
// packNodes' table.
func repeats(q *query, packed []uint64, locs []int32, stamp []int32, mark int32) bool {
	for _, l := range locs {
		x := packed[l]
		if x == packedSlow {
			for j := q.locOff[l]; j < q.locOff[l+1]; j++ {
				nd := q.locNodes[j]
				if stamp[nd] == mark {
					return true
				}
				stamp[nd] = mark
			}
			continue
		}
		n0, n1, n2 := x&packedMask, x>>packedBits&packedMask, x>>(2*packedBits)&packedMask
		if stamp[n0] == mark || stamp[n1] == mark || stamp[n2] == mark {
			return true
		}
		stamp[n0], stamp[n1], stamp[n2] = mark, mark, mark
	}
	return false
}

// passes reports whether path s has a location that at is set for.
func (t *Tree) passes(s int32, at []bool) bool {
	lo, hi := t.bounds(s)
	for i := lo; i < hi; i++ {
		if at[t.loc(i)] {
			return true
		}
	}
	return false
}

// loc is the location at index i of a path's locations.
func (t *Tree) loc(i int32) int32 {
	if i >= t.fbase {
		return t.folded[i-t.fbase]
	}
	return t.locs[i]
}

// bounds is the part of stack s's locations the path runs over.
func (t *Tree) bounds(s int32) (lo, hi int32) {
	if t.lo != nil {
		return t.lo[s], t.hi[s]
	}
	return t.stackOff[s], t.stackOff[s+1]
}

// first returns the cursor of path s's first frame (j < 0: none).
func (t *Tree) first(s int32) (i, j int32) {
	lo, hi := t.bounds(s)
	if lo >= hi {
		return 0, -1
	}
	if t.Inverted {
		return t.start(s, lo)
	}
	return t.start(s, hi-1)
}

// hint is throughAt[x], the location stack s's path starts at (see
// TreeOptions.throughAt), when that location is on the path: not cut by
// a filter, nor read from the folded paths (-1: walk from the first).
func (t *Tree) hint(throughAt []int32, x int, s int32) int32 {
	if throughAt == nil {
		return -1
	}
	at := throughAt[x]
	if lo, hi := t.bounds(s); at < lo || at >= hi {
		return -1
	}
	return at
}

// start returns the cursor of path s's first frame from location index
// i on, in the tree's direction.
func (t *Tree) start(s, i int32) (int32, int32) {
	if t.Inverted {
		return t.settle(s, i, t.locOff[t.loc(i)+1]-1)
	}
	return t.settle(s, i, t.locOff[t.loc(i)])
}

// settle moves a cursor that may point past its location's frames (a
// location hidden by the filters has none) to the next frame there is,
// in the tree's direction (j < 0: none).
func (t *Tree) settle(s, i, j int32) (int32, int32) {
	if t.Inverted {
		for j < t.locOff[t.loc(i)] {
			i++
			if _, hi := t.bounds(s); i >= hi {
				return i, -1
			}
			j = t.locOff[t.loc(i)+1] - 1
		}
		return i, j
	}
	for j >= t.locOff[t.loc(i)+1] {
		i--
		if lo, _ := t.bounds(s); i < lo {
			return i, -1
		}
		j = t.locOff[t.loc(i)]
	}
	return i, j
}

// next returns the cursor of the frame after (i, j) on path s, past the
// repeats of its node when recursion is folded (j < 0: none).
func (t *Tree) next(s, i, j int32) (int32, int32) {
	node := t.locNodes[j]
	for {
		if t.Inverted {
			i, j = t.settle(s, i, j-1)
		} else {
			i, j = t.settle(s, i, j+1)
		}
		if j < 0 || !t.fold || t.locNodes[j] != node {
			return i, j
		}
	}
}

// Bytes is about what the tree's per-stack arrays hold (its cursors
// unless released, its path list and the cut stacks' bounds): most of a
// tree on a large profile, and what keeping it costs. It may be called
// while another goroutine groups the tree's nodes.
func (t *Tree) Bytes() int64 {
	return t.cursorBytes.Load() + 4*int64(cap(t.all)+len(t.lo)+len(t.hi))
}

// Release lets go of the tree's cursors, 8 bytes a stack, while it is
// kept but not shown. Grouping a node's children needs its paths'
// cursors again: they are found from the start of each path (restore),
// for the nodes grouped after, not for those grouped before. The caller
// holds what serialises the tree's groupings.
func (t *Tree) Release() {
	if t.curSlot == nil {
		return
	}
	t.curLoc, t.curSlot = nil, nil
	t.epoch++
	t.cursorBytes.Store(0)
}

// restore makes the cursors of the paths of ns (nodes not grouped yet)
// valid again after a Release: a node at depth d has read d+1 frames of
// each of its paths (the first one a From node's, with From set), so
// its cursors are that many steps from the paths' starts.
func (t *Tree) restore(ns ...*TreeNode) {
	for _, n := range ns {
		if n == nil || n.expanded || n.epoch == t.epoch {
			continue
		}
		if t.curSlot == nil {
			t.curLoc, t.curSlot = make([]int32, t.stacks), make([]int32, t.stacks)
			t.cursorBytes.Store(8 * int64(t.stacks))
		}
		for _, s := range n.paths {
			i, j := t.first(s)
			for t.from != nil && j >= 0 && !t.from[t.locNodes[j]] {
				i, j = t.next(s, i, j)
			}
			for d := 0; d <= n.Depth && j >= 0; d++ {
				i, j = t.next(s, i, j)
			}
			t.curLoc[s], t.curSlot[s] = i, j
		}
		n.epoch = t.epoch
	}
}

// Flat returns the value of the paths whose leaf is node: pprof's flat
// of the node among the tree's stacks, wherever in them it is.
func (t *Tree) Flat(node int32) int64 {
	var sum, div int64
	for _, s := range t.all {
		lo, hi := t.bounds(s)
		for i := lo; i < hi; i++ {
			l := t.loc(i)
			if t.locOff[l+1] > t.locOff[l] {
				if t.locNodes[t.locOff[l+1]-1] == node {
					sum += t.w[s]
					if t.dw != nil {
						div += t.dw[s]
					}
				}
				break
			}
		}
	}
	if t.mean && div != 0 {
		return sum / div
	}
	return sum
}

// Roots returns the top-level nodes, heaviest first.
func (t *Tree) Roots() []*TreeNode { return t.roots }

// Children returns n's children, heaviest first, grouping them on first use.
func (t *Tree) Children(n *TreeNode) []*TreeNode {
	t.expand(&t.g, n)
	return n.children
}

func (t *Tree) expand(g *grouper, n *TreeNode) {
	if !n.expanded {
		t.restore(n)
		n.children = t.group(g, n, n.paths, n.Depth+1)
		n.expanded = true
		n.paths = nil // the children hold them now
	}
}

// Expand groups the children of those of ns not grouped yet (nil
// entries are skipped, a node given twice grouped once), on two cores
// when they have many paths between them: a flame graph's layout asks
// for a row's children at once, most of them a few hundred paths each
// on a profile of distinct stacks.
func (t *Tree) Expand(ns []*TreeNode) {
	var todo []*TreeNode
	seen := make(map[*TreeNode]bool, len(ns)) // a node twice is grouped once
	paths := 0
	for _, n := range ns {
		if n != nil && !n.expanded && !seen[n] {
			seen[n] = true
			todo = append(todo, n)
			paths += len(n.paths)
		}
	}
	t.restore(todo...) // before the nodes are grouped on two cores
	if paths >= sweepRow && len(todo) >= 2 && sweepShare*paths >= t.stacks {
		t.sweep(todo, paths)
		return
	}
	if paths < parallelGroup || len(todo) < 2 {
		for _, n := range todo {
			t.expand(&t.g, n)
		}
		return
	}
	// Two shares of about half the paths each; a node's paths are
	// distinct stacks, so are the cursors each share steps.
	k, half := 0, 0
	for k < len(todo)-1 && 2*half < paths {
		half += len(todo[k].paths)
		k++
	}
	both(func() {
		for _, n := range todo[:k] {
			t.expand(&t.g, n)
		}
	}, func() {
		for _, n := range todo[k:] {
			t.expand(&t.g2, n)
		}
	})
}

// Leaf reports whether n has no children (without expanding it).
func (t *Tree) Leaf(n *TreeNode) bool {
	if n.expanded {
		return len(n.children) == 0
	}
	t.restore(n)
	for _, s := range n.paths {
		if t.curSlot[s] >= 0 {
			return false
		}
	}
	return true
}

// child is a child being grouped: its node and its paths' sums.
type child struct {
	node                                   int32
	paths                                  int32
	self, total, weight, selfDiv, totalDiv int64
}

// merge adds o's paths' sums (the same node's) to c's.
func (c *child) merge(o *child) {
	c.paths += o.paths
	c.self += o.self
	c.total += o.total
	c.weight += o.weight
	c.selfDiv += o.selfDiv
	c.totalDiv += o.totalDiv
}

// parallelGroup is the fewest paths a grouping steps on two cores: the
// root's and the first rows' million paths of a flame graph's layout.
// A variable for the tests, which group small profiles both ways.
var parallelGroup = 1 << 15

// step reads each path's next frame, steps its cursor and adds the
// path's values to its child, found through slot (node → index+1, left
// set for the children found): group's first pass over paths, or over
// part of them.
// With heads (the roots' grouping), paths[i]'s frame is node heads[i]
// and its cursor is past it already.
func (t *Tree) step(paths, which, slot, heads []int32) []child {
	var kids []child
	for i, s := range paths {
		var n, j int32
		if heads != nil {
			n = heads[i]
		} else {
			if j = t.curSlot[s]; j < 0 {
				which[i] = 0
				continue // ends at the parent
			}
			n = t.locNodes[j]
		}
		k := slot[n]
		if k == 0 {
			kids = append(kids, child{node: n})
			k = int32(len(kids))
			slot[n] = k
		}
		which[i] = k
		if heads != nil {
			t.tally(&kids[k-1], s)
		} else {
			t.take(&kids[k-1], s, j)
		}
	}
	return kids
}

// take adds path s, whose next frame (slot j) is child c's node, to c
// and steps its cursor.
func (t *Tree) take(c *child, s, j int32) {
	t.curLoc[s], t.curSlot[s] = t.next(s, t.curLoc[s], j)
	t.tally(c, s)
}

// tally adds path s, stepped past child c's frame, to c.
func (t *Tree) tally(c *child, s int32) {
	c.paths++
	w := t.w[s]
	c.total += w
	c.weight += abs64(w)
	if t.dw != nil {
		c.totalDiv += t.dw[s]
	}
	if t.curSlot[s] < 0 {
		c.self += w
		if t.dw != nil {
			c.selfDiv += t.dw[s]
		}
	}
}

// stepHalves is step over two halves of paths at once, each with its own
// slots (the paths are distinct stacks, so are the cursors each half
// steps), and the second half's children merged into the first's.
func (t *Tree) stepHalves(g *grouper, paths, which, heads []int32) []child {
	if g.slot2 == nil {
		g.slot2 = make([]int32, t.Nodes.Len())
	}
	h := len(paths) / 2
	var ha, hb []int32
	if heads != nil {
		ha, hb = heads[:h], heads[h:]
	}
	var a, b []child
	both(func() { a = t.step(paths[:h], which[:h], g.slot, ha) },
		func() { b = t.step(paths[h:], which[h:], g.slot2, hb) })
	remap := make([]int32, len(b)+1) // b's index+1 → a's
	for i := range b {
		kb := &b[i]
		g.slot2[kb.node] = 0
		k := g.slot[kb.node]
		if k == 0 {
			a = append(a, child{node: kb.node})
			k = int32(len(a))
			g.slot[kb.node] = k
		}
		a[k-1].merge(kb)
		remap[i+1] = k
	}
	for i := h; i < len(which); i++ {
		which[i] = remap[which[i]]
	}
	return a
}

// group splits paths by their next frame (the one at depth) into nodes
// under parent. It makes two passes over the paths: one reads each path's
// frame, steps its cursor and adds up the children's values (step; on
// two cores for many paths, stepHalves); one reorders paths in place so
// that each child's paths are a contiguous range of them. On a million
// samples the layout of a flame graph groups hundreds of thousands of
// paths per row, with no allocation but the children.
func (t *Tree) group(g *grouper, parent *TreeNode, paths []int32, depth int) []*TreeNode {
	return t.groupHeads(g, parent, paths, depth, nil)
}

// groupHeads is group, with the paths' frames given (step's heads).
func (t *Tree) groupHeads(g *grouper, parent *TreeNode, paths []int32, depth int, heads []int32) []*TreeNode {
	// which[i] is the child of paths[i] (0 for none, else index+1).
	which := g.buffer(&g.which, len(paths))
	if g.slot == nil {
		g.slot = make([]int32, t.Nodes.Len())
	}
	var kids []child
	if len(paths) < parallelGroup {
		kids = t.step(paths, which, g.slot, heads)
	} else {
		kids = t.stepHalves(g, paths, which, heads)
	}
	for _, k := range kids {
		g.slot[k.node] = 0
	}
	return t.place(g, parent, paths, which, kids, depth)
}

// place makes the nodes of kids, the children of parent found by a
// first pass over paths (which[i]: paths[i]'s child, index+1, or 0), and
// reorders paths in place so that each child's paths are a contiguous
// range of them; the children come back sorted, light ones cut.
func (t *Tree) place(g *grouper, parent *TreeNode, paths, which []int32, kids []child, depth int) []*TreeNode {
	nodes := make([]TreeNode, len(kids))
	out := make([]*TreeNode, len(kids))
	// Each child's paths start where the ones before it end; the paths
	// that end at the parent go last.
	at := int32(0)
	start := make([]int32, len(kids))
	for i := range kids {
		k := &kids[i]
		c := &nodes[i]
		*c = TreeNode{Node: k.node, Depth: depth, Parent: parent, epoch: t.epoch,
			self: k.self, total: k.total, weight: k.weight, selfDiv: k.selfDiv, totalDiv: k.totalDiv,
			paths: paths[at : at+k.paths : at+k.paths]}
		start[i] = at
		at += k.paths
		out[i] = c
	}
	if len(kids) > 0 {
		moved := g.buffer(&g.moved, len(paths))
		for i, s := range paths {
			if k := which[i]; k > 0 {
				moved[start[k-1]] = s
				start[k-1]++
			} else {
				moved[at] = s
				at++
			}
		}
		copy(paths, moved)
	}
	for _, c := range out {
		c.Self, c.Total, c.Weight = c.self, c.total, c.weight
		if t.mean {
			if c.selfDiv != 0 {
				c.Self = c.self / c.selfDiv
			}
			if c.totalDiv != 0 {
				c.Total = c.total / c.totalDiv
				c.Weight = c.weight / c.totalDiv
			}
		}
	}
	t.sortChildren(out)
	if t.Cutoff > 0 {
		// nodefraction: the light nodes go, as from pprof's graphs.
		kept := out[:0]
		for _, c := range out {
			if abs64(c.Total) >= t.Cutoff {
				kept = append(kept, c)
			}
		}
		out = kept
	}
	return out
}

// sortChildren orders siblings heaviest first, then by name: by the node
// table's name ranks where it has them (integers: the 100,000 roots of
// an inverted tree of the wide shape took 50 ms to sort by names), equal
// names by node. Many siblings (an inverted tree's roots) are sorted by
// keys made once (sortByKey).
func (t *Tree) sortChildren(out []*TreeNode) {
	nodes := t.Nodes.t
	rank, _ := nodes.ranks()
	type sortKey struct {
		abs        int64
		rank, node int32 // rank: the name's, or 0 without ranks
	}
	keyOf := func(c *TreeNode) sortKey {
		k := sortKey{abs: abs64(c.total), node: c.Node}
		if rank != nil {
			k.rank = rank[c.Node]
		}
		return k
	}
	compare := func(a, b sortKey) int {
		if c := cmp.Compare(b.abs, a.abs); c != 0 {
			return c
		}
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		if rank == nil {
			if c := strings.Compare(nodes.name(a.node), nodes.name(b.node)); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.node, b.node)
	}
	if len(out) < keyedSort {
		slices.SortFunc(out, func(a, b *TreeNode) int { return compare(keyOf(a), keyOf(b)) })
		return
	}
	sortByKey(out, func(i int) sortKey { return keyOf(out[i]) }, func(a, b keyed[sortKey]) int { return compare(a.key, b.key) })
}

// keyedSort is the sibling count from which sortChildren sorts keys (a
// variable for the tests).
var keyedSort = 1 << 12

// keptBuffer is the most paths a tree keeps group's buffers for. The
// roots' grouping (and a zoom into the heaviest frame) spans nearly all
// the paths: buffers that size, kept by the Tree view, the inverted tree
// and the flame graph, held 240 MB at ten million stacks, for groupings
// that take 10-100 ms whatever their buffers.
const keptBuffer = 1 << 16

// buffer returns n int32s of scratch: *kept's, grown to n when n is at
// most keptBuffer, or a new slice for the garbage collector.
func (g *grouper) buffer(kept *[]int32, n int) []int32 {
	if n > keptBuffer {
		return make([]int32, n)
	}
	if cap(*kept) < n {
		*kept = make([]int32, keptBuffer)
	}
	return (*kept)[:n]
}

// Matching is which NodeSet ids match accepts, by id; nil when none
// does, so that a search for nothing walks no paths.
func (t *Tree) Matching(match func(node int32) bool) []bool {
	ok := make([]bool, t.Nodes.Len())
	found := false
	for i := range ok {
		ok[i] = match(int32(i))
		found = found || ok[i]
	}
	if !found {
		return nil
	}
	return ok
}

// Locate returns the node where the heaviest path through a node that
// match accepts (match is given NodeSet ids) first meets one, grouping
// only the nodes above it; nil when no path has one. It scans the paths
// once, so finding a light function deep in a huge tree costs what
// finding a heavy one does (a walk down the tree would group every
// node before it).
func (t *Tree) Locate(match func(node int32) bool) *TreeNode {
	ok := t.Matching(match)
	if ok == nil {
		return nil
	}
	var path []int32
	best, bestW := int32(-1), int64(-1)
	for _, s := range t.all {
		w := abs64(t.w[s])
		if w <= bestW {
			continue // cannot beat the best so far
		}
		for i, j := t.first(s); j >= 0; i, j = t.next(s, i, j) {
			if ok[t.locNodes[j]] {
				best, bestW = s, w
				break
			}
		}
	}
	if best < 0 {
		return nil
	}
	for i, j := t.first(best); j >= 0; i, j = t.next(best, i, j) {
		path = append(path, t.locNodes[j])
	}
	kids := t.roots
	for d := 0; ; d++ {
		var n *TreeNode
		for _, c := range kids {
			if c.Node == path[d] {
				n = c
				break
			}
		}
		if n == nil || ok[path[d]] {
			return n
		}
		kids = t.Children(n)
	}
}

// HeaviestPath expands from n down the heaviest child at each level and
// returns the nodes on the way (n first).
func (t *Tree) HeaviestPath(n *TreeNode) []*TreeNode {
	out := []*TreeNode{n}
	for {
		cs := t.Children(n)
		if len(cs) == 0 {
			return out
		}
		n = cs[0]
		out = append(out, n)
	}
}
