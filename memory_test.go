package main

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestAfterEachGC: the hook that sets the memory limit runs after every
// collection, and stops when it says so.
func TestAfterEachGC(t *testing.T) {
	var calls atomic.Int32
	afterEachGC(func() bool { return calls.Add(1) < 3 })
	wait := func(n int32) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); calls.Load() < n; {
			if time.Now().After(deadline) {
				t.Fatalf("called %d times after %d collections", calls.Load(), n)
			}
			runtime.GC()
			time.Sleep(time.Millisecond)
		}
	}
	wait(3)
	for range 3 {
		runtime.GC()
	}
	time.Sleep(20 * time.Millisecond)
	if n := calls.Load(); n != 3 {
		t.Errorf("called %d times; it asked to stop after 3", n)
	}
}

// TestMemoryLimit: the limit leaves a small heap its slack, a large one
// an eighth more, and a heap with pointers to scan room in proportion.
func TestMemoryLimit(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live, scan uint64
		want       int64
	}{
		{0, 0, 32 * mb},
		{200 * mb, 2 * mb, (200 + 32 + 25 + 8) * mb},
		{1600 * mb, 8 * mb, (1600 + 32 + 200 + 32) * mb},
		{455 * mb, 35 * mb, (455 + 32 + 56 + 140) * mb},
	} {
		if got := memoryLimit(c.live, c.scan); got/mb != c.want/mb {
			t.Errorf("memoryLimit(%d MB, %d MB) = %d MB, want %d MB", c.live/mb, c.scan/mb, got/mb, c.want/mb)
		}
	}
}

// TestPace: Go's default pace for a small live heap, half of it from
// smallHeap on.
func TestPace(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{{0, 100}, {smallHeap - 1, 100}, {smallHeap, 50}, {1 << 31, 50}} {
		if got := pace(c.live); got != c.want {
			t.Errorf("pace(%d MB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}
