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
	"encoding/binary"
	"fmt"
	"math"
	"path"
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
		named, err := readJavaSymbols(p, b, text, len(data)-len(text), locOf)
		if err != nil {
			return nil, err
		}
		if _, err := finishJava(p, named); err != nil {
			return nil, errLegacyCPU("%w", err)
		}
	} else {
		if err := assignWithPlaceholder(p, parseLegacyMaps(text)); err != nil {
			return nil, errLegacyCPU("maps: %w", err)
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

// readJavaSymbols reads the Java variant's symbol table, " 0x<id> name"
// lines where name is "function (file:line)", "function (path)" or a
// pseudo-frame like "GC", into functions and lines for the locations.
// It reports which locations it named; finishJava then clears every
// address, as pprof does: Java's are method ids, and without them frames
// of one function merge. base is text's byte offset in the file, for
// errors.
func readJavaSymbols(p *Profile, b *builder, text []byte, base int, locOf map[uint64]int32) ([]bool, error) {
	var named []Function                     // functions by name, in order of definition
	nameIdx := make(map[string]int)          // name → index in named
	frameOf := make([]int, len(p.Locations)) // location → index in named + 1, or 0
	for len(text) > 0 {
		at := base
		var raw []byte
		raw, text, _ = bytes.Cut(text, []byte{'\n'})
		base += len(raw) + 1
		id, name, ok := splitJavaSymbol(strings.TrimSpace(string(raw)))
		if !ok {
			continue
		}
		addr, err := strconv.ParseUint(id, 16, 64)
		if err != nil {
			return nil, errLegacyCPU("symbol at byte %d: address 0x%s: %w", at, id, err)
		}
		li, ok := locOf[addr]
		if !ok {
			continue
		}
		fn, lineNo := javaFrame(name)
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
	isNamed := make([]bool, len(p.Locations))
	for li := range p.Locations {
		l := &p.Locations[li]
		k := frameOf[li] - 1
		isNamed[li] = k >= 0
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
	return isNamed, nil
}

// splitJavaSymbol splits a Java symbol table line, "0x<id> name" without
// its leading space, into the id's hex digits and the name.
func splitJavaSymbol(line string) (id, name string, ok bool) {
	if !strings.HasPrefix(line, "0x") {
		return "", "", false
	}
	e := runEnd(line, 2, hexDigit)
	n := runEnd(line, e, re2Space)
	if e == 2 || n == e {
		return "", "", false
	}
	return line[2:e], line[n:], true
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
