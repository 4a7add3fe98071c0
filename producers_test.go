package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// producerCase is a line of testdata/producers/cases.txt: a report on
// profiles of real producers, with the golden its oracle printed.
type producerCase struct {
	dir, name, oracle string
	args              []string
}

func producerCases(t *testing.T) []producerCase {
	t.Helper()
	data, err := os.ReadFile("testdata/producers/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []producerCase
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || strings.HasPrefix(f[0], "#") {
			continue
		}
		out = append(out, producerCase{f[0], f[1], f[2], f[3:]})
	}
	return out
}

// producerInputs copies dir's inputs into a temporary directory, *.gz
// (binaries) gunzipped but *.pb.gz (profiles) not, as
// testdata/producers/regen.sh does before running pprof.
func producerInputs(t *testing.T, dir string) string {
	t.Helper()
	run := t.TempDir()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		src := filepath.Join(dir, e.Name())
		in, err := os.Open(src)
		if err != nil {
			t.Fatal(err)
		}
		var r io.Reader = in
		name := e.Name()
		if n, ok := strings.CutSuffix(name, ".gz"); ok && !strings.HasSuffix(n, ".pb") {
			zr, err := gzip.NewReader(in)
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			r, name = zr, n
		}
		out, err := os.OpenFile(filepath.Join(run, name), os.O_CREATE|os.O_WRONLY, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, r); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		in.Close()
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return run
}

// TestProducersMatchPprof runs every report of testdata/producers/cases.txt
// on the profiles of real producers (Go's ?debug=1 text, gperftools heap
// dumps) symbolized from their binaries, and compares the output byte for
// byte with the golden pprof printed (testdata/producers/regen.sh).
func TestProducersMatchPprof(t *testing.T) {
	inputs := map[string]string{}
	src, err := filepath.Abs("testdata/producers/src")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range producerCases(t) {
		for i, a := range c.args {
			c.args[i] = strings.ReplaceAll(a, "$SRC", src) // the sources, for -list
		}
		dir := filepath.Join("testdata/producers", c.dir)
		want, err := os.ReadFile(filepath.Join(dir, "golden", c.name+".txt"))
		if err != nil {
			t.Errorf("%s/%s: %v (run testdata/producers/regen.sh goldens)", c.dir, c.name, err)
			continue
		}
		want = bytes.ReplaceAll(want, []byte("$SRC"), []byte(src)) // the checkout's path
		if inputs[c.dir] == "" {
			inputs[c.dir] = producerInputs(t, dir)
		}
		t.Run(c.dir+"/"+c.name, func(t *testing.T) {
			t.Chdir(inputs[c.dir])
			t.Setenv("PPROF_BINARY_PATH", ".")
			got, stderr := runCLIErr(t, c.args...)
			if slices.Contains(c.args, "-files") {
				// pprof orders rows of equal value by file name in no
				// fixed order from run to run: compare the rows as sets.
				got, want = sortedLines(got), []byte(sortedLines(string(want)))
			}
			if got != string(want) {
				t.Errorf("pprof-tui %s\ndiffers from %s's\n--- got\n%s\n--- %s\n%s\n--- stderr\n%s",
					strings.Join(c.args, " "), c.oracle, got, c.oracle, want, stderr)
			}
		})
	}
}

func sortedLines(s string) string {
	lines := strings.Split(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
