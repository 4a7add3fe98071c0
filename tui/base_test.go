package tui

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/analysis/report"
)

// pprofTop is the -top report of the profile the explorer has open
// (with -nodefraction=0 -nodecount=1000000 and unit, as the goldens of
// analysis/testdata/top are made), to compare with go tool pprof's.
func (h *harness) pprofTop(unit string) string {
	h.t.Helper()
	var b bytes.Buffer
	var err error
	h.do(func(m *Model) {
		o := analysis.DefaultOptions()
		o.NodeFraction, o.NodeCount = 0, 1000000
		if unit != "" {
			o.Unit = unit
		}
		var top *analysis.Top
		if top, err = m.engine.Top(o); err == nil {
			err = report.Top(&b, m.prof, top, o)
		}
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return b.String()
}

// wantTop is pprof's -top golden name from analysis/testdata/top.
func wantTop(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "analysis", "testdata", "top", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (h *harness) checkTop(what, unit, golden string) {
	h.t.Helper()
	if got, want := h.pprofTop(unit), wantTop(h.t, golden); got != want {
		h.t.Errorf("%s: the profile shown differs from go tool pprof's (%s.txt)\n--- got\n%s\n--- pprof\n%s", what, golden, got, want)
	}
}

// TestPickerBase: b marks the base in the picker; the profile opened
// next is the one go tool pprof -top -diff_base gives (b twice: -base),
// and the status bar names both.
func TestPickerBase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyTo(t, testdata("cpu_labels.pb.gz"), filepath.Join(dir, "new.pb.gz"))
	copyTo(t, testdata("cpu_labels_no_w0.pb.gz"), filepath.Join(dir, "old.pb.gz"))
	copyTo(t, filepath.Join("..", "testdata", "notes", "goroutine1.pb.gz"), filepath.Join(dir, "g1.pb.gz"))
	copyTo(t, filepath.Join("..", "testdata", "notes", "goroutine2.pb.gz"), filepath.Join(dir, "g2.pb.gz"))
	h := start(t, pickerConfig(dir))
	h.waitFor("the picker", func(m *Model) bool { return m.picker != nil })

	h.moveTo("old.pb.gz")
	h.keys("b")
	if s := h.screen(); !strings.Contains(s, "base -diff_base old.pb.gz") || !strings.Contains(s, "base (-diff_base)") {
		t.Errorf("the picker does not show the base:\n%s", s)
	}
	h.pick("new.pb.gz")
	h.waitReady()
	h.checkTop("picker -diff_base", "ns", "diff-cpu")
	if s := h.screen(); !strings.Contains(s, "new.pb.gz −diff_base old.pb.gz") || !strings.Contains(s, "Δflat") {
		t.Errorf("the screen does not say what is compared:\n%s", s)
	}

	h.keys("P")
	h.waitFor("the picker", func(m *Model) bool { return m.phase == phasePicking })
	h.moveTo("g1.pb.gz")
	h.keys("b", "b")
	if s := h.screen(); !strings.Contains(s, "base -base g1.pb.gz") {
		t.Errorf("b twice is not -base:\n%s", s)
	}
	h.pick("g2.pb.gz")
	h.waitReady()
	h.checkTop("picker -base", "", "base-goroutine")

	h.keys("P")
	h.waitFor("the picker", func(m *Model) bool { return m.phase == phasePicking })
	h.moveTo("g1.pb.gz")
	h.keys("b")
	if s := h.screen(); strings.Contains(s, "base -") {
		t.Errorf("b a third time did not clear the base:\n%s", s)
	}
	h.pick("new.pb.gz")
	h.waitReady()
	h.checkTop("no base", "ns", "cpu-default")

	// :base names a file of the picker's directory, and completes it.
	h.completes("base ol", "base old.pb.gz")
	h.keys("<enter>")
	h.waitFor("the diff", func(m *Model) bool { return m.c.Diff })
	h.checkTop(":base in the picker's directory", "ns", "diff-cpu")
}

// moveTo puts the picker's cursor on the entry named name.
func (h *harness) moveTo(name string) {
	h.t.Helper()
	found := false
	h.do(func(m *Model) {
		for i, e := range m.picker.shown {
			if m.picker.entries[e].name == name {
				m.picker.moveTo(i)
				found = true
			}
		}
	})
	if !found {
		h.t.Fatalf("the picker does not list %q:\n%s", name, h.screen())
	}
}

// TestBaseVerb: :base FILE compares the open profile with FILE as
// go tool pprof -top -diff_base does, :base -base FILE as -base, and
// :base alone goes back to the profile; tab completes the file names;
// I shows both profiles' facts.
func TestBaseVerb(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.command("focus=fib")
	h.completes("base "+testdata("cpu_labels_no"), "base "+testdata("cpu_labels_no_w0.pb.gz"))
	h.keys("<enter>")
	h.waitFor("the diff", func(m *Model) bool { return m.c.Diff })
	h.checkTop(":base", "ns", "diff-cpu")
	if o := h.options(); o.Focus != "fib" {
		t.Errorf("the settings were lost: %+v", o)
	}
	if s := h.screen(); !strings.Contains(s, "cpu_labels.pb.gz −diff_base cpu_labels_no_w0.pb.gz") {
		t.Errorf("the status bar does not say what is compared:\n%s", s)
	}
	h.keys("I")
	h.waitFor("the info panel", func(m *Model) bool { return m.help.shown && m.help.text != nil })
	var lines []string
	h.do(func(m *Model) { lines = m.help.lines() })
	info := strings.Join(lines, "\n")
	if !strings.Contains(info, "Base (diff_base)") || strings.Count(info, "Type: cpu") != 2 || !strings.Contains(info, "Total samples = 2120ms") {
		t.Errorf("the info panel lacks the base's facts:\n%s", info)
	}
	h.keys("x")

	h.command("base")
	h.waitFor("no diff", func(m *Model) bool { return !m.c.Diff })
	h.checkTop(":base alone", "ns", "cpu-default")
	h.command("base")
	if s := h.screen(); !strings.Contains(s, "no base to clear") {
		t.Errorf("no note for nothing to clear:\n%s", s)
	}
	h.command("base nope.pb.gz")
	h.waitFor("the error", func(m *Model) bool { return m.note.isErr })
	diff := true
	h.do(func(m *Model) { diff = m.c.Diff })
	if s := h.screen(); !strings.Contains(s, "base: open nope.pb.gz") || diff {
		t.Errorf("no error for a missing file:\n%s", s)
	}
}

// TestBaseVerbMinus: :base -base FILE subtracts as -base.
func TestBaseVerbMinus(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(filepath.Join("..", "testdata", "notes", "goroutine2.pb.gz")))
	h.command("base -base " + filepath.Join("..", "testdata", "notes", "goroutine1.pb.gz"))
	h.waitFor("the diff", func(m *Model) bool { return m.c.Diff })
	h.checkTop(":base -base", "", "base-goroutine")
	if s := h.screen(); !strings.Contains(s, "goroutine2.pb.gz −base goroutine1.pb.gz") {
		t.Errorf("the status bar:\n%s", s)
	}
}

// TestDiffFlame: in a diff the flame graph's frames are as wide as the
// new profile's values and coloured by their change; the detail line
// gives the frame's before, after and change; w draws the base's widths
// (main.runFib, new in this profile, is then gone).
func TestDiffFlame(t *testing.T) {
	t.Parallel()
	cfg := testConfig(testdata("cpu_labels.pb.gz"))
	cfg.Sources.DiffBase = []string{testdata("cpu_labels_no_w0.pb.gz")}
	h := start(t, cfg)
	h.keys("4")
	h.do(func(m *Model) { m.views.get(viewFlame).Reveal("main.runFib") })
	s := h.screen()
	for _, want := range []string{"▶ main.runFib  before 0  after 720ms  change +720ms (+33.96%)", "widths: new · w: base",
		"▏main.runHash 0", "▏root +720ms"} {
		if !strings.Contains(s, want) {
			t.Errorf("the diff flame graph lacks %q:\n%s", want, s)
		}
	}
	golden(t, "flame-diff-new", s)
	h.do(func(m *Model) { m.views.get(viewFlame).Reveal("main.hashBlock") })
	if s := h.screen(); !strings.Contains(s, "▶ main.hashBlock  before 690ms  after 690ms  change 0 (0%)") {
		t.Errorf("main.hashBlock:\n%s", s)
	}
	h.keys("w")
	h.waitFor("the base's widths", func(m *Model) bool { return strings.Contains(m.View(), "widths: base · w: new") })
	s = h.screen()
	if strings.Contains(s, "main.runFib") {
		t.Errorf("main.runFib, not in the base, is drawn with the base's widths:\n%s", s)
	}
	if !strings.Contains(s, "▶ main.hashBlock  before 690ms  after 690ms") {
		t.Errorf("the cursor left main.hashBlock:\n%s", s)
	}
	golden(t, "flame-diff-base", s)
	h.keys("w")
	h.waitFor("the new profile's widths", func(m *Model) bool { return strings.Contains(m.View(), "widths: new · w: base") })
}

// TestSideBySide: a diff's Top at 160 columns or more shows the base's
// table and the new profile's next to each other, a function on the
// same line in both (· where a profile lacks it), the unchanged ones
// too, moving together;
// narrower, the diff table.
func TestSideBySide(t *testing.T) {
	t.Parallel()
	cfg := testConfig(testdata("cpu_labels.pb.gz"))
	cfg.Sources.DiffBase = []string{testdata("cpu_labels_no_w0.pb.gz")}
	cfg.Width, cfg.Height = 170, 14
	h := start(t, cfg)
	h.keys("j", "j", "j")
	s := h.screen()
	lines := strings.Split(s, "\n")
	for _, want := range []string{
		"30.0ms  1.42%     30.0ms  1.42%  main.fib",
		"750ms 26.41%      750ms 26.41%  main.fib",
		"·      ·          ·      ·  main.runFib",
		"0     0%      720ms 25.35%  main.runFib",
		"120ms  5.66%      690ms 32.55%  main.hashBlock", // unchanged: after the changes
		"120ms  4.23%      690ms 24.30%  main.hashBlock",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("side by side lacks %q:\n%s", want, s)
		}
	}
	if len(lines) < 6 || strings.Count(lines[5], "main.runFib") != 2 || strings.Count(lines[5], "▶") != 2 {
		t.Errorf("the cursor's row is not main.runFib in both tables:\n%s", s)
	}
	golden(t, "top-side-by-side", s)
	h.tm.Send(tea.WindowSizeMsg{Width: 120, Height: 14})
	h.waitFor("the diff table", func(m *Model) bool { return strings.Contains(m.View(), "Δflat") })
	h.tm.Send(tea.WindowSizeMsg{Width: 170, Height: 14})
	h.waitFor("the two tables again", func(m *Model) bool { return strings.Contains(m.View(), "name — new") })
}
