package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// Memory: the explorer's heap is mostly a profile's large pointer-free
// arrays, which the collector marks without scanning them, and the
// caches the engine and the views keep. gcPercent lets the heap grow by
// half its live size between collections; on top of it a soft memory
// limit follows the live heap (memoryLimit, set after each collection),
// so that freed pages go back to the system at once instead of over
// minutes, and a large heap is collected before it grows by half. The
// limit leaves the collector room in proportion to what a collection
// costs, the heap it must scan (pointers: names, maps, tree nodes): a
// profile of a hundred thousand functions keeps gcPercent's pace, one of
// few functions and ten million stacks is collected at a sixth of its
// live size.

// gcPercent is the garbage collector's target unless GOGC says
// otherwise, once the live heap is smallHeap or more: the heap may grow
// by half its live size between collections, not by all of it. A
// ten-million-sample profile is ~1.6 GB live; each recomputation leaves
// ~90 MB of per-stack arrays behind, and at Go's default the process
// grew to 3.2 GB before collecting them. The live heap is mostly
// pointer-free arrays, so the extra collections are cheap (timed through
// the explorer's first screens: no slower at 1M or 10M samples).
//
// Below smallHeap the pace is Go's default (smallGCPercent): a profile of
// a few MB was collected eight times while it loaded, half its CPU time
// (pprof's 2.4 MB large.cpu: 73 → 53 ms for -top, 32 → 34 MB).
const (
	gcPercent      = 50
	smallGCPercent = 100
	smallHeap      = 64 << 20
)

// pace is the collector's target for a live heap of live bytes.
func pace(live uint64) int {
	if live < smallHeap {
		return smallGCPercent
	}
	return gcPercent
}

// memoryLimit is the soft memory limit for a live heap of live bytes of
// which scan are scanned by a collection.
func memoryLimit(live, scan uint64) int64 {
	const (
		slack      = 32 << 20 // a small heap's room
		liveShare  = 8        // an eighth of the live heap
		scanFactor = 4        // four times the heap a collection scans
	)
	return int64(live + slack + live/liveShare + scanFactor*scan)
}

// tuneMemory sets the collector's pace for the live heap and the
// following memory limit, after each collection, unless GOGC or
// GOMEMLIMIT set them.
func tuneMemory() {
	setPace, setLimit := os.Getenv("GOGC") == "", os.Getenv("GOMEMLIMIT") == ""
	if !setPace && !setLimit {
		return
	}
	percent := pace(0)
	if setPace {
		debug.SetGCPercent(percent)
	}
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/heap:bytes"}}
	afterEachGC(func() bool {
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
			return true
		}
		live := s[0].Value.Uint64()
		if p := pace(live); setPace && p != percent {
			percent = p
			debug.SetGCPercent(p)
		}
		if setLimit {
			debug.SetMemoryLimit(memoryLimit(live, s[1].Value.Uint64()))
		}
		return true
	})
}

// afterEachGC calls f on the finalizer goroutine after each garbage
// collection while f returns true: a sentinel object is found
// unreachable by every cycle, and its finalizer makes the next one.
func afterEachGC(f func() bool) {
	type sentinel struct {
		_ *int // not a tiny allocation, which may share a block
		_ [32]byte
	}
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		if f() {
			afterEachGC(f)
		}
	})
}
