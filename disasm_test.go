package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pprof-tui/pprof-tui/format/symbolize"
	"github.com/pprof-tui/pprof-tui/internal/gotool"
)

// goBinary builds goProgram (see symbolize_test.go) with DWARF and runs
// it once for its CPU profile; the tests share both.
var goBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "pprof-tui-disasm")
	if err != nil {
		return "", err
	}
	src := filepath.Join(dir, "prog.go")
	if err := os.WriteFile(src, []byte(goProgram), 0o644); err != nil {
		return "", err
	}
	build := exec.Command("go", "build", "-o", "prog", "prog.go")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		return "", &exec.Error{Name: "go build: " + string(out), Err: err}
	}
	if out, err := exec.Command(filepath.Join(dir, "prog"), filepath.Join(dir, "cpu.pb.gz")).CombinedOutput(); err != nil {
		return "", &exec.Error{Name: "prog: " + string(out), Err: err}
	}
	return dir, nil
})

func goProgramDir(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	dir, err := goBinary()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDisasmGoBinaryMatchesPprof: -disasm of a Go program the test builds
// and profiles equals go tool pprof -disasm on the same binary and
// profile, byte for byte, for several regexps and settings. (The
// gperftools C binaries have goldens: analysis/report/testdata/disasm-*.)
func TestDisasmGoBinaryMatchesPprof(t *testing.T) {
	dir := goProgramDir(t)
	bin, prof := filepath.Join(dir, "prog"), filepath.Join(dir, "cpu.pb.gz")
	for _, flags := range [][]string{
		{"-disasm=main.fib"},
		{"-disasm=main\\.(work|fib)"},
		{"-disasm=main", "-noinlines"},
		{"-disasm=work", "-lines", "-unit=ms"},
		{"-disasm=main", "-focus=fib"},
		{"-disasm=main", "-mean", "-relative_percentages"},
		{"-disasm=runtime\\.(nanotime|memmove)"},
	} {
		args := append(append([]string{}, flags...), bin, prof)
		cmd := gotool.Pprof(args...)
		var want bytes.Buffer
		cmd.Stdout = &want
		pprofErr := cmd.Run()
		var got, stderr bytes.Buffer
		err := run(t.Context(), args, &got, &stderr)
		if (err != nil) != (pprofErr != nil) {
			t.Errorf("%v: our error %v, pprof's %v", flags, err, pprofErr)
			continue
		}
		if got.String() != want.String() {
			t.Errorf("%v: differs from go tool pprof\n%s", flags, diffLines(want.String(), got.String()))
		}
		if pprofErr == nil && !strings.Contains(got.String(), "ROUTINE ======================== ") {
			t.Errorf("%v: no routine in\n%s", flags, got.String())
		}
	}
}

// diffLines shows the first lines where a and b differ.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 10; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n  pprof: " + wl + "\n  ours:  " + gl + "\n")
			shown++
		}
	}
	return b.String()
}

