package format

// The legacy gperftools CPU profile: a binary header, records and a
// trailer in "slots" (the profiled program's pointer size, in its byte
// order), then text: /proc/self/maps lines for C++ programs, or a symbol
// table for the Java variant. The layout is gperftools'
// docs/cpuprofile-fileformat; how we read it follows pprof's behaviour
// (github.com/google/pprof/profile) so that our numbers are pprof's:
// return addresses minus one, the signal-handler frame removed, the same
// mapping list, one sample per record.
//
//	header:  0, header words (>= 3), version (0, or 1 for Java), period µs, 0
//	record:  count, depth, depth PCs (leaf first)
//	trailer: 0, 1, 0

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
)

// cpuProfilerFrames names the profiler's own frames, which pprof prunes
// from symbolized legacy CPU profiles (the profile's drop_frames).
var cpuProfilerFrames = strings.Join([]string{
	"ProfileData::Add", "ProfileData::prof_handler", "CpuProfiler::prof_handler",
	"__pthread_sighandler", "__restore",
}, "|")

// legacyLayout is a slot size and byte order a header may be written in,
// in the order pprof tries them.
type legacyLayout struct {
	word  int
	order binary.ByteOrder
	name  string
}

var legacyLayouts = []legacyLayout{
	{4, binary.LittleEndian, "32-bit little-endian"},
	{4, binary.BigEndian, "32-bit big-endian"},
	{8, binary.LittleEndian, "64-bit little-endian"},
	{8, binary.BigEndian, "64-bit big-endian"},
}

func (l legacyLayout) slot(b []byte, off int) uint64 {
	if l.word == 4 {
		return uint64(l.order.Uint32(b[off:]))
	}
	return l.order.Uint64(b[off:])
}

type legacyHeader struct {
	legacyLayout
	words  uint64 // header slots after slot 1
	java   bool
	period uint64 // µs

	// Why the header is invalid in this layout ("" if it is valid), and
	// how many of the five rules held, to report the likeliest layout.
	problem string
	held    int  // rules that hold
	prefix  int  // rules that hold before the first that does not
	badMark bool // slot 0, the header count, is not 0
}

// likelier reports whether h's reading of an invalid header is likelier
// than o's: more rules hold, in a longer prefix, or in 64-bit slots (a
// 64-bit header read in 32-bit slots always has header words 0).
func (h legacyHeader) likelier(o legacyHeader) bool {
	if h.held != o.held {
		return h.held > o.held
	}
	if h.prefix != o.prefix {
		return h.prefix > o.prefix
	}
	return h.word > o.word
}

// checkHeader reads the five fixed header slots of head in layout l.
func (l legacyLayout) checkHeader(head []byte) legacyHeader {
	h := legacyHeader{legacyLayout: l, held: -1, prefix: -1}
	if len(head) < 5*l.word {
		h.badMark = true
		h.problem = fmt.Sprintf("header: %d bytes, a %s header needs %d", len(head), l.name, 5*l.word)
		return h
	}
	var slot [5]uint64
	for i := range slot {
		slot[i] = l.slot(head, i*l.word)
	}
	h.words, h.period = slot[1], slot[3]
	h.java = slot[2] == 1
	ok := [5]bool{
		slot[0] == 0,
		h.words >= 3 && h.words < maxHeaderWords,
		slot[2] <= 1,
		h.period > 0,
		slot[4] == 0,
	}
	h.held, h.prefix = 0, 0
	first := -1
	for i := range ok {
		switch {
		case ok[i]:
			h.held++
			if first < 0 {
				h.prefix++
			}
		case first < 0:
			first = i
		}
	}
	switch first {
	case 0:
		h.badMark = true
		h.problem = fmt.Sprintf("header slot 0 (header count) is %d, want 0", slot[0])
	case 1:
		h.problem = fmt.Sprintf("header slot 1 (header words) is %d, want at least 3 (and below %d)", h.words, maxHeaderWords)
	case 2:
		h.problem = fmt.Sprintf("header slot 2 (format version) is %d, want 0 (or 1 for Java)", slot[2])
	case 3:
		h.problem = "header slot 3 (sampling period) is 0"
	case 4:
		h.problem = fmt.Sprintf("header slot 4 (padding) is %d, want 0", slot[4])
	}
	return h
}

