package tui

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/exp/teatest"

	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/views"
)

// hostileName is a file name that, written to a terminal as it is, sets
// the window title and writes the clipboard (OSC 0 and OSC 52).
const hostileName = "n\x1b]0;PWNED\a\x1b]52;c;Zm5hbWU=\a.pb.gz"

// hostileDrawn is how the explorer draws hostileName.
const hostileDrawn = "n␛]0;PWNED␇␛]52;c;Zm5hbWU=␇.pb.gz"

// terminalBytes ends the program and checks every byte it wrote to the
// terminal: the renderer's CSI sequences (ESC [) are all it may emit, so
// no ESC ] (OSC: title, clipboard), ESC P (DCS), ESC _ (APC), ESC ^ (PM)
// or other ESC, no BEL and no C1 control, raw or UTF-8.
func (h *harness) terminalBytes(what string) {
	h.t.Helper()
	h.tm.Quit()
	out, err := io.ReadAll(h.tm.FinalOutput(h.t, teatest.WithFinalTimeout(10*time.Second)))
	if err != nil {
		h.t.Fatal(err)
	}
	checkTerminalBytes(h.t, what, out)
}

func checkTerminalBytes(t testing.TB, what string, out []byte) {
	t.Helper()
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRune(out[i:])
		bad := ""
		switch {
		case r == 0x1b && (i+1 >= len(out) || out[i+1] != '['):
			bad = "an escape sequence other than CSI"
		case r == 0x07:
			bad = "BEL"
		case r >= 0x80 && r < 0xa0, r == utf8.RuneError && n == 1 && out[i] >= 0x80 && out[i] < 0xa0:
			bad = "a C1 control"
		}
		if bad != "" {
			t.Fatalf("%s: the terminal got %s at byte %d: %q", what, bad, i, out[max(0, i-40):min(len(out), i+40)])
		}
		i += n
	}
}

// copyProfile copies testdata/go/name to dir/as.
func copyProfile(t *testing.T, name, dir, as string) string {
	t.Helper()
	b, err := os.ReadFile(testdata(name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, as)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// pick opens the picker's entry named name.
func (h *harness) pick(name string) {
	h.t.Helper()
	h.moveTo(name)
	h.keys("<enter>")
}

func pickerConfig(dir string) Config {
	cfg := testConfig()
	cfg.Dir = dir
	return cfg
}

// A profile opened from the picker under a hostile name: the status bar,
// :cmd and the info panel draw the name, and no byte of it acts on the
// terminal.
func TestHostileFileNamePicked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyProfile(t, "cpu_labels.pb.gz", dir, hostileName)
	h := start(t, pickerConfig(dir))
	h.pick(hostileName)
	h.waitReady()
	if s := h.screen(); !strings.Contains(s, hostileDrawn) {
		t.Errorf("the status bar does not name the file:\n%s", s)
	}
	h.command("cmd")
	if s := h.screen(); !strings.Contains(s, `/n\x1b]0;PWNED\x07\x1b]52;c;Zm5hbWU=\x07.pb.gz'`) {
		t.Errorf(":cmd does not quote the name as $'...':\n%s", s)
	}
	h.keys("<esc>", "I")
	h.waitFor("the info panel", func(m *Model) bool { return m.help.shown })
	h.terminalBytes("a picked hostile name, :cmd, info")
}

// The same name on the command line.
func TestHostileFileNameArgument(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(copyProfile(t, "cpu_labels.pb.gz", t.TempDir(), hostileName)))
	h.command("cmd")
	h.keys("<esc>", "I")
	h.waitFor("the info panel", func(m *Model) bool { return m.help.shown })
	h.terminalBytes("a hostile name as an argument, :cmd, info")
}

// A file under a hostile name that is cut short: the error, which names
// it, is drawn safely.
func TestHostileFileNameError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := copyProfile(t, "cpu_labels.pb.gz", dir, hostileName)
	if err := os.Truncate(path, 6000); err != nil {
		t.Fatal(err)
	}
	h := start(t, pickerConfig(dir))
	h.pick(hostileName)
	h.waitFor("the error", func(m *Model) bool { return m.phase == phasePicking && m.picker.err != nil })
	h.terminalBytes("the error opening a hostile name")
}

