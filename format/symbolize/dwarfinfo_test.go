package symbolize

import (
	"debug/dwarf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// compareLines runs the line table of a unit with lineProgram and with
// debug/dwarf's LineReader and compares the rows.
func compareLines(t *testing.T, x *infoData, u *infoUnit, cu *die, d *dwarf.Data, want *dwarf.Entry) {
	t.Helper()
	lp, err := x.lineProgram(u, cu)
	lr, werr := d.LineReader(want)
	if (err == nil) != (werr == nil) || (lp == nil) != (lr == nil) {
		t.Fatalf("%#x: line table %v (%v), debug/dwarf %v (%v)", cu.off, lp != nil, err, lr != nil, werr)
	}
	if lp == nil {
		return
	}
	rows := 0
	for {
		var g lineState
		var w dwarf.LineEntry
		ok := lp.next(&g)
		werr := lr.Next(&w)
		if !ok || werr != nil {
			if ok || werr != io.EOF || lp.err != nil {
				t.Fatalf("%#x: line table ends after %d rows: %v %v, debug/dwarf %v", cu.off, rows, ok, lp.err, werr)
			}
			break
		}
		rows++
		file := ""
		if g.file < uint64(len(lp.files)) {
			file = lp.files[g.file]
		}
		wfile := ""
		if w.File != nil {
			wfile = w.File.Name
		}
		if g.addr != w.Address || g.line != int64(w.Line) || g.end != w.EndSequence || file != wfile {
			t.Fatalf("%#x: row %d: %#x %s:%d end %v, debug/dwarf %#x %s:%d end %v", cu.off, rows, g.addr, file, g.line, g.end, w.Address, wfile, w.Line, w.EndSequence)
		}
	}
	if rows == 0 {
		t.Errorf("%#x: empty line table", cu.off)
	}
}

// diffC has an inlined function, a nested scope and a function in a
// header-like static inline, so that gcc emits abstract origins, inlined
// calls with call_file/call_line, and range lists.
const diffC = `#include <stdlib.h>
static inline int sq(int x) { return x * x + (x >> 3); }
static inline int twice(int x) { int s = 0; for (int i = 0; i < x; i++) s += sq(i ^ x); return s; }
__attribute__((noinline)) int f(int n) { int t = 0; for (int i = 0; i < n; i++) { if (i & 1) t += twice(i); else t -= sq(i); } return t; }
int main(int argc, char **argv) { return f(argc > 1 ? atoi(argv[1]) : 10) & 1; }
`

// TestInfoDataMatchesDebugDWARF decodes every entry of several binaries
// with infoData and with debug/dwarf and compares what symbolization
// uses: tag, children, address ranges, names, references and call sites,
// and the offset of the next entry; and each unit's line table, row by
// row. The binaries: the gperftools test
// programs (64 and 32 bits, DWARF 5), a C program built by gcc for DWARF
// 2 to 5, and a Go program (Go's DWARF).
func TestInfoDataMatchesDebugDWARF(t *testing.T) {
	bins := []string{"../../testdata/legacy/cpubench", "../../testdata/legacy/cpubench32"}
	goDir := t.TempDir()
	goBin := filepath.Join(goDir, "goprog")
	if err := os.WriteFile(filepath.Join(goDir, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hi\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", goBin, "main.go")
	cmd.Dir, cmd.Env = goDir, append(os.Environ(), "GO111MODULE=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Logf("go build: %v\n%s", err, out)
	} else {
		bins = append(bins, goBin)
	}
	if gcc, err := exec.LookPath("gcc"); err == nil {
		dir := t.TempDir()
		src := filepath.Join(dir, "p.c")
		if err := os.WriteFile(src, []byte(diffC), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{"2", "3", "4", "5"} {
			bin := filepath.Join(dir, "p-dwarf"+v)
			if out, err := exec.Command(gcc, "-O2", "-gdwarf-"+v, "-o", bin, src).CombinedOutput(); err != nil {
				t.Fatalf("gcc: %v\n%s", err, out)
			}
			bins = append(bins, bin)
		}
	} else {
		t.Log("gcc is not installed: checking the prebuilt binaries only")
	}
	for _, bin := range bins {
		t.Run(filepath.Base(bin), func(t *testing.T) { compareInfo(t, bin) })
	}
}

func compareInfo(t *testing.T, bin string) {
	b, err := Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ef := b.ef
	sec, err := b.loadDWARF()
	if err != nil {
		t.Fatal(err)
	}
	d, err := ef.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	x, err := newInfoData(sec, ef.ByteOrder)
	if err != nil {
		t.Fatal(err)
	}
	r := d.Reader()
	entries := 0
	for _, u := range x.units {
		next := u.first
		for next < u.end {
			var e die
			at := next
			next, err = x.readDIE(&u, at, &e)
			if err != nil {
				t.Fatalf("%#x: %v", at, err)
			}
			if n, tag, children, err := x.skipDIE(&u, at); n != next || tag != e.tag || children != e.children || err != nil {
				t.Fatalf("%#x: skipDIE %#x %v %v %v, readDIE %#x %v %v", at, n, tag, children, err, next, e.tag, e.children)
			}
			want, err := r.Next()
			if err != nil || want == nil {
				t.Fatalf("%#x: debug/dwarf: %v %v", at, want, err)
			}
			entries++
			if e.tag != want.Tag || e.children != want.Children || e.tag != 0 && uint64(want.Offset) != at {
				t.Fatalf("%#x: tag %v children %v, debug/dwarf %v %v at %#x", at, e.tag, e.children, want.Tag, want.Children, want.Offset)
			}
			if e.tag == 0 {
				continue
			}
			compareEntry(t, x, &u, &e, d, want)
			if at == u.first {
				compareLines(t, x, &u, &e, d, want)
			}
		}
	}
	if e, _ := r.Next(); e != nil {
		t.Errorf("debug/dwarf has entries after ours: %+v", e)
	}
	if entries < 50 {
		t.Errorf("only %d entries", entries)
	}
}

func compareEntry(t *testing.T, x *infoData, u *infoUnit, e *die, d *dwarf.Data, want *dwarf.Entry) {
	t.Helper()
	wantRanges, werr := d.Ranges(want)
	got, err := x.ranges(u, e, nil)
	if (err == nil) != (werr == nil) || !slices.Equal(got, wantRanges) {
		t.Errorf("%#x %v: ranges %x (%v), debug/dwarf %x (%v)", e.off, e.tag, got, err, wantRanges, werr)
	}
	str := func(a dwarf.Attr) string { s, _ := want.Val(a).(string); return s }
	if got, want := x.str(u, e.name), str(dwarf.AttrName); got != want {
		t.Errorf("%#x %v: name %q, debug/dwarf %q", e.off, e.tag, got, want)
	}
	wantLink := str(dwarf.AttrLinkageName)
	if wantLink == "" {
		wantLink = str(attrMIPSLinkageName)
	}
	if got := x.str(u, e.linkageName); got != wantLink {
		t.Errorf("%#x %v: linkage name %q, debug/dwarf %q", e.off, e.tag, got, wantLink)
	}
	ref := func(a dwarf.Attr) uint64 { o, _ := want.Val(a).(dwarf.Offset); return uint64(o) }
	num := func(a dwarf.Attr) int64 { n, _ := want.Val(a).(int64); return n }
	if e.origin != ref(dwarf.AttrAbstractOrigin) || e.spec != ref(dwarf.AttrSpecification) || e.sibling != ref(dwarf.AttrSibling) {
		t.Errorf("%#x %v: origin %#x spec %#x sibling %#x, debug/dwarf %#x %#x %#x", e.off, e.tag, e.origin, e.spec, e.sibling,
			ref(dwarf.AttrAbstractOrigin), ref(dwarf.AttrSpecification), ref(dwarf.AttrSibling))
	}
	if e.callFile != num(dwarf.AttrCallFile) || e.callLine != num(dwarf.AttrCallLine) {
		t.Errorf("%#x %v: call %d:%d, debug/dwarf %d:%d", e.off, e.tag, e.callFile, e.callLine, num(dwarf.AttrCallFile), num(dwarf.AttrCallLine))
	}
}