// maxHeaderWords caps the header words (gperftools writes 3). Without a
// cap both byte orders could pass: 3 read backwards is 3<<24 or 3<<56,
// which is "at least 3" too. Any count below the cap reads backwards as
// at least the cap.
const maxHeaderWords = 1 << 16

// readLegacyHeader finds the layout in which head is a valid header.
func readLegacyHeader(head []byte) (legacyHeader, error) {
	var bad legacyHeader
	for i, l := range legacyLayouts {
		h := l.checkHeader(head)
		if h.problem == "" {
			return h, nil
		}
		if i == 0 || h.likelier(bad) {
			bad = h
		}
	}
	if bad.badMark {
		return bad, errLegacyCPU("not a gperftools CPU profile: %s", bad.problem)
	}
	return bad, errLegacyCPU("bad %s header: %s", bad.name, bad.problem)
}

func errLegacyCPU(format string, args ...any) error {
	return fmt.Errorf("legacy CPU profile: "+format, args...)
}

// isLegacyCPU reports whether head (the first bytes of the decompressed
// input, up to 64 bytes) starts with a gperftools CPU profile header
// (32- or 64-bit slots, either byte order; also the Java variant whose
// 3rd slot is 1).
func isLegacyCPU(head []byte) bool {
	_, err := readLegacyHeader(head)
	return err == nil
}

// legacyRecord is one profile record: addrs[start:start+n] is its stack,
// leaf first, already adjusted.
type legacyRecord struct {
	at       int // byte offset, for errors
	count    int64
	start, n int
}

// parseLegacyCPU decodes a whole legacy CPU profile held in memory.
func parseLegacyCPU(data []byte, m *meter) (*Profile, error) {
	h, err := readLegacyHeader(data)
	if err != nil {
		return nil, err
	}
	w := h.word
	if h.words > uint64(len(data)/w-2) {
		return nil, errLegacyCPU("header at byte %d: %d header words need %d bytes, the file has %d", w, h.words, (2+h.words)*uint64(w), len(data))
	}
	if h.period > math.MaxInt64/1000 {
		return nil, errLegacyCPU("header at byte %d: sampling period %d µs overflows int64 nanoseconds", 3*w, h.period)
	}
	periodNs := int64(h.period) * 1000

	recs, addrs, text, err := readLegacyRecords(data, h, periodNs)
	if err != nil {
		return nil, err
	}
	if !h.java {
		// gperftools reads the leaf PC from the signal context but every
		// other frame from the stack, where it is the return address:
		// one less lands on the call instruction.
		for _, r := range recs {
			for i := r.start + 1; i < r.start+r.n; i++ {
				addrs[i]--
			}
		}
		dropSignalFrames(recs, addrs)
	}

	p := &Profile{
		SampleTypes: []ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:  ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:      periodNs,
		DropFrames:  cpuProfilerFrames,
	}
	b := newTypedBuilder(p)
	b.mem = m
	b.countSums()

	// Locations are numbered in order of first use, as pprof numbers them.
	locOf := make(map[uint64]int32)
	for _, r := range recs {
		for _, a := range addrs[r.start : r.start+r.n] {
			if _, ok := locOf[a]; ok {
				continue
			}
			if len(p.Locations) >= math.MaxInt32-1 {
				return nil, errLegacyCPU("record at byte %d: too many distinct addresses", r.at)
			}
			locOf[a] = int32(len(p.Locations))
			p.Locations = append(p.Locations, Location{ID: uint64(len(p.Locations)) + 1, Mapping: -1, Address: a})
		}
	}

	if h.java {
		if err := readJavaSymbols(p, b, text, len(data)-len(text), locOf); err != nil {
			return nil, err
		}
	} else {
		p.Mappings = parseLegacyMaps(text)
		if err := assignMappings(p); err != nil {
			return nil, err
		}
		for i := range p.Mappings {
			b.str(p.Mappings[i].File)
			b.str(p.Mappings[i].BuildID)
		}
		dropDuplicateLeaves(recs, addrs)
	}

	var locs []int32
	vals := make([]int64, 2)
	for _, r := range recs {
		locs = locs[:0]
		for _, a := range addrs[r.start : r.start+r.n] {
			locs = append(locs, locOf[a])
		}
		st, err := b.stack(locs)
		if err == nil {
			vals[0], vals[1] = r.count, r.count*periodNs
			err = b.sample(st, vals, 0, nil)
		}
		if err != nil {
			return nil, errLegacyCPU("record at byte %d: %w", r.at, err)
		}
	}
	return p, nil
}

