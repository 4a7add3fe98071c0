package analysis

import (
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"testing"
)

// TestSourceLines: a function's lines add up to its flat, and its cum is
// pprof's (the -list header reads "520ms 610ms (flat, cum)" for
// main.partition in this profile).
func TestSourceLines(t *testing.T) {
	e := engineFor(t, filepath.Join("../testdata", "go/cpu_labels.pb.gz"))
	total, fns, err := e.Source(DefaultOptions(), regexp.MustCompile(`main\.partition$`))
	if err != nil {
		t.Fatal(err)
	}
	if total != 2840000000 || len(fns) != 1 {
		t.Fatalf("total %d, %d functions", total, len(fns))
	}
	f := fns[0]
	if f.Flat != 520000000 || f.Cum != 610000000 || f.FuncCum != 610000000 || f.File != "/tmp/profgen/goprof/main.go" {
		t.Fatalf("%+v", f)
	}
	var sum int64
	for i, l := range f.Lines {
		sum += l.Flat
		if i > 0 && l.Line <= f.Lines[i-1].Line {
			t.Fatalf("lines out of order: %+v", f.Lines)
		}
	}
	if sum != f.Flat {
		t.Fatalf("lines add up to %d, flat is %d", sum, f.Flat)
	}
}

// TestSourceFuncCumByName: where every function name has one file, a
// function's cum comes from the functions table; it equals the
// filefunctions table's, which the engine uses otherwise.
func TestSourceFuncCumByName(t *testing.T) {
	all := regexp.MustCompile(".")
	used := 0
	for _, profile := range []string{"go/cpu_labels.pb.gz", "go/heap.pb.gz", "synthetic/bigprof_10k.pb.gz", "pprof/large.cpu"} {
		p := engineFor(t, filepath.Join("../testdata", profile)).p
		fast := NewEngine(p)
		if !fast.oneFilePerName() {
			continue
		}
		used++
		slow := NewEngine(p)
		slow.oneFile = 2 // as if two files shared a name
		for _, set := range []map[string]string{nil, {"hide": "runtime"}, {"focus": "main", "sample_index": "0"}} {
			opt := testOptions(t, set)
			_, _, a, err := fast.source(opt, all)
			if err != nil {
				t.Fatal(err)
			}
			_, _, b, err := slow.source(opt, all)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s %v: the listings by name differ from those by file", profile, set)
			}
		}
	}
	if used == 0 {
		t.Fatal("no test profile has one file per function name")
	}
}

// A listing reads the Top table kept for its options when the Top view
// made one (the lines granularity), else sums the lines itself: the two
// must agree, over the option sets of the inline-marker tests.
func TestSourceFromKeptTop(t *testing.T) {
	t.Parallel()
	// The sets of the inline markers' tests, and relative percentages
	// and dropped negative values, which the summed listing handles apart.
	sets := append(slices.Clone(markerOptionSets), map[string]string{"relative_percentages": "true", "focus": "main|Handle"},
		map[string]string{"drop_negative": "true"})
	for name, newEngine := range freshEngines(t, "cpu_labels", "diff", "distinct") {
		for _, set := range raceSets(sets) {
			opt := testOptions(t, set)
			re := regexp.MustCompile(`main\.|encoding|Handle|runtime\.mallocgc`)
			fresh := newEngine()
			total, want, err := fresh.Source(opt, re)
			if err != nil {
				continue // e.g. a tag the profile lacks
			}
			kept := newEngine()
			lines := opt
			lines.Granularity = "lines"
			if _, err := kept.Top(lines); err != nil {
				t.Fatal(err)
			}
			if !kept.TopKept(lines) {
				t.Fatalf("%s %v: no Top kept", name, set)
			}
			total2, got, err := kept.Source(opt, re)
			if err != nil {
				t.Fatal(err)
			}
			if total != total2 || !reflect.DeepEqual(want, got) {
				t.Errorf("%s %v: from the kept table %d %+v, summed %d %+v", name, set, total2, got, total, want)
			}
			// With the functions table kept but partial (the Top view's
			// first screen), the functions' cum is summed too.
			partial := newEngine()
			if _, err := partial.TopFirst(opt, 3); err != nil {
				t.Fatal(err)
			}
			total3, got3, err := partial.Source(opt, re)
			if err != nil {
				t.Fatal(err)
			}
			if total != total3 || !reflect.DeepEqual(want, got3) {
				t.Errorf("%s %v: beside a partial table %d %+v, summed %d %+v", name, set, total3, got3, total, want)
			}
			if len(want) == 0 && name == "cpu_labels" {
				t.Errorf("%s %v: nothing listed", name, set)
			}
		}
	}
}
