package format

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The legacy CPU profiles in testdata/legacy, with what `go tool pprof`
// reports for them (golden/*.top.addresses.txt and golden/*.raw.txt, made
// by testdata/legacy/regen.sh).
var legacyCPUFiles = []struct {
	file      string
	samples   int   // records, one Sample each
	count     int64 // total samples/count
	cpu       int64 // total cpu/nanoseconds
	locations int
	mappings  int // executable mappings after merging
}{
	{"cpu.prof", 570, 728, 728_000_000, 74, 11},
	{"cpu.be64.prof", 570, 728, 728_000_000, 74, 11},
	{"cpu32.prof", 457, 734, 734_000_000, 82, 8},
	{"cpu32.be32.prof", 457, 734, 734_000_000, 82, 8},
	{"cppbench.cpu", 52, 712, 7_120_000_000, 109, 12},
	{"cppbench.longpaths.cpu", 52, 712, 7_120_000_000, 109, 12},
	// No maps text: a catch-all mapping holds the addresses, as in
	// pprof; Java's frames lose theirs, leaving pprof's empty mapping.
	{"go.crc32.cpu", 69, 211, 2_110_000_000, 11, 1},
	{"gobench.cpu", 206, 305, 3_050_000_000, 202, 1},
	{"java.cpu", 8, 7, 70_000_000, 64, 1},
	// Made up here: text quirks (see legacyQuirks, legacyJavaQuirks).
	{"maps-quirks.prof", 10, 55, 137_500_000, 25, 11},
	{"java-quirks.cpu", 5, 7, 140_000_000, 14, 1},
}

func legacyPath(name string) string { return filepath.Join("..", "testdata", "legacy", name) }

