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
// shared with the legacy CPU decoder, as pprof shares it. This file tells
// the kinds apart and holds what they share; each kind's reader is in
// legacytext_KIND.go. We differ where pprof
// fails: it cannot read lines over 64 KiB, and in maps text it takes a
// line starting with a lone hex number for an address range, which
// parseLegacyMaps does not.

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

var (
	// Like pprof's, these are unanchored unless they say otherwise, so
	// "x1: 2 [3: 4] @ 0x5" is a heap sample and "-1 2 @ 0x3" a
	// contention sample with the values 1 and 2.
	heapHeaderRE   = regexp.MustCompile(`heap profile: *(\d+): *(\d+) *\[ *(\d+): *(\d+) *\] *@ *(heap[_a-z0-9]*)/?(\d*)`)
	growthHeaderRE = regexp.MustCompile(`heap profile: *\d+: *\d+ *\[ *\d+: *\d+ *\] @ growthz?`)
	fragHeaderRE   = regexp.MustCompile(`heap profile: *\d+: *\d+ *\[ *\d+: *\d+ *\] @ fragmentationz?`)
	heapSampleRE   = regexp.MustCompile(`(-?\d+): *(-?\d+) *\[ *(\d+): *(\d+) *\] @`) // + addrListByte

	countHeaderRE = regexp.MustCompile(`^(\S+) profile: total \d+$`)

	contentionSampleRE = regexp.MustCompile(`(\d+) *(\d+) @`) // + addrListByte

	threadzHeaderRE = regexp.MustCompile(`--- threadz \d+ ---`)
	threadRE        = regexp.MustCompile(`--- Thread [[:xdigit:]]+ \(name: .*/\d+\) stack: ---`)

	javaHeaderRE = regexp.MustCompile(`^\s*--- (heapz|contentionz) 1 ---\s*$`)
	javaSampleRE = regexp.MustCompile(`(\d+) +(\d+) +@ +([ x0-9a-f]+)`)
	javaAttrRE   = regexp.MustCompile(`^\s*(.*\S) *= *(\S.*?)\s*$`)
)