// TestDisasmGNUSyntaxMatchesObjdump decodes every instruction of the
// profiled functions of the gperftools binary and of the Go program in
// GNU syntax and compares each with objdump -d --no-show-raw-insn at the
// same address, whitespace normalised. Where objdump picks another of
// several symbols at one address for a "<sym+off>" annotation, only the
// address must agree; x/arch does not decode AVX-512 ("?"), and does not
// keep a zero displacement's encoding (objdump's "0x0(%rax)"), and
// ignores VEX.B on a memory operand's base (vmovdqu %ymm4,(%rdx) where
// objdump has (%r10); go tool pprof shows the same): those are counted,
// not failed. Skipped without objdump.
func TestDisasmGNUSyntaxMatchesObjdump(t *testing.T) {
	if _, err := exec.LookPath("objdump"); err != nil {
		t.Skip("no objdump")
	}
	cases := []struct {
		bin string
		re  *regexp.Regexp
	}{
		{"testdata/legacy/cpubench", regexp.MustCompile(`^(main|fib|partition|quicksort|matmul|crc_bytes|fill_random|phase_.*|run_all|_start)$`)},
		{"testdata/legacy/cpubench32", regexp.MustCompile(`^(main|fib|partition|quicksort|matmul|crc_bytes|fill_random|phase_.*)$`)},
	}
	if !testing.Short() {
		dir := goProgramDir(t)
		cases = append(cases, struct {
			bin string
			re  *regexp.Regexp
		}{filepath.Join(dir, "prog"), regexp.MustCompile(`^(main\..*|runtime\.(memmove|mallocgc|nanotime.*|findObject|scanobject))$`)})
	}
	annot := regexp.MustCompile(` <[^>]*>`)
	for _, c := range cases {
		t.Run(filepath.Base(c.bin), func(t *testing.T) {
			out, err := exec.Command("objdump", "-d", "--no-show-raw-insn", c.bin).Output()
			if err != nil {
				t.Skipf("objdump: %v", err)
			}
			want := map[uint64]string{}
			line := regexp.MustCompile(`^\s*([0-9a-f]+):\s+(.*)$`)
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				if m := line.FindStringSubmatch(sc.Text()); m != nil {
					a, _ := strconv.ParseUint(m[1], 16, 64)
					want[a] = strings.Join(strings.Fields(m[2]), " ")
				}
			}
			d := disassembler(t, c.bin)
			compared, unsupported, zeroDisp, vex := 0, 0, 0, 0
			for _, s := range d.Symbols(c.re, true) {
				insts, err := d.Decode(s.Start, s.Start+s.Size, symbolize.GNUSyntax)
				if err != nil {
					t.Fatal(err)
				}
				for _, in := range insts {
					w, ok := want[in.Addr]
					if !ok {
						continue
					}
					compared++
					got := strings.Join(strings.Fields(in.Text), " ")
					switch {
					case got == w:
					case annot.ReplaceAllString(got, "") == annot.ReplaceAllString(w, ""):
					case got == "?":
						unsupported++
					case strings.Replace(w, "0x0(", "(", 1) == got:
						zeroDisp++
					case strings.HasPrefix(got, "v") && strings.Fields(got)[0] == strings.Fields(w)[0]:
						vex++
					default:
						t.Errorf("%s %x: %q, objdump %q", s.Name, in.Addr, got, w)
					}
				}
			}
			if compared < 100 {
				t.Errorf("only %d instructions compared", compared)
			}
			t.Logf("%d instructions compared; %d not decoded (AVX-512), %d with objdump's explicit 0x0 displacement, %d VEX operands x/arch decodes otherwise", compared, unsupported, zeroDisp, vex)
		})
	}
}

// TestDisasmGoSyntaxMatchesGoObjdump builds the Go program for amd64 and
// arm64 and compares our Go-syntax text and pclntab lines at every
// address of its main functions with go tool objdump's, which prints
// through the same cmd/internal/disasm as go tool pprof -disasm (arm64
// cannot be profiled here; this is its check).
func TestDisasmGoSyntaxMatchesGoObjdump(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "prog.go"), []byte(goProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^\s+(\S+):(\d+)\t+0x([0-9a-f]+)\t+[0-9a-f]+\t+(.*?)\s*$`)
	for _, arch := range []string{"amd64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			bin := filepath.Join(dir, "prog_"+arch)
			build := exec.Command("go", "build", "-o", bin, "prog.go")
			build.Dir = dir
			build.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+arch, "CGO_ENABLED=0")
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, out)
			}
			out, err := exec.Command("go", "tool", "objdump", "-s", `^main\.`, bin).Output()
			if err != nil {
				t.Fatalf("go tool objdump: %v", err)
			}
			type want struct{ file, line, text string }
			wants := map[uint64]want{}
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				if m := line.FindStringSubmatch(sc.Text()); m != nil {
					a, _ := strconv.ParseUint(m[3], 16, 64)
					wants[a] = want{m[1], m[2], m[4]}
				}
			}
			d := disassembler(t, bin)
			compared, recursive := 0, 0
			for _, s := range d.Symbols(regexp.MustCompile(`^main\.`), true) {
				insts, err := d.Decode(s.Start, s.Start+s.Size, symbolize.GoSyntax)
				if err != nil {
					t.Fatal(err)
				}
				for _, in := range insts {
					w, ok := wants[in.Addr]
					if !ok {
						t.Errorf("%s %x: %q, not in go tool objdump's output", s.Name, in.Addr, in.Text)
						continue
					}
					compared++
					if name, _ := d.SymbolAt(in.Target); s.Name == "main.fib" && in.Call && name == "main.fib" {
						recursive++ // the calls the view follows
					}
					if in.Text != w.text || filepath.Base(in.File) != w.file || strconv.Itoa(in.Line) != w.line {
						t.Errorf("%s %x: %s:%d %q, go tool objdump %s:%s %q", s.Name, in.Addr, filepath.Base(in.File), in.Line, in.Text, w.file, w.line, w.text)
					}
				}
			}
			if compared != len(wants) || compared < 50 {
				t.Errorf("compared %d instructions of go tool objdump's %d", compared, len(wants))
			}
			if recursive != 2 {
				t.Errorf("main.fib: %d calls to itself decoded as calls, want 2", recursive)
			}
		})
	}
}

// disassembler opens the binary at path for decoding, closed with the test.
func disassembler(t *testing.T, path string) *symbolize.Disassembler {
	t.Helper()
	b, err := symbolize.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	d, err := symbolize.NewDisassembler(b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
