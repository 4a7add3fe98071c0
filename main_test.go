package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// cases reads analysis/testdata/top/cases.txt: name, profile, pprof flags.
func cases(t *testing.T) [][]string {
	t.Helper()
	data, err := os.ReadFile("analysis/testdata/top/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && !strings.HasPrefix(f[0], "#") {
			out = append(out, f)
		}
	}
	return out
}

func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("pprof-tui %s: %v", strings.Join(args, " "), err)
	}
	return stdout.String()
}

// TestTopTextMatchesPprof runs the command line on every parity case and
// compares the whole -top output, byte for byte, with go tool pprof's.
func TestTopTextMatchesPprof(t *testing.T) {
	for _, c := range cases(t) {
		t.Run(c[0], func(t *testing.T) {
			if strings.Contains(strings.Join(c[2:], " "), "-files") {
				t.Skip("pprof orders equal file names differently from run to run")
			}
			want, err := os.ReadFile(filepath.Join("analysis/testdata/top", c[0]+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			args := append([]string{"-top", "-symbolize=none", "-nodefraction=0", "-nodecount=1000000"}, testdataFlags(c[2:])...)
			args = append(args, filepath.Join("testdata", c[1]))
			if got := runCLI(t, args...); got != string(want) {
				t.Errorf("output differs from pprof's\n--- got\n%s\n--- pprof\n%s", got, want)
			}
		})
	}
}

// TestTopJSON checks that -json carries the same rows pprof prints.
func TestTopJSON(t *testing.T) {
	for _, c := range cases(t) {
		flags := strings.Join(c[2:], " ")
		if !strings.Contains(flags, "-unit=") || strings.Contains(flags, "-files") {
			continue // values are parsed from pprof's -unit output below
		}
		t.Run(c[0], func(t *testing.T) {
			args := append([]string{"-top", "-json", "-symbolize=none", "-nodefraction=0", "-nodecount=1000000"}, testdataFlags(c[2:])...)
			out := runCLI(t, append(args, filepath.Join("testdata", c[1]))...)
			var doc topJSON
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(filepath.Join("analysis/testdata/top", c[0]+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var want []topJSONRow
			sc := bufio.NewScanner(f)
			rows := false
			for sc.Scan() {
				line := sc.Text()
				if strings.HasPrefix(line, "      flat  flat%") {
					rows = true
					continue
				}
				if !rows {
					continue
				}
				fields := strings.Fields(line)
				name := strings.Join(fields[5:], " ")
				inline := ""
				for _, m := range []string{"inline", "partial-inline"} {
					if strings.HasSuffix(name, " ("+m+")") {
						name, inline = strings.TrimSuffix(name, " ("+m+")"), m
					}
				}
				want = append(want, topJSONRow{name, number(t, fields[0]), number(t, fields[3]), inline})
			}
			if len(doc.Rows) != len(want) {
				t.Fatalf("%d rows, pprof has %d", len(doc.Rows), len(want))
			}
			for i := range want {
				// Names with runs of spaces were joined by Fields above.
				got := doc.Rows[i]
				got.Name = strings.Join(strings.Fields(got.Name), " ")
				if got != want[i] {
					t.Fatalf("row %d: %+v, pprof %+v", i, got, want[i])
				}
			}
		})
	}
}

// testdataFlags makes the -base/-diff_base paths of a case, relative to
// testdata/, relative to the repository.
func testdataFlags(flags []string) []string {
	out := make([]string, len(flags))
	for i, f := range flags {
		if name, value, ok := strings.Cut(f, "="); ok && (name == "-base" || name == "-diff_base") {
			f = name + "=" + filepath.Join("testdata", value)
		}
		out[i] = f
	}
	return out
}

func number(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(strings.TrimRight(s, "nsB"), 10, 64)
	if err != nil {
		t.Fatalf("bad number %q", s)
	}
	return v
}

// TestErrors checks the one-line errors and exit codes of bad input.
func TestErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-top", "-focus=(", "testdata/go/heap.pb.gz"}, 2, "focus: invalid regexp"},
		{[]string{"-top", "-sample_index=nope", "testdata/go/heap.pb.gz"}, 2, `sample_index: sample type "nope" not found`},
		{[]string{"-top", "-tagfocus=bytes=x(", "testdata/go/heap.pb.gz"}, 2, "tagfocus: invalid regexp"},
		{[]string{"-top", "-granularity=bogus", "testdata/go/heap.pb.gz"}, 2, "granularity"},
		{[]string{"-top", "-nosuchflag", "testdata/go/heap.pb.gz"}, 2, "unknown flag -nosuchflag"},
		{[]string{"-top", "-fcous=x", "testdata/go/heap.pb.gz"}, 2, "unknown flag -fcous; did you mean -focus?"},
		{[]string{"-top", "-nodefraction=2", "testdata/go/heap.pb.gz"}, 2, `nodefraction: "2" is not a fraction`},
		{[]string{"-top", "-divide_by=0", "testdata/go/heap.pb.gz"}, 2, "divide_by"},
		{[]string{"-top", "-mean=maybe", "testdata/go/heap.pb.gz"}, 2, `mean: "maybe" is not a boolean`},
		{[]string{"-top", "testdata/does-not-exist.pb.gz"}, 1, "no such file"},
		{[]string{"-top", "main_test.go"}, 1, "unrecognized profile format"},
		{[]string{"-top", "-traces", "testdata/go/heap.pb.gz"}, 2, "choose one report: -top, -text, -tree, -dot, -svg, -png, -pdf, -callgrind, -traces, -tags, -peek, -list, -disasm, -folded, -raw, -comments, -topproto or -proto"},
		{[]string{"-peek=main", "-list=main", "testdata/go/heap.pb.gz"}, 2, "choose one report"},
		{[]string{"-traces", "-json", "testdata/go/heap.pb.gz"}, 2, "-json goes with -top"},
		{[]string{"-proto", "testdata/go/heap.pb.gz"}, 2, "-proto needs -output=FILE"},
		{[]string{"-png", "testdata/go/heap.pb.gz"}, 2, "-png needs -output=FILE"},
		{[]string{"-topproto", "testdata/go/heap.pb.gz"}, 2, "-topproto needs -output=FILE"},
		{[]string{"-peek=(", "testdata/go/heap.pb.gz"}, 2, "peek: invalid regexp"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), c.args, &stdout, &stderr)
		if err == nil {
			t.Errorf("%v: no error", c.args)
			continue
		}
		code := 1
		if ee, ok := err.(*exitError); ok {
			code = ee.code
		}
		if code != c.code || !strings.Contains(err.Error(), c.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: exit %d %q, want exit %d and a line containing %q", c.args, code, err, c.code, c.msg)
		}
	}
}

// TestExplorerErrors: without a report flag the explorer starts, but a
// bad source or option is one line and an exit status, as for reports,
// before anything is drawn.
func TestExplorerErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"testdata/does-not-exist.pb.gz"}, 1, "no such file"},
		{[]string{"testdata/go"}, 1, "is a directory"},
		{[]string{"-focus=(", "testdata/go/heap.pb.gz"}, 2, "focus: invalid regexp"},
		{[]string{"-taghide=(", "testdata/go/heap.pb.gz"}, 2, "taghide: invalid regexp"},
		{[]string{"-diff_base=testdata/nope.pb.gz", "testdata/go/heap.pb.gz"}, 1, "no such file"},
		// The rest (bad format, sample type, tag filter) fails while
		// loading, on the loading line: tui's tests cover it; here stdout
		// is no terminal.
		{[]string{"testdata/go/heap.pb.gz"}, 2, "the explorer needs a terminal"},
	} {
		var stdout, stderr bytes.Buffer
		done := make(chan error, 1)
		go func() { done <- run(context.Background(), c.args, &stdout, &stderr) }()
		var err error
		select {
		case err = <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%v: the explorer did not stop", c.args)
		}
		if err == nil {
			t.Errorf("%v: no error", c.args)
			continue
		}
		code := 1
		if ee, ok := err.(*exitError); ok {
			code = ee.code
		}
		if code != c.code || !strings.Contains(err.Error(), c.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: exit %d %q, want exit %d and a line containing %q", c.args, code, err, c.code, c.msg)
		}
		if strings.Contains(stdout.String(), "\x1b[?1049h") {
			t.Errorf("%v: the explorer took over the screen before failing", c.args)
		}
	}
}

