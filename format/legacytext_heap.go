package format

// Heap profiles: tcmalloc's and Go's, with pprof's unsampling.

import (
	"math"
	"strconv"
)

// heapKind classifies a heap profile header: "heap", "growth",
// "fragmentation" or "" for none.
func heapKind(l string) string {
	switch {
	case heapHeaderRE.MatchString(l):
		return "heap"
	case growthHeaderRE.MatchString(l):
		return "growth"
	case fragHeaderRE.MatchString(l):
		return "fragmentation"
	}
	return ""
}

// unsampleHeap undoes heap sampling at one sample per rate bytes on
// average: an allocation of size s was sampled with probability
// 1-exp(-s/rate), so pprof scales count and bytes by its inverse, taking
// every object of the sample to have the average size.
func unsampleHeap(count, size, rate int64) (int64, int64) {
	if count == 0 || size == 0 {
		return 0, 0
	}
	if rate <= 1 {
		return count, size
	}
	avg := float64(size) / float64(count)
	scale := 1 / (1 - math.Exp(-avg/float64(rate)))
	return amd64FloatToInt(float64(count) * scale), amd64FloatToInt(float64(size) * scale)
}

// parseLegacyHeap reads tcmalloc's and Go's heap profiles: after the header,
// "inuse_count: inuse_bytes [alloc_count: alloc_bytes] @ addrs" lines.
func parseLegacyHeap(r *lineReader, header string) (*Profile, error) {
	var rate, period int64
	hasAlloc := false
	switch heapKind(header) {
	case "growth", "fragmentation":
		period = 1
	default:
		h := heapHeaderRE.FindStringSubmatch(header)
		// pprof tells the in-use and allocated columns apart only when
		// the header's totals differ, as written.
		hasAlloc = h[1] != h[3] || h[2] != h[4]
		if h[6] != "" {
			n, err := strconv.ParseInt(h[6], 10, 64)
			if err != nil {
				return nil, r.errorf("heap sampling rate %s out of range", trimForError(h[6]))
			}
			period = n
		}
		switch h[5] {
		case "heap":
			// Go writes twice its MemProfileRate.
			period /= 2
			rate = period
		case "heap_v2", "heapz_v2":
			rate = period
		case "heapprofile":
			period = 1
		default:
			return nil, r.errorf("unknown heap profile type %q", trimForError(h[5]))
		}
	}
	types := []ValueType{{"objects", "count"}, {"space", "bytes"}}
	if hasAlloc {
		types = []ValueType{{"alloc_objects", "count"}, {"alloc_space", "bytes"}, {"inuse_objects", "count"}, {"inuse_space", "bytes"}}
	}
	lp := newTextProfile(types, ValueType{"space", "bytes"}, period)
	bytesKey := lp.b.str("bytes")

	var maps []byte
	for l, ok := r.next(); ok; l, ok = r.next() {
		if blankOrComment(l) {
			continue
		}
		if isMapsStart(l) {
			maps = r.rest()
			break
		}
		m := submatchAddrs(heapSampleRE, l)
		if m == nil {
			return nil, r.errorf("malformed heap sample %s", quoteLine(l))
		}
		var v [4]int64
		for i := range v {
			n, err := strconv.ParseInt(m[i+1], 10, 64)
			if err != nil {
				return nil, r.errorf("heap sample value %s out of range", trimForError(m[i+1]))
			}
			v[i] = n
		}
		inCount, inBytes, allocCount, allocBytes := v[0], v[1], v[2], v[3]
		if inCount == 0 && inBytes != 0 {
			return nil, r.errorf("in-use count is 0 but in-use bytes is %d", inBytes)
		}
		if hasAlloc && allocCount == 0 && allocBytes != 0 {
			return nil, r.errorf("allocation count is 0 but allocation bytes is %d", allocBytes)
		}
		var size int64 // the block size label, from the unscaled values
		switch {
		case inCount != 0:
			size = inBytes / inCount
		case hasAlloc && allocCount != 0:
			size = allocBytes / allocCount
		}
		inCount, inBytes = unsampleHeap(inCount, inBytes, rate)
		if hasAlloc {
			allocCount, allocBytes = unsampleHeap(allocCount, allocBytes, rate)
			lp.values[0], lp.values[1], lp.values[2], lp.values[3] = allocCount, allocBytes, inCount, inBytes
		} else {
			lp.values[0], lp.values[1] = inCount, inBytes
		}
		if err := lp.sampleCallers(r, "heap", m[5], []NumLabel{{Key: bytesKey, Value: size}}); err != nil {
			return nil, err
		}
	}
	return lp.finish(maps)
}
