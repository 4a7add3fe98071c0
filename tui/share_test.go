package tui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/internal/gotool"
)

// pprofTopOf is go tool pprof -top of file with flags, without its File
// and Time lines' dependence on the file name.
func pprofTopOf(t *testing.T, file string, flags ...string) string {
	t.Helper()
	args := append([]string{"-top", "-symbolize=none"}, flags...)
	out, err := gotool.Pprof(append(args, file)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof %v: %v\n%s", flags, err, out)
	}
	return string(out)
}

// TestSaveProto: :save FILE.pb.gz writes what go tool pprof -proto
// writes with the same settings: go tool pprof -top reads the same
// table from both.
func TestSaveProto(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs go tool pprof")
	}
	t.Parallel() // waits for go tool pprof
	dir := t.TempDir()
	for _, tc := range []struct {
		name, file, line string
		flags            []string
	}{
		{"focus", "cpu_labels.pb.gz", "focus=hashBlock", []string{"-focus=hashBlock"}},
		{"ignore", "cpu_labels.pb.gz", "ignore=fib", []string{"-ignore=fib"}},
		{"hide", "cpu_labels.pb.gz", "hide=runtime", []string{"-hide=runtime"}},
		{"tagfocus", "cpu_labels.pb.gz", "tagfocus=worker=w1", []string{"-tagfocus=worker=w1"}},
		{"sample_index", "heap.pb.gz", "sample_index=alloc_space focus=main", []string{"-sample_index=alloc_space", "-focus=main"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := testdata(tc.file)
			h := start(t, testConfig(src))
			h.command(tc.line)
			ours := filepath.Join(dir, tc.name+".pb.gz")
			h.command("save " + ours)
			h.waitFor("the save", func(m *Model) bool { return strings.HasPrefix(m.note.text.String(), "saved ") })
			theirs := filepath.Join(dir, tc.name+"-pprof.pb.gz")
			args := append([]string{"-proto", "-symbolize=none", "-output=" + theirs}, tc.flags...)
			if out, err := gotool.Pprof(append(args, src)...).CombinedOutput(); err != nil {
				t.Fatalf("go tool pprof -proto: %v\n%s", err, out)
			}
			got, want := pprofTopOf(t, ours), pprofTopOf(t, theirs)
			if got != want {
				t.Errorf("go tool pprof -top of the saved profile:\n%s\nof pprof's -proto:\n%s", got, want)
			}
		})
	}
}

// TestSaveText: .txt is the top table and .folded the collapsed stacks
// of the current settings; an existing file needs :save!; a bad name is
// an error that keeps the line.
func TestSaveText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.command("focus=fib")
	txt := filepath.Join(dir, "top.txt")
	h.command("save " + txt)
	h.waitFor("the save", func(m *Model) bool { return strings.HasPrefix(m.note.text.String(), "saved ") })
	data, err := os.ReadFile(txt)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "Active filters:\n   focus=fib\n") || !strings.Contains(string(data), "main.fib") {
		t.Errorf("top.txt:\n%s", data)
	}
	h.command("save " + txt)
	if s := h.screen(); !strings.Contains(s, "exists; :save! ") {
		t.Errorf("no error for an existing file:\n%s", s)
	}
	h.keys("<esc>")
	folded := filepath.Join(dir, "f.folded")
	h.command("save " + folded)
	h.waitFor("the save", func(m *Model) bool { return strings.HasPrefix(m.note.text.String(), "saved "+folded) })
	data, err = os.ReadFile(folded)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.Contains(l, "main.fib") {
			t.Errorf("a folded stack without main.fib under focus=fib: %q", l)
		}
	}
	h.command("save " + filepath.Join(dir, "x.png"))
	if s := h.screen(); !strings.Contains(s, ".svg or") || !strings.Contains(s, ".callgrind") {
		t.Errorf("no error for .png:\n%s", s)
	}
	h.keys("<esc>")
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the directory holds %d files, want 2 (no temporary files left)", len(entries))
	}
}

