package format

// pprof's legacy text profiles. Each is known by its first line:
//
//	heap profile: 144: 8498176 [144: 8498176] @ heapz_v2/524288   tcmalloc or Go heap; also "@ growthz", "@ fragmentationz"
//	--- contentionz 1 ---                                        C++ contention; Go's block and mutex text ("--- contention:", "--- mutex:")
//	--- threadz 1 ---                                            C++ thread stacks
//	goroutine profile: total 6                                   Go count profiles (goroutine, threadcreate, ...)
//	--- heapz 1 ---  or  --- contentionz 1 ---                   Java, with "format = java" and "resolution = ..." lines
//
// The numbers are pprof's (go tool pprof -raw): the same sample types,
// period, unsampling of heap values, locations numbered by first use and
// mappings, down to pprof's quirks, which the comments point out. The
// trailing /proc/self/maps text is read and matched by procmaps.go,
// shared with the legacy CPU decoder, as pprof shares it. We differ where pprof
// fails: it cannot read lines over 64 KiB, and in maps text it takes a
// line starting with a lone hex number for an address range, which
// parseLegacyMaps does not.

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var (
	// Like pprof's, these are unanchored unless they say otherwise, so
	// "x1: 2 [3: 4] @ 0x5" is a heap sample and "-1 2 @ 0x3" a
	// contention sample with the values 1 and 2.
	ltHeapHeaderRE   = regexp.MustCompile(`heap profile: *(\d+): *(\d+) *\[ *(\d+): *(\d+) *\] *@ *(heap[_a-z0-9]*)/?(\d*)`)
	ltGrowthHeaderRE = regexp.MustCompile(`heap profile: *\d+: *\d+ *\[ *\d+: *\d+ *\] @ growthz?`)
	ltFragHeaderRE   = regexp.MustCompile(`heap profile: *\d+: *\d+ *\[ *\d+: *\d+ *\] @ fragmentationz?`)
	ltHeapSampleRE   = regexp.MustCompile(`(-?\d+): *(-?\d+) *\[ *(\d+): *(\d+) *\] @`) // + ltAddrChars

	ltCountHeaderRE = regexp.MustCompile(`^(\S+) profile: total \d+$`)

	ltContentionSampleRE = regexp.MustCompile(`(\d+) *(\d+) @`) // + ltAddrChars

	ltThreadzHeaderRE = regexp.MustCompile(`--- threadz \d+ ---`)
	ltThreadRE        = regexp.MustCompile(`--- Thread [[:xdigit:]]+ \(name: .*/\d+\) stack: ---`)

	ltJavaHeaderRE = regexp.MustCompile(`^\s*--- (heapz|contentionz) 1 ---\s*$`)
	ltJavaSampleRE = regexp.MustCompile(`(\d+) +(\d+) +@ +([ x0-9a-f]+)`)
	ltJavaAttrRE   = regexp.MustCompile(`^\s*(.*\S) *= *(\S.*?)\s*$`)
)

// isLegacyText reports whether head (first up to 4 KiB of the decompressed
// input) starts like one of pprof's legacy text formats.
func isLegacyText(head []byte) bool {
	r := ltReader{data: head}
	first, ok := r.next()
	if !ok {
		return false
	}
	if ltHeapKind(first) != "" || ltIsContentionHeader(first) || ltJavaHeaderRE.MatchString(first) {
		return true
	}
	// Go count profiles and threadz (which may lack its "--- threadz 1
	// ---" line) may start after blank and comment lines.
	for l := first; ok; l, ok = r.next() {
		if !ltBlankOrComment(l) {
			return ltCountHeaderRE.MatchString(l) || ltThreadzHeaderRE.MatchString(l) || ltThreadRE.MatchString(l)
		}
	}
	return false
}

// parseLegacyText decodes a whole legacy text profile held in memory and
// gives it pprof's built-in drop_frames and keep_frames. It charges no
// meter: each of its samples is a line of the input and each location an
// address written in it, so what it decodes to stays within a small
// multiple of the input, which Parse has charged.
func parseLegacyText(data []byte, _ *meter) (*Profile, error) {
	p, err := parseLegacyTextFrames(data)
	if err != nil {
		return nil, err
	}
	p.DropFrames, p.KeepFrames = legacyFrameInfo(p.SampleTypes)
	return p, nil
}

