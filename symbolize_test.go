package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/internal/gotool"
)

// goldenRow is a row of pprof's -top text: its name and values.
type goldenRow struct {
	name      string
	flat, cum int64
}

// readTopRows parses the rows of a go tool pprof -top golden whose values
// are durations (123ms, 1.5s).
func readTopRows(t *testing.T, path string) []goldenRow {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []goldenRow
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "      flat  flat%") {
			in = true
			continue
		}
		f := strings.Fields(line)
		if !in || len(f) < 6 {
			continue
		}
		rows = append(rows, goldenRow{strings.Join(f[5:], " "), duration(t, f[0]), duration(t, f[3])})
	}
	return rows
}

func duration(t *testing.T, s string) int64 {
	t.Helper()
	if s == "0" {
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("bad value %q", s)
	}
	return int64(d)
}

func jsonRows(t *testing.T, out string) []goldenRow {
	t.Helper()
	var doc topJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var rows []goldenRow
	for _, r := range doc.Rows {
		rows = append(rows, goldenRow{r.Name, r.Flat, r.Cum})
	}
	return rows
}

func bracketed(name string) bool { return strings.HasPrefix(name, "[") && strings.HasSuffix(name, "]") }

// TestSymbolizedTopMatchesPprof symbolizes the gperftools profiles with
// their binaries and compares -top -json -noinlines, at function and line
// granularity, with go tool pprof's -top on the same binary and profile
// (testdata/legacy/regen-symbolized.sh).
//
// go tool pprof's symbolizer reads only DWARF line tables and the Go
// pclntab, never the ELF symbol table or separate debug files, so it
// leaves an address without line information as its mapping ([cpubench]
// for _start) and a stripped library as [libc.so.6]. We name those from
// the symbol table or the library's debug file, as pprof does with
// binutils, so exactly those rows differ: each of pprof's [mapping] rows
// must be matched by rows of ours with the same values and real names.
func TestSymbolizedTopMatchesPprof(t *testing.T) {
	for _, c := range []struct {
		bin, prof string
		lines     bool
	}{
		{"cpubench", "cpu.prof", false},
		{"cpubench", "cpu.prof", true},
		{"cpubench32", "cpu32.prof", false},
		{"cpubench32", "cpu32.prof", true},
	} {
		name := c.prof
		if c.lines {
			name += ".lines"
		}
		t.Run(name, func(t *testing.T) {
			golden := "testdata/legacy/golden/" + c.prof + ".symbolized.noinlines.top.txt"
			args := []string{"-top", "-json", "-nodefraction=0", "-nodecount=1000000", "-noinlines"}
			if c.lines {
				golden = "testdata/legacy/golden/" + c.prof + ".symbolized.noinlines.lines.top.txt"
				args = append(args, "-lines")
			}
			want := readTopRows(t, golden)
			got := jsonRows(t, runCLI(t, append(args, "testdata/legacy/"+c.bin, "testdata/legacy/"+c.prof)...))
			compareSymbolizedRows(t, got, want)
			if c.bin == "cpubench" && !c.lines {
				found := false
				for _, r := range got {
					found = found || r.name == "_start"
				}
				if !found {
					t.Errorf("no _start row: the symbol table should name the address DWARF does not know")
				}
			}
		})
	}
}

func compareSymbolizedRows(t *testing.T, got, want []goldenRow) {
	t.Helper()
	ours := map[string]goldenRow{}
	for _, r := range got {
		ours[r.name] = r
	}
	theirs := map[string]bool{}
	var unsymbolized []goldenRow // pprof's [mapping] rows we have names for
	for _, w := range want {
		theirs[w.name] = true
		g, ok := ours[w.name]
		switch {
		case ok && g != w:
			t.Errorf("row %q: flat %d cum %d, pprof %d %d", w.name, g.flat, g.cum, w.flat, w.cum)
		case !ok && bracketed(w.name):
			unsymbolized = append(unsymbolized, w)
		case !ok:
			t.Errorf("pprof's row %q (flat %d, cum %d) is missing", w.name, w.flat, w.cum)
		}
	}
	covered := map[goldenRow]bool{}
	for _, g := range got {
		if theirs[g.name] {
			continue
		}
		if bracketed(g.name) {
			t.Errorf("our row %q is unsymbolized but pprof has no such row", g.name)
			continue
		}
		match := false
		for _, u := range unsymbolized {
			if u.flat == g.flat && u.cum == g.cum {
				match, covered[u] = true, true
			}
		}
		if !match {
			t.Errorf("our row %q (flat %d, cum %d) matches none of pprof's unsymbolized rows %v", g.name, g.flat, g.cum, unsymbolized)
		}
	}
	for _, u := range unsymbolized {
		if !covered[u] {
			t.Errorf("pprof's %q (flat %d, cum %d) has no counterpart", u.name, u.flat, u.cum)
		}
	}
}