// readLegacyRecords reads the records after the header up to the trailer
// and returns them with the text that follows. Counts are checked so that
// count × period fits in int64 nanoseconds.
func readLegacyRecords(data []byte, h legacyHeader, periodNs int64) (recs []legacyRecord, addrs []uint64, text []byte, err error) {
	w := h.word
	off := (2 + int(h.words)) * w
	for {
		rest := len(data) - off
		if rest == 0 {
			return nil, nil, nil, errLegacyCPU("no trailer (0, 1, 0): the records end at byte %d without one", off)
		}
		if rest < 2*w {
			return nil, nil, nil, errLegacyCPU("record at byte %d: truncated: %d bytes left, a record needs at least %d", off, rest, 3*w)
		}
		count, depth := h.slot(data, off), h.slot(data, off+w)
		left := rest - 2*w
		if depth > uint64(left/w) {
			return nil, nil, nil, errLegacyCPU("record at byte %d: depth %d exceeds the %d bytes left", off, depth, left)
		}
		pcs := off + 2*w
		end := pcs + int(depth)*w
		if count == 0 && depth == 1 && h.slot(data, pcs) == 0 {
			return recs, addrs, data[end:], nil
		}
		switch {
		case depth == 0:
			return nil, nil, nil, errLegacyCPU("record at byte %d: depth 0, want at least one PC", off)
		case count == 0 && !h.java:
			// The Java agent writes zero counts (for GC, Compile, VM);
			// gperftools never does, so here it means corruption.
			return nil, nil, nil, errLegacyCPU("record at byte %d: sample count 0 outside the trailer (0, 1, 0)", off)
		case count > uint64(math.MaxInt64/periodNs):
			return nil, nil, nil, errLegacyCPU("record at byte %d: sample count %d overflows int64 nanoseconds", off, count)
		}
		if addrs == nil {
			addrs = make([]uint64, 0, (len(data)-off)/w) // bounded by the input
		}
		recs = append(recs, legacyRecord{at: off, count: int64(count), start: len(addrs), n: int(depth)})
		for i := pcs; i < end; i += w {
			addrs = append(addrs, h.slot(data, i))
		}
		off = end
	}
}

// remove1 deletes frame 1 of record r.
func (r *legacyRecord) remove1(addrs []uint64) {
	s := addrs[r.start : r.start+r.n]
	copy(s[1:], s[2:])
	r.n--
}