func parseLegacyTextFrames(data []byte) (*Profile, error) {
	r := &ltReader{data: data}
	first, _ := r.next()
	switch {
	case ltHeapKind(first) != "":
		return ltParseHeap(r, first)
	case ltIsContentionHeader(first):
		p, err := ltParseContention(r)
		if errors.Is(err, errLTNotCPP) && ltJavaHeaderRE.MatchString(first) {
			// As in pprof, a contentionz profile with attributes the
			// C++ format lacks may be Java's.
			r = &ltReader{data: data}
			r.next()
			return ltParseJava(r, "contentionz")
		}
		return p, err
	case ltJavaHeaderRE.MatchString(first):
		return ltParseJava(r, ltJavaHeaderRE.FindStringSubmatch(first)[1])
	}
	for l, ok := first, true; ok; l, ok = r.next() {
		if ltBlankOrComment(l) {
			continue
		}
		if m := ltCountHeaderRE.FindStringSubmatch(l); m != nil {
			return ltParseCount(r, m[1])
		}
		if ltThreadzHeaderRE.MatchString(l) || ltThreadRE.MatchString(l) {
			return ltParseThreadz(r, l)
		}
		return nil, fmt.Errorf("line %d: not a legacy text profile header: %s", r.line, ltQuote(l))
	}
	return nil, fmt.Errorf("no legacy text profile header")
}

// errLTNotCPP says a contention profile has an attribute the C++ format
// does not know.
var errLTNotCPP = errors.New("not a C++ contention profile")

// ltReader hands out lines as bufio.ScanLines does, without the newline
// and one carriage return before it, and counts them for errors.
type ltReader struct {
	data []byte
	off  int
	line int // the number of the line last returned, from 1
}

func (r *ltReader) next() (string, bool) {
	if r.off >= len(r.data) {
		return "", false
	}
	rest := r.data[r.off:]
	l, _, found := bytes.Cut(rest, []byte{'\n'})
	r.off += len(l)
	if found {
		r.off++
	}
	r.line++
	return string(bytes.TrimSuffix(l, []byte{'\r'})), true
}

// rest returns the text after the last line returned.
func (r *ltReader) rest() []byte { return r.data[r.off:] }

// mapsAfter returns the memory map text: what follows l if it starts the
// section, else what follows the next line that does, else nil.
func (r *ltReader) mapsAfter(l string) []byte {
	for ok := true; ok; l, ok = r.next() {
		if ltIsMapsStart(l) {
			return r.rest()
		}
	}
	return nil
}

func (r *ltReader) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", r.line, fmt.Sprintf(format, args...))
}

// lineError prefixes err with the current line, keeping it for errors.Is.
func (r *ltReader) lineError(err error) error {
	return fmt.Errorf("line %d: %w", r.line, err)
}

// ltQuote quotes a line for an error message, shortened.
func ltQuote(s string) string {
	if len(s) > 60 {
		return strconv.Quote(s[:60]) + "..."
	}
	return strconv.Quote(s)
}

func ltBlankOrComment(l string) bool {
	t := strings.TrimSpace(l)
	return t == "" || t[0] == '#'
}

// ltIsMapsStart reports whether a line starts the memory map section.
func ltIsMapsStart(l string) bool {
	return strings.Contains(l, "--- Memory map: ---") || strings.Contains(l, "MAPPED_LIBRARIES:")
}

func ltIsContentionHeader(l string) bool {
	return strings.HasPrefix(l, "--- contentionz ") || strings.HasPrefix(l, "--- contention:") || strings.HasPrefix(l, "--- mutex:")
}

// ltHeapKind classifies a heap profile header: "heap", "growth",
// "fragmentation" or "" for none.
func ltHeapKind(l string) string {
	switch {
	case ltHeapHeaderRE.MatchString(l):
		return "heap"
	case ltGrowthHeaderRE.MatchString(l):
		return "growth"
	case ltFragHeaderRE.MatchString(l):
		return "fragmentation"
	}
	return ""
}

