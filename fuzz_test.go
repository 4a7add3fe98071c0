package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
)

// reportArgs are the reports FuzzReports runs on every profile it
// decodes. -disasm is left out: it opens the binaries the profile names.
var reportArgs = [][]string{
	{"-top"}, {"-top", "-json"}, {"-traces"}, {"-tags"}, {"-peek", "."},
	{"-list", "."}, {"-folded"}, {"-proto", "-output", "x"},
	{"-top", "-cum", "-sample_index", "0"},
	{"-dot"}, {"-dot", "-call_tree"}, {"-tree"}, {"-callgrind"},
}

// FuzzReports decodes arbitrary bytes and runs every report on what
// decodes. Like the decoders' fuzz targets it fails an input that
// allocates more than a fixed multiple of its size, or runs too long:
//
//	go test . -run XXX -fuzz FuzzReports -fuzztime 3m -parallel 1
func FuzzReports(f *testing.F) {
	for _, name := range []string{"testdata/go/cpu_labels.pb.gz", "testdata/go/heap.pb.gz", "testdata/go/mutex.pb.gz"} {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("main;foo;bar 10\nmain;baz 3\nmain;foo 0\n"))
	f.Add([]byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},{"id":2,"callFrame":{"functionName":"f","url":"file:///a.js","lineNumber":3}}],"startTime":0,"endTime":30,"samples":[2,1,2],"timeDeltas":[0,10,10]}`))
	f.Add([]byte("x 1/2 [000] 1.0: 7 cycles:\n\t1 f+0x1 (/x)\n\t2 main (/x)\n\ny 3 1.1: 2 cpu-clock:\n\t3 g (/y)\n"))
	cmds := make([]*cmdline, len(reportArgs))
	for i, args := range reportArgs {
		c, err := parseArgs(append(args, "profile"))
		if err != nil {
			f.Fatal(err)
		}
		cmds[i] = c
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// An input that hangs never gets to the time check below: the
		// watchdog crashes the worker, with every goroutine's stack, so
		// that the fuzzer keeps the input.
		debug.SetTraceback("all")
		watchdog := time.AfterFunc(time.Minute, func() { panic(fmt.Sprintf("a %d-byte input ran past a minute", len(data))) })
		defer watchdog.Stop()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		p, err := format.Parse(bytes.NewReader(data), format.Options{MaxBytes: 16 << 20})
		if err != nil {
			return
		}
		e := analysis.NewEngine(p)
		for i, c := range cmds {
			if err := writeReport(io.Discard, c, e); err != nil {
				t.Logf("%v: %v", reportArgs[i], err)
			}
		}
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		// The decoders' own bound (format's fuzz targets) times the
		// reports run, each a few times the profile's size at most.
		if alloc, bound := after.TotalAlloc-before.TotalAlloc, uint64(1024*len(data)+256<<20); alloc > bound {
			t.Fatalf("a %d-byte input allocated %d bytes in decode and reports, more than %d", len(data), alloc, bound)
		}
		if took > 10*time.Second {
			t.Fatalf("a %d-byte input took %v to decode and report", len(data), took)
		}
	})
}