// A profile whose function names, file names, labels and comments carry
// escape sequences, through every view and the info panel.
func TestHostileProfileStrings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := start(t, testConfig(evilProfileAt(t, dir, hostileName)))
	for _, k := range []string{"2", "3", "4", "5", "6", "7", "8", "1", "I"} {
		h.keys(k)
	}
	h.waitFor("the info panel", func(m *Model) bool { return m.help.shown })
	if s := h.screen(); !strings.Contains(s, "note␛]52;c;Zm5hbWU=␇") {
		t.Errorf("the info panel does not show the comment:\n%s", s)
	}
	h.terminalBytes("a profile with hostile strings")
}

// A live source's fetch error, which names the source, on the status bar.
func TestHostileLiveError(t *testing.T) {
	t.Parallel()
	m := NewModel(t.Context(), testConfig(hostileName))
	m.live = &live{err: os.ErrNotExist}
	m.live.err = &os.PathError{Op: "open", Path: hostileName, Err: os.ErrNotExist}
	if s := m.liveStatus(0).String(); strings.ContainsAny(s, "\x1b\a") || !strings.Contains(s, hostileDrawn) {
		t.Errorf("live status %q", s)
	}
}

// A profile.proto whose values add up past int64 (its reports wrap, as
// pprof's do) does not open: the explorer would show a negative total
// for non-negative input.
func TestWrappingSumsRefused(t *testing.T) {
	t.Parallel()
	p, err := format.Load(t.Context(), format.Sources{Sources: []string{testdata("cpu_labels.pb.gz")}}, format.Options{Symbolize: "none"})
	if err != nil {
		t.Fatal(err)
	}
	col := p.Samples.Values[len(p.Samples.Values)-1]
	col[0], col[1] = math.MaxInt64, math.MaxInt64
	var buf bytes.Buffer
	if err := format.Write(&buf, p); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "wraps.pb.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	m := NewModel(t.Context(), testConfig(path))
	newFinished(t, m)
	if err := m.Err(); err == nil || !strings.Contains(err.Error(), "values add up past the int64 range") {
		t.Errorf("error %v, want the values' sum refused", err)
	}
	if m.phase == phaseReady {
		t.Error("the explorer opened")
	}
}

// Names from outside the profile that tab lists: files for :base and
// saved configurations (settings.json) for :config, named with a
// colour escape that the frame's last guard would let through.
func TestHostileCompletion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"x\x1b[7mA.pb.gz", "x\x1b[7mB.pb.gz"} {
		copyProfile(t, "cpu_labels.pb.gz", dir, name)
	}
	settings := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(settings, []byte(`{"configs": [{"name": "c\u001b[7mA"}, {"name": "c\u001b[7mB"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(testdata("cpu_labels.pb.gz"))
	cfg.SettingsFile = settings
	h := start(t, cfg)
	for _, tc := range []struct{ line, drawn string }{
		{"base " + dir + "/x", "␛[7mA.pb.gz"},
		{"config c", "c␛[7mA"},
	} {
		h.keys(":")
		h.typeText(tc.line)
		h.keys("<tab>")
		if s := h.screen(); strings.Contains(s, "\x1b") || !strings.Contains(s, tc.drawn) {
			t.Errorf("%s: the candidates are not drawn safely:\n%q", tc.line, s)
		}
		h.keys("<esc>")
	}
}

// A diff against a base with hostile strings under a hostile name: the
// two profiles the views read apart (Common.Sides, the differential
// flame graph and Top side by side) are taken in as the loaded one is,
// their strings made safe, and nothing reaches the terminal raw.
func TestHostileBase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := testConfig(evilProfileAt(t, dir, "new.pb.gz"))
	cfg.Sources.DiffBase = []string{evilProfileAt(t, dir, hostileName)}
	h := start(t, cfg)
	var sides []*format.Profile
	h.do(func(m *Model) {
		newE, baseE, err := m.c.Sides()
		if err != nil {
			t.Error(err)
			return
		}
		sides = []*format.Profile{newE.Profile(), baseE.Profile()}
	})
	for i, p := range sides {
		for _, f := range p.Functions {
			if f.Name != views.SafeText(f.Name) || f.Filename != views.SafeText(f.Filename) {
				t.Errorf("side %d: function %q in %q is not made safe", i, f.Name, f.Filename)
			}
		}
	}
	for _, k := range []string{"4", "1", "I"} {
		h.keys(k)
	}
	h.waitFor("the info panel", func(m *Model) bool { return m.help.shown })
	h.terminalBytes("a diff against a hostile base")
}
