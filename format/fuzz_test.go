package format

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// FuzzParse feeds arbitrary bytes to Parse (every format, gzipped or
// not). It must return a profile or an error: never panic, never hang.
// Run it for minutes whenever a decoder changes:
//
//	go test ./format -run XXX -fuzz FuzzParse -fuzztime 5m
//
// Crashers it finds land in testdata/fuzz/FuzzParse and stay there as
// regression cases.
func FuzzParse(f *testing.F) {
	for _, name := range protoCorpus {
		if name == "pprof/large.cpu" || name == "synthetic/bigprof_10k.pb.gz" {
			continue // too big to mutate usefully
		}
		data, err := os.ReadFile(filepath.Join("..", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		if raw, err := gunzip(data); err == nil {
			f.Add(raw) // plain protobuf: mutations reach the decoder directly
		}
	}
	f.Add([]byte("main;foo;bar 10\nmain;baz 3\n"))
	f.Add([]byte(perfScriptQuirks))
	f.Add([]byte(cpuProfileQuirks))
	if data, err := os.ReadFile("../testdata/producers/v8/work.cpuprofile"); err == nil {
		f.Add(data)
	}
	if data, err := os.ReadFile("../testdata/producers/perf/perfwork.script.gz"); err == nil {
		if raw, err := gunzip(data); err == nil {
			f.Add(raw[:min(len(raw), 8<<10)]) // the first samples of a real perf script
		}
	}
	// A perf.data file would be read by running perf: not here.
	perfCommand = "pprof-tui-fuzz-no-perf"
	f.Fuzz(func(t *testing.T, data []byte) {
		var p *Profile
		var err error
		checkBounded(t, data, func() { p, err = Parse(bytes.NewReader(data), Options{MaxBytes: 16 << 20}) })
		if err != nil {
			return
		}
		checkInvariants(t, p)
		// What we decoded we can write, and it reads back the same.
		var buf bytes.Buffer
		if err := Write(&buf, p); err != nil {
			t.Fatalf("Write: %v", err)
		}
		if _, err := Parse(&buf, Options{}); err != nil {
			t.Fatalf("re-reading our own output: %v", err)
		}
	})
}

func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// checkInvariants verifies that every index in p is in range: what
// analysis relies on without checking.
func checkInvariants(t *testing.T, p *Profile) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf(format, args...)
	}
	if len(p.Strings) == 0 || p.Strings[0] != "" {
		fail("string table must start with \"\"")
	}
	for i, l := range p.Locations {
		if l.Mapping < -1 || int(l.Mapping) >= len(p.Mappings) {
			fail("location %d: mapping %d out of range", i, l.Mapping)
		}
		if l.Lines.Off < 0 || l.Lines.N < 0 || int(l.Lines.Off)+int(l.Lines.N) > len(p.Lines) {
			fail("location %d: lines %+v outside the %d lines", i, l.Lines, len(p.Lines))
		}
		for _, ln := range p.LinesOf(&l) {
			if ln.Function < -1 || int(ln.Function) >= len(p.Functions) {
				fail("location %d: function %d out of range", i, ln.Function)
			}
		}
	}
	if p.Stacks.Off[0] != 0 || int(p.Stacks.Off[len(p.Stacks.Off)-1]) != len(p.Stacks.Locs) {
		fail("stack offsets do not cover the locations")
	}
	for _, l := range p.Stacks.Locs {
		if l < 0 || int(l) >= len(p.Locations) {
			fail("stack location %d out of range", l)
		}
	}
	n := p.Samples.Len()
	if len(p.Samples.Values) != len(p.SampleTypes) {
		fail("%d value columns for %d sample types", len(p.Samples.Values), len(p.SampleTypes))
	}
	for _, col := range p.Samples.Values {
		if len(col) != n {
			fail("value column of %d for %d samples", len(col), n)
		}
	}
	if len(p.Samples.Labels) != n {
		fail("label column of %d for %d samples", len(p.Samples.Labels), n)
	}
	for i := 0; i < n; i++ {
		if s := p.Samples.Stack[i]; s < 0 || int(s) >= p.Stacks.Len() {
			fail("sample %d: stack %d out of range", i, s)
		}
		if s := p.Samples.Labels[i]; s < 0 || int(s) >= p.LabelSets.Len() {
			fail("sample %d: label set %d out of range", i, s)
		}
		for _, nl := range p.Samples.NumLabels(i) {
			if nl.Key < 0 || int(nl.Key) >= len(p.Strings) || nl.Unit < 0 || int(nl.Unit) >= len(p.Strings) {
				fail("sample %d: numeric label string out of range", i)
			}
		}
	}
	if p.Samples.NumOff != nil && len(p.Samples.NumOff) != n+1 {
		fail("%d numeric label offsets for %d samples", len(p.Samples.NumOff), n)
	}
	if len(p.Samples.NumKind) != len(p.Samples.NumValue) {
		fail("%d numeric label kinds for %d values", len(p.Samples.NumKind), len(p.Samples.NumValue))
	}
	for _, k := range p.Samples.NumKind {
		if int(k) >= len(p.Samples.NumKinds) {
			fail("numeric label kind %d out of range", k)
		}
	}
	for _, kv := range p.LabelSets.Pairs {
		if kv.Key < 0 || int(kv.Key) >= len(p.Strings) || kv.Value < 0 || int(kv.Value) >= len(p.Strings) {
			fail("label string out of range")
		}
	}
	if p.DefaultSampleType != "" && p.SampleTypeIndex(p.DefaultSampleType) < 0 {
		fail("default sample type %q names no type", p.DefaultSampleType)
	}
}

