package synth

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/pprof-tui/pprof-tui/internal/gotool"
)

func write(t testing.TB, c Config) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, c); err != nil {
		t.Fatalf("Write(%+v): %v", c, err)
	}
	return buf.Bytes()
}

func TestDeterministic(t *testing.T) {
	c := Config{Samples: 3000, Seed: 42, Labels: true}
	a := sha256.Sum256(write(t, c))
	b := sha256.Sum256(write(t, c))
	if a != b {
		t.Fatalf("two runs of %+v differ: %x != %x", c, a, b)
	}
	c.Seed++
	if d := sha256.Sum256(write(t, c)); d == a {
		t.Fatalf("seeds %d and %d give the same profile", c.Seed-1, c.Seed)
	}
}

func TestInvalidConfig(t *testing.T) {
	for _, c := range []Config{
		{Samples: -1},
		{Samples: 10, Functions: minFunctions - 1},
		{Samples: 10, MaxDepth: minDepth - 1},
	} {
		if err := Write(io.Discard, c); err == nil {
			t.Errorf("Write(%+v) succeeded, want an error", c)
		}
	}
}

// failingWriter fails once it has taken n bytes.
type failingWriter struct{ n int }

func (w *failingWriter) Write(b []byte) (int, error) {
	if len(b) > w.n {
		return w.n, errors.New("disk full")
	}
	w.n -= len(b)
	return len(b), nil
}

func TestWriteError(t *testing.T) {
	for _, n := range []int{0, 100 << 10} {
		err := Write(&failingWriter{n}, Config{Samples: 200_000, Seed: 1, Labels: true})
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("writer failing after %d bytes: got %v, want disk full", n, err)
		}
	}
}

func TestStructure(t *testing.T) {
	for _, c := range []Config{
		{Samples: 2000, Seed: 1, Labels: true},
		{Samples: 2000, Seed: 2},
		{Samples: 2000, Seed: 3, Functions: minFunctions, MaxDepth: minDepth},
		{Samples: 1000, Seed: 4, Functions: 500, MaxDepth: 8, Labels: true},
		{Samples: 0, Seed: 5},
	} {
		t.Run(fmt.Sprintf("%+v", c), func(t *testing.T) {
			p := decode(t, write(t, c))
			checkStructure(t, c, p)
		})
	}
}