// runCLIErr runs the command line and returns stdout and stderr.
func runCLIErr(t *testing.T, args ...string) (string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("pprof-tui %s: %v", strings.Join(args, " "), err)
	}
	return stdout.String(), stderr.String()
}

// TestSymbolizeMessages checks the one-line messages: binaries that are
// not found are listed once; a stripped binary says it has no symbols.
func TestSymbolizeMessages(t *testing.T) {
	t.Setenv("PPROF_BINARY_PATH", t.TempDir())
	_, stderr := runCLIErr(t, "-top", "testdata/legacy/cpu.prof", "testdata/legacy/cpu.be64.prof")
	if n := strings.Count(stderr, "no binary for"); n != 1 || !strings.Contains(stderr, "cpubench") {
		t.Errorf("want one line naming the missing cpubench, got:\n%s", stderr)
	}
	_, stderr = runCLIErr(t, "-top", "-symbolize=none", "testdata/legacy/cpu.prof")
	if stderr != "" {
		t.Errorf("-symbolize=none printed %q", stderr)
	}

	strip, err := exec.LookPath("strip")
	if err != nil {
		t.Skip("no strip command: skipping the stripped-binary case")
	}
	stripped := filepath.Join(t.TempDir(), "cpubench")
	if out, err := exec.Command(strip, "-o", stripped, "testdata/legacy/cpubench").CombinedOutput(); err != nil {
		t.Fatalf("strip: %v\n%s", err, out)
	}
	out, stderr := runCLIErr(t, "-top", stripped, "testdata/legacy/cpu.prof")
	if !strings.Contains(stderr, "has no symbols (stripped binary") {
		t.Errorf("no 'no symbols' message for a stripped binary:\n%s", stderr)
	}
	if !strings.Contains(out, "[cpubench]") {
		t.Errorf("the stripped binary's addresses should stay [cpubench]:\n%s", out)
	}
}