// dropSignalFrames removes the frame the signal handler pushes: when
// (nearly) every sample has the same frame 1, it is an artifact of
// measurement, not a caller. Like pprof it tolerates one differing sample
// in 32, and strips at most two such frames.
func dropSignalFrames(recs []legacyRecord, addrs []uint64) {
	need := len(recs) - len(recs)/32
	for range 2 {
		counts := make(map[uint64]int)
		for _, r := range recs {
			if r.n > 1 {
				counts[addrs[r.start+1]]++
			}
		}
		// More than half the samples share the frame, so at most one
		// address qualifies and map order does not matter.
		found, frame := false, uint64(0)
		for a, c := range counts {
			if c >= need {
				found, frame = true, a
				break
			}
		}
		if !found {
			continue
		}
		for i := range recs {
			if r := &recs[i]; r.n > 1 && addrs[r.start+1] == frame {
				r.remove1(addrs)
			}
		}
	}
}

// dropDuplicateLeaves removes frame 1 where it is the leaf PC again (seen
// adjusted by one): the profiler took it both from the signal context and
// from the stack. As in pprof this runs after locations are numbered, so
// a location used only there stays in the list, unreferenced.
func dropDuplicateLeaves(recs []legacyRecord, addrs []uint64) {
	for i := range recs {
		if r := &recs[i]; r.n > 1 && addrs[r.start] == addrs[r.start+1]+1 {
			r.remove1(addrs)
		}
	}
}