// checkStructure checks what every decoder relies on (references resolve,
// string_table[0] is "") and the shape Write promises.
func checkStructure(t *testing.T, c Config, p *rawProfile) {
	t.Helper()
	c, _ = c.withDefaults()
	str := func(what string, i int64) string {
		t.Helper()
		if i < 0 || i >= int64(len(p.strings)) {
			t.Fatalf("%s: string index %d out of range [0, %d)", what, i, len(p.strings))
		}
		return p.strings[i]
	}
	if len(p.strings) == 0 || p.strings[0] != "" {
		t.Fatalf("string_table[0] is not \"\"")
	}

	// Field order: the samples come before the tables they refer to, and
	// the string table comes last.
	tables := false
	for _, f := range p.order {
		switch {
		case tables && f == profSample:
			t.Fatalf("a sample after the mappings, locations or functions")
		case f == profMapping || f == profLocation || f == profFunction:
			tables = true
		}
	}
	if i := slices.Index(p.order, profStringTable); i < 0 || slices.ContainsFunc(p.order[i:], func(f protowire.Number) bool { return f != profStringTable }) {
		t.Fatalf("the string table is not last")
	}

	var types []string
	for _, vt := range p.sampleTypes {
		types = append(types, str("sample type", vt[0])+"/"+str("sample unit", vt[1]))
	}
	if fmt.Sprint(types) != "[samples/count cpu/nanoseconds]" {
		t.Errorf("sample types %v", types)
	}
	if pt := str("period type", p.periodType[0]) + "/" + str("period unit", p.periodType[1]); pt != "cpu/nanoseconds" {
		t.Errorf("period type %s", pt)
	}
	if p.period != period || p.timeNanos == 0 || p.durationNanos <= 0 || len(p.comments) != 1 {
		t.Errorf("period %d, time %d, duration %d, %d comments", p.period, p.timeNanos, p.durationNanos, len(p.comments))
	}
	if d := str("default sample type", p.defaultSampleType); d != "cpu" {
		t.Errorf("default sample type %q", d)
	}

	mappings := map[uint64]*rawMapping{}
	for i := range p.mappings {
		m := &p.mappings[i]
		if m.id == 0 || mappings[m.id] != nil {
			t.Fatalf("mapping id %d is 0 or repeated", m.id)
		}
		mappings[m.id] = m
		if str("mapping file", m.filename) == "" || str("build id", m.buildID) == "" || m.start >= m.limit {
			t.Errorf("mapping %d: %+v", m.id, *m)
		}
	}
	if len(p.mappings) != 2 || !p.mappings[0].hasFunctions || !p.mappings[0].hasFilenames ||
		!p.mappings[0].hasLineNumbers || !p.mappings[0].hasInlineFrames || p.mappings[1].hasFunctions {
		t.Errorf("want a symbolized main mapping and an unsymbolized libc one, got %+v", p.mappings)
	}

	functions := map[uint64]bool{}
	for _, f := range p.functions {
		if f.id == 0 || functions[f.id] {
			t.Fatalf("function id %d is 0 or repeated", f.id)
		}
		functions[f.id] = true
		if str("function name", f.name) == "" || str("system name", f.systemName) == "" ||
			str("file name", f.filename) == "" || f.startLine <= 0 {
			t.Errorf("function %d: %+v", f.id, f)
		}
	}

	locations := map[uint64]*rawLocation{}
	addresses := map[[2]uint64]bool{}
	contents := map[string]bool{}
	usedFns := map[uint64]bool{}
	inlined := false
	for i := range p.locations {
		l := &p.locations[i]
		if l.id == 0 || locations[l.id] != nil {
			t.Fatalf("location id %d is 0 or repeated", l.id)
		}
		locations[l.id] = l
		m := mappings[l.mappingID]
		if m == nil {
			t.Fatalf("location %d: no mapping %d", l.id, l.mappingID)
		}
		if l.address < m.start || l.address >= m.limit {
			t.Errorf("location %d: address %#x outside its mapping", l.id, l.address)
		}
		if a := [2]uint64{l.mappingID, l.address}; addresses[a] {
			t.Errorf("location %d: address %#x repeated", l.id, l.address)
		} else {
			addresses[a] = true
		}
		if k := fmt.Sprint(l.mappingID, l.lines); l.lines != nil && contents[k] {
			t.Errorf("location %d: lines %v repeated", l.id, l.lines)
		} else {
			contents[k] = true
		}
		if (len(l.lines) == 0) != (l.mappingID == p.mappings[1].id) {
			t.Errorf("location %d in mapping %d has %d lines", l.id, l.mappingID, len(l.lines))
		}
		inlined = inlined || len(l.lines) > 1
		for _, ln := range l.lines {
			if !functions[ln[0]] {
				t.Fatalf("location %d: no function %d", l.id, ln[0])
			}
			usedFns[ln[0]] = true
		}
	}
	if len(usedFns) != len(functions) {
		t.Errorf("%d functions, %d of them used", len(functions), len(usedFns))
	}

	if len(p.samples) != c.Samples {
		t.Fatalf("%d samples, want %d", len(p.samples), c.Samples)
	}
	if c.Shape != Zipf {
		return // the walk shapes' samples: TestShapes
	}
	var unsymbolized, recursive, labeled int
	minD, maxD := c.MaxDepth, 0
	for i, s := range p.samples {
		if len(s.values) != 2 || s.values[0] <= 0 || s.values[1] != s.values[0]*period {
			t.Fatalf("sample %d: values %v", i, s.values)
		}
		depth := 0
		seen := map[uint64]bool{}
		rec := false
		for j, id := range s.locs {
			l := locations[id]
			if l == nil {
				t.Fatalf("sample %d: no location %d", i, id)
			}
			if len(l.lines) == 0 {
				if j > 0 && len(locations[s.locs[j-1]].lines) > 0 {
					t.Fatalf("sample %d: unsymbolized frame above a symbolized one", i)
				}
				unsymbolized++
				depth++
			}
			for _, ln := range l.lines {
				rec = rec || seen[ln[0]]
				seen[ln[0]] = true
				depth++
			}
		}
		if rec {
			recursive++
		}
		minD, maxD = min(minD, depth), max(maxD, depth)
		if depth < minDepth || depth > c.MaxDepth {
			t.Fatalf("sample %d: depth %d outside [%d, %d]", i, depth, minDepth, c.MaxDepth)
		}
		keys := map[string]string{}
		for _, lb := range s.labels {
			k := str("label key", lb.key)
			switch {
			case lb.str != 0:
				keys[k] = "str"
				str("label value", lb.str)
			case lb.numUnit != 0:
				keys[k] = "num " + str("label unit", lb.numUnit)
			default:
				keys[k] = "num"
			}
		}
		if len(keys) > 0 {
			labeled++
			want := map[string]string{"service": "str", "endpoint": "str", "region": "str",
				"request_bytes": "num bytes", "span_id": "num"}
			if fmt.Sprint(keys) != fmt.Sprint(want) {
				t.Fatalf("sample %d: labels %v, want %v", i, keys, want)
			}
		}
	}
	t.Logf("%d samples, depths %d..%d, %d locations, %d functions, %d unsymbolized frames, %d recursive stacks, %d labeled",
		len(p.samples), minD, maxD, len(p.locations), len(p.functions), unsymbolized, recursive, labeled)
	if c.Samples < 1000 {
		return
	}
	// Shape: only checkable with enough samples.
	// At minDepth a Go stack leaves no room for libc frames on top.
	if !inlined || unsymbolized == 0 && c.MaxDepth > minDepth || recursive == 0 {
		t.Errorf("want inlined, unsymbolized and recursive frames, got %t, %d, %d", inlined, unsymbolized, recursive)
	}
	if c.Labels != (labeled > 0) || labeled == len(p.samples) {
		t.Errorf("%d of %d samples labeled, want some but not all (Labels %t)", labeled, len(p.samples), c.Labels)
	}
	if c.MaxDepth > 10 && maxD < c.MaxDepth*2/3 {
		t.Errorf("deepest stack %d frames, want close to %d", maxD, c.MaxDepth)
	}
}

