package format

// Stack counts: Go's goroutine-style count profiles and C++ threadz.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// countSample splits a Go count profile's sample line, which must be
// exactly "count @ 0xaddr 0xaddr...": the count and the addresses.
func countSample(l string) (count, stack string, ok bool) {
	count, stack, ok = strings.Cut(l, " @ ")
	if !ok || count == "" || strings.Trim(count, "0123456789") != "" {
		return "", "", false
	}
	for _, a := range strings.Split(stack, " ") {
		if len(a) < 3 || a[:2] != "0x" || strings.TrimLeft(a[2:], "0123456789abcdef") != "" {
			return "", "", false
		}
	}
	return count, stack, true
}

// parseLegacyCount reads Go's count profiles (goroutine, threadcreate and
// the like, written with debug=1): "count @ addrs" lines, with "#"
// comments that pprof ignores, symbols and labels among them.
func parseLegacyCount(r *lineReader, name string) (*Profile, error) {
	lp := newTextProfile([]ValueType{{name, "count"}}, ValueType{name, "count"}, 1)
	var maps []byte
	for l, ok := r.next(); ok; l, ok = r.next() {
		if blankOrComment(l) {
			continue
		}
		if strings.HasPrefix(l, "---") {
			maps = r.mapsAfter(l)
			break
		}
		count, stack, ok := countSample(l)
		if !ok {
			return nil, r.errorf("malformed %s sample %s", name, quoteLine(l))
		}
		n, err := strconv.ParseInt(count, 10, 64)
		if err != nil {
			return nil, r.errorf("count %s out of range", trimForError(count))
		}
		lp.values[0] = n
		if err := lp.sampleCallers(r, name, stack, nil); err != nil {
			return nil, err
		}
	}
	return lp.finish(maps)
}

// parseLegacyThreadz reads C++ thread stacks: per thread a
// "--- Thread ... stack: ---" line, then lines holding its addresses or
// "[same as previous thread]". first is the "--- threadz 1 ---" header or
// the first thread's. The profile ends at the memory map section, which
// pprof requires (the last line will do: "MAPPED_LIBRARIES:" only counts
// there).
func parseLegacyThreadz(r *lineReader, first string) (*Profile, error) {
	lp := newTextProfile([]ValueType{{"thread", "count"}}, ValueType{"thread", "count"}, 1)
	lp.values[0] = 1
	l, ended := first, false // ended: l is the last line, not a section's first
	if threadzHeaderRE.MatchString(first) {
		// Skip to the first thread: anything up to a line starting with
		// "-" (not blank) is ignored.
		ended = true
		for x, ok := r.next(); ok; x, ok = r.next() {
			if l = x; isMapsStart(l) || strings.HasPrefix(l, "-") {
				ended = false
				break
			}
		}
	}
	var addrs []uint64
	for !isMapsStart(l) {
		if strings.HasPrefix(l, "---- no stack trace for") {
			break
		}
		if !threadRE.MatchString(l) {
			if ended {
				return nil, fmt.Errorf("threadz profile without its \"--- Memory map: ---\" section")
			}
			return nil, r.errorf("not a thread header: %s", quoteLine(l))
		}
		// The thread's lines, up to the next starting with "---" or the
		// end, which leaves the last line in l.
		same := false
		addrs, l, ended = addrs[:0], "", true
		for x, ok := r.next(); ok; x, ok = r.next() {
			if l = strings.TrimSpace(x); l == "" {
				continue
			}
			if strings.HasPrefix(l, "---") {
				ended = false
				break
			}
			if strings.Contains(l, "same as previous thread") {
				same = true
				continue
			}
			var err error
			if addrs, err = hexAddrList(l, addrs); err != nil {
				return nil, r.errorf("thread stack: %v", err)
			}
		}
		if same || len(addrs) == 0 {
			// One more for the last sample.
			if n := len(lp.p.Samples.Stack); n > 0 {
				lp.p.Samples.Values[0][n-1]++
			}
			continue
		}
		// The first address is the thread's PC; the others are return
		// addresses.
		for i := 1; i < len(addrs); i++ {
			addrs[i]--
		}
		if err := lp.locations(addrs); err != nil {
			return nil, r.errorf("%v", err)
		}
		// As for legacy CPU profiles, pprof drops a caller that is the PC
		// again (read from the stack too), once its location is numbered.
		if len(addrs) > 1 && addrs[1] == addrs[0]-1 {
			lp.locs = slices.Delete(lp.locs, 1, 2)
		}
		if err := lp.add(nil); err != nil {
			return nil, r.errorf("%v", err)
		}
	}
	return lp.finish(r.mapsAfter(l))
}
