package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/views"
)

// cpubenchConfig opens the gperftools profile with its binary and its
// C source under testdata/legacy.
func cpubenchConfig() Config {
	legacy := filepath.Join("..", "testdata", "legacy")
	cfg := testConfig(filepath.Join(legacy, "cpu.prof"))
	cfg.Sources.Binary = filepath.Join(legacy, "cpubench")
	cfg.Options.SourcePath = legacy
	cfg.Options.TrimPath = "/tmp/gperftools-build"
	return cfg
}

func (h *harness) disasm() *views.Disasm {
	var d *views.Disasm
	h.do(func(m *Model) { d = m.views.get(viewDisasm).(*views.Disasm) })
	return d
}

// selectFunction makes name the selection with a search in Top.
func (h *harness) selectFunction(name string) {
	h.t.Helper()
	h.keys("1", "/")
	h.typeText("^" + name + "$")
	h.keys("<enter>", "<esc>")
	waitSelected(h, name)
}

func TestDisasmScreens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		w, h int
		sel  string
		cfg  func() Config
	}{
		{"cpubench-disasm-80x24", 80, 24, "fib", cpubenchConfig},
		{"cpubench-disasm-120x35", 120, 35, "phase_matmul", cpubenchConfig},
		{"cpubench-disasm-intel-120x35", 120, 35, "fib", func() Config {
			cfg := cpubenchConfig()
			cfg.Options.IntelSyntax = true
			return cfg
		}},
		{"cpu-disasm-missing-80x24", 80, 24, "main.fib", func() Config { return sourceConfig("cpu_labels.pb.gz") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg()
			cfg.Width, cfg.Height = tc.w, tc.h
			h := start(t, cfg)
			h.selectFunction(tc.sel)
			h.show(viewDisasm)
			h.waitFor("the disassembly", func(m *Model) bool { return m.ActiveView().HasResult() && !viewsBusy(m) })
			golden(t, tc.name, h.screen())
		})
	}
}

// TestDisasmFollow: the cursor starts on the hottest instruction; enter
// on a call selects the callee in every view, backspace comes back to
// the call; enter on a jump moves to its target, backspace back to the
// jump; e returns to the hottest.
func TestDisasmFollow(t *testing.T) {
	t.Parallel()
	h := start(t, cpubenchConfig())
	h.selectFunction("phase_matmul")
	h.show(viewDisasm)
	d := h.disasm()
	cursor := func() analysis.AsmInst {
		var in analysis.AsmInst
		h.do(func(*Model) { in, _ = d.Cursor() })
		return in
	}
	h.waitFor("the disassembly of phase_matmul", func(m *Model) bool {
		s, _ := d.Selection()
		return s.Name == "phase_matmul" && d.HasResult() && !viewsBusy(m)
	})
	if in := cursor(); !in.Call || in.TargetName != "matmul" {
		t.Fatalf("cursor on %x %q, want the hottest: the call to matmul", in.Addr, in.Text)
	}
	call := cursor().Addr
	h.keys("<enter>")
	waitSelected(h, "matmul")
	h.waitFor("the disassembly of matmul", func(m *Model) bool {
		s, _ := d.Selection()
		return s.Name == "matmul" && d.HasResult() && !viewsBusy(m)
	})
	if in := cursor(); in.Flat == 0 || strings.Contains(h.screen(), "computing") {
		t.Errorf("enter on the call: cursor not on matmul's hottest instruction (%x %q)\n%s", in.Addr, in.Text, h.screen())
	}
	var history int
	h.do(func(m *Model) { history = m.History() })
	if history != 0 {
		t.Errorf("following a call changed the options (history %d)", history)
	}
	// A jump: the loop's back edge in matmul moves the cursor up.
	var jump analysis.AsmInst
	for range 200 {
		if in := cursor(); in.Target != 0 && !in.Call {
			jump = in
			break
		}
		h.keys("j")
	}
	if jump.Target == 0 {
		t.Fatalf("no jump below the hottest instruction of matmul:\n%s", h.screen())
	}
	h.keys("<enter>")
	if in := cursor(); in.Addr > jump.Target || in.Addr+uint64(in.Len) <= jump.Target {
		t.Errorf("enter on %x %q: cursor on %x, want %x", jump.Addr, jump.Text, in.Addr, jump.Target)
	}
	h.keys("<backspace>")
	if in := cursor(); in.Addr != jump.Addr {
		t.Errorf("backspace after the jump: cursor on %x, want %x", in.Addr, jump.Addr)
	}
	// Back out of matmul to the call in phase_matmul.
	h.keys("<backspace>")
	waitSelected(h, "phase_matmul")
	h.waitFor("phase_matmul again", func(m *Model) bool {
		s, _ := d.Selection()
		in, _ := d.Cursor()
		return s.Name == "phase_matmul" && d.HasResult() && !viewsBusy(m) && in.Addr == call
	})
	// Top follows the selection; e goes back to the hottest.
	h.keys("k", "k", "e")
	if in := cursor(); in.Addr != call {
		t.Errorf("e: cursor on %x, want the hottest %x", in.Addr, call)
	}
	h.keys("1")
	var top string
	h.do(func(m *Model) { top = m.views.top.RowName(0) })
	if top != "phase_matmul" {
		t.Errorf("Top after coming back: cursor on %q", top)
	}
}