func readLegacy(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(legacyPath(name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func parseLegacyFile(t testing.TB, name string) *Profile {
	t.Helper()
	p, err := parseLegacyCPU(readLegacy(t, name), nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

// legacyRaw is what `go tool pprof -raw` prints about a legacy profile.
type legacyRaw struct {
	periodType string
	period     int64
	types      string
	samples    []legacyRawSample
	locs       map[int]legacyRawLoc
	locOrder   []int
	mappings   []Mapping
}

type legacyRawSample struct {
	values []int64
	locs   []int
}

type legacyRawLoc struct {
	addr    uint64
	mapping int // pprof's mapping id, 0 for none
	fn      string
	file    string
	line    int64
}

func readLegacyRaw(t *testing.T, name string) *legacyRaw {
	t.Helper()
	f, err := os.Open(legacyPath(filepath.Join("golden", name+".raw.txt")))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := &legacyRaw{locs: map[int]legacyRawLoc{}}
	section := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		fail := func(err error) { t.Fatalf("%s.raw.txt:%d: %v: %q", name, n, err, line) }
		switch {
		case strings.HasPrefix(line, "PeriodType: "):
			r.periodType = strings.TrimPrefix(line, "PeriodType: ")
			continue
		case strings.HasPrefix(line, "Period: "):
			if r.period, err = strconv.ParseInt(strings.TrimPrefix(line, "Period: "), 10, 64); err != nil {
				fail(err)
			}
			continue
		case line == "Samples:" || line == "Locations" || line == "Mappings":
			section = line
			continue
		}
		switch section {
		case "Samples:":
			if r.types == "" {
				r.types = line
				continue
			}
			vals, ids, ok := strings.Cut(line, ":")
			if !ok {
				fail(fmt.Errorf("no colon"))
			}
			var s legacyRawSample
			for _, v := range strings.Fields(vals) {
				x, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					fail(err)
				}
				s.values = append(s.values, x)
			}
			for _, id := range strings.Fields(ids) {
				x, err := strconv.Atoi(id)
				if err != nil {
					fail(err)
				}
				s.locs = append(s.locs, x)
			}
			r.samples = append(r.samples, s)
		case "Locations":
			// "%6d: %#x " id and address, "M=%d " if mapped, then
			// "name file:line:col s=0" if symbolized. Names may hold spaces.
			idStr, rest, _ := strings.Cut(strings.TrimLeft(line, " "), ": ")
			addrStr, rest, _ := strings.Cut(rest, " ")
			id, err := strconv.Atoi(idStr)
			if err != nil {
				fail(err)
			}
			var l legacyRawLoc
			if l.addr, err = strconv.ParseUint(strings.TrimPrefix(addrStr, "0x"), 16, 64); err != nil {
				fail(err)
			}
			if strings.HasPrefix(rest, "M=") {
				var m string
				m, rest, _ = strings.Cut(rest[2:], " ")
				if l.mapping, err = strconv.Atoi(m); err != nil {
					fail(err)
				}
			}
			if ln, ok := strings.CutSuffix(rest, " s=0"); ok {
				sp := strings.LastIndexByte(ln, ' ')
				fl := strings.Split(ln[sp+1:], ":")
				l.fn, l.file = ln[:sp], strings.Join(fl[:len(fl)-2], ":")
				if l.line, err = strconv.ParseInt(fl[len(fl)-2], 10, 64); err != nil {
					fail(err)
				}
			} else if rest != "" {
				fail(fmt.Errorf("unexpected %q", rest))
			}
			r.locs[id] = l
			r.locOrder = append(r.locOrder, id)
		case "Mappings":
			// "id: 0xstart/0xlimit/0xoffset file buildid bits"
			id, rest, _ := strings.Cut(line, ": ")
			addrs, rest, _ := strings.Cut(rest, " ")
			parts := strings.SplitN(rest, " ", 3)
			var m Mapping
			var err1 error
			if m.ID, err1 = strconv.ParseUint(id, 10, 64); err1 != nil {
				fail(err1)
			}
			if _, err := fmt.Sscanf(addrs, "%v/%v/%v", &m.Start, &m.Limit, &m.Offset); err != nil {
				fail(err)
			}
			m.File = parts[0]
			if len(parts) > 1 {
				m.BuildID = parts[1]
			}
			r.mappings = append(r.mappings, m)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestLegacyCPUMatchesPprof(t *testing.T) {
	for _, tc := range legacyCPUFiles {
		t.Run(tc.file, func(t *testing.T) {
			p := parseLegacyFile(t, tc.file)
			raw := readLegacyRaw(t, tc.file)

			if got := p.Samples.Len(); got != tc.samples {
				t.Errorf("samples = %d, want %d", got, tc.samples)
			}
			if got := p.Total(0); got != tc.count {
				t.Errorf("samples/count total = %d, want %d", got, tc.count)
			}
			if got := p.Total(1); got != tc.cpu {
				t.Errorf("cpu/nanoseconds total = %d, want %d", got, tc.cpu)
			}
			if len(p.Locations) != tc.locations || len(p.Mappings) != tc.mappings {
				t.Errorf("%d locations, %d mappings; want %d, %d", len(p.Locations), len(p.Mappings), tc.locations, tc.mappings)
			}
			if got := fmt.Sprintf("%s/%s %s/%s", p.SampleTypes[0].Type, p.SampleTypes[0].Unit, p.SampleTypes[1].Type, p.SampleTypes[1].Unit); got != raw.types {
				t.Errorf("sample types %q, pprof %q", got, raw.types)
			}
			if got := p.PeriodType.Type + " " + p.PeriodType.Unit; got != raw.periodType || p.Period != raw.period {
				t.Errorf("period %s %d, pprof %s %d", got, p.Period, raw.periodType, raw.period)
			}
			if len(p.Strings) == 0 || p.Strings[0] != "" {
				t.Errorf("string table does not start with \"\"")
			}

			// The mapping list, with pprof's placeholders: its parser's
			// catch-all for addresses no mapping holds, and its driver's
			// empty mapping for a profile left without any.
			if !reflect.DeepEqual(p.Mappings, raw.mappings) {
				t.Errorf("mappings:\n got %+v\nwant %+v", p.Mappings, raw.mappings)
			}
			pprofIndex := map[int]int32{} // pprof mapping id → our index
			for i, m := range raw.mappings {
				pprofIndex[int(m.ID)] = int32(i)
			}

			// Locations, in pprof's order.
			locByID := map[int]int32{}
			if len(p.Locations) == len(raw.locOrder) {
				for i, id := range raw.locOrder {
					locByID[id] = int32(i)
					l, rl := p.Locations[i], raw.locs[id]
					wantMap := int32(-1)
					if rl.mapping != 0 {
						wantMap = pprofIndex[rl.mapping]
					}
					if l.ID != uint64(id) || l.Address != rl.addr || l.Mapping != wantMap {
						t.Errorf("location %d: id %d %#x mapping %d, pprof: id %d %#x mapping %d", i, l.ID, l.Address, l.Mapping, id, rl.addr, wantMap)
					}
					var fn, file string
					var line int64
					if len(p.LinesOf(&l)) == 1 {
						f := p.Functions[p.LinesOf(&l)[0].Function]
						fn, file, line = f.Name, f.Filename, p.LinesOf(&l)[0].Line
					}
					if fn != rl.fn || file != rl.file || line != rl.line {
						t.Errorf("location %d: %q %q:%d, pprof %q %q:%d", i, fn, file, line, rl.fn, rl.file, rl.line)
					}
				}
			}

			// Every sample, frame by frame.
			if p.Samples.Len() != len(raw.samples) {
				t.Fatalf("%d samples, pprof %d", p.Samples.Len(), len(raw.samples))
			}
			for i, rs := range raw.samples {
				got := []int64{p.Samples.Values[0][i], p.Samples.Values[1][i]}
				if !reflect.DeepEqual(got, rs.values) {
					t.Errorf("sample %d: values %v, pprof %v", i, got, rs.values)
				}
				var wantLocs []int32
				for _, id := range rs.locs {
					wantLocs = append(wantLocs, locByID[id])
				}
				if st := p.Stacks.At(p.Samples.Stack[i]); !reflect.DeepEqual(st, wantLocs) {
					t.Errorf("sample %d: stack %v, pprof %v", i, st, wantLocs)
				}
			}
		})
	}
}

// parseTopValue reads a duration as pprof -top prints it ("133ms",
// "7.12s") into nanoseconds, with half its last digit as the tolerance.
func parseTopValue(s string) (ns, tol float64, err error) {
	units := []struct {
		suffix string
		ns     float64
	}{{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"mins", 60e9}, {"hrs", 3600e9}, {"s", 1e9}}
	for _, u := range units {
		num, ok := strings.CutSuffix(s, u.suffix)
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return 0, 0, err
		}
		tol = 0.5 * u.ns
		if _, frac, ok := strings.Cut(num, "."); ok {
			tol /= math.Pow(10, float64(len(frac)))
		}
		return v * u.ns, tol, nil
	}
	if s == "0" {
		return 0, 0, nil
	}
	return 0, 0, fmt.Errorf("no unit in %q", s)
}

// TestLegacyCPUTopAddresses checks the flat time of every address against
// `go tool pprof -top -addresses` (the nodes it shows).
func TestLegacyCPUTopAddresses(t *testing.T) {
	for _, tc := range legacyCPUFiles {
		if strings.HasPrefix(tc.file, "java") {
			continue // symbolized: no per-address golden
		}
		t.Run(tc.file, func(t *testing.T) {
			p := parseLegacyFile(t, tc.file)
			flat := map[uint64]int64{}
			for i := range p.Samples.Len() {
				st := p.Stacks.At(p.Samples.Stack[i])
				flat[p.Locations[st[0]].Address] += p.Samples.Values[1][i]
			}
			golden, err := os.ReadFile(legacyPath(filepath.Join("golden", tc.file+".top.addresses.txt")))
			if err != nil {
				t.Fatal(err)
			}
			rows := 0
			inTable := false
			for _, line := range strings.Split(string(golden), "\n") {
				f := strings.Fields(line)
				if !inTable {
					if _, rest, ok := strings.Cut(line, " of "); ok && strings.HasSuffix(line, " total") {
						ns, tol, err := parseTopValue(strings.TrimSuffix(rest, " total"))
						if err != nil || math.Abs(ns-float64(p.Total(1))) > tol {
							t.Errorf("total %d, pprof %q (%v)", p.Total(1), rest, err)
						}
					}
					inTable = len(f) > 0 && f[0] == "flat"
					continue
				}
				if len(f) < 7 {
					continue
				}
				addr, err := strconv.ParseUint(f[5], 16, 64)
				if err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				ns, tol, err := parseTopValue(f[0])
				if err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				if math.Abs(float64(flat[addr])-ns) > tol {
					t.Errorf("%#x: flat %dns, pprof %s", addr, flat[addr], f[0])
				}
				rows++
			}
			if rows < 10 {
				t.Errorf("only %d rows compared", rows)
			}
		})
	}
}

func TestLegacyCPUByteOrder(t *testing.T) {
	for _, pair := range [][2]string{{"cpu.prof", "cpu.be64.prof"}, {"cpu32.prof", "cpu32.be32.prof"}} {
		le, be := parseLegacyFile(t, pair[0]), parseLegacyFile(t, pair[1])
		if !reflect.DeepEqual(le, be) {
			t.Errorf("%s and %s decode differently", pair[0], pair[1])
		}
	}
}

// TestLegacyCPUPprofBehaviour pins down the pprof conventions the goldens
// exercise, so that a regression names its cause.
func TestLegacyCPUPprofBehaviour(t *testing.T) {
	t.Run("signal frame dropped once", func(t *testing.T) {
		// Every record of cppbench.cpu has libpthread's 0x7f5e5414e5b0
		// (a return address: 0x...5af once adjusted) as frame 1.
		p := parseLegacyFile(t, "cppbench.cpu")
		for i := range p.Locations {
			if p.Locations[i].Address == 0x7f5e5414e5af {
				t.Errorf("signal frame still a location")
			}
		}
	})
	t.Run("signal frame dropped twice", func(t *testing.T) {
		// go.crc32.cpu: 0x430c4b, then 0x430cc3, are frame 1 everywhere.
		p := parseLegacyFile(t, "go.crc32.cpu")
		for i := range p.Locations {
			if a := p.Locations[i].Address; a == 0x430c4b || a == 0x430cc3 {
				t.Errorf("signal frame %#x still a location", a)
			}
		}
	})
	t.Run("duplicate leaf dropped, location kept", func(t *testing.T) {
		// The leaf PC repeated as frame 1 (0x51, adjusted to 0x50) is
		// dropped; like pprof we keep its location, unused.
		recs := []legacyRec{{1, []uint64{0x51, 0x51, 0x91}}, {1, []uint64{0x61, 0x71}}, {1, []uint64{0x81, 0x91, 0xa1}}}
		p, err := parseLegacyCPU(legacyFile(8, binary.LittleEndian, stdHeader, recs, true, ""), nil)
		if err != nil {
			t.Fatal(err)
		}
		var addrs []uint64
		for _, l := range p.Locations {
			addrs = append(addrs, l.Address)
		}
		if want := []uint64{0x51, 0x50, 0x90, 0x61, 0x70, 0x81, 0xa0}; !reflect.DeepEqual(addrs, want) {
			t.Errorf("locations %#x, want %#x", addrs, want)
		}
		if st := p.Stacks.At(p.Samples.Stack[0]); !reflect.DeepEqual(st, []int32{0, 2}) {
			t.Errorf("stack 0 = %v", st)
		}
	})
	t.Run("main binary first", func(t *testing.T) {
		p := parseLegacyFile(t, "cpu.prof")
		if m := p.Mappings[0]; m.File != "/tmp/gperftools-build/cpubench" || m.Start != 0x55875fc2b000 || m.Offset != 0x1000 {
			t.Errorf("mapping 0 = %+v", m)
		}
		if p.DropFrames != cpuProfilerFrames {
			t.Errorf("DropFrames = %q", p.DropFrames)
		}
	})
	t.Run("java", func(t *testing.T) {
		p := parseLegacyFile(t, "java.cpu")
		if len(p.Functions) != 64 || p.Functions[0].Name != "GC" || p.Functions[3].Name != "com.example.function06" ||
			p.Functions[3].Filename != "source.java" || p.Functions[3].ID != 4 {
			t.Errorf("functions = %+v", p.Functions[:4])
		}
		// Every frame is named, so no address is left for a catch-all:
		// the one mapping is pprof's empty one, holding every location.
		if len(p.Mappings) != 1 || p.Mappings[0] != (Mapping{ID: 1}) {
			t.Errorf("mappings = %+v", p.Mappings)
		}
		for i, l := range p.Locations {
			if l.Address != 0 || l.Mapping != 0 || len(p.LinesOf(&l)) != 1 {
				t.Errorf("location %d = %+v", i, l)
			}
		}
		// The agent writes zero counts for GC and Compile.
		if v := p.Samples.Values[0]; v[0] != 0 || v[1] != 0 || v[2] != 2 {
			t.Errorf("counts %v", v)
		}
	})
}

// legacyRec is a record for legacyFile.
type legacyRec struct {
	count uint64
	pcs   []uint64
}

// legacyFile writes a legacy CPU profile: header slots hdr, the records,
// the trailer if trailer is set, then text.
func legacyFile(word int, order binary.AppendByteOrder, hdr []uint64, recs []legacyRec, trailer bool, text string) []byte {
	var b []byte
	put := func(v uint64) {
		if word == 4 {
			b = order.AppendUint32(b, uint32(v))
		} else {
			b = order.AppendUint64(b, v)
		}
	}
	for _, v := range hdr {
		put(v)
	}
	for _, r := range recs {
		put(r.count)
		put(uint64(len(r.pcs)))
		for _, pc := range r.pcs {
			put(pc)
		}
	}
	if trailer {
		put(0)
		put(1)
		put(0)
	}
	return append(b, text...)
}

var stdHeader = []uint64{0, 3, 0, 10000, 0}

func TestIsLegacyCPU(t *testing.T) {
	for _, tc := range legacyCPUFiles {
		data := readLegacy(t, tc.file)
		if !isLegacyCPU(data[:64]) {
			t.Errorf("%s: not recognised", tc.file)
		}
	}
	le, be := binary.LittleEndian, binary.BigEndian
	tests := []struct {
		name string
		head []byte
		want bool
	}{
		{"empty", nil, false},
		{"text", []byte("main;foo;bar 12\nmain;baz 3\n"), false},
		{"proto", []byte{0x0a, 0x0c, 0x0a, 0x07, 's', 'a', 'm', 'p', 'l', 'e', 's'}, false},
		{"zeros", make([]byte, 64), false},
		{"32LE", legacyFile(4, le, stdHeader, nil, false, ""), true},
		{"32BE", legacyFile(4, be, stdHeader, nil, false, ""), true},
		{"64LE", legacyFile(8, le, stdHeader, nil, false, ""), true},
		{"64BE", legacyFile(8, be, stdHeader, nil, false, ""), true},
		{"java", legacyFile(4, le, []uint64{0, 3, 1, 100, 0}, nil, false, ""), true},
		{"more header words", legacyFile(8, le, []uint64{0, 5, 0, 100, 0, 7, 7}, nil, false, ""), true},
		{"short", legacyFile(4, le, stdHeader, nil, false, "")[:19], false},
		{"64-bit short", legacyFile(8, le, stdHeader, nil, false, "")[:39], false},
		{"count", legacyFile(8, le, []uint64{1, 3, 0, 100, 0}, nil, false, ""), false},
		{"words", legacyFile(8, le, []uint64{0, 2, 0, 100, 0}, nil, false, ""), false},
		{"version", legacyFile(8, le, []uint64{0, 3, 2, 100, 0}, nil, false, ""), false},
		{"period", legacyFile(8, le, []uint64{0, 3, 0, 0, 0}, nil, false, ""), false},
		{"padding", legacyFile(8, le, []uint64{0, 3, 0, 100, 1}, nil, false, ""), false},
	}
	for _, tc := range tests {
		if got := isLegacyCPU(tc.head); got != tc.want {
			t.Errorf("%s: isLegacyCPU = %v", tc.name, got)
		}
	}

	// 3 in a big-endian 32-bit slot reads as 3<<24 little-endian, which
	// is "at least 3" too.
	h, err := readLegacyHeader(legacyFile(4, be, stdHeader, nil, false, ""))
	if err != nil || h.order != binary.BigEndian || h.words != 3 {
		t.Errorf("32BE header read as %s, %d words (%v)", h.name, h.words, err)
	}
}

func TestLegacyCPUErrors(t *testing.T) {
	le := binary.LittleEndian
	one := []legacyRec{{1, []uint64{0x1000, 0x2000}}}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a gperftools CPU profile: header: 0 bytes"},
		{"text", []byte("heap profile: 1: 2 [3: 4] @ heapprofile\n"), "not a gperftools CPU profile: header slot 0"},
		{"header count", legacyFile(8, le, []uint64{1, 3, 0, 100, 0}, one, true, ""), "header slot 0 (header count) is 1, want 0"},
		{"header words", legacyFile(8, le, []uint64{0, 2, 0, 100, 0}, one, true, ""), "bad 64-bit little-endian header: header slot 1 (header words) is 2, want at least 3 (and below 65536)"},
		{"version", legacyFile(8, le, []uint64{0, 3, 2, 100, 0}, one, true, ""), "header slot 2 (format version) is 2, want 0 (or 1 for Java)"},
		{"period", legacyFile(4, le, []uint64{0, 3, 0, 0, 0}, one, true, ""), "bad 32-bit little-endian header: header slot 3 (sampling period) is 0"},
		{"padding", legacyFile(8, binary.BigEndian, []uint64{0, 3, 0, 100, 9}, one, true, ""), "bad 64-bit big-endian header: header slot 4 (padding) is 9, want 0"},
		{"header words past the end", legacyFile(8, le, []uint64{0, 60000, 0, 100, 0}, one, true, ""), "header at byte 8: 60000 header words need 480016 bytes, the file has 96"},
		{"header words too many", legacyFile(8, le, []uint64{0, 1 << 40, 0, 100, 0}, one, true, ""), "header slot 1 (header words) is 1099511627776, want at least 3"},
		{"period overflow", legacyFile(8, le, []uint64{0, 3, 0, 1 << 62, 0}, one, true, ""), "header at byte 24: sampling period 4611686018427387904 µs overflows"},
		{"no records, no trailer", legacyFile(8, le, stdHeader, nil, false, ""), "no trailer (0, 1, 0): the records end at byte 40 without one"},
		{"missing trailer", legacyFile(8, le, stdHeader, one, false, ""), "no trailer (0, 1, 0): the records end at byte 72 without one"},
		{"maps without trailer", legacyFile(8, le, stdHeader, one, false, "00400000-00500000 r-xp 0 0:0 0 /bin/x\n"), "record at byte 72: depth 3472328296311566381 exceeds the 22 bytes left"},
		{"count 0", legacyFile(8, le, stdHeader, []legacyRec{{1, []uint64{1}}, {0, []uint64{5, 6}}}, true, ""), "record at byte 64: sample count 0 outside the trailer (0, 1, 0)"},
		{"depth 0", legacyFile(4, le, stdHeader, []legacyRec{{3, nil}}, true, ""), "record at byte 20: depth 0, want at least one PC"},
		{"count overflow", legacyFile(8, le, stdHeader, []legacyRec{{1 << 60, []uint64{1}}}, true, ""), "record at byte 40: sample count 1152921504606846976 overflows int64 nanoseconds"},
		{"odd tail", append(legacyFile(4, le, stdHeader, one, false, ""), 0, 0, 0, 0, 1), "record at byte 36: truncated: 5 bytes left, a record needs at least 12"},
		{"java symbol overflow", legacyFile(4, le, []uint64{0, 3, 1, 100, 0}, one, true, "\n 0x1000 a\n 0x123456789abcdef01 b\n"),
			"symbol at byte 59: address 0x123456789abcdef01: strconv.ParseUint"},
	}
	for _, tc := range tests {
		p, err := parseLegacyCPU(tc.data, nil)
		if err == nil {
			t.Errorf("%s: no error, %d samples", tc.name, p.Samples.Len())
			continue
		}
		if !strings.HasPrefix(err.Error(), "legacy CPU profile: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %q", tc.name, err, tc.want)
		}
	}
}

// TestLegacyCPUHugeDepth checks that a depth read from the file is
// checked against the bytes left before anything is sized by it.
func TestLegacyCPUHugeDepth(t *testing.T) {
	data := legacyFile(8, binary.LittleEndian, stdHeader, nil, false, "")
	data = binary.LittleEndian.AppendUint64(data, 1)     // count
	data = binary.LittleEndian.AppendUint64(data, 1<<60) // depth
	data = binary.LittleEndian.AppendUint64(data, 0x4000)
	data = binary.LittleEndian.AppendUint64(data, 0x5000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := parseLegacyCPU(data, nil)
	runtime.ReadMemStats(&after)
	want := "legacy CPU profile: record at byte 40: depth 1152921504606846976 exceeds the 16 bytes left"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("allocated %d bytes", n)
	}
}

// legacyBoundaries walks a well-formed legacy file independently of the
// decoder: the byte offsets where records start, and where text starts.
func legacyBoundaries(data []byte, word int, order binary.ByteOrder) (starts []int, textAt int) {
	slot := func(off int) uint64 {
		if word == 4 {
			return uint64(order.Uint32(data[off:]))
		}
		return order.Uint64(data[off:])
	}
	off := 5 * word
	for {
		starts = append(starts, off)
		count, depth := slot(off), slot(off+word)
		end := off + (2+int(depth))*word
		if count == 0 && depth == 1 && slot(off+2*word) == 0 {
			return starts, end
		}
		off = end
	}
}

// TestLegacyCPUTruncated cuts real files short: inside the header or the
// records each cut must give the error for that spot; inside the text it
// must still decode.
func TestLegacyCPUTruncated(t *testing.T) {
	files := []struct {
		file   string
		word   int
		order  binary.ByteOrder
		stride int
	}{
		{"java.cpu", 4, binary.LittleEndian, 1},
		{"go.crc32.cpu", 8, binary.LittleEndian, 1},
		{"cpu32.be32.prof", 4, binary.BigEndian, 37},
		{"cpu.prof", 8, binary.LittleEndian, 101},
	}
	for _, f := range files {
		data := readLegacy(t, f.file)
		starts, textAt := legacyBoundaries(data, f.word, f.order)
		full, err := parseLegacyCPU(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		cuts := map[int]bool{}
		for c := 0; c < len(data); c += f.stride {
			cuts[c] = true
		}
		for _, s := range starts[:min(len(starts), 40)] { // every spot around early records
			for d := -1; d <= 3*f.word; d++ {
				if c := s + d; c >= 0 && c < len(data) {
					cuts[c] = true
				}
			}
		}
		for _, s := range starts {
			cuts[s] = true
		}
		for c := range cuts {
			p, err := parseLegacyCPU(data[:c], nil)
			rec := -1 // the record the cut falls in
			for i, s := range starts {
				if s <= c {
					rec = i
				}
			}
			var want string
			switch {
			case c < 5*f.word:
				want = "header"
			case c >= textAt:
				if err != nil {
					t.Errorf("%s cut at %d (in the text): %v", f.file, c, err)
				} else if p.Samples.Len() != full.Samples.Len() {
					t.Errorf("%s cut at %d: %d samples, want %d", f.file, c, p.Samples.Len(), full.Samples.Len())
				}
				continue
			case c == starts[rec]:
				want = fmt.Sprintf("no trailer (0, 1, 0): the records end at byte %d without one", c)
			case c-starts[rec] < 2*f.word:
				want = fmt.Sprintf("record at byte %d: truncated: %d bytes left", starts[rec], c-starts[rec])
			default:
				want = fmt.Sprintf("record at byte %d: depth ", starts[rec])
			}
			if err == nil || !strings.HasPrefix(err.Error(), "legacy CPU profile: ") || !strings.Contains(err.Error(), want) {
				t.Errorf("%s cut at %d: got %v, want %q", f.file, c, err, want)
			}
		}
	}
}

func TestLegacyMapsLine(t *testing.T) {
	tests := []struct {
		line string
		want *Mapping // nil: not executable
		ok   bool     // a mapping line at all
	}{
		{"55875fc2b000-55875fc2c000 r-xp 00001000 00:00 9978343     /tmp/gperftools-build/cpubench",
			&Mapping{Start: 0x55875fc2b000, Limit: 0x55875fc2c000, Offset: 0x1000, File: "/tmp/gperftools-build/cpubench"}, true},
		{"55875fc2a000-55875fc2b000 r--p 00000000 00:00 9978343     /tmp/gperftools-build/cpubench", nil, true},
		{"7ffd1f5e8000-7ffd1f5ea000 r-xp 00000000 00:00 0                          [vdso]",
			&Mapping{Start: 0x7ffd1f5e8000, Limit: 0x7ffd1f5ea000, File: "[vdso]"}, true},
		{"7f0000000000-7f0000001000 r-xp 00000000 00:00 0", &Mapping{Start: 0x7f0000000000, Limit: 0x7f0000001000}, true},
		// Only the first word of a path, like pprof.
		{"400000-500000 r-xp 00000000 08:01 42 /opt/my app/bin (deleted)", &Mapping{Start: 0x400000, Limit: 0x500000, File: "/opt/my"}, true},
		// Without perms or offset.
		{"400000-500000 08:01 42 /bin/x", &Mapping{Start: 0x400000, Limit: 0x500000, File: "/bin/x"}, true},
		// pprof's brief form.
		{"0x400000-0x500000 /bin/x (@1000) 3ad1ef", &Mapping{Start: 0x400000, Limit: 0x500000, Offset: 0x1000, File: "/bin/x", BuildID: "3ad1ef"}, true},
		{"0x400000 0x500000: r-xp /bin/x", &Mapping{Start: 0x400000, Limit: 0x500000, File: "/bin/x"}, true},
		{"400000-500000", &Mapping{Start: 0x400000, Limit: 0x500000}, true},
		{"  400000-500000zz", &Mapping{Start: 0x400000, Limit: 0x500000}, true},
		// "s" is not a perm letter: the proc form fails and the brief form
		// reads "r-x" as the perms and stops.
		{"400000-500000 r-xs 00000000 08:01 42 /dev/dri", &Mapping{Start: 0x400000, Limit: 0x500000}, true},
		{"400000-500000 rw-s 00000000 08:01 42 /dev/dri", nil, true},
		{"400000-500000 r-xp 00000000 08:01 42abc /bin/x", &Mapping{Start: 0x400000, Limit: 0x500000}, true},
		{"10000000000000000-10000000000000001 r-xp 0 0:0 0 /x", nil, false},
		{"build=/usr/bin", nil, false},
		{"", nil, false},
		{"4000", nil, false}, // pprof would split a lone number into a range
		{"xyz-abc", nil, false},
	}
	for _, tc := range tests {
		m, ok := mapsEntry(tc.line)
		if ok != tc.ok || !reflect.DeepEqual(m, tc.want) {
			t.Errorf("%q: got %+v, %v; want %+v, %v", tc.line, m, ok, tc.want, tc.ok)
		}
	}
}

func TestLegacyMaps(t *testing.T) {
	text := strings.Join([]string{
		"I0102 15:04:05.000000 1234 profiler.cc:45] 7f0000000000-7f0000001000 r-xp 00000000 08:01 1 /lib/libc.so.6",
		"7f0000001000-7f0000002000 r-xp 00001000 08:01 1 /lib/libc.so.6", // merged into the line above
		"7f0000003000-7f0000004000 r-xp 00000000 08:01 2 /lib/libfoo.so_2",
		"lib=/opt/app/lib",
		"7f0000004000-7f0000005000 r-xp 00000000 08:01 3 $lib/libbar.so", // adjacent, another file
		"bin=/opt/app/bin/server",
		"7f0000008000-7f0000009000 r-xp 00000000 08:01 4 [vdso]",
		"00401000-00500000 r-xp 00001000 08:01 5 $bin\r", // main: moves to the front, starts at 0x400000
		"00600000-00700000 rw-p 00000000 08:01 5 $bin",
		"not a mapping",
	}, "\n")
	got := parseLegacyMaps([]byte(text))
	want := []Mapping{
		{Start: 0x401000, Limit: 0x500000, Offset: 0x1000, File: "/opt/app/bin/server"},
		{Start: 0x7f0000003000, Limit: 0x7f0000004000, File: "/lib/libfoo.so_2"},
		{Start: 0x7f0000004000, Limit: 0x7f0000005000, File: "/opt/app/lib/libbar.so"},
		{Start: 0x7f0000008000, Limit: 0x7f0000009000, File: "[vdso]"},
		{Start: 0x7f0000000000, Limit: 0x7f0000002000, File: "/lib/libc.so.6"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("parseLegacyMaps:\n got %+v\nwant %+v", got, want)
	}

	p := &Profile{Mappings: got, Locations: []Location{
		{Address: 0x400800, Mapping: -1},       // below the main binary's text: its offset says it is there
		{Address: 0x7f0000001800, Mapping: -1}, // libc's second half
		{Address: 0, Mapping: -1},
		{Address: 0x10, Mapping: -1},
	}}
	assign := func(p *Profile) {
		t.Helper()
		if err := assignWithPlaceholder(p, p.Mappings); err != nil {
			t.Fatal(err)
		}
	}
	assign(p)
	if m := p.Mappings[0]; m.Start != 0x400000 || m.Offset != 0 || m.ID != 1 {
		t.Errorf("main mapping %+v", m)
	}
	var maps []int32
	for _, l := range p.Locations {
		maps = append(maps, l.Mapping)
	}
	// An address no mapping holds gets pprof's catch-all, added last;
	// address 0 gets none.
	if !reflect.DeepEqual(maps, []int32{0, 4, -1, 5}) {
		t.Errorf("location mappings %v", maps)
	}
	if len(p.Mappings) != 6 || p.Mappings[5] != (Mapping{ID: 6, Limit: math.MaxUint64}) {
		t.Errorf("catch-all mapping: %+v", p.Mappings)
	}

	// A mapping missing its first piece is extended down by its offset.
	p = &Profile{
		Mappings:  []Mapping{{Start: 0x10000, Limit: 0x20000, Offset: 0x3000, File: "/bin/y"}},
		Locations: []Location{{Address: 0xe000, Mapping: -1}},
	}
	assign(p)
	if m := p.Mappings[0]; m.Start != 0xd000 || m.Offset != 0 || p.Locations[0].Mapping != 0 {
		t.Errorf("split mapping not repaired: %+v, location mapping %d", m, p.Locations[0].Mapping)
	}

	// An /anon_hugepage mapping right before the next one is dropped.
	p = &Profile{Mappings: []Mapping{{Start: 0, Limit: 0x1000, File: "/anon_hugepage (deleted)"}, {Start: 0x1000, Limit: 0x2000, File: "/bin/z"}}}
	assign(p)
	if len(p.Mappings) != 1 || p.Mappings[0].File != "/bin/z" || p.Mappings[0].ID != 1 {
		t.Errorf("anon_hugepage kept: %+v", p.Mappings)
	}
}

func TestLegacySignalFrames(t *testing.T) {
	le := binary.LittleEndian
	stackOf := func(p *Profile, i int) []uint64 {
		var out []uint64
		for _, l := range p.Stacks.At(p.Samples.Stack[i]) {
			out = append(out, p.Locations[l].Address)
		}
		return out
	}
	// 64 samples share frame 1 (0x901, adjusted to 0x900) but for two:
	// 64/32 = 2 may differ. Frame 2 differs, so it stays.
	var recs []legacyRec
	for i := range 64 {
		pc1 := uint64(0x901)
		if i < 2 {
			pc1 = 0x701
		}
		recs = append(recs, legacyRec{1, []uint64{0x100 + uint64(i), pc1, 0x501 + uint64(i)}})
	}
	p, err := parseLegacyCPU(legacyFile(8, le, stdHeader, recs, true, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := stackOf(p, 5); !reflect.DeepEqual(got, []uint64{0x105, 0x505}) {
		t.Errorf("sample 5: %#x", got)
	}
	if got := stackOf(p, 0); !reflect.DeepEqual(got, []uint64{0x100, 0x700, 0x500}) {
		t.Errorf("sample 0: %#x", got)
	}

	// Three differing samples are too many.
	recs[2].pcs[1] = 0x701
	p, err = parseLegacyCPU(legacyFile(8, le, stdHeader, recs, true, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := stackOf(p, 5); !reflect.DeepEqual(got, []uint64{0x105, 0x900, 0x505}) {
		t.Errorf("sample 5: %#x", got)
	}

	// A single sample loses frames 1 and 2, as in pprof.
	p, err = parseLegacyCPU(legacyFile(4, le, stdHeader, []legacyRec{{2, []uint64{0x10, 0x21, 0x31, 0x41}}}, true, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := stackOf(p, 0); !reflect.DeepEqual(got, []uint64{0x10, 0x40}) {
		t.Errorf("single sample: %#x", got)
	}

	// Extra header words are skipped.
	p, err = parseLegacyCPU(legacyFile(8, le, []uint64{0, 5, 0, 100, 0, 0xdead, 0xbeef}, []legacyRec{{2, []uint64{0x10}}}, true, ""), nil)
	if err != nil || p.Samples.Len() != 1 || p.Locations[0].Address != 0x10 || p.Period != 100_000 {
		t.Errorf("5 header words: %v", err)
	}
}

// FuzzLegacyCPU checks that no input panics the decoder and that what it
// accepts is a consistent Profile.
func FuzzLegacyCPU(f *testing.F) {
	for _, tc := range legacyCPUFiles {
		f.Add(readLegacy(f, tc.file))
	}
	le := binary.LittleEndian
	f.Add(legacyFile(4, le, stdHeader, []legacyRec{{1, []uint64{1, 2}}}, true, "1000-2000 r-xp 0 0:0 0 /x\n"))
	f.Add(legacyFile(4, le, []uint64{0, 3, 1, 100, 0}, []legacyRec{{0, []uint64{1}}, {1, []uint64{1, 2}}}, true, "\n 0x1 GC\n 0x2 a.b (f.java:3)\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parseLegacyCPU(data, nil)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "legacy CPU profile: ") {
				t.Fatalf("error without prefix: %v", err)
			}
			return
		}
		if !isLegacyCPU(data[:min(len(data), 64)]) {
			t.Fatalf("decoded but not recognised")
		}
		if len(p.Strings) == 0 || p.Strings[0] != "" || len(p.Samples.Values) != 2 {
			t.Fatalf("bad profile shape")
		}
		for i, l := range p.Locations {
			if l.ID != uint64(i)+1 || l.Mapping < -1 || int(l.Mapping) >= len(p.Mappings) {
				t.Fatalf("location %d: %+v", i, l)
			}
			for _, ln := range p.LinesOf(&l) {
				if ln.Function < 0 || int(ln.Function) >= len(p.Functions) {
					t.Fatalf("location %d: function %d", i, ln.Function)
				}
			}
		}
		for i, m := range p.Mappings {
			if m.ID != uint64(i)+1 {
				t.Fatalf("mapping %d: id %d", i, m.ID)
			}
		}
		for i := range p.Samples.Len() {
			if len(p.Samples.Values[0]) != p.Samples.Len() || len(p.Samples.Values[1]) != p.Samples.Len() {
				t.Fatalf("ragged value columns")
			}
			if p.Samples.Values[1][i] != p.Samples.Values[0][i]*p.Period {
				t.Fatalf("sample %d: cpu %d != %d × %d", i, p.Samples.Values[1][i], p.Samples.Values[0][i], p.Period)
			}
			for _, l := range p.Stacks.At(p.Samples.Stack[i]) {
				if l < 0 || int(l) >= len(p.Locations) {
					t.Fatalf("sample %d: location %d", i, l)
				}
			}
		}
	})
}

var updateLegacy = flag.Bool("update-legacy", false, "rewrite the made-up inputs in testdata/legacy")

// legacyQuirks builds maps-quirks.prof: a 64-bit little-endian profile
// whose maps text exercises what pprof does to mappings (glog prefixes,
// $attr lines, merging, the main binary moved first, 0x400000, split
// mappings, non-executable and unrecognised lines), with samples in every
// mapping and in none. Its golden is pprof's, like the real files'.
func legacyQuirks() []byte {
	maps := strings.Join([]string{
		"I0102 15:04:05.000000 1234 profiler.cc:45] 7f0000000000-7f0000001000 r-xp 00000000 08:01 11 /lib/libc.so.6",
		"7f0000001000-7f0000002000 r-xp 00001000 08:01 11 /lib/libc.so.6", // merges: adjacent, offsets agree
		"7f0000002000-7f0000003000 r-xp 00007000 08:01 11 /lib/libc.so.6", // merges: the first offset is 0
		"7f0000003000-7f0000004000 r-xp 00000000 00:00 0 ",                // anonymous, adjacent: merges
		"7f0000005000-7f0000006000 rw-p 00000000 00:00 0",
		"7f0000060000-7f0000061000 r-xp 00001000 08:01 17 /lib/libstdc++.so.6",
		"7f0000061000-7f0000062000 r-xp 00005000 08:01 17 /lib/libstdc++.so.6", // does not: offset jumps
		"7f0000010000-7f0000011000 r-xp 00002000 08:01 12 /lib/libm.so.6\r",    // its first 0x2000 bytes missing
		"lib=/opt/app/lib",
		"7f0000020000-7f0000021000 r-xp 00000000 08:01 13 $lib/libfoo.so_2",
		"7f0000030000-7f0000031000 r-xs 00000000 08:01 14 /dev/shm/jit", // "s": brief form, no file
		"0x7f0000040000-0x7f0000041000 /opt/app/plugin.so (@1000) 3ad1ef",
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]",
		"00401000-00500000 r-xp 00001000 08:01 15 /opt/app/bin/server (deleted)", // main: moved first, starts at 0x400000
		"00500000-00600000 r--p 00100000 08:01 15 /opt/app/bin/server",
		"garbage line",
		"7f0000050000-7f0000051000 r-xp 00000000 08:01 16 /lib/ld.so", // no newline after the last line
	}, "\n")
	// Frame 1 differs between records, so no signal frame is dropped.
	pcs := [][]uint64{
		{0x400100, 0x401201, 0x7f0000000801},
		{0x7f0000001800, 0x400301},
		{0x7f0000002800, 0x7f0000003801, 0x401101},
		{0x7f000000f000, 0x401401},                 // below libm's start, within its offset
		{0x7f0000020010, 0x7f0000030011, 0x401501}, // libfoo, the r-xs mapping
		{0x7f0000040010, 0xffffffffff600401, 0x401601},
		{0x7f0000050010, 0x7f0000050010, 0x401701}, // a repeated leaf
		{0x7f0000061010, 0x7f0000060011, 0x401901},
		{0x1000, 0x401801}, // in no mapping
		{0},
	}
	var recs []legacyRec
	for i, p := range pcs {
		recs = append(recs, legacyRec{uint64(i + 1), p})
	}
	return legacyFile(8, binary.LittleEndian, []uint64{0, 3, 0, 2500, 0}, recs, true, maps)
}

// TestLegacyQuirksFiles checks that the made-up test inputs are what
// legacyQuirks and legacyJavaQuirks build (-update-legacy rewrites them).
func TestLegacyQuirksFiles(t *testing.T) {
	for name, want := range map[string][]byte{"maps-quirks.prof": legacyQuirks(), "java-quirks.cpu": legacyJavaQuirks()} {
		if *updateLegacy {
			if err := os.WriteFile(legacyPath(name), want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := readLegacy(t, name); !bytes.Equal(got, want) {
			t.Errorf("testdata/legacy/%s is stale: go test ./format -run TestLegacyQuirksFiles -update-legacy, then bash testdata/legacy/regen.sh", name)
		}
	}
}

// legacyJavaQuirks builds java-quirks.cpu: the Java variant (32-bit
// little-endian, version 1) with symbol lines in every form pprof reads.
func legacyJavaQuirks() []byte {
	syms := strings.Join([]string{
		"",
		"--- symbols ---",
		" 0x1 GC",
		" 0x2 com.a.B.run (B.java:12)",
		" 0x3 com.a.C.call (C.java:-4)",
		" 0x4 libfoo_func (/usr/lib/libfoo.so)",
		" 0x5 <generated stub/JIT>",
		" 0x6 com.a.B.run (Other.java:3)", // the name's first file wins
		" 0x7 weird name (with parens) (D.java:5)",
		" 0x8 name  (E.java:7)", // the name keeps one of the spaces
		" 0x9 x (a:b:1)",
		" 0xa y (f.java:z)",
		" 0xb never used",
		" 0x2 com.a.Z (Z.java:1)", // a later line for 0x2 wins
		"\t0x000000000000000000000d padded\r",
		"0xe\tTabbed (T.java:0)",
		" 0x10name no space",
	}, "\n")
	recs := []legacyRec{
		{0, []uint64{1}},
		{3, []uint64{2, 3, 4}},
		{1, []uint64{5, 6, 7, 8}},
		{2, []uint64{9, 10, 12}}, // 0xc has no symbol
		{1, []uint64{13, 14, 16, 2}},
	}
	return legacyFile(4, binary.LittleEndian, []uint64{0, 3, 1, 20000, 0}, recs, true, syms)
}

// TestMappingIndex checks the binary search against pprof's scan on
// random disjoint layouts, with gaps below some mappings.
func TestMappingIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	searched := 0
	for round := range 300 {
		var ms []Mapping
		at := uint64(rng.IntN(3)) << 12
		for range rng.IntN(12) {
			at += uint64(rng.IntN(4)) << 12
			m := Mapping{Start: at, Limit: at + uint64(1+rng.IntN(3))<<12}
			if rng.IntN(2) == 0 {
				m.Offset = uint64(rng.IntN(3)) << 12
			}
			ms = append(ms, m)
			at = m.Limit
		}
		rng.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
		fast := newMappingIndex(slices.Clone(ms))
		slow := newMappingIndex(slices.Clone(ms))
		slow.disjoint = false
		if fast.disjoint {
			searched++
		}
		for range 50 {
			a := uint64(rng.IntN(int(at>>8)+32)) << 8
			i, _ := fast.find(a)
			j, _ := slow.find(a)
			if fast.disjoint && (i != j || !reflect.DeepEqual(fast.ms, slow.ms)) {
				t.Fatalf("round %d: %#x: search %d, scan %d\n%+v\n%+v", round, a, i, j, fast.ms, slow.ms)
			}
		}
	}
	t.Logf("%d of 300 layouts searched", searched)
	if searched < 100 {
		t.Errorf("only %d of 300 layouts searched", searched)
	}

	for _, name := range []string{"cpu.prof", "cpu32.prof", "cppbench.cpu"} {
		if p := parseLegacyFile(t, name); !newMappingIndex(p.Mappings).disjoint {
			t.Errorf("%s: real maps not searched", name)
		}
	}

	// Overlapping mappings are scanned, within a budget.
	var maps strings.Builder
	for range 5000 {
		maps.WriteString("1000-2000 r-xp 00000000 00:00 0 /x\n")
	}
	pcs := make([]uint64, 60000)
	for i := range pcs {
		pcs[i] = 0x10000 + uint64(i)
	}
	_, err := parseLegacyCPU(legacyFile(8, binary.LittleEndian, stdHeader, []legacyRec{{1, pcs}, {1, []uint64{5}}}, true, maps.String()), nil)
	if want := "legacy CPU profile: maps: 5000 overlapping mappings are too many to match with 60000 addresses"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// BenchmarkParseLegacyCPU measures decoding a real 64-bit profile (570
// records, 49 maps lines).
func BenchmarkParseLegacyCPU(b *testing.B) {
	data := readLegacy(b, "cpu.prof")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseLegacyCPU(data, nil); err != nil {
			b.Fatal(err)
		}
	}
}