// TestPprofAccepts checks a small profile against the reference reader.
func TestPprofAccepts(t *testing.T) {
	_, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	if testing.Short() {
		t.Skip("runs go tool pprof")
	}
	c := Config{Samples: 2000, Seed: 7, Labels: true}
	data := write(t, c)
	file := filepath.Join(t.TempDir(), "synth.pb.gz")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	pprof := func(args ...string) string {
		t.Helper()
		cmd := gotool.Pprof(append(args, file)...)
		// Keep pprof away from the network and any binaries on this machine.
		cmd.Env = append(os.Environ(), "PPROF_BINARY_PATH="+t.TempDir(), "PPROF_TOOLS="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	raw := pprof("-raw")
	if !regexp.MustCompile(`(?m)^Samples:\nsamples/count cpu/nanoseconds`).MatchString(raw) {
		t.Errorf("go tool pprof -raw output has no samples header:\n%.2000s", raw)
	}

	var want int64
	for _, s := range decode(t, data).samples {
		want += s.values[1]
	}
	top := pprof("-top", "-unit=ns")
	m := regexp.MustCompile(`of (\d+)ns total`).FindStringSubmatch(top)
	if m == nil {
		t.Fatalf("no total in go tool pprof -top output:\n%.2000s", top)
	}
	if got, _ := strconv.ParseInt(m[1], 10, 64); got != want {
		t.Errorf("go tool pprof -top total %dns, want %dns", got, want)
	}
}

func BenchmarkWrite(b *testing.B) {
	c := Config{Samples: 100_000, Seed: 1, Labels: true}
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, c); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*c.Samples), "ns/sample")
}

// A hand-rolled profile.proto decoder, independent of the package under
// test, keeping string indices as indices so they can be checked.

type rawProfile struct {
	order         []protowire.Number // top-level fields, in file order
	sampleTypes   [][2]int64
	samples       []rawSample
	mappings      []rawMapping
	locations     []rawLocation
	functions     []rawFunction
	strings       []string
	timeNanos     int64
	durationNanos int64
	periodType    [2]int64
	period        int64
	comments      []int64

	defaultSampleType int64
}

type rawSample struct {
	locs   []uint64
	values []int64
	labels []rawLabel
}

type rawLabel struct{ key, str, num, numUnit int64 }

type rawMapping struct {
	id, start, limit, offset uint64
	filename, buildID        int64

	hasFunctions, hasFilenames, hasLineNumbers, hasInlineFrames bool
}

type rawLocation struct {
	id, mappingID, address uint64
	lines                  [][2]uint64 // function id, line
}

type rawFunction struct {
	id                         uint64
	name, systemName, filename int64
	startLine                  int64
}

