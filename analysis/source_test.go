package analysis

import (
	"path/filepath"
	"regexp"
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