// TestListFlags: -list, -source_path and -trim_path reach the report;
// analysis/report holds the report itself against pprof's goldens (run
// from there, hence the paths).
func TestListFlags(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"list-missing", []string{`-list=main\.fib$`}},
		{"list-fib", []string{`-list=main\.fib$`, "-source_path=testdata/src", "-trim_path=/tmp/profgen"}},
	} {
		want, err := os.ReadFile(filepath.Join("analysis/report/testdata", c.golden+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		if got := runCLI(t, append(c.args, "testdata/go/cpu_labels.pb.gz")...); got != string(want) {
			t.Errorf("%v: differs from pprof's\n--- got\n%s\n--- pprof\n%s", c.args, got, want)
		}
	}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"-list=nomatch", "testdata/go/cpu_labels.pb.gz"}, &stdout, &stderr)
	if err == nil || err.Error() != "no matches found for regexp: nomatch" {
		t.Errorf("no match: %v", err)
	}
}

// An error naming a hostile file reaches the terminal as symbols.
func TestPrintErrorSafe(t *testing.T) {
	name := filepath.Join(t.TempDir(), "n\x1b]0;PWNED\a.pb.gz")
	err := run(context.Background(), []string{"-top", name}, io.Discard, io.Discard)
	if err == nil {
		t.Fatal("no error for a missing file")
	}
	var b strings.Builder
	printError(&b, err)
	if strings.ContainsAny(b.String(), "\x1b\a") || !strings.Contains(b.String(), "n␛]0;PWNED␇.pb.gz") {
		t.Errorf("printed %q", b.String())
	}
}

