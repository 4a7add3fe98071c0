package format

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/internal/gotool"
)

// legacyTextDir holds the legacy text inputs, copied from the shared corpus, and
// golden/, pprof's output on them (made by regen.sh there).
const legacyTextDir = "../testdata/legacytext"

// legacyTextFiles lists the inputs with pprof's numbers for them (go tool pprof
// -raw -symbolize=none): sample count, types, per-type totals, period and
// duration.
var legacyTextFiles = []struct {
	name     string
	samples  int
	types    string // "type/unit ..." as -raw prints them
	totals   []int64
	period   int64
	duration int64 // nanoseconds
}{
	{"cppbench.heap", 31, "objects/count space/bytes", []int64{41063, 80935293}, 524288, 0},
	{"cppbench.growth", 85, "objects/count space/bytes", []int64{85, 178257920}, 1, 0},
	{"cppbench.contention", 6, "contentions/count delay/nanoseconds", []int64{3500, 690508213}, 100, 16502830e6},
	{"cppbench.small.contention", 1, "contentions/count delay/nanoseconds", []int64{1000, 3124}, 100, 16502830e6},
	{"cppbench.thread", 3, "thread/count", []int64{4}, 1, 0},
	{"cppbench.thread.all", 3, "thread/count", []int64{4}, 1, 0},
	{"cppbench.thread.none", 4, "thread/count", []int64{4}, 1, 0},
	{"go.godoc.thread", 7, "threadcreate/count", []int64{7}, 1, 0},
	{"gobench.heap", 15, "alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes", []int64{83134, 350314738, 11445, 7721316}, 524288, 0},
	{"java.heap", 7, "inuse_objects/count inuse_space/bytes", []int64{67347, 9968703}, 0, 0},
	{"java.contention", 4, "contentions/count delay/microseconds", []int64{700, 1900}, 100, 6019923e6},
	{"1.pprof.lookup.goroutine.debug1.txt", 5, "goroutine/count", []int64{6}, 1, 0},
	{"2.pprof.lookup.goroutine.debug1.txt", 8, "goroutine/count", []int64{9}, 1, 0},
	{"1.net.http.pprof.goroutine.debug1.txt", 9, "goroutine/count", []int64{10}, 1, 0},
	{"2.net.http.pprof.goroutine.debug1.txt", 9, "goroutine/count", []int64{10}, 1, 0},
	{"go-block.debug1.txt", 3, "contentions/count delay/nanoseconds", []int64{401, 1405270616}, 1, 0},
	{"go-mutex.debug1.txt", 2, "contentions/count delay/nanoseconds", []int64{399, 1388799928}, 1, 0},
	{"go-heap.debug1.txt", 15, "alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes", []int64{1028, 1639739, 1024, 1611514}, 4096, 0},
	{"quirks-maps.heap", 6, "objects/count space/bytes", []int64{6, 600}, 1, 0},
	{"quirks-mappings.goroutine", 2, "goroutine/count", []int64{3}, 1, 0},
	{"quirks.threadz", 4, "thread/count", []int64{8}, 1, 0},
	{"quirks.contention", 3, "contentions/count delay/nanoseconds", []int64{14, 7000000256}, 7, 1234e6},
	{"quirks-java.contention", 3, "contentions/count delay/microseconds", []int64{12, 24}, 0, 0},
	{"quirks-java.heapz", 2, "inuse_objects/count inuse_space/kilobytes", []int64{20973, 2222987}, 0, 0},
}

