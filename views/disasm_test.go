package views

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
)

// TestDisasmMissing: without the binary the view names the file the
// samples need and the error; an inlined function has no code of its own.
func TestDisasmMissing(t *testing.T) {
	e := testEngine(t, "cpu_labels.pb.gz")
	for _, tc := range []struct{ sel, want string }{
		{"main.fib", "open /tmp/profgen/bin/goprof: no such file or directory"},
		{"main.xorshift", "no machine code for main.xorshift in the profile's binaries"},
	} {
		v := NewDisasm(testCommon())
		v.SetSize(150, 20)
		load(t, v, e, analysis.DefaultOptions(), tc.sel)
		if screen := v.View(); !strings.Contains(screen, tc.want) {
			t.Errorf("%s: no %q in\n%s", tc.sel, tc.want, screen)
		}
	}
}

// TestDisasmSearchAndSyntax: / finds instructions and source lines;
// gnu_syntax prints objdump's.
func TestDisasmSearchAndSyntax(t *testing.T) {
	p, err := format.Load(context.Background(), format.Sources{Sources: []string{"../testdata/legacy/cpu.prof"}, Binary: "../testdata/legacy/cpubench"}, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := analysis.NewEngine(p)
	opt := analysis.DefaultOptions()
	opt.SourcePath, opt.TrimPath, opt.GNUSyntax = "../testdata/legacy", "/tmp/gperftools-build", true
	v := NewDisasm(testCommon())
	v.SetSize(120, 40)
	load(t, v, e, opt, "fib")
	if in, ok := v.Cursor(); !ok || in.Addr != 0x11d9 || in.Text != "pop %r12" {
		t.Errorf("cursor on %x %q, want the hottest, 11d9 pop %%r12", in.Addr, in.Text)
	}
	if !v.SetSearch(regexp.MustCompile(`call 11b1 <fib>`)) {
		t.Errorf("no call in GNU syntax:\n%s", v.View())
	}
	if !v.SetSearch(regexp.MustCompile(`fib\(n - 1\)`)) || !strings.Contains(v.View(), "cpubench.c:36  return fib(n - 1) + fib(n - 2);") {
		t.Errorf("no source line:\n%s", v.View())
	}
	// A function without samples (a callee followed) still shows its
	// code, with no values.
	load(t, v, e, opt, "now_seconds")
	if screen := v.View(); !strings.Contains(screen, "now_seconds in ../testdata/legacy/cpubench") || !strings.Contains(screen, "0          0 (flat, cum)") {
		t.Errorf("a function without samples:\n%s", screen)
	}
}