// useSettings makes data pprof's settings.json for the test: pprof keeps
// it in os.UserConfigDir()/pprof, which follows XDG_CONFIG_HOME on Linux
// (and HOME elsewhere).
func useSettings(t *testing.T, data []byte) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HOME", dir)
	path, err := analysis.ConfigFilePath()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfigFlag: -config applies a configuration go tool pprof -http
// saved (analysis/testdata/configs/pprof-settings.json), and the report
// equals pprof's with the same settings as flags (the cpu-config-hot
// case); flags given on the line win over the configuration's, wherever
// they stand.
func TestConfigFlag(t *testing.T) {
	data, err := os.ReadFile("analysis/testdata/configs/pprof-settings.json")
	if err != nil {
		t.Fatal(err)
	}
	useSettings(t, data)
	want, err := os.ReadFile("analysis/testdata/top/cpu-config-hot.txt")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("testdata", "go", "cpu_labels.pb.gz")
	for _, args := range [][]string{
		{"-top", "-symbolize=none", "-nodefraction=0", "-nodecount=1000000", "-unit=ns", "-config=hot", src},
		{"-nodefraction=0", "-config=hot", "-top", "-symbolize=none", src, "-nodecount=1000000", "-unit=ns"},
	} {
		if got := runCLI(t, args...); got != string(want) {
			t.Errorf("%v: output differs from pprof's\n--- got\n%s\n--- pprof\n%s", args, got, want)
		}
	}
	got := runCLI(t, "-top", "-symbolize=none", "-nodefraction=0", "-config=hot", "-focus=main.fib", src)
	if !strings.Contains(got, "focus=main.fib\n") || !strings.Contains(got, "hide=runtime") {
		t.Errorf("-focus did not win over the configuration's, or its hide was lost:\n%s", got)
	}
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), []string{"-top", "-config=nope", src}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), `no saved configuration "nope" (saved: hot, by-cum)`) {
		t.Errorf("unknown configuration: %v", err)
	}
}