// isLegacyText reports whether head (first up to 4 KiB of the decompressed
// input) starts like one of pprof's legacy text formats.
func isLegacyText(head []byte) bool {
	r := lineReader{data: head}
	first, ok := r.next()
	if !ok {
		return false
	}
	if heapKind(first) != "" || isContentionHeader(first) || javaHeaderRE.MatchString(first) {
		return true
	}
	// Go count profiles and threadz (which may lack its "--- threadz 1
	// ---" line) may start after blank and comment lines.
	for l := first; ok; l, ok = r.next() {
		if !blankOrComment(l) {
			return countHeaderRE.MatchString(l) || threadzHeaderRE.MatchString(l) || threadRE.MatchString(l)
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
	r := &lineReader{data: data}
	first, _ := r.next()
	switch {
	case heapKind(first) != "":
		return parseLegacyHeap(r, first)
	case isContentionHeader(first):
		p, err := parseLegacyContention(r)
		if errors.Is(err, errNotCPPContention) && javaHeaderRE.MatchString(first) {
			// As in pprof, a contentionz profile with attributes the
			// C++ format lacks may be Java's.
			r = &lineReader{data: data}
			r.next()
			return parseLegacyJava(r, "contentionz")
		}
		return p, err
	case javaHeaderRE.MatchString(first):
		return parseLegacyJava(r, javaHeaderRE.FindStringSubmatch(first)[1])
	}
	for l, ok := first, true; ok; l, ok = r.next() {
		if blankOrComment(l) {
			continue
		}
		if m := countHeaderRE.FindStringSubmatch(l); m != nil {
			return parseLegacyCount(r, m[1])
		}
		if threadzHeaderRE.MatchString(l) || threadRE.MatchString(l) {
			return parseLegacyThreadz(r, l)
		}
		return nil, fmt.Errorf("line %d: not a legacy text profile header: %s", r.line, quoteLine(l))
	}
	return nil, fmt.Errorf("no legacy text profile header")
}

// lineReader hands out lines as bufio.ScanLines does, without the newline
// and one carriage return before it, and counts them for errors.
type lineReader struct {
	data []byte
	off  int
	line int // the number of the line last returned, from 1
}

func (r *lineReader) next() (string, bool) {
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
func (r *lineReader) rest() []byte { return r.data[r.off:] }

// mapsAfter returns the memory map text: what follows l if it starts the
// section, else what follows the next line that does, else nil.
func (r *lineReader) mapsAfter(l string) []byte {
	for ok := true; ok; l, ok = r.next() {
		if isMapsStart(l) {
			return r.rest()
		}
	}
	return nil
}

func (r *lineReader) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", r.line, fmt.Sprintf(format, args...))
}

// lineError prefixes err with the current line, keeping it for errors.Is.
func (r *lineReader) lineError(err error) error {
	return fmt.Errorf("line %d: %w", r.line, err)
}

// quoteLine quotes a line for an error message, shortened.
func quoteLine(s string) string {
	if len(s) > 60 {
		return strconv.Quote(s[:60]) + "..."
	}
	return strconv.Quote(s)
}

func blankOrComment(l string) bool {
	t := strings.TrimSpace(l)
	return t == "" || t[0] == '#'
}

// isMapsStart reports whether a line starts the memory map section.
func isMapsStart(l string) bool {
	return strings.Contains(l, "--- Memory map: ---") || strings.Contains(l, "MAPPED_LIBRARIES:")
}

// submatchAddrs matches re, a sample line's regular expression up to
// its "@", then appends the addresses after it (the longest run of
// addrListByte, as pprof's "@([ x0-9a-f]*)") as the last submatch. Leaving
// the run out of the regular expression makes matching several times
// faster, with the same result: the run always matches.
func submatchAddrs(re *regexp.Regexp, l string) []string {
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
	for end < len(l) && addrListByte(l[end]) {
		end++
	}
	out[len(out)-1] = l[m[1]:end]
	return out
}

func addrListByte(c byte) bool { return c == ' ' || c == 'x' || lowerHexDigit(c) }

// keyValue splits a "key = value" line; both parts must be non-empty.
func keyValue(l string) (key, value string, ok bool) {
	k, v, found := strings.Cut(l, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	return k, v, found && k != "" && v != ""
}

// hexAddrList returns the hexadecimal numbers in s, in order: "0x" and at
// least one lower-case digit, as pprof matches them ("0x12AB" is 0x12).
func hexAddrList(s string, out []uint64) ([]uint64, error) {
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
			return nil, fmt.Errorf("address %s does not fit in 64 bits", quoteLine(s[i:j]))
		}
		out = append(out, a)
		i = j
	}
	return out, nil
}

// amd64FloatToInt converts as Go does on amd64, where pprof's goldens come
// from: a value out of int64's range (or NaN) becomes math.MinInt64.
// Other architectures saturate, which would change pprof's numbers.
func amd64FloatToInt(f float64) int64 {
	if f != f || f >= 1<<63 || f < -(1<<63) {
		return math.MinInt64
	}
	return int64(f)
}

// textProfile is a profile under construction.
type textProfile struct {
	p      *Profile
	b      *builder
	locOf  map[uint64]int32 // address → location index
	locs   []int32          // scratch
	values []int64          // scratch
	addrs  []uint64         // scratch
}

func newTextProfile(types []ValueType, periodType ValueType, period int64) *textProfile {
	p := &Profile{SampleTypes: types, PeriodType: periodType, Period: period}
	b := newBuilder(p)
	b.str("")
	p.Samples.Values = make([][]int64, len(types))
	return &textProfile{p: p, b: b, locOf: make(map[uint64]int32), values: make([]int64, len(types))}
}

// location returns the index of the location at addr, adding it if new:
// locations are numbered in order of first use, as in pprof.
func (lp *textProfile) location(addr uint64) (int32, error) {
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
func (lp *textProfile) sample(addrs []uint64, num []NumLabel) error {
	if err := lp.locations(addrs); err != nil {
		return err
	}
	return lp.add(num)
}

// sampleCallers adds a sample with lp.values whose stack is the return
// addresses in s, leaf first: one less is the call instruction, and
// pprof adjusts the leaf too. kind names the sample in errors.
func (lp *textProfile) sampleCallers(r *lineReader, kind, s string, num []NumLabel) error {
	var err error
	if lp.addrs, err = hexAddrList(s, lp.addrs[:0]); err != nil {
		return r.errorf("%s sample: %v", kind, err)
	}
	for i := range lp.addrs {
		lp.addrs[i]--
	}
	if err := lp.sample(lp.addrs, num); err != nil {
		return r.errorf("%v", err)
	}
	return nil
}

// locations sets lp.locs to the locations of addrs.
func (lp *textProfile) locations(addrs []uint64) error {
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
func (lp *textProfile) add(num []NumLabel) error {
	st, err := lp.b.stack(lp.locs)
	if err != nil {
		return err
	}
	return lp.b.sample(st, lp.values, 0, num)
}

// finish reads the maps text, if any, and assigns mappings as pprof does.
func (lp *textProfile) finish(maps []byte) (*Profile, error) {
	var ms []Mapping
	if maps != nil {
		ms = parseLegacyMaps(maps)
	}
	if err := assignWithPlaceholder(lp.p, ms); err != nil {
		return nil, err
	}
	return lp.p, nil
}

// addPlaceholderMapping gives a profile without mappings the one pprof
// adds then: all zero, holding every location.
func addPlaceholderMapping(p *Profile) {
	if len(p.Mappings) > 0 {
		return
	}
	p.Mappings = []Mapping{{ID: 1}}
	for i := range p.Locations {
		p.Locations[i].Mapping = 0
	}
}

// assignWithPlaceholder points each location at the mapping holding its
// address, after pprof's repairs of mappings that profile handlers get
// wrong, and sets p.Mappings to ms. A location no mapping holds gets a
// placeholder mapping covering every address, added at the end, as in
// pprof; one at address 0 gets none. A profile left without mappings
// gets the one pprof adds then (addPlaceholderMapping).
func assignWithPlaceholder(p *Profile, ms []Mapping) error {
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
	addPlaceholderMapping(p)
	return nil
}