// TestSymbolizeBuildIDMismatch refuses a binary whose build ID differs
// from the mapping's, naming both.
func TestSymbolizeBuildIDMismatch(t *testing.T) {
	p, err := format.Open(context.Background(), "testdata/legacy/cpu.prof", format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p.Mappings[0].BuildID = "0123456789abcdef"
	path := filepath.Join(t.TempDir(), "cpu.pb.gz")
	writeProfile(t, path, p)
	out, stderr := runCLIErr(t, "-top", "testdata/legacy/cpubench", path)
	if !strings.Contains(stderr, "build ID mismatch") || !strings.Contains(stderr, "0123456789abcdef") || !strings.Contains(stderr, "2d79bc8abd345c4d83024ae81878215d8f7ebdea") {
		t.Errorf("want a mismatch warning naming both ids, got:\n%s", stderr)
	}
	if strings.Contains(out, "partition") {
		t.Errorf("symbolized with a mismatched binary:\n%s", out)
	}
	// With the right id it symbolizes.
	p.Mappings[0].BuildID = "2d79bc8abd345c4d83024ae81878215d8f7ebdea"
	writeProfile(t, path, p)
	if out, _ := runCLIErr(t, "-top", "testdata/legacy/cpubench", path); !strings.Contains(out, "partition") {
		t.Errorf("not symbolized with the matching binary:\n%s", out)
	}
	// $PPROF_BINARY_PATH/$buildid/$name finds it without the argument.
	dir := t.TempDir()
	idDir := filepath.Join(dir, "2d79bc8abd345c4d83024ae81878215d8f7ebdea")
	if err := os.Mkdir(idDir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, "testdata/legacy/cpubench", filepath.Join(idDir, "cpubench"))
	t.Setenv("PPROF_BINARY_PATH", dir)
	if out, _ := runCLIErr(t, "-top", path); !strings.Contains(out, "partition") {
		t.Errorf("PPROF_BINARY_PATH/$buildid/$name not used:\n%s", out)
	}
}

func writeProfile(t *testing.T, path string, p *format.Profile) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := format.Write(f, p); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// goProgram is a CPU-bound Go program with inlined calls two deep
// (mix into step into work) that writes its own CPU profile.
const goProgram = `package main

import (
	"os"
	"runtime/pprof"
	"time"
)

var sink uint64

func mix(x uint64) uint64 {
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	return x
}

func step(x uint64) uint64 { return mix(x) + mix(x+1) }

//go:noinline
func work(n int) uint64 {
	x := uint64(1)
	for i := 0; i < n; i++ {
		x = step(x)
	}
	return x
}

//go:noinline
func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	pprof.StartCPUProfile(f)
	for end := time.Now().Add(1500 * time.Millisecond); time.Now().Before(end); {
		sink += work(200000)
		sink += uint64(fib(22))
	}
	pprof.StopCPUProfile()
	f.Close()
}
`

// TestSymbolizeGoBinaryWithoutDWARF builds a Go program with -ldflags=-w
// (no DWARF: the pclntab is all there is), profiles it, strips the
// profile of its functions, and symbolizes it again from the binary:
// with -noinlines the reports equal go tool pprof's on the same stripped
// profile and binary, at function and line granularity; with inline
// frames, our function-level report equals the runtime's own (go tool
// pprof on the original profile).
func TestSymbolizeGoBinaryWithoutDWARF(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "prog.go")
	if err := os.WriteFile(src, []byte(goProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "prog")
	build := exec.Command("go", "build", "-ldflags=-w", "-o", bin, src)
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	orig := filepath.Join(dir, "orig.pb.gz")
	if out, err := exec.Command(bin, orig).CombinedOutput(); err != nil {
		t.Fatalf("running the program: %v\n%s", err, out)
	}
	p, err := format.Open(context.Background(), orig, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Locations {
		p.Locations[i].Lines = format.LineSpan{}
	}
	p.Functions = nil
	for i := range p.Mappings {
		m := &p.Mappings[i]
		m.HasFunctions, m.HasFilenames, m.HasLineNumbers, m.HasInlineFrames = false, false, false, false
	}
	stripped := filepath.Join(dir, "stripped.pb.gz")
	writeProfile(t, stripped, p)

	pprofTop := func(args ...string) string {
		cmd := gotool.Pprof(append([]string{"-top", "-nodefraction=0", "-nodecount=1000000"}, args...)...)
		cmd.Env = append(os.Environ(), "TZ=UTC")
		var stdout bytes.Buffer
		cmd.Stdout = &stdout
		if err := cmd.Run(); err != nil {
			t.Fatalf("go tool pprof %v: %v", args, err)
		}
		return stdout.String()
	}
	for _, flags := range [][]string{{"-noinlines"}, {"-noinlines", "-lines"}} {
		want := pprofTop(append(flags, bin, stripped)...)
		got := runCLI(t, append(append([]string{"-top", "-nodefraction=0", "-nodecount=1000000"}, flags...), bin, stripped)...)
		if got != want {
			t.Errorf("%v: differs from go tool pprof\n--- ours\n%s\n--- pprof\n%s", flags, got, want)
		}
	}
	// Inline frames from the pclntab's inline tree, against the runtime's.
	want := pprofTop("-symbolize=none", orig)
	got := runCLI(t, "-top", "-nodefraction=0", "-nodecount=1000000", bin, stripped)
	if !strings.Contains(got, "main.mix (inline)") {
		t.Errorf("no inline frame for main.mix:\n%s", got)
	}
	if dropHeader(got) != dropHeader(want) {
		t.Errorf("inline frames differ from the runtime's\n--- ours\n%s\n--- runtime (go tool pprof -symbolize=none on the original)\n%s", got, want)
	}
	// -symbolize=force replaces the runtime's frames with ours: the same.
	got = runCLI(t, "-top", "-nodefraction=0", "-nodecount=1000000", "-symbolize=force", bin, orig)
	if dropHeader(got) != dropHeader(want) {
		t.Errorf("-symbolize=force differs from the runtime's frames\n--- ours\n%s\n--- runtime\n%s", got, want)
	}
}

// dropHeader removes the lines before the table (File:, Build ID:).
func dropHeader(s string) string {
	if i := strings.Index(s, "Type:"); i >= 0 {
		return s[i:]
	}
	return s
}

// TestDemangleModesMatchPprof compares -top on a profile with demangled
// C++ names (parameters, templates, clone suffixes) with go tool pprof's
// under each demangling mode and pprof's default simplification
// (testdata/demangle/regen.sh).
func TestDemangleModesMatchPprof(t *testing.T) {
	for _, mode := range []string{"default", "demangle=none", "demangle=full", "demangle=templates"} {
		t.Run(mode, func(t *testing.T) {
			want, err := os.ReadFile("testdata/demangle/bigprof." + mode + ".top.txt")
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"-top", "-nodefraction=0", "-nodecount=1000000", "-unit=ns"}
			if mode != "default" {
				args = append(args, "-symbolize="+mode)
			}
			got := runCLI(t, append(args, "testdata/synthetic/bigprof_10k.pb.gz")...)
			if got != string(want) {
				t.Errorf("differs from go tool pprof\n--- ours\n%s\n--- pprof\n%s", got, want)
			}
		})
	}
}