func readLegacyText(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(legacyTextDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestLegacyTextFiles(t *testing.T) {
	for _, tc := range legacyTextFiles {
		t.Run(tc.name, func(t *testing.T) {
			data := readLegacyText(t, tc.name)
			if !isLegacyText(data[:min(len(data), 4096)]) {
				t.Errorf("isLegacyText = false")
			}
			p, err := parseLegacyText(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkDenseProfile(p); err != nil {
				t.Fatalf("inconsistent profile: %v", err)
			}
			if got := p.Samples.Len(); got != tc.samples {
				t.Errorf("%d samples, want %d", got, tc.samples)
			}
			var types []string
			for _, st := range p.SampleTypes {
				types = append(types, st.Type+"/"+st.Unit)
			}
			if got := strings.Join(types, " "); got != tc.types {
				t.Errorf("sample types %q, want %q", got, tc.types)
			}
			for i, want := range tc.totals {
				if i < len(p.SampleTypes) && p.Total(i) != want {
					t.Errorf("total of %s = %d, want %d", types[i], p.Total(i), want)
				}
			}
			if p.Period != tc.period || p.DurationNanos != tc.duration {
				t.Errorf("period %d, duration %dns; want %d, %dns", p.Period, p.DurationNanos, tc.period, tc.duration)
			}

			// Everything -raw shows: values, stacks, labels, locations,
			// mappings, Java frames.
			want, err := os.ReadFile(filepath.Join(legacyTextDir, "golden", tc.name+".raw.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := pprofRaw(p), dropDurationLines(string(want)); got != want {
				t.Errorf("-raw differs from pprof's:\n%s", firstLineDiff(got, want))
			}

			top, err := os.ReadFile(filepath.Join(legacyTextDir, "golden", tc.name+".top.addresses.txt"))
			if os.IsNotExist(err) {
				return // Java: symbolized, no addresses
			}
			if err != nil {
				t.Fatal(err)
			}
			checkFlatAgainstTop(t, p, string(top))
		})
	}
}

// checkFlatAgainstTop compares the flat value per address (the value of the
// samples whose leaf is at that address, for pprof's default sample
// type) with pprof's -top -addresses, which prints it rounded.
func checkFlatAgainstTop(t *testing.T, p *Profile, top string) {
	t.Helper()
	ti := p.DefaultSampleIndex()
	flat := make(map[uint64]int64)
	for i := 0; i < p.Samples.Len(); i++ {
		if st := p.Stacks.At(p.Samples.Stack[i]); len(st) > 0 {
			flat[p.Locations[st[0]].Address] += p.Samples.Values[ti][i]
		}
	}
	rows := 0
	inTable := false
	var err error
	for _, l := range strings.Split(top, "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == "flat" {
			inTable = true
			continue
		}
		if !inTable || len(f) < 6 {
			continue
		}
		var addr uint64 // pprof shows address 0 as just "<unknown>"
		if f[5] != "<unknown>" {
			addr, err = strconv.ParseUint(f[5], 16, 64)
		}
		if err != nil {
			t.Fatalf("top line %q: %v", l, err)
		}
		want, tol, err := parseTopMeasure(f[0], p.SampleTypes[ti].Unit)
		if err != nil {
			t.Fatalf("top line %q: %v", l, err)
		}
		if got := float64(flat[addr]); math.Abs(got-want) > tol {
			t.Errorf("flat at %#x = %v, pprof shows %s", addr, flat[addr], f[0])
		}
		rows++
	}
	if rows == 0 {
		t.Errorf("no rows in -top golden")
	}
}

// parseTopMeasure reads a value as pprof's -top prints it ("73.05MB",
// "608.88ms", "5") in the sample type's unit, with the rounding error its
// last digit allows.
func parseTopMeasure(s, unit string) (value, tolerance float64, err error) {
	end := len(s)
	for end > 0 && (s[end-1] < '0' || s[end-1] > '9') {
		end--
	}
	num, suffix := s[:end], s[end:]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, 0, err
	}
	scales := map[string]map[string]float64{
		"bytes":        {"": 1, "B": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40},
		"nanoseconds":  {"": 1, "ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "mins": 60e9, "hrs": 3600e9},
		"microseconds": {"": 1, "ns": 1e-3, "us": 1, "ms": 1e3, "s": 1e6, "mins": 60e6, "hrs": 3600e6},
		"count":        {"": 1},
	}
	scale, ok := scales[unit][suffix]
	if !ok {
		return 0, 0, fmt.Errorf("unit %q for %s", suffix, unit)
	}
	decimals := 0
	if i := strings.IndexByte(num, '.'); i >= 0 {
		decimals = len(num) - i - 1
	}
	return v * scale, 0.5*math.Pow(10, -float64(decimals))*scale + 1e-9, nil
}

func dropDurationLines(raw string) string {
	var out []string
	for _, l := range strings.SplitAfter(raw, "\n") {
		if !strings.HasPrefix(l, "Duration: ") && !strings.HasPrefix(l, "Time: ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// pprofRaw renders p as `go tool pprof -raw` prints it (profile.String in
// github.com/google/pprof), leaving out the Time and Duration lines,
// which pprof formats for people.
func pprofRaw(p *Profile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "PeriodType: %s %s\nPeriod: %d\nSamples:\n", p.PeriodType.Type, p.PeriodType.Unit, p.Period)
	var types []string
	for _, st := range p.SampleTypes {
		types = append(types, st.Type+"/"+st.Unit)
	}
	b.WriteString(strings.Join(types, " ") + "\n")
	for i := 0; i < p.Samples.Len(); i++ {
		for t := range p.SampleTypes {
			fmt.Fprintf(&b, " %10d", p.Samples.Values[t][i])
		}
		b.WriteString(": ")
		for _, l := range p.Stacks.At(p.Samples.Stack[i]) {
			fmt.Fprintf(&b, "%d ", p.Locations[l].ID)
		}
		b.WriteString("\n")
		labels := map[string][]string{}
		for _, kv := range p.LabelSets.At(p.Samples.Labels[i]) {
			k := p.Strings[kv.Key]
			labels[k] = append(labels[k], p.Strings[kv.Value])
		}
		for _, n := range p.Samples.NumLabels(i) {
			v := strconv.FormatInt(n.Value, 10)
			if n.Unit != 0 {
				v += " " + p.Strings[n.Unit]
			}
			k := p.Strings[n.Key]
			labels[k] = append(labels[k], v)
		}
		if len(labels) > 0 {
			var items []string
			for _, k := range slices.Sorted(func(yield func(string) bool) {
				for k := range labels {
					if !yield(k) {
						return
					}
				}
			}) {
				items = append(items, k+":["+strings.Join(labels[k], " ")+"]")
			}
			b.WriteString("                " + strings.Join(items, " ") + "\n")
		}
	}
	b.WriteString("Locations\n")
	for _, l := range p.Locations {
		fmt.Fprintf(&b, "%6d: %#x ", l.ID, l.Address)
		if l.Mapping >= 0 {
			fmt.Fprintf(&b, "M=%d ", p.Mappings[l.Mapping].ID)
		}
		for i, ln := range p.LinesOf(&l) {
			if i > 0 {
				b.WriteString("\n             ")
			}
			fn := p.Functions[ln.Function]
			fmt.Fprintf(&b, "%s %s:%d:%d s=%d", fn.Name, fn.Filename, ln.Line, ln.Column, fn.StartLine)
		}
		b.WriteString("\n")
	}
	b.WriteString("Mappings\n")
	for _, m := range p.Mappings {
		bits := ""
		for _, f := range []struct {
			on   bool
			name string
		}{{m.HasFunctions, "[FN]"}, {m.HasFilenames, "[FL]"}, {m.HasLineNumbers, "[LN]"}, {m.HasInlineFrames, "[IN]"}} {
			if f.on {
				bits += f.name
			}
		}
		fmt.Fprintf(&b, "%d: %#x/%#x/%#x %s %s %s\n", m.ID, m.Start, m.Limit, m.Offset, m.File, m.BuildID, bits)
	}
	return b.String()
}

// firstLineDiff shows the first lines where got and want differ.
func firstLineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var out []string
	for i := 0; i < max(len(g), len(w)) && len(out) < 10; i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			out = append(out, fmt.Sprintf("line %d:\n  got  %q\n  want %q", i+1, gl, wl))
		}
	}
	return strings.Join(out, "\n")
}

// checkDenseProfile verifies what the rest of the program relies on: dense
// indices in range, IDs 1..N, one value per sample type per sample.
func checkDenseProfile(p *Profile) error {
	if len(p.Strings) == 0 || p.Strings[0] != "" {
		return fmt.Errorf("string table does not start with \"\"")
	}
	if len(p.SampleTypes) == 0 || len(p.Samples.Values) != len(p.SampleTypes) {
		return fmt.Errorf("%d sample types, %d value columns", len(p.SampleTypes), len(p.Samples.Values))
	}
	n := p.Samples.Len()
	for t, col := range p.Samples.Values {
		if len(col) != n {
			return fmt.Errorf("column %d has %d values for %d samples", t, len(col), n)
		}
	}
	if len(p.Samples.Labels) != n || p.Samples.NumOff != nil && len(p.Samples.NumOff) != n+1 {
		return fmt.Errorf("label columns do not match %d samples", n)
	}
	for i := 0; i < n; i++ {
		if s := p.Samples.Stack[i]; s < 0 || int(s) >= p.Stacks.Len() {
			return fmt.Errorf("sample %d: stack %d of %d", i, s, p.Stacks.Len())
		}
		if l := p.Samples.Labels[i]; l < 0 || int(l) >= p.LabelSets.Len() {
			return fmt.Errorf("sample %d: label set %d", i, l)
		}
		for _, nl := range p.Samples.NumLabels(i) {
			if nl.Key <= 0 || int(nl.Key) >= len(p.Strings) || nl.Unit < 0 || int(nl.Unit) >= len(p.Strings) {
				return fmt.Errorf("sample %d: numeric label strings out of range", i)
			}
		}
	}
	for _, l := range p.Stacks.Locs {
		if l < 0 || int(l) >= len(p.Locations) {
			return fmt.Errorf("stack location %d of %d", l, len(p.Locations))
		}
	}
	for i, l := range p.Locations {
		if l.ID != uint64(i)+1 {
			return fmt.Errorf("location %d has ID %d", i, l.ID)
		}
		if l.Mapping < -1 || int(l.Mapping) >= len(p.Mappings) {
			return fmt.Errorf("location %d: mapping %d of %d", i, l.Mapping, len(p.Mappings))
		}
		for _, ln := range p.LinesOf(&l) {
			if ln.Function < 0 || int(ln.Function) >= len(p.Functions) {
				return fmt.Errorf("location %d: function %d of %d", i, ln.Function, len(p.Functions))
			}
		}
	}
	for i, m := range p.Mappings {
		if m.ID != uint64(i)+1 {
			return fmt.Errorf("mapping %d has ID %d", i, m.ID)
		}
	}
	for i, f := range p.Functions {
		if f.ID != uint64(i)+1 {
			return fmt.Errorf("function %d has ID %d", i, f.ID)
		}
	}
	return nil
}

// Every file pprof rejects (golden/<f>.err.txt holds its message), we
// reject too.
func TestLegacyTextRejected(t *testing.T) {
	errs, err := filepath.Glob(filepath.Join(legacyTextDir, "golden", "*.err.txt"))
	if err != nil || len(errs) == 0 {
		t.Fatalf("no golden errors: %v", err)
	}
	for _, e := range errs {
		name := strings.TrimSuffix(filepath.Base(e), ".err.txt")
		if _, err := parseLegacyText(readLegacyText(t, name), nil); err == nil {
			pprofErr, _ := os.ReadFile(e)
			t.Errorf("%s: no error; pprof says %s", name, bytes.TrimSpace(pprofErr))
		}
	}
}

func TestLegacyTextErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		// pprof: "parsing sample 0 0 @ 0: second value must be non-zero".
		{"fuzz corpus", string(readLegacyText(t, "7e3c92482f6f39fc502b822ded792c589849cca8")), "line 2: Java heap sample \"0 0 @ 0\": the count (second value) must be non-zero"},
		{"no header", "hello\n", "line 1: not a legacy text profile header"},
		{"empty", "", "no legacy text profile header"},
		{"heap junk", "heap profile: 1: 2 [1: 2] @ heap_v2/524288\n1: 2 [1: 2] @ 0x1\njunk\n", "line 3: malformed heap sample \"junk\""},
		{"heap rate", "heap profile: 1: 2 [1: 2] @ heap_v2/99999999999999999999\n", "line 1: heap sampling rate 99999999999999999999 out of range"},
		{"heap kind", "heap profile: 1: 2 [1: 2] @ heapz/512\n", "line 1: unknown heap profile type \"heapz\""},
		{"heap inuse", "heap profile: 1: 2 [1: 2] @ heap\n0: 2 [1: 2] @ 0x1\n", "line 2: in-use count is 0 but in-use bytes is 2"},
		{"heap alloc", "heap profile: 1: 2 [3: 4] @ heap\n1: 2 [0: 4] @ 0x1\n", "line 2: allocation count is 0 but allocation bytes is 4"},
		{"heap value", "heap profile: 1: 2 [1: 2] @ heap\n99999999999999999999: 2 [1: 2] @ 0x1\n", "line 2: heap sample value 99999999999999999999 out of range"},
		{"heap address", "heap profile: 1: 2 [1: 2] @ heap\n1: 2 [1: 2] @ 0x10000000000000000\n", "line 2: heap sample: address \"0x10000000000000000\" does not fit in 64 bits"},
		{"contention junk", "--- contentionz 1 ---\n1 2 @ 0x3\njunk\n", "line 3: malformed contention sample \"junk\""},
		{"contention attr late", "--- contentionz 1 ---\n1 2 @ 0x3\nsampling period = 3\n", "line 3: attribute after the samples"},
		{"contention attr value", "--- contentionz 1 ---\nsampling period = x\n", "line 2: attribute \"sampling period\": \"x\" is not a 64-bit integer"},
		{"contention attr unknown", "--- contentionz 1 ---\nfoo = 1\n", "line 2: unknown attribute \"foo\" in a Java contentionz profile"},
		{"count junk", "goroutine profile: total 1\n1 @ 0x1 junk\n", "line 2: malformed goroutine sample \"1 @ 0x1 junk\""},
		{"threadz no maps", "--- threadz 1 ---\n--- Thread 1 (name: a/1) stack: ---\n  PC: 0x1\n", "threadz profile without its \"--- Memory map: ---\" section"},
		{"threadz section", "--- threadz 1 ---\n--- Thread 1 (name: a/1) stack: ---\n--- foo ---\n", "line 3: not a thread header: \"--- foo ---\""},
		{"java resolution", "--- heapz 1 ---\nformat = java\n100 2 @ 0x1\n", "line 3: Java heapz profile without a resolution attribute"},
		{"java resolution, no samples", "--- contentionz 1 ---\nformat = java\n", "Java contentionz profile without a resolution attribute"},
		{"java format", "--- heapz 1 ---\nformat = c++\n", "line 2: unknown format \"c++\""},
		{"java attribute", "--- heapz 1 ---\nresolution = bytes\nsampling period = 1\n", "line 3: unknown attribute \"sampling period\" in a Java heapz profile"},
		{"java period", "--- contentionz 1 ---\nresolution = us\nsampling period = -3\n", "line 3: attribute \"sampling period\": \"-3\" is not a non-negative 64-bit integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parseLegacyText([]byte(tc.in), nil)
			if err == nil {
				t.Fatalf("no error; %d samples", p.Samples.Len())
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

// Cutting a file short anywhere must give a profile or an error, not a
// panic, and never a profile pprof's checks would reject.
func TestLegacyTextTruncated(t *testing.T) {
	for _, tc := range legacyTextFiles {
		data := readLegacyText(t, tc.name)
		for n := 0; n < len(data); n += 1 + n/64 {
			p, err := parseLegacyText(data[:n], nil)
			if err == nil {
				if err := checkDenseProfile(p); err != nil {
					t.Fatalf("%s cut at %d: %v", tc.name, n, err)
				}
			}
		}
	}
}

func TestIsLegacyText(t *testing.T) {
	for _, tc := range []struct {
		head string
		want bool
	}{
		{"heap profile: 1: 2 [3: 4] @ heap/1048576\n", true},
		{"heap profile:   85: 178257920 [   85: 178257920] @ growthz\n", true},
		{"heap profile: 1: 2 [3: 4] @ fragmentationz\n", true},
		{"--- contentionz 1 ---\n", true},
		{"--- contention:\ncycles/second=2000000000\n", true},
		{"--- mutex:\n", true},
		{"--- heapz 1 ---\nformat = java\n", true},
		{"\n# comment\n--- threadz 1 ---\n", true},
		{"\ngoroutine profile: total 12\n", true},
		{"threadcreate profile: total 7", true}, // cut at 4 KiB, no newline
		{"", false},
		{"\n\n", false},
		{"main;foo;bar 12\n", false},
		{"goroutine profile: total 12 \n", false},
		{"junk\n--- threadz 1 ---\n", false},
		{" heap profile (not really)\n", false},
		{"\x00\x00\x00\x00\x03\x00\x00\x00", false},
		{"\x1f\x8b\x08\x00", false},
		{"\n--- contentionz 1 ---\n", false},
	} {
		if got := isLegacyText([]byte(tc.head)); got != tc.want {
			t.Errorf("isLegacyText(%q) = %v, want %v", tc.head, got, tc.want)
		}
	}
}

// FuzzLegacyText checks that any input gives an error or a consistent
// profile, without panics, hangs or allocations out of proportion.
func FuzzLegacyText(f *testing.F) {
	entries, err := os.ReadDir(legacyTextDir)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasSuffix(e.Name(), ".sh") {
			f.Add(readLegacyText(f, e.Name()))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		head := data[:min(len(data), 4096)]
		isText := isLegacyText(head)
		p, err := parseLegacyText(data, nil)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			return
		}
		if !isText {
			t.Errorf("parsed, but isLegacyText(head) = false")
		}
		if err := checkDenseProfile(p); err != nil {
			t.Fatal(err)
		}
	})
}

// TestLegacyTextMatchesPprof feeds variants of the test files to both
// this decoder and go tool pprof, and compares -raw. It needs the go
// command and takes a while, so it runs only with LEGACYTEXT_PPROF=1
// (LEGACYTEXT_PPROF=n for n variants per file, LEGACYTEXT_SEED=s for
// other variants).
func TestLegacyTextMatchesPprof(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("LEGACYTEXT_PPROF"))
	if n <= 0 {
		t.Skip("set LEGACYTEXT_PPROF=1 to compare with go tool pprof")
	}
	if n == 1 {
		n = 20
	}
	dir := t.TempDir()
	seed, _ := strconv.ParseUint(os.Getenv("LEGACYTEXT_SEED"), 10, 64)
	seed |= 1
	rnd := func(k int) int { // xorshift: reproducible without math/rand
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return int(seed % uint64(k))
	}
	mismatches := 0
	for _, tc := range legacyTextFiles {
		orig := readLegacyText(t, tc.name)
		for v := 0; v < n && mismatches < 10; v++ {
			data := mutateLegacyText(orig, rnd)
			path := filepath.Join(dir, "in")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := gotool.Pprof("-raw", "-symbolize=none", path)
			cmd.Env = append(os.Environ(), "TZ=UTC")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			pprofErr := cmd.Run()
			p, err := parseLegacyText(data, nil)
			if strings.Contains(stderr.String(), "panic:") || hasLoneHexMaps(data) {
				continue // pprof crashes, or reads maps lines we read differently on purpose
			}
			switch {
			case pprofErr != nil && err != nil:
			case pprofErr != nil && stdout.Len() == 0:
				mismatches++
				t.Errorf("%s variant %d: pprof fails, we read %d samples\n%s", tc.name, v, p.Samples.Len(), quoteInput(data))
			case err != nil:
				if strings.Contains(stdout.String(), "Samples:\n\n") || !strings.Contains(stdout.String(), "Samples:") {
					continue // no sample types: pprof's driver rejects it
				}
				mismatches++
				t.Errorf("%s variant %d: pprof reads it, we fail: %v\n%s", tc.name, v, err, quoteInput(data))
			default:
				if got, want := pprofRaw(p), dropDurationLines(stdout.String()); got != want {
					mismatches++
					t.Errorf("%s variant %d: -raw differs:\n%s\n%s", tc.name, v, firstLineDiff(got, want), quoteInput(data))
				}
			}
		}
	}
}

// hasLoneHexMaps reports whether the maps text has a line starting with a
// number that is not a mapping to us. pprof splits a lone hex number into
// an address range ("0x7f01: x" becomes 0x7f0-0x1); parseLegacyMaps, which
// we share with the legacy CPU decoder, does not.
func hasLoneHexMaps(data []byte) bool {
	i := bytes.Index(data, []byte("--- Memory map: ---"))
	if j := bytes.Index(data, []byte("MAPPED_LIBRARIES:")); i < 0 || j >= 0 && j < i {
		i = j
	}
	if i < 0 {
		return false
	}
	for _, l := range strings.Split(string(data[i:]), "\n")[1:] {
		t := strings.TrimLeft(l, " \t")
		if _, ok := mapsEntry(l); !ok && t != "" && hexDigit(t[0]) && !strings.Contains(l, "=") {
			return true
		}
	}
	return false
}

func quoteInput(data []byte) string {
	if len(data) > 2000 {
		data = data[:2000]
	}
	return "input: " + strconv.Quote(string(data))
}

// mutateLegacyText returns a variant of a legacy text file: lines deleted,
// duplicated or swapped, numbers changed, whitespace and comments added.
func mutateLegacyText(orig []byte, rnd func(int) int) []byte {
	lines := strings.SplitAfter(string(orig), "\n")
	edits := 1 + rnd(4)
	for e := 0; e < edits && len(lines) > 1; e++ {
		i := 1 + rnd(len(lines)-1)
		switch rnd(9) {
		case 0:
			lines = slices.Delete(lines, i, i+1)
		case 1:
			lines = slices.Insert(lines, i, lines[i])
		case 2:
			j := 1 + rnd(len(lines)-1)
			lines[i], lines[j] = lines[j], lines[i]
		case 3:
			lines = slices.Insert(lines, i, []string{"\n", "# comment\n", "  \n", "junk\n", "--- x ---\n",
				"MAPPED_LIBRARIES:\n", "--- Memory map: ---\n", " [same as previous thread]\n", "a=b\n"}[rnd(9)])
		case 4, 5, 6:
			// change a number
			l := []byte(lines[i])
			var digits []int
			for k, c := range l {
				if c >= '0' && c <= '9' {
					digits = append(digits, k)
				}
			}
			if len(digits) > 0 {
				k := digits[rnd(len(digits))]
				l[k] = "0123456789"[rnd(10)]
				if rnd(4) == 0 {
					l = slices.Insert(l, k, "0123456789"[rnd(10)])
				}
			}
			lines[i] = string(l)
		case 7:
			if rnd(3) == 0 {
				lines[i] = []string{" ", "\t", "x"}[rnd(3)] + lines[i]
			} else {
				lines[i] = strings.Replace(lines[i], " ", []string{"  ", "\t", ""}[rnd(3)], 1)
			}
		case 8:
			lines[i] = strings.TrimRight(lines[i], "\n") + []string{" ", "\r", " x", " 0x7"}[rnd(4)] + "\n"
		}
	}
	return []byte(strings.Join(lines, ""))
}

// TestLegacyTextDump prints our -raw rendering of the file named by
// LEGACYTEXT_DUMP, to compare with go tool pprof -raw by hand.
func TestLegacyTextDump(t *testing.T) {
	path := os.Getenv("LEGACYTEXT_DUMP")
	if path == "" {
		t.Skip("set LEGACYTEXT_DUMP=file to print its -raw rendering")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := parseLegacyText(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Print(pprofRaw(p))
}

// BenchmarkParseLegacyText decodes the largest test inputs of each kind.
func BenchmarkParseLegacyText(b *testing.B) {
	for _, name := range []string{"cppbench.growth", "cppbench.heap", "go-heap.debug1.txt", "2.net.http.pprof.goroutine.debug1.txt", "java.heap"} {
		data := readLegacyText(b, name)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parseLegacyText(data, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