// re2Space is RE2's \s, which pprof's parsers use.
func re2Space(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func hexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func decDigit(c byte) bool { return '0' <= c && c <= '9' }

// runEnd returns the end of the run of bytes from i that satisfy ok.
func runEnd(s string, i int, ok func(byte) bool) int {
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

func allBytes(s string, ok func(byte) bool) bool { return s != "" && runEnd(s, 0, ok) == len(s) }

func permByte(c byte) bool { return strings.IndexByte("-rwxp", c) >= 0 }

// re2Fields splits s at runs of RE2 whitespace.
func re2Fields(s string) []string {
	var out []string
	for i := runEnd(s, 0, re2Space); i < len(s); i = runEnd(s, i, re2Space) {
		j := runEnd(s, i, func(c byte) bool { return !re2Space(c) })
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// mapsLine is one recognised line of the maps text, as strings.
type mapsLine struct {
	start, end, perms, offset, file, buildID string
}

// splitMapsLine recognises the address range that starts a mapping line,
// "[0x]start-[0x]end" or "start end", then reads the rest either as
// /proc/self/maps ("perms offset dev inode path") or as pprof's brief
// form ("perms path (@offset) buildid", every part optional). Like pprof
// it takes only the first word of a path. Unlike pprof, which also splits
// a lone hex number into a range, it requires a separator.
func splitMapsLine(s string) (mapsLine, bool) {
	var m mapsLine
	hexAt := func(i int) (string, int) {
		if strings.HasPrefix(s[i:], "0x") && i+2 < len(s) && hexDigit(s[i+2]) {
			i += 2
		}
		j := runEnd(s, i, hexDigit)
		return s[i:j], j
	}
	i := runEnd(s, 0, re2Space)
	m.start, i = hexAt(i)
	if m.start == "" || i == len(s) || !(s[i] == '-' || re2Space(s[i])) {
		return m, false
	}
	m.end, i = hexAt(runEnd(s, i+1, re2Space))
	if m.end == "" {
		return m, false
	}
	if i < len(s) && s[i] == ':' {
		i++
	}
	rest := s[i:]
	if rest != "" && !re2Space(rest[0]) {
		return m, true // the brief form, with nothing after the range
	}

	isDev := func(t string) bool {
		a, b, ok := strings.Cut(t, ":")
		return ok && allBytes(a, hexDigit) && allBytes(b, hexDigit)
	}
	f := re2Fields(rest)
	k := 0
	if k < len(f) && allBytes(f[k], permByte) {
		m.perms = f[k]
		k++
	}
	if k+1 < len(f) && allBytes(f[k], hexDigit) && isDev(f[k+1]) {
		m.offset = f[k]
		k++
	}
	if k+1 < len(f) && isDev(f[k]) && decDigit(f[k+1][0]) {
		if allBytes(f[k+1], decDigit) && k+2 < len(f) {
			m.file = f[k+2]
		}
		return m, true
	}

	m.perms, m.offset = "", ""
	// word reads the next whitespace-preceded run of bytes satisfying ok
	// from rest, advancing it only on success.
	word := func(ok func(byte) bool) string {
		j := runEnd(rest, 0, re2Space)
		if j == 0 {
			return ""
		}
		e := runEnd(rest, j, ok)
		w := rest[j:e]
		if w != "" {
			rest = rest[e:]
		}
		return w
	}
	m.perms = word(permByte)
	m.file = word(func(c byte) bool { return !re2Space(c) })
	if j := runEnd(rest, 0, re2Space); j > 0 && strings.HasPrefix(rest[j:], "(@") {
		e := runEnd(rest, j+2, hexDigit)
		if e > j+2 && e < len(rest) && rest[e] == ')' {
			m.offset = rest[j+2 : e]
			rest = rest[e+1:]
		}
	}
	m.buildID = word(hexDigit)
	return m, true
}

// glogPrefixEnd returns the length of a glog prefix ("I0102 15:04:05.000
// 123 file.cc:45] ") at the start of line, or 0.
func glogPrefixEnd(line string) int {
	j := strings.IndexAny(line, "[]")
	if j < 0 || line[j] != ']' || j+1 >= len(line) || !re2Space(line[j+1]) {
		return 0
	}
	c := strings.LastIndexByte(line[:j], ':')
	if c < 1 || !allBytes(line[c+1:j], decDigit) {
		return 0
	}
	return j + 2
}

// parseLegacyMaps reads the mapped objects listed after the trailer,
// keeping the executable ones, and tidies them as pprof does: adjacent
// pieces of one object are merged and the main binary goes first.
// Unrecognised lines are ignored, except that "name=value" lines define
// $name for the lines after them.
func parseLegacyMaps(text []byte) []Mapping {
	var ms []Mapping
	var attrs []string // "$name", value pairs; the first definition wins
	defined := make(map[string]bool)
	var subst *strings.Replacer
	for len(text) > 0 {
		var raw []byte
		raw, text, _ = bytes.Cut(text, []byte{'\n'})
		line := string(bytes.TrimSuffix(raw, []byte{'\r'}))
		line = line[glogPrefixEnd(line):]
		if len(attrs) > 0 && strings.IndexByte(line, '$') >= 0 {
			if subst == nil {
				subst = strings.NewReplacer(attrs...)
			}
			line = subst.Replace(line)
		}
		m, ok := mapsEntry(line)
		if ok && m == nil {
			continue // not executable
		}
		if !ok {
			k, v, found := strings.Cut(line, "=")
			if k = "$" + strings.TrimSpace(k); found && !defined[k] && len(defined) < maxMapsAttrs {
				defined[k] = true
				attrs = append(attrs, k, strings.TrimSpace(v))
				subst = nil
			}
			continue
		}
		ms = append(ms, *m)
	}
	return tidyMappings(ms)
}

// maxMapsAttrs caps the name=value definitions in a maps text, so that
// substitution stays cheap; real files have one ($build) or none.
const maxMapsAttrs = 64

// mapsEntry converts a maps line to a Mapping: nil for a non-executable
// one, false when the line is not a mapping.
func mapsEntry(line string) (*Mapping, bool) {
	l, ok := splitMapsLine(line)
	if !ok {
		return nil, false
	}
	if l.perms != "" && !strings.Contains(l.perms, "x") {
		return nil, true
	}
	m := &Mapping{File: l.file, BuildID: l.buildID}
	var err1, err2, err3 error
	m.Start, err1 = strconv.ParseUint(l.start, 16, 64)
	m.Limit, err2 = strconv.ParseUint(l.end, 16, 64)
	if l.offset != "" {
		m.Offset, err3 = strconv.ParseUint(l.offset, 16, 64)
	}
	if err1 != nil || err2 != nil || err3 != nil {
		return nil, false
	}
	return m, true
}

// adjacentMappings reports whether b continues a: the same object (where
// both name it) mapped right after it, at the matching file offset (where
// both have one).
func adjacentMappings(a, b *Mapping) bool {
	switch {
	case a.File != "" && b.File != "" && a.File != b.File,
		a.BuildID != "" && b.BuildID != "" && a.BuildID != b.BuildID,
		a.Limit != b.Start,
		a.Offset != 0 && b.Offset != 0 && a.Offset+(a.Limit-a.Start) != b.Offset:
		return false
	}
	return true
}

// isSharedLibrary matches names like libc.so, libc.so.6 or libfoo.so_2.
func isSharedLibrary(file string) bool {
	if strings.HasSuffix(file, ".so") {
		return true
	}
	for i := 0; ; i++ {
		j := strings.Index(file[i:], ".so")
		if j < 0 {
			return false
		}
		i += j
		if k := i + 3; k+1 < len(file) && (file[k] == '.' || file[k] == '_') && decDigit(file[k+1]) {
			return true
		}
	}
}

func tidyMappings(ms []Mapping) []Mapping {
	if len(ms) > 1 {
		out := ms[:1]
		for _, m := range ms[1:] {
			last := &out[len(out)-1]
			if !adjacentMappings(last, &m) {
				out = append(out, m)
				continue
			}
			last.Limit = m.Limit
			if m.File != "" {
				last.File = m.File
			}
			if m.BuildID != "" {
				last.BuildID = m.BuildID
			}
		}
		ms = out
	}
	// The main binary is the first object that is neither a shared
	// library nor a pseudo-file like [vdso]; it swaps places with the
	// first mapping.
	for i := range ms {
		f := strings.TrimSpace(strings.ReplaceAll(ms[i].File, "(deleted)", ""))
		if f == "" || f[0] == '[' || isSharedLibrary(f) {
			continue
		}
		ms[0], ms[i] = ms[i], ms[0]
		break
	}
	return ms
}

// assignMappings points each location at the mapping holding its address,
// after pprof's repairs of mappings that profile handlers get wrong.
// Locations that no mapping holds keep -1 (pprof gives them a placeholder
// mapping covering every address instead). It fails only for overlapping
// mappings too many to match by brute force.
func assignMappings(p *Profile) error {
	ms := p.Mappings
	if len(ms) > 1 && strings.HasPrefix(ms[0].File, "/anon_hugepage") && ms[0].Limit == ms[1].Start {
		ms = ms[1:]
	}
	// A main binary whose text starts at 0x400000 once its offset is
	// undone was mapped in pieces; it really starts there.
	if len(ms) > 0 && ms[0].Start-ms[0].Offset == 0x400000 {
		ms[0].Start, ms[0].Offset = 0x400000, 0
	}
	for i := range ms {
		ms[i].ID = uint64(i) + 1
	}
	p.Mappings = ms
	idx := newMappingIndex(ms)
	for li := range p.Locations {
		l := &p.Locations[li]
		if l.Address == 0 {
			continue
		}
		i, ok := idx.find(l.Address)
		if !ok {
			return errLegacyCPU("maps: %d overlapping executable mappings are too many to match with %d addresses", len(ms), len(p.Locations))
		}
		l.Mapping = i
	}
	return nil
}

// mappingIndex finds the first mapping (in list order) holding an
// address, as pprof does by scanning the list. When the mappings and the
// gaps below them (see find) are disjoint, as in any real /proc/self/maps,
// at most one can match and a binary search finds it; otherwise it scans,
// within a budget.
type mappingIndex struct {
	ms       []Mapping
	disjoint bool
	byStart  []int32  // mapping indices by Start
	gaps     []int32  // mappings with a gap, by gap start
	gapLo    []uint64 // gap i is [gapLo[i], gapHi[i]), by mapping index
	gapHi    []uint64
	budget   int // comparisons left for scanning
}

// matchBudget bounds the comparisons spent scanning overlapping mappings
// (pprof's way, quadratic): about a second's work.
const matchBudget = 1 << 28

func newMappingIndex(ms []Mapping) *mappingIndex {
	x := &mappingIndex{ms: ms, budget: matchBudget}
	x.gapLo, x.gapHi = make([]uint64, len(ms)), make([]uint64, len(ms))
	for i := range ms {
		x.byStart = append(x.byStart, int32(i))
		// A mapping with an offset may have lost the piece below it;
		// with an offset above its start (wrapping) it cannot have.
		if m := ms[i]; m.Offset != 0 && m.Offset <= m.Start {
			x.gaps = append(x.gaps, int32(i))
			x.gapLo[i], x.gapHi[i] = m.Start-m.Offset, m.Start
		}
	}
	slices.SortFunc(x.byStart, func(a, b int32) int { return cmp.Compare(ms[a].Start, ms[b].Start) })
	slices.SortFunc(x.gaps, func(a, b int32) int { return cmp.Compare(x.gapLo[a], x.gapLo[b]) })
	x.disjoint = true
	for k, i := range x.byStart {
		if ms[i].Start >= ms[i].Limit || k > 0 && ms[x.byStart[k-1]].Limit > ms[i].Start {
			x.disjoint = false
			return x
		}
	}
	for k, i := range x.gaps {
		if k > 0 && x.gapHi[x.gaps[k-1]] > x.gapLo[i] {
			x.disjoint = false
			return x
		}
		// The one mapping that could overlap the gap is the last one
		// starting below the gap's end.
		if j := x.lastStartingBelow(x.gapHi[i]); j >= 0 && ms[j].Limit > x.gapLo[i] {
			x.disjoint = false
			return x
		}
	}
	return x
}

// lastStartingBelow returns the mapping with the greatest Start < a, or -1.
func (x *mappingIndex) lastStartingBelow(a uint64) int32 {
	k, _ := slices.BinarySearchFunc(x.byStart, a, func(i int32, a uint64) int { return cmp.Compare(x.ms[i].Start, a) })
	if k == 0 {
		return -1
	}
	return x.byStart[k-1]
}

// find returns the mapping holding a, or -1; false when the scanning
// budget is spent. Failing that, some profile
// handlers leave out the first piece of a mapping split in two: a mapping
// whose offset says it extends down over a grows to cover it, as in pprof.
// Growing keeps the index valid: the gap was disjoint from everything.
func (x *mappingIndex) find(a uint64) (int32, bool) {
	ms := x.ms
	if x.disjoint {
		if i := x.lastStartingBelow(a + 1); i >= 0 && a < ms[i].Limit {
			return i, true
		}
		k, _ := slices.BinarySearchFunc(x.gaps, a+1, func(i int32, a uint64) int { return cmp.Compare(x.gapLo[i], a) })
		if k > 0 {
			i := x.gaps[k-1]
			if a < x.gapHi[i] && ms[i].Offset != 0 {
				ms[i].Start, ms[i].Offset = x.gapLo[i], 0
				return i, true
			}
		}
		return -1, true
	}
	if x.budget -= 2 * len(ms); x.budget < 0 {
		return -1, false
	}
	for i := range ms {
		if ms[i].Start <= a && a < ms[i].Limit {
			return int32(i), true
		}
	}
	for i := range ms {
		if m := &ms[i]; m.Offset != 0 && m.Start-m.Offset <= a && a < m.Start {
			m.Start -= m.Offset
			m.Offset = 0
			return int32(i), true
		}
	}
	return -1, true
}

// readJavaSymbols reads the Java variant's symbol table, " 0x<id> name"
// lines where name is "function (file:line)", "function (path)" or a
// pseudo-frame like "GC", into functions and lines for the locations.
// Like pprof it then clears every address: Java's are method ids, and
// without them frames of one function merge. base is text's byte offset
// in the file, for errors.
func readJavaSymbols(p *Profile, b *builder, text []byte, base int, locOf map[uint64]int32) error {
	var named []Function                     // functions by name, in order of definition
	nameIdx := make(map[string]int)          // name → index in named
	frameOf := make([]int, len(p.Locations)) // location → index in named + 1, or 0
	for len(text) > 0 {
		at := base
		var raw []byte
		raw, text, _ = bytes.Cut(text, []byte{'\n'})
		base += len(raw) + 1
		line := strings.TrimSpace(string(raw))
		if !strings.HasPrefix(line, "0x") {
			continue
		}
		e := runEnd(line, 2, hexDigit)
		n := runEnd(line, e, re2Space)
		if e == 2 || n == e {
			continue
		}
		addr, err := strconv.ParseUint(line[2:e], 16, 64)
		if err != nil {
			return errLegacyCPU("symbol at byte %d: address %s: %w", at, line[:e], err)
		}
		li, ok := locOf[addr]
		if !ok {
			continue
		}
		fn, lineNo := javaFrame(line[n:])
		k, ok := nameIdx[fn.Name]
		if !ok { // else the first file given for a name wins
			k = len(named)
			nameIdx[fn.Name] = k
			named = append(named, fn)
		}
		frameOf[li] = k + 1
		p.Locations[li].Lines = p.AddLines(Line{Line: lineNo})
	}

	// Functions are numbered in order of first use, as pprof numbers them.
	funcIdx := make(map[int]int32)
	for li := range p.Locations {
		l := &p.Locations[li]
		l.Address = 0
		k := frameOf[li] - 1
		if k < 0 {
			continue
		}
		fi, ok := funcIdx[k]
		if !ok {
			fi = int32(len(p.Functions))
			funcIdx[k] = fi
			fn := named[k]
			fn.ID = uint64(fi) + 1
			p.Functions = append(p.Functions, fn)
			b.str(fn.Name)
			b.str(fn.Filename)
		}
		p.LinesOf(l)[0].Function = fi
	}
	return nil
}

// javaFrame reads a Java symbol: "function (file:line)", "function
// (path/to/lib.so)", a JIT stub, or a bare name for the agent's
// pseudo-frames such as "GC".
func javaFrame(name string) (fn Function, line int64) {
	fn.Name = name
	if strings.Contains(name, "generated stub/JIT") {
		fn.Name = "STUB"
	}
	if !strings.HasSuffix(name, ")") {
		fn.SystemName = fn.Name
		return fn, 0
	}
	// The parenthesis that opens the suffix is the last one that follows
	// whitespace and leaves a "file:line" inside, else the last one that
	// follows whitespace. Only the last colon can end a file name.
	inner := name[:len(name)-1]
	c := strings.LastIndexByte(inner, ':')
	num := inner[c+1:]
	hasLine := c >= 0 && allBytes(strings.TrimPrefix(num, "-"), decDigit)
	pathAt := -1
	for i := len(inner) - 1; i > 0; i-- {
		if inner[i] != '(' || !re2Space(inner[i-1]) {
			continue
		}
		if pathAt < 0 {
			pathAt = i
		}
		if !hasLine {
			break
		}
		if c >= i+2 { // a file name of at least one byte
			fn.Name, fn.Filename, fn.SystemName = name[:i-1], inner[i+1:c], name[:i-1]
			if n, err := strconv.ParseInt(num, 10, 64); err == nil && n > 0 {
				line = n
			}
			return fn, line
		}
	}
	if pathAt >= 0 {
		// A shared library: only its name is interesting.
		fn.Name, fn.Filename = name[:pathAt-1], path.Base(inner[pathAt+1:])
	}
	fn.SystemName = fn.Name
	return fn, 0
}