func decode(t testing.TB, gz []byte) *rawProfile {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	p := &rawProfile{}
	err = fields(data, func(num protowire.Number, v uint64, b []byte) error {
		p.order = append(p.order, num)
		switch num {
		case profSampleType:
			vt, err := valueType(b)
			p.sampleTypes = append(p.sampleTypes, vt)
			return err
		case profSample:
			var s rawSample
			err := fields(b, func(num protowire.Number, v uint64, b []byte) error {
				switch num {
				case sampleLocationID, sampleValue:
					if b == nil {
						return fmt.Errorf("sample field %d is not packed", num)
					}
					for len(b) > 0 {
						x, n := protowire.ConsumeVarint(b)
						if n < 0 {
							return protowire.ParseError(n)
						}
						b = b[n:]
						if num == sampleLocationID {
							s.locs = append(s.locs, x)
						} else {
							s.values = append(s.values, int64(x))
						}
					}
				case sampleLabel:
					var l rawLabel
					err := fields(b, func(num protowire.Number, v uint64, _ []byte) error {
						switch num {
						case labelKey:
							l.key = int64(v)
						case labelStr:
							l.str = int64(v)
						case labelNum:
							l.num = int64(v)
						case labelNumUnit:
							l.numUnit = int64(v)
						}
						return nil
					})
					if err != nil {
						return err
					}
					s.labels = append(s.labels, l)
				}
				return nil
			})
			if err != nil {
				return err
			}
			p.samples = append(p.samples, s)
		case profMapping:
			var m rawMapping
			err := fields(b, func(num protowire.Number, v uint64, _ []byte) error {
				switch num {
				case mappingID:
					m.id = v
				case mappingStart:
					m.start = v
				case mappingLimit:
					m.limit = v
				case mappingOffset:
					m.offset = v
				case mappingFilename:
					m.filename = int64(v)
				case mappingBuildID:
					m.buildID = int64(v)
				case mappingHasFunctions:
					m.hasFunctions = v != 0
				case mappingHasFilenames:
					m.hasFilenames = v != 0
				case mappingHasLineNumbers:
					m.hasLineNumbers = v != 0
				case mappingHasInlineFrames:
					m.hasInlineFrames = v != 0
				}
				return nil
			})
			if err != nil {
				return err
			}
			p.mappings = append(p.mappings, m)
		case profLocation:
			var l rawLocation
			err := fields(b, func(num protowire.Number, v uint64, b []byte) error {
				switch num {
				case locationID:
					l.id = v
				case locationMappingID:
					l.mappingID = v
				case locationAddress:
					l.address = v
				case locationLine:
					var ln [2]uint64
					err := fields(b, func(num protowire.Number, v uint64, _ []byte) error {
						if num == lineFunctionID || num == lineLine {
							ln[num-1] = v
						}
						return nil
					})
					if err != nil {
						return err
					}
					l.lines = append(l.lines, ln)
				}
				return nil
			})
			if err != nil {
				return err
			}
			p.locations = append(p.locations, l)
		case profFunction:
			var f rawFunction
			err := fields(b, func(num protowire.Number, v uint64, _ []byte) error {
				switch num {
				case functionID:
					f.id = v
				case functionName:
					f.name = int64(v)
				case functionSystemName:
					f.systemName = int64(v)
				case functionFilename:
					f.filename = int64(v)
				case functionStartLine:
					f.startLine = int64(v)
				}
				return nil
			})
			if err != nil {
				return err
			}
			p.functions = append(p.functions, f)
		case profStringTable:
			p.strings = append(p.strings, string(b))
		case profTimeNanos:
			p.timeNanos = int64(v)
		case profDurationNanos:
			p.durationNanos = int64(v)
		case profPeriodType:
			var err error
			p.periodType, err = valueType(b)
			return err
		case profPeriod:
			p.period = int64(v)
		case profComment:
			p.comments = append(p.comments, int64(v))
		case profDefaultSampleType:
			p.defaultSampleType = int64(v)
		default:
			return fmt.Errorf("unexpected field %d", num)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("decoding: %v", err)
	}
	return p
}

func valueType(b []byte) (vt [2]int64, err error) {
	err = fields(b, func(num protowire.Number, v uint64, _ []byte) error {
		if num == valueTypeType || num == valueTypeUnit {
			vt[num-1] = int64(v)
		}
		return nil
	})
	return vt, err
}

// fields calls f for each field of the message b: v for varints, b
// (non-nil, possibly empty) for length-delimited fields.
func fields(b []byte, f func(num protowire.Number, v uint64, b []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var v uint64
		var sub []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			sub, n = protowire.ConsumeBytes(b)
			if sub == nil {
				sub = []byte{}
			}
		default:
			return fmt.Errorf("field %d: unexpected wire type %d", num, typ)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if err := f(num, v, sub); err != nil {
			return err
		}
	}
	return nil
}