// ltSubmatchAddrs matches re, a sample line's regular expression up to
// its "@", then appends the addresses after it (the longest run of
// ltAddrChars, as pprof's "@([ x0-9a-f]*)") as the last submatch. Leaving
// the run out of the regular expression makes matching several times
// faster, with the same result: the run always matches.
func ltSubmatchAddrs(re *regexp.Regexp, l string) []string {
	m := re.FindStringSubmatchIndex(l)
	if m == nil {
		return nil
	}
	out := make([]string, len(m)/2+1)
	for i := range len(m) / 2 {
		if m[2*i] >= 0 {
			out[i] = l[m[2*i]:m[2*i+1]]
		}
	}
	end := m[1]
	for end < len(l) && ltAddrChar(l[end]) {
		end++
	}
	out[len(out)-1] = l[m[1]:end]
	return out
}

func ltAddrChar(c byte) bool { return c == ' ' || c == 'x' || lowerHexDigit(c) }

// ltCountSample splits a Go count profile's sample line, which must be
// exactly "count @ 0xaddr 0xaddr...": the count and the addresses.
func ltCountSample(l string) (count, stack string, ok bool) {
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

// ltAttr splits a "key = value" line; both parts must be non-empty.
func ltAttr(l string) (key, value string, ok bool) {
	k, v, found := strings.Cut(l, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	return k, v, found && k != "" && v != ""
}

// ltAddrs returns the hexadecimal numbers in s, in order: "0x" and at
// least one lower-case digit, as pprof matches them ("0x12AB" is 0x12).
func ltAddrs(s string, out []uint64) ([]uint64, error) {
	for i := 0; i+2 < len(s); {
		if s[i] != '0' || s[i+1] != 'x' || !lowerHexDigit(s[i+2]) {
			i++
			continue
		}
		j := i + 2
		for j < len(s) && lowerHexDigit(s[j]) {
			j++
		}
		a, err := strconv.ParseUint(s[i+2:j], 16, 64)
		if err != nil {
			return nil, fmt.Errorf("address %s does not fit in 64 bits", ltQuote(s[i:j]))
		}
		out = append(out, a)
		i = j
	}
	return out, nil
}

// ltFloatToInt converts as Go does on amd64, where pprof's goldens come
// from: a value out of int64's range (or NaN) becomes math.MinInt64.
// Other architectures saturate, which would change pprof's numbers.
func ltFloatToInt(f float64) int64 {
	if f != f || f >= 1<<63 || f < -(1<<63) {
		return math.MinInt64
	}
	return int64(f)
}

// ltUnsample undoes heap sampling at one sample per rate bytes on
// average: an allocation of size s was sampled with probability
// 1-exp(-s/rate), so pprof scales count and bytes by its inverse, taking
// every object of the sample to have the average size.
func ltUnsample(count, size, rate int64) (int64, int64) {
	if count == 0 || size == 0 {
		return 0, 0
	}
	if rate <= 1 {
		return count, size
	}
	avg := float64(size) / float64(count)
	scale := 1 / (1 - math.Exp(-avg/float64(rate)))
	return ltFloatToInt(float64(count) * scale), ltFloatToInt(float64(size) * scale)
}

// ltProfile is a profile under construction.
type ltProfile struct {
	p      *Profile
	b      *builder
	locOf  map[uint64]int32 // address → location index
	locs   []int32          // scratch
	values []int64          // scratch
}

func newLTProfile(types []ValueType, periodType ValueType, period int64) *ltProfile {
	p := &Profile{SampleTypes: types, PeriodType: periodType, Period: period}
	b := newBuilder(p)
	b.str("")
	p.Samples.Values = make([][]int64, len(types))
	return &ltProfile{p: p, b: b, locOf: make(map[uint64]int32), values: make([]int64, len(types))}
}

// location returns the index of the location at addr, adding it if new:
// locations are numbered in order of first use, as in pprof.
func (lp *ltProfile) location(addr uint64) (int32, error) {
	if i, ok := lp.locOf[addr]; ok {
		return i, nil
	}
	p := lp.p
	if len(p.Locations) >= math.MaxInt32-1 {
		return 0, fmt.Errorf("too many distinct addresses")
	}
	i := int32(len(p.Locations))
	p.Locations = append(p.Locations, Location{ID: uint64(i) + 1, Mapping: -1, Address: addr})
	lp.locOf[addr] = i
	return i, nil
}

// sample adds a sample with stack addrs (leaf first) and lp.values.
func (lp *ltProfile) sample(addrs []uint64, num []NumLabel) error {
	if err := lp.locations(addrs); err != nil {
		return err
	}
	return lp.add(num)
}

// locations sets lp.locs to the locations of addrs.
func (lp *ltProfile) locations(addrs []uint64) error {
	lp.locs = lp.locs[:0]
	for _, a := range addrs {
		i, err := lp.location(a)
		if err != nil {
			return err
		}
		lp.locs = append(lp.locs, i)
	}
	return nil
}

// add adds a sample with stack lp.locs and lp.values.
func (lp *ltProfile) add(num []NumLabel) error {
	st, err := lp.b.stack(lp.locs)
	if err != nil {
		return err
	}
	return lp.b.sample(st, lp.values, 0, num)
}

// finish reads the maps text, if any, and assigns mappings as pprof does.
func (lp *ltProfile) finish(maps []byte) (*Profile, error) {
	var ms []Mapping
	if maps != nil {
		ms = parseLegacyMaps(maps)
	}
	if err := ltAssignMappings(lp.p, ms); err != nil {
		return nil, err
	}
	ltPlaceholderMapping(lp.p)
	return lp.p, nil
}

// ltPlaceholderMapping gives a profile without mappings the one pprof
// adds then: all zero, holding every location.
func ltPlaceholderMapping(p *Profile) {
	if len(p.Mappings) > 0 {
		return
	}
	p.Mappings = []Mapping{{ID: 1}}
	for i := range p.Locations {
		p.Locations[i].Mapping = 0
	}
}

// ltParseHeap reads tcmalloc's and Go's heap profiles: after the header,
// "inuse_count: inuse_bytes [alloc_count: alloc_bytes] @ addrs" lines.
func ltParseHeap(r *ltReader, header string) (*Profile, error) {
	var rate, period int64
	hasAlloc := false
	switch ltHeapKind(header) {
	case "growth", "fragmentation":
		period = 1
	default:
		h := ltHeapHeaderRE.FindStringSubmatch(header)
		// pprof tells the in-use and allocated columns apart only when
		// the header's totals differ, as written.
		hasAlloc = h[1] != h[3] || h[2] != h[4]
		if h[6] != "" {
			n, err := strconv.ParseInt(h[6], 10, 64)
			if err != nil {
				return nil, r.errorf("heap sampling rate %s out of range", h[6])
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
			return nil, r.errorf("unknown heap profile type %q", h[5])
		}
	}
	types := []ValueType{{"objects", "count"}, {"space", "bytes"}}
	if hasAlloc {
		types = []ValueType{{"alloc_objects", "count"}, {"alloc_space", "bytes"}, {"inuse_objects", "count"}, {"inuse_space", "bytes"}}
	}
	lp := newLTProfile(types, ValueType{"space", "bytes"}, period)
	bytesKey := lp.b.str("bytes")

	var addrs []uint64
	var maps []byte
	for l, ok := r.next(); ok; l, ok = r.next() {
		if ltBlankOrComment(l) {
			continue
		}
		if ltIsMapsStart(l) {
			maps = r.rest()
			break
		}
		m := ltSubmatchAddrs(ltHeapSampleRE, l)
		if m == nil {
			return nil, r.errorf("malformed heap sample %s", ltQuote(l))
		}
		var v [4]int64
		for i := range v {
			n, err := strconv.ParseInt(m[i+1], 10, 64)
			if err != nil {
				return nil, r.errorf("heap sample value %s out of range", m[i+1])
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
		inCount, inBytes = ltUnsample(inCount, inBytes, rate)
		if hasAlloc {
			allocCount, allocBytes = ltUnsample(allocCount, allocBytes, rate)
			lp.values[0], lp.values[1], lp.values[2], lp.values[3] = allocCount, allocBytes, inCount, inBytes
		} else {
			lp.values[0], lp.values[1] = inCount, inBytes
		}

		var err error
		if addrs, err = ltAddrs(m[5], addrs[:0]); err != nil {
			return nil, r.errorf("heap sample: %v", err)
		}
		// Return addresses: one less is the call instruction. pprof
		// adjusts the leaf too.
		for i := range addrs {
			addrs[i]--
		}
		if err := lp.sample(addrs, []NumLabel{{Key: bytesKey, Value: size}}); err != nil {
			return nil, r.errorf("%v", err)
		}
	}
	return lp.finish(maps)
}

// ltParseContention reads C++ contention profiles and Go's block and
// mutex profiles as text: "key = value" attributes, then
// "cycles count @ addrs" lines.
func ltParseContention(r *ltReader) (*Profile, error) {
	var period, cyclesPerSec, msSinceReset int64 = 1, 0, 0
	l, ok := r.next()
	for ; ok; l, ok = r.next() {
		if ltBlankOrComment(l) {
			continue
		}
		key, value, isAttr := ltAttr(l)
		if !isAttr {
			break
		}
		var dst *int64
		switch key {
		case "cycles/second":
			dst = &cyclesPerSec
		case "sampling period":
			dst = &period
		case "ms since reset":
			dst = &msSinceReset
		case "discarded samples":
			continue
		default:
			return nil, fmt.Errorf("line %d: unknown attribute %q: %w", r.line, key, errLTNotCPP)
		}
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return nil, r.errorf("attribute %q: %s is not a 64-bit integer", key, ltQuote(value))
		}
		*dst = n
	}

	lp := newLTProfile([]ValueType{{"contentions", "count"}, {"delay", "nanoseconds"}}, ValueType{"contentions", "count"}, period)
	lp.p.DurationNanos = msSinceReset * 1e6

	var addrs []uint64
	var maps []byte
	for ; ok; l, ok = r.next() {
		if ltBlankOrComment(l) {
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(l), "---") {
			maps = r.mapsAfter(l)
			break
		}
		m := ltSubmatchAddrs(ltContentionSampleRE, l)
		if m == nil {
			if _, _, isAttr := ltAttr(l); isAttr {
				return nil, r.errorf("attribute after the samples: %s", ltQuote(l))
			}
			return nil, r.errorf("malformed contention sample %s", ltQuote(l))
		}
		cycles, err1 := strconv.ParseInt(m[1], 10, 64)
		count, err2 := strconv.ParseInt(m[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, r.errorf("contention sample value out of range in %s", ltQuote(l))
		}
		delay := cycles
		if period > 0 {
			// pprof scales both by the sampling period, but the delay
			// only when it knows the clock rate (and then in floating
			// point, as here).
			count *= period
			if cyclesPerSec > 0 {
				delay = ltFloatToInt(float64(cycles) * float64(period) / (float64(cyclesPerSec) / 1e9))
			}
		}
		lp.values[0], lp.values[1] = count, delay
		if addrs, err1 = ltAddrs(m[3], addrs[:0]); err1 != nil {
			return nil, r.errorf("contention sample: %v", err1)
		}
		for i := range addrs {
			addrs[i]--
		}
		if err := lp.sample(addrs, nil); err != nil {
			return nil, r.errorf("%v", err)
		}
	}
	return lp.finish(maps)
}

// ltParseCount reads Go's count profiles (goroutine, threadcreate and
// the like, written with debug=1): "count @ addrs" lines, with "#"
// comments that pprof ignores, symbols and labels among them.
func ltParseCount(r *ltReader, name string) (*Profile, error) {
	lp := newLTProfile([]ValueType{{name, "count"}}, ValueType{name, "count"}, 1)
	var addrs []uint64
	var maps []byte
	for l, ok := r.next(); ok; l, ok = r.next() {
		if ltBlankOrComment(l) {
			continue
		}
		if strings.HasPrefix(l, "---") {
			maps = r.mapsAfter(l)
			break
		}
		count, stack, ok := ltCountSample(l)
		if !ok {
			return nil, r.errorf("malformed %s sample %s", name, ltQuote(l))
		}
		n, err := strconv.ParseInt(count, 10, 64)
		if err != nil {
			return nil, r.errorf("count %s out of range", count)
		}
		lp.values[0] = n
		if addrs, err = ltAddrs(stack, addrs[:0]); err != nil {
			return nil, r.errorf("%s sample: %v", name, err)
		}
		for i := range addrs {
			addrs[i]--
		}
		if err := lp.sample(addrs, nil); err != nil {
			return nil, r.errorf("%v", err)
		}
	}
	return lp.finish(maps)
}

// ltParseThreadz reads C++ thread stacks: per thread a
// "--- Thread ... stack: ---" line, then lines holding its addresses or
// "[same as previous thread]". first is the "--- threadz 1 ---" header or
// the first thread's. The profile ends at the memory map section, which
// pprof requires (the last line will do: "MAPPED_LIBRARIES:" only counts
// there).
func ltParseThreadz(r *ltReader, first string) (*Profile, error) {
	lp := newLTProfile([]ValueType{{"thread", "count"}}, ValueType{"thread", "count"}, 1)
	lp.values[0] = 1
	l, ended := first, false // ended: l is the last line, not a section's first
	if ltThreadzHeaderRE.MatchString(first) {
		// Skip to the first thread: anything up to a line starting with
		// "-" (not blank) is ignored.
		ended = true
		for x, ok := r.next(); ok; x, ok = r.next() {
			if l = x; ltIsMapsStart(l) || strings.HasPrefix(l, "-") {
				ended = false
				break
			}
		}
	}
	var addrs []uint64
	for !ltIsMapsStart(l) {
		if strings.HasPrefix(l, "---- no stack trace for") {
			break
		}
		if !ltThreadRE.MatchString(l) {
			if ended {
				return nil, fmt.Errorf("threadz profile without its \"--- Memory map: ---\" section")
			}
			return nil, r.errorf("not a thread header: %s", ltQuote(l))
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
			if addrs, err = ltAddrs(l, addrs); err != nil {
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

// ltParseJava reads Java's heapz and contentionz text: "key = value"
// attributes, "value1 value2 @ ids" lines, then " 0xid function
// (file:line)" lines naming the frames. Frames have method ids, not
// addresses; like pprof we clear them once they are named.
func ltParseJava(r *ltReader, kind string) (*Profile, error) {
	var unit string
	var period, msSinceReset int64
	hasPeriod := false
	l, ok := r.next()
	for ; ok; l, ok = r.next() {
		if strings.TrimSpace(l) == "" {
			continue
		}
		m := ltJavaAttrRE.FindStringSubmatch(l)
		if m == nil {
			break
		}
		key, value := m[1], m[2]
		switch {
		case key == "format":
			if value != "java" {
				return nil, r.errorf("unknown format %q", value)
			}
		case key == "resolution":
			unit = value
		case kind == "contentionz" && (key == "sampling period" || key == "ms since reset"):
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil || n < 0 || value[0] == '+' {
				return nil, r.errorf("attribute %q: %s is not a non-negative 64-bit integer", key, ltQuote(value))
			}
			if key == "ms since reset" {
				msSinceReset = n
			} else {
				period, hasPeriod = n, true
			}
		default:
			return nil, r.errorf("unknown attribute %q in a Java %s profile", key, kind)
		}
	}

	types := []ValueType{{"contentions", "count"}, {"delay", unit}}
	var periodType ValueType
	if kind == "heapz" {
		types = []ValueType{{"inuse_objects", "count"}, {"inuse_space", unit}}
	} else if hasPeriod {
		periodType = ValueType{"contentions", "count"}
	}
	lp := newLTProfile(types, periodType, period)
	lp.p.DurationNanos = msSinceReset * 1e6
	bytesKey := int32(0)
	if kind == "heapz" {
		bytesKey = lp.b.str("bytes")
	}

	var addrs []uint64
	for ; ok; l, ok = r.next() {
		if strings.TrimSpace(l) == "" {
			continue
		}
		m := ltJavaSampleRE.FindStringSubmatch(l)
		if m == nil {
			break // the symbols follow
		}
		v1, err1 := strconv.ParseInt(m[1], 10, 64)
		v2, err2 := strconv.ParseInt(m[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, r.errorf("Java sample value out of range in %s", ltQuote(l))
		}
		if kind == "heapz" && v2 == 0 {
			return nil, r.errorf("Java heap sample %s: the count (second value) must be non-zero", ltQuote(l))
		}
		if unit == "" {
			return nil, r.errorf("Java %s profile without a resolution attribute", kind)
		}
		var num []NumLabel
		if kind == "heapz" {
			// bytes count, sampled every 512 KiB on average.
			num = []NumLabel{{Key: bytesKey, Value: v1 / v2}}
			lp.values[0], lp.values[1] = ltUnsample(v2, v1, 524288)
		} else {
			// delay count
			if period > 0 {
				v1, v2 = v1*period, v2*period
			}
			lp.values[0], lp.values[1] = v2, v1
		}
		if addrs, err1 = ltAddrs(m[3], addrs[:0]); err1 != nil {
			return nil, r.errorf("Java sample: %v", err1)
		}
		if err := lp.sample(addrs, num); err != nil {
			return nil, r.errorf("%v", err)
		}
	}
	if unit == "" {
		return nil, fmt.Errorf("Java %s profile without a resolution attribute", kind)
	}

	// Symbols: the last line for an id wins; a function is known by its
	// name, the first file given for it wins.
	p := lp.p
	named := make([]bool, len(p.Locations))
	funcOf := make(map[string]int32)
	for ; ok; l, ok = r.next() {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "0x") {
			continue
		}
		e := 2
		for e < len(t) && hexDigit(t[e]) {
			e++
		}
		s := e
		for s < len(t) && re2Space(t[s]) {
			s++
		}
		if e == 2 || s == e || s == len(t) {
			continue
		}
		id, err := strconv.ParseUint(t[2:e], 16, 64)
		if err != nil {
			continue
		}
		li, found := lp.locOf[id]
		if !found {
			continue
		}
		fn, line := javaFrame(t[s:])
		fi, found := funcOf[fn.Name]
		if !found {
			if len(p.Functions) >= math.MaxInt32-1 {
				return nil, r.errorf("too many Java functions")
			}
			fi = int32(len(p.Functions))
			fn.ID = uint64(fi) + 1
			p.Functions = append(p.Functions, fn)
			funcOf[fn.Name] = fi
		}
		p.Locations[li].Lines = p.AddLines(Line{Function: fi, Line: line})
		named[li] = true
	}

	// pprof clears the ids of named frames before it assigns mappings and
	// the others' after, so only unnamed frames get its placeholder
	// mapping, unless no frame is named at all.
	for i := range p.Locations {
		if named[i] {
			p.Locations[i].Address = 0
		}
	}
	if err := ltAssignMappings(p, nil); err != nil {
		return nil, err
	}
	for i := range p.Locations {
		p.Locations[i].Address = 0
	}
	ltPlaceholderMapping(p)
	return p, nil
}

// ltAssignMappings points each location at the mapping holding its
// address, after pprof's repairs of mappings that profile handlers get
// wrong, and sets p.Mappings to ms. A location no mapping holds gets a
// placeholder mapping covering every address, added at the end, as in
// pprof; one at address 0 gets none.
func ltAssignMappings(p *Profile, ms []Mapping) error {
	ms = repairMappings(ms)
	if len(ms) >= math.MaxInt32-1 {
		return fmt.Errorf("too many mappings")
	}
	x := newMappingIndex(ms)
	tooMany := func() error {
		return fmt.Errorf("%d overlapping mappings are too many to match with %d addresses", len(ms), len(p.Locations))
	}
	placeholder := false
	for li := range p.Locations {
		l := &p.Locations[li]
		if l.Address == 0 {
			continue
		}
		if !x.spend(1) {
			return tooMany()
		}
		i := x.holding(l.Address)
		if i < 0 && !placeholder {
			// Only until the placeholder exists: from then on pprof
			// finds it before looking below mappings.
			if !x.spend(1) {
				return tooMany()
			}
			i = x.growOver(l.Address)
		}
		if i < 0 {
			placeholder = true
			i = int32(len(ms))
		}
		l.Mapping = i
	}
	if placeholder {
		ms = append(ms, Mapping{Limit: math.MaxUint64})
	}
	for i := range ms {
		ms[i].ID = uint64(i) + 1
	}
	p.Mappings = ms
	return nil
}