// Fuzzed decodes must stay within these: an input that makes a decoder
// allocate more than fuzzAllocPerByte times its size plus fuzzAllocSlack,
// or run past fuzzTime, is the kind of input that took gigabytes (or
// minutes) from a few kilobytes, and fails.
const (
	fuzzAllocPerByte = 4 * maxExpansion
	fuzzAllocSlack   = 4 * expansionSlack
	fuzzTime         = 2 * time.Second
)

// checkBounded runs decode on data and fails if it allocated or took
// more than an input of its size may.
func checkBounded(t *testing.T, data []byte, decode func()) {
	t.Helper()
	// An input that hangs never gets to the time check below: the
	// watchdog crashes the worker, with every goroutine's stack, so that
	// the fuzzer keeps the input.
	debug.SetTraceback("all")
	watchdog := time.AfterFunc(30*fuzzTime, func() { panic(fmt.Sprintf("a %d-byte input ran past %v", len(data), 30*fuzzTime)) })
	defer watchdog.Stop()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	decode()
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	if alloc, bound := after.TotalAlloc-before.TotalAlloc, uint64(fuzzAllocPerByte*len(data)+fuzzAllocSlack); alloc > bound {
		t.Fatalf("a %d-byte input allocated %d bytes, more than %d", len(data), alloc, bound)
	}
	if took > fuzzTime {
		t.Fatalf("a %d-byte input took %v", len(data), took)
	}
}

// fuzzFormat fuzzes one in-memory decoder on its own, as Parse calls it.
func fuzzFormat(f *testing.F, parse func([]byte, *meter) (*Profile, error), seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var p *Profile
		var err error
		checkBounded(t, data, func() {
			m := newMeter(NewBudget(BudgetPerMaxByte * 16 << 20))
			m.bound(int64(len(data)))
			p, err = parse(data, m)
		})
		if err == nil {
			checkInvariants(t, p)
		}
	})
}

// FuzzPerfScript, FuzzCPUProfile and FuzzFolded fuzz one text decoder
// each, where FuzzParse spreads its time over every format:
//
//	go test ./format -run XXX -fuzz FuzzFolded -fuzztime 3m -parallel 1
//
// One worker (-parallel 1) keeps the allocation measured the input's own.
func FuzzPerfScript(f *testing.F) {
	seeds := [][]byte{[]byte(perfScriptQuirks), []byte("x 1 1.0: 3 a:\n\t1 f (/x)\n\nx 1 1.0: 3 b:\n\t1 f (/x)\n")}
	if data, err := os.ReadFile("../testdata/producers/perf/perfwork.script.gz"); err == nil {
		if raw, err := gunzip(data); err == nil {
			seeds = append(seeds, raw[:min(len(raw), 4<<10)])
		}
	}
	fuzzFormat(f, parsePerfScript, seeds...)
}

func FuzzCPUProfile(f *testing.F) {
	seeds := [][]byte{[]byte(cpuProfileQuirks)}
	if data, err := os.ReadFile("../testdata/producers/v8/work.cpuprofile"); err == nil && len(data) < 64<<10 {
		seeds = append(seeds, data)
	}
	fuzzFormat(f, parseCPUProfile, seeds...)
}

func FuzzFolded(f *testing.F) {
	fuzzFormat(f, parseFolded, []byte("main;foo;bar 10\nmain;baz 3\n"), []byte("a;b -5\n"), []byte("a;;b 1\r\n# c\n\na 9223372036854775807\n"))
}
