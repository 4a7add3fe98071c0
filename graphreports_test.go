package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGraphReportsCommandLine runs the graph reports through the command
// line, where the defaults pprof gives each report are applied (nodecount
// 80 for -tree and -dot unless given), and holds them against the goldens
// go tool pprof made (analysis/report/testdata, regen.sh).
func TestGraphReportsCommandLine(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"tree-large", []string{"-tree", "testdata/pprof/large.cpu"}},
		{"tree-large-nodecount", []string{"-tree", "-nodecount=10", "testdata/pprof/large.cpu"}},
		{"dot-cpu", []string{"-dot", "testdata/go/cpu_labels.pb.gz"}},
		{"dot-large", []string{"-dot", "testdata/pprof/large.cpu"}},
		{"callgrind-cpu", []string{"-callgrind", "testdata/go/cpu_labels.pb.gz"}},
		{"raw-focus", []string{"-raw", "-focus=main.quicksort", "testdata/go/cpu_labels.pb.gz"}},
		{"comments-notes", []string{"-comments", "testdata/notes/benchmark.cpu.pb.gz"}},
		{"cpu", []string{"-text", "testdata/go/cpu_labels.pb.gz"}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("analysis/report/testdata", c.golden+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			if got := runCLI(t, c.args...); got != string(want) {
				t.Errorf("pprof-tui %s differs from go tool pprof's output", strings.Join(c.args, " "))
			}
			// -output writes the same to a file.
			out := filepath.Join(t.TempDir(), "out")
			if got := runCLI(t, append([]string{"-output=" + out}, c.args...)...); got != "" {
				t.Errorf("-output: %q on stdout", got)
			}
			if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, want) {
				t.Errorf("-output=FILE differs from go tool pprof's output (%v)", err)
			}
		})
	}
}

// TestImageReportsNeedDot: -svg, -png and -pdf run Graphviz's dot; where
// it is not installed the error is one line naming it.
func TestImageReportsNeedDot(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, r := range []string{"-svg", "-png", "-pdf"} {
		var stdout, stderr bytes.Buffer
		out := filepath.Join(t.TempDir(), "g")
		err := run(context.Background(), []string{r, "-output=" + out, "testdata/go/heap.pb.gz"}, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), "Graphviz's dot") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s without dot: %v, want one line naming Graphviz's dot", r, err)
		}
	}
}

// TestImageReportsRunDot: where Graphviz is installed, -png and -svg are
// dot's drawing of -dot's graph, which equals go tool pprof's
// (pprof's -png is the same bytes; its -svg adds a pan-and-zoom script).
func TestImageReportsRunDot(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz's dot is not installed")
	}
	golden := filepath.Join("analysis/report/testdata", "dot-large-nodecount.txt")
	for _, format := range []string{"png", "svg"} {
		want, err := exec.Command(dot, "-T"+format, golden).Output()
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "g."+format)
		runCLI(t, "-"+format, "-nodecount=10", "-output="+out, "testdata/pprof/large.cpu")
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("-%s differs from dot -T%s of pprof's -dot", format, format)
		}
	}
}
