package main

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
)

// TestCPUProfileSelfTimes reads a V8 CPU profile that node --cpu-prof
// wrote (testdata/producers/regen.sh) and checks our totals and every
// function's flat and cum against a computation made here from the file's
// own nodes, samples and timeDeltas: a sample lasts until the next one
// (the last until endTime), its stack is the path from its node up to the
// root, which is no frame, and a function without a name is
// "(anonymous)", as DevTools shows them.
func TestCPUProfileSelfTimes(t *testing.T) {
	const file = "testdata/producers/v8/work.cpuprofile"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var prof struct {
		Nodes []struct {
			ID        int64
			Children  []int64
			CallFrame struct{ FunctionName string }
		}
		StartTime, EndTime  int64
		Samples, TimeDeltas []int64
	}
	if err := json.Unmarshal(data, &prof); err != nil {
		t.Fatal(err)
	}
	// hitCount is not used: V8's counts differ from its samples (here
	// (program) has 16 hits and 2 samples).
	name, parent := map[int64]string{}, map[int64]int64{}
	for _, n := range prof.Nodes {
		name[n.ID] = n.CallFrame.FunctionName
		if name[n.ID] == "" {
			name[n.ID] = "(anonymous)"
		}
		for _, c := range n.Children {
			parent[c] = n.ID
		}
	}
	at := make([]int64, len(prof.Samples))
	t0 := prof.StartTime
	for i, d := range prof.TimeDeltas {
		if d < 0 {
			t.Fatalf("timeDeltas[%d] = %d: this test expects samples in time order", i, d)
		}
		t0 += d
		at[i] = t0
	}
	flat, cum := map[string]int64{}, map[string]int64{}
	var total int64
	for i, id := range prof.Samples {
		end := prof.EndTime
		if i+1 < len(at) {
			end = at[i+1]
		}
		d := end - at[i]
		total += d
		seen := map[string]bool{}
		for n := id; ; n = parent[n] {
			if _, ok := parent[n]; !ok {
				break // the root
			}
			if n == id {
				flat[name[n]] += d
			}
			if !seen[name[n]] {
				seen[name[n]] = true
				cum[name[n]] += d
			}
		}
	}

	var doc topJSON
	if err := json.Unmarshal([]byte(runCLI(t, "-top", "-json", "-nodefraction=0", "-nodecount=1000000", file)), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SampleType != "cpu" || doc.Unit != "microseconds" || doc.Total != total {
		t.Errorf("%s %s total %d, want cpu microseconds %d", doc.SampleType, doc.Unit, doc.Total, total)
	}
	gotFlat, gotCum := map[string]int64{}, map[string]int64{}
	for _, r := range doc.Rows {
		if _, dup := gotCum[r.Name]; dup {
			t.Fatalf("function %q twice in -top", r.Name)
		}
		gotFlat[r.Name], gotCum[r.Name] = r.Flat, r.Cum
	}
	var names []string
	for n := range cum {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if gotFlat[n] != flat[n] || gotCum[n] != cum[n] {
			t.Errorf("%s: flat %d cum %d, want %d %d", n, gotFlat[n], gotCum[n], flat[n], cum[n])
		}
	}
	if len(gotCum) != len(cum) {
		t.Errorf("%d functions in -top, %d in the file", len(gotCum), len(cum))
	}
	if len(names) < 10 || flat["fib"] == 0 || flat["sortMany"] == 0 {
		t.Errorf("a thin profile: %v", flat)
	}

	var samples topJSON
	if err := json.Unmarshal([]byte(runCLI(t, "-top", "-json", "-sample_index=samples", file)), &samples); err != nil {
		t.Fatal(err)
	}
	if samples.Total != int64(len(prof.Samples)) {
		t.Errorf("samples total %d, want %d", samples.Total, len(prof.Samples))
	}

	// Lines and files: the script's URL is the file, the function's
	// first line its line.
	lines := runCLI(t, "-top", "-lines", "-nodecount=1000000", file)
	for _, want := range []string{" fib /build/work.js:6\n", " hashStrings /build/work.js:8\n", " multiply /build/work.js:22\n"} {
		if !strings.Contains(lines, want) {
			t.Errorf("-lines lacks %q:\n%s", want, lines)
		}
	}
}