// TestCmdAndCopy: :cmd shows the command lines that reopen the view; y
// copies them, and y in a view copies the selected name, with OSC 52.
func TestCmdAndCopy(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	cfg := testConfig(testdata("cpu_labels.pb.gz"))
	cfg.Output = &out
	m := NewModel(t.Context(), cfg)
	m.sources = cfg.Sources
	m.opts.Focus = "main\\.fib"
	m.opts.Granularity = "lines"
	ours, pprof := m.commandLines()
	src := testdata("cpu_labels.pb.gz")
	if want := "pprof-tui -granularity=lines -focus='main\\.fib' " + src; ours != want {
		t.Errorf("pprof-tui line %q, want %q", ours, want)
	}
	if want := "go tool pprof -granularity=lines -nodefraction=0 -focus='main\\.fib' " + src; pprof != want {
		t.Errorf("pprof line %q, want %q", pprof, want)
	}
	cmd := m.copyText("main.fib", "main.fib")
	cmd()
	if got := out.String(); got != "\x1b]52;c;bWFpbi5maWI=\a" {
		t.Errorf("OSC 52 sequence %q", got)
	}
}

// TestInfoPanel: I shows pprof's header facts for the current settings,
// the sample types, the node counts and the settings in force.
func TestInfoPanel(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.command("tagfocus=worker=w1 nodefraction=0.05")
	h.keys("I")
	h.waitFor("the info panel", func(m *Model) bool { return m.help.shown && m.help.text != nil })
	var lines []string
	h.do(func(m *Model) { lines = m.help.lines() })
	text := strings.Join(lines, "\n")
	for _, want := range []string{
		"File: goprof", "Build ID: 4a99b1883bd589acb0d8b84bfebcbbbc9d695ef7", "Type: cpu",
		"Time: 2026-11-21 01:26:04 UTC", "Duration: 3s, Total samples = 2840ms (94.72%)",
		"   tagfocus=worker=w1", "Showing nodes accounting for",
		"Samples       222", "Period        10ms of cpu", "0  samples (count)", "▶ 1  cpu (nanoseconds)",
		"dropped below nodefraction=0.05", "tagfocus      worker=w1", "nodefraction  0.05",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the info panel lacks %q:\n%s", want, text)
		}
	}
}

// TestStatusShownOfTotal: when filters trim the samples, the status bar
// says what is shown of the total, as pprof's header does; divide_by
// scales every view's values and the status bar's alike.
func TestStatusShownOfTotal(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	if s := h.screen(); !strings.Contains(s, "│ total 2.84s │") {
		t.Errorf("no total in the status bar:\n%s", s)
	}
	h.command("tagfocus=worker=w1")
	for _, view := range []string{"1", "2", "4"} {
		h.keys(view)
		if s := h.screen(); !strings.Contains(s, "│ 690ms of 2.84s total │") {
			t.Errorf("view %s: the status bar does not read 690ms of 2.84s total:\n%s", view, s)
		}
	}
	h.command("reset divide_by=1000")
	h.keys("1")
	s := h.screen()
	if !strings.Contains(s, "│ total 2.84ms │") || !strings.Contains(s, "750us 26.41%") {
		t.Errorf("divide_by=1000 did not scale the table and the total:\n%s", s)
	}
}

// TestTopSaysDropped: the Top view's headings say when nodefraction or
// nodecount hide nodes.
func TestTopSaysDropped(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	if s := h.screen(); strings.Contains(s, "(showing ") {
		t.Errorf("a note with every node shown:\n%s", s)
	}
	h.command("nodefraction=0.05")
	if s := h.screen(); !strings.Contains(s, "(showing 24 of 102 nodes: nodefraction=0.05)") {
		t.Errorf("no note of the dropped nodes:\n%s", s)
	}
	h.command("nodecount=3")
	if s := h.screen(); !strings.Contains(s, "(3 of 102 nodes)") {
		t.Errorf("no note of nodecount:\n%s", s)
	}
}

// TestInfoPanelScreens: the info panel at 80×24 and 200×50.
func TestInfoPanelScreens(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		cfg := testConfig(testdata("cpu_labels.pb.gz"))
		cfg.Width, cfg.Height = size[0], size[1]
		h := start(t, cfg)
		h.tm.Send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		h.command("tagfocus=worker=w1")
		h.keys("I")
		h.waitFor("the info panel", func(m *Model) bool { return m.help.shown && m.help.text != nil })
		golden(t, fmt.Sprintf("cpu-info-%dx%d", size[0], size[1]), h.screen())
	}
}
