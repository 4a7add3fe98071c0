package analysis

import (
	"slices"
	"sync/atomic"
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

// take returns the next run [from, to), or ok false when none is left.
func (r *runs) take() (from, to int, ok bool) {
	from = int(r.next.Add(int64(r.size))) - r.size
	if from >= r.n {
		return 0, 0, false
	}
	return from, min(from+r.size, r.n), true
}

// inTwo runs walk on two goroutines sharing the runs of [0, n), or on
// one when n is below parallelStacks; part is 0 or 1.
func inTwo(n int, walk func(r *runs, part int)) {
	r := newRuns(n)
	if n < parallelStacks {
		walk(r, 0)
		return
	}
	both(func() { walk(r, 0) }, func() { walk(r, 1) })
}

// sortInTwo sorts xs by cmp; a slice of parallelSort elements or more in
// two halves on two goroutines, merged at the end (wide's 1.1M rows at
// the lines granularity).
func sortInTwo[T any](xs []T, cmp func(a, b T) int) {
	if len(xs) < parallelSort {
		slices.SortFunc(xs, cmp)
		return
	}
	h := len(xs) / 2
	a, b := xs[:h], xs[h:]
	both(func() { slices.SortFunc(a, cmp) }, func() { slices.SortFunc(b, cmp) })
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

// parallelSort is the length from which sortInTwo uses two goroutines
// (a variable for the tests): below it, a sort takes less than the
// other goroutine's start and the merge save.
var parallelSort = 1 << 18
