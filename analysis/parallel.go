package analysis

import (
	"slices"
	"sync/atomic"

	"github.com/pprof-tui/pprof-tui/format"
)

// both runs a and b at once, b on a new goroutine, and returns when both
// are done. A panic in b is raised again on the caller's goroutine, so
// that it reaches whoever guards the caller (the explorer restores the
// terminal) instead of killing the process from a goroutine nobody
// watches.
func both(a, b func()) {
	var crash any
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { crash = recover() }()
		b()
	}()
	a()
	<-done
	if crash != nil {
		panic(crash)
	}
}

// runs hands the stacks [0, n) out in runs to the goroutines that walk
// them, each taking the next run when it is done with its last. Halves
// split by count left a core idle: a profile's later stacks reach its
// later locations, first referenced by fewer samples and colder in the
// cache, and on the wide shape the second half of the stacks took 1.5–2×
// as long as the first.
type runs struct {
	n, size int
	next    atomic.Int64
}

func newRuns(n int) *runs { return &runs{n: n, size: max(n/64, minRun)} }

// minRun is the fewest stacks a run has (a variable for the tests).
var minRun = 1024

// cursor is one goroutine's walk of the stacks it takes from r, run
// after run.
type cursor struct {
	r       *runs
	at, end int
}

func (r *runs) cursor() cursor { return cursor{r: r} }

// next returns the next stack, or -1 when no run is left.
func (c *cursor) next() int {
	if c.at == c.end {
		from, to, ok := c.r.take()
		if !ok {
			return -1
		}
		c.at, c.end = from, to
	}
	c.at++
	return c.at - 1
}

// take returns the next run [from, to), or ok false when none is left.
func (r *runs) take() (from, to int, ok bool) {
	from = int(r.next.Add(int64(r.size))) - r.size
	if from >= r.n {
		return 0, 0, false
	}
	return from, min(from+r.size, r.n), true
}

// inTwo runs walk on two goroutines sharing the runs of the stacks
// [0, st.Len()), or on one when they are too few frames to split
// (parallelFrames); part is 0 or 1.
func inTwo(st *format.Stacks, walk func(r *runs, part int)) {
	r := newRuns(st.Len())
	if !splitStacks(st) {
		walk(r, 0)
		return
	}
	both(func() { walk(r, 0) }, func() { walk(r, 1) })
}

// parallelFrames is the frame count (location ids in all stacks) from
// which a walk of every stack splits them between two goroutines: the
// work, not the stack count (a profile of 20,000 stacks 350 frames deep
// is 7M frames). A variable for the tests.
var parallelFrames = 400_000

// splitStacks reports whether a walk of every stack of st is split
// between two goroutines: whether they hold parallelFrames frames.
func splitStacks(st *format.Stacks) bool {
	return st.Len() > 1 && len(st.Locs) >= parallelFrames
}

// stacksHalf is where a walk of every stack of st in two halves splits
// them (st.Len() when it does not).
func stacksHalf(st *format.Stacks) int {
	if !splitStacks(st) {
		return st.Len()
	}
	return st.Len() / 2
}

// inHalves calls f on [0, n): when n is at least from, on two
// goroutines, part 0 with the first half and part 1 with the second;
// else once, part 0, with all of it.
func inHalves(n, from int, f func(part, lo, hi int)) { splitAt(half(n, from), n, f) }

// splitAt calls f on [0, h) and [h, n) on two goroutines (parts 0 and 1),
// or once on [0, n) when h is n.
func splitAt(h, n int, f func(part, lo, hi int)) {
	if h == n {
		f(0, 0, n)
		return
	}
	both(func() { f(0, 0, h) }, func() { f(1, h, n) })
}

// half is where inHalves splits [0, n): n when it does not.
func half(n, from int) int {
	if n < from {
		return n
	}
	return n / 2
}

// sortInTwo sorts xs by cmp; a slice of parallelRows elements or more in
// two halves on two goroutines, merged at the end (wide's 1.1M rows at
// the lines granularity).
func sortInTwo[T any](xs []T, cmp func(a, b T) int) {
	inHalves(len(xs), parallelRows, func(_, lo, hi int) { slices.SortFunc(xs[lo:hi], cmp) })
	mergeHalves(xs, half(len(xs), parallelRows), cmp)
}

// mergeHalves merges xs[:h] and xs[h:], each sorted by cmp, into xs,
// the first half's element first where they compare equal.
func mergeHalves[T any](xs []T, h int, cmp func(a, b T) int) {
	if h == 0 || h == len(xs) {
		return
	}
	a, b := xs[:h], xs[h:]
	merged := make([]T, 0, len(xs))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if cmp(b[j], a[i]) < 0 {
			merged = append(merged, b[j])
			j++
		} else {
			merged = append(merged, a[i])
			i++
		}
	}
	merged = append(append(merged, a[i:]...), b[j:]...)
	copy(xs, merged)
}

// keyed is an element's sort key and its index, for sortByKey.
type keyed[K any] struct {
	key K
	at  int
}

// sortByKey sorts xs by cmp over keys made once per element (key of its
// index), for long slices whose elements compare through memory
// scattered in the heap (reading it at every comparison took most of the
// sort's time): the keys are sorted (sortInTwo), then xs permuted in
// place, cycle by cycle, to their order.
func sortByKey[T, K any](xs []T, key func(i int) K, cmp func(a, b keyed[K]) int) {
	keys := make([]keyed[K], len(xs))
	for i := range xs {
		keys[i] = keyed[K]{key(i), i}
	}
	sortInTwo(keys, cmp)
	// Element i takes element keys[i].at; a cycle's done entries -1.
	for i := range keys {
		if keys[i].at < 0 || keys[i].at == i {
			continue
		}
		first := xs[i]
		j := i
		for keys[j].at != i {
			next := keys[j].at
			xs[j] = xs[next]
			keys[j].at = -1
			j = next
		}
		xs[j] = first
		keys[j].at = -1
	}
}

// parallelRows is the row count from which a table's rows are sorted
// and made in two halves on two goroutines (a variable for the tests):
// below it, a sort takes less than the other goroutine's start and the
// merge save.
var parallelRows = 1 << 18
