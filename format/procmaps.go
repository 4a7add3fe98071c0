package format

// The /proc/self/maps text that follows pprof's legacy profiles, binary
// CPU and text alike, and pprof's repairs of the mappings it lists: both
// decoders read and match mappings here, as pprof shares the code.

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// re2Space is RE2's \s, which pprof's parsers use.
func re2Space(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

func hexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func lowerHexDigit(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }

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

// find returns the first mapping holding a, failing that the one grown
// over it (see growOver), or -1; false when the scanning budget is spent.
func (x *mappingIndex) find(a uint64) (int32, bool) {
	if !x.spend(2) {
		return -1, false
	}
	if i := x.holding(a); i >= 0 {
		return i, true
	}
	return x.growOver(a), true
}

// spend charges scans of the whole list against the budget, reporting
// whether any is left; searching costs nothing.
func (x *mappingIndex) spend(scans int) bool {
	if x.disjoint {
		return true
	}
	x.budget -= scans * len(x.ms)
	return x.budget >= 0
}

// holding returns the first mapping with Start <= a < Limit, or -1.
func (x *mappingIndex) holding(a uint64) int32 {
	ms := x.ms
	if x.disjoint {
		if i := x.lastStartingBelow(a + 1); i >= 0 && a < ms[i].Limit {
			return i
		}
		return -1
	}
	for i := range ms {
		if ms[i].Start <= a && a < ms[i].Limit {
			return int32(i)
		}
	}
	return -1
}

// growOver implements pprof's repair for profile handlers that leave out
// the first piece of a mapping split in two: the first mapping whose
// offset says it extends down over a grows to cover it. Growing keeps the
// index valid: the gap was disjoint from everything.
func (x *mappingIndex) growOver(a uint64) int32 {
	ms := x.ms
	if x.disjoint {
		k, _ := slices.BinarySearchFunc(x.gaps, a+1, func(i int32, a uint64) int { return cmp.Compare(x.gapLo[i], a) })
		if k > 0 {
			i := x.gaps[k-1]
			if a < x.gapHi[i] && ms[i].Offset != 0 {
				ms[i].Start, ms[i].Offset = x.gapLo[i], 0
				return i
			}
		}
		return -1
	}
	for i := range ms {
		if m := &ms[i]; m.Offset != 0 && m.Start-m.Offset <= a && a < m.Start {
			m.Start -= m.Offset
			m.Offset = 0
			return int32(i)
		}
	}
	return -1
}

// repairMappings undoes, as pprof does, what profile handlers get wrong
// in the first mappings of a maps text.
func repairMappings(ms []Mapping) []Mapping {
	if len(ms) > 1 && strings.HasPrefix(ms[0].File, "/anon_hugepage") && ms[0].Limit == ms[1].Start {
		ms = ms[1:]
	}
	// A main binary whose text starts at 0x400000 once its offset is
	// undone was mapped in pieces; it really starts there.
	if len(ms) > 0 && ms[0].Start-ms[0].Offset == 0x400000 {
		ms[0].Start, ms[0].Offset = 0x400000, 0
	}
	return ms
}
