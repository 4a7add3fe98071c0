package tui

import (
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// Key-sequence tests of the command line: several settings per line,
// quoting, errors that keep the line, history, completion and :help.

func (h *harness) options() analysis.Options {
	var o analysis.Options
	h.do(func(m *Model) { o = m.Options() })
	return o
}

func (h *harness) inputLine() string {
	var v string
	h.do(func(m *Model) { v = m.line.input.Value() })
	return v
}

// completes types typed on a new command line, presses tab, and
// checks the line then reads want.
func (h *harness) completes(typed, want string) {
	h.t.Helper()
	h.keys(":")
	h.typeText(typed)
	h.keys("<tab>")
	if line := h.inputLine(); line != want {
		h.t.Fatalf("completed to %q", line)
	}
}

func TestCommandSeveralSettings(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.command("focus=fib ignore=runtime")
	o := h.options()
	if o.Focus != "fib" || o.Ignore != "runtime" {
		t.Fatalf("focus %q ignore %q, want fib and runtime", o.Focus, o.Ignore)
	}
	s := h.screen()
	if !strings.Contains(s, "focus=fib › ignore=runtime") {
		t.Errorf("the status bar does not show both filters:\n%s", s)
	}
	if strings.Contains(s, "runtime.") {
		t.Errorf("runtime frames remain under ignore=runtime:\n%s", s)
	}
	// One line is one history step.
	var depth int
	h.do(func(m *Model) { depth = m.History() })
	if depth != 1 {
		t.Errorf("history depth %d after one line, want 1", depth)
	}
	// Quotes group a value with spaces; backslashes stay for the regexp.
	h.command(`reset focus="main\.(fib|partition)" hide='x y' lines`)
	o = h.options()
	if o.Focus != `main\.(fib|partition)` || o.Hide != "x y" || o.Granularity != "lines" {
		t.Errorf("got focus %q hide %q granularity %q", o.Focus, o.Hide, o.Granularity)
	}
	// Choices and booleans by name; a sample type by its name.
	h.command("cum=true noinlines samples")
	o = h.options()
	if o.Sort != "cum" || !o.NoInlines || o.SampleIndex != "samples" {
		t.Errorf("got sort %q noinlines %v sample_index %q", o.Sort, o.NoInlines, o.SampleIndex)
	}
}

func TestCommandErrorKeepsLine(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	for _, tc := range []struct{ line, err string }{
		{"fcous=fib", "fcous: unknown setting; did you mean focus?"},
		{"focus=fib nodefraction=2", `nodefraction: "2" is not a fraction between 0 and 1`},
		{`focus="fib`, "unterminated \" quote"},
		{"focus", "focus needs a value: focus=RE"},
		{"sample_index=nope", `sample type "nope" not found`},
	} {
		h.command(tc.line)
		s := h.screen()
		if !strings.Contains(s, tc.err) {
			t.Errorf("%s: no error %q:\n%s", tc.line, tc.err, s)
		}
		if got := h.inputLine(); got != tc.line {
			t.Errorf("%s: the line holds %q after the error", tc.line, got)
		}
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, tc.err) && len([]rune(strings.TrimRight(l, " "))) > 80 {
				t.Errorf("%s: the error line is wider than 80 columns: %q", tc.line, l)
			}
		}
		h.keys("<esc>")
		if o := h.options(); o != uiOptions() {
			t.Fatalf("%s: a bad line changed the options: %+v", tc.line, o)
		}
	}
}

func TestCommandHistory(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.command("focus=fib")
	h.command("hide=runtime")
	h.keys(":", "<up>")
	if v := h.inputLine(); v != "hide=runtime" {
		t.Fatalf("up recalled %q", v)
	}
	h.keys("<up>")
	if v := h.inputLine(); v != "focus=fib" {
		t.Fatalf("up, up recalled %q", v)
	}
	h.keys("<up>") // the oldest stays
	if v := h.inputLine(); v != "focus=fib" {
		t.Fatalf("up past the oldest gave %q", v)
	}
	h.keys("<down>", "<down>")
	if v := h.inputLine(); v != "" {
		t.Fatalf("down past the newest gave %q", v)
	}
	h.keys("<up>", "<enter>") // runs hide=runtime again: no change
	if o := h.options(); o.Hide != "runtime" || o.Focus != "fib" {
		t.Errorf("options %+v", o)
	}
}

func TestCompletionLabels(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.keys(":")
	h.typeText("tagfocus=wo")
	h.keys("<tab>")
	if v := h.inputLine(); v != "tagfocus=worker=" {
		t.Fatalf("completed the key to %q", v)
	}
	h.keys("<tab>")
	s := h.screen()
	for _, w := range []string{"w0", "w1", "w2", "w3"} {
		if !strings.Contains(s, w) {
			t.Errorf("value %s not listed:\n%s", w, s)
		}
	}
	h.typeText("1")
	h.keys("<tab>")
	if v := h.inputLine(); v != "tagfocus=worker=w1" {
		t.Fatalf("completed the value to %q", v)
	}
	h.keys("<enter>")
	if o := h.options(); o.TagFocus != "worker=w1" {
		t.Errorf("tagfocus %q", o.TagFocus)
	}
	// A second word completes on its own.
	h.keys(":")
	h.typeText("focus=fib gran")
	h.keys("<tab>")
	if v := h.inputLine(); v != "focus=fib granularity=" {
		t.Errorf("completed to %q", v)
	}
	h.keys("<esc>")
}

// TestCompletionPages: a long list shows in pages, each whole words,
// and tab turns the page.
func TestCompletionPages(t *testing.T) {
	t.Parallel()
	cfg := testConfig(testdata("cpu_labels.pb.gz"))
	cfg.Width, cfg.Height = 80, 24
	h := start(t, cfg)
	h.keys(":")
	h.typeText("focus=")
	h.keys("<tab>")
	s := h.screen()
	if !strings.Contains(s, "page 1/") {
		t.Fatalf("no pages for the function names:\n%s", s)
	}
	h.keys("<tab>")
	if s2 := h.screen(); !strings.Contains(s2, "page 2/") || s2 == s {
		t.Errorf("tab did not turn the page:\n%s", s2)
	}
	var names []string
	h.do(func(m *Model) { names = m.line.comp.shown })
	for _, l := range strings.Split(s, "\n") {
		for _, f := range strings.Fields(l) {
			if strings.HasSuffix(f, "…") {
				t.Errorf("a candidate is cut: %q", f)
			}
		}
	}
	if len(names) < 20 {
		t.Errorf("only %d candidates for focus=", len(names))
	}
}

func TestHelpSettings(t *testing.T) {
	t.Parallel()
	cfg := testConfig(testdata("cpu_labels.pb.gz"))
	h := start(t, cfg)
	h.command("focus=fib")
	h.command("help")
	var lines []string
	h.do(func(m *Model) { lines = m.help.lines() })
	text := strings.Join(lines, "\n")
	for _, s := range analysis.Settings() {
		if !strings.Contains(text, s.Name) {
			t.Errorf(":help does not list %s", s.Name)
		}
	}
	if !strings.Contains(text, "focus                 fib") {
		t.Errorf(":help does not show focus's value:\n%s", text)
	}
}

func TestHelpOneSetting(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.command("help granularity")
	s := h.screen()
	for _, want := range []string{"granularity", "functions, filefunctions, files, lines, addresses", "flag -granularity"} {
		if !strings.Contains(s, want) {
			t.Errorf(":help granularity lacks %q:\n%s", want, s)
		}
	}
	h.keys("x") // any other key closes
	h.command("help nosuch")
	if s := h.screen(); !strings.Contains(s, "nosuch: unknown setting") {
		t.Errorf("no error for :help nosuch:\n%s", s)
	}
}

// TestDrillAndFocus: enter drills (the focus becomes the selected
// function alone); f adds the function to the focus, as i and H add to
// theirs.
func TestDrillAndFocus(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	find := func(name string) {
		h.keys("/")
		h.typeText("^" + name + "$")
		h.keys("<enter>", "<esc>")
		var sel string
		h.do(func(m *Model) { sel = m.Selected() })
		if sel != name {
			t.Fatalf("selected %q, want %q", sel, name)
		}
	}
	find("main.fib")
	h.keys("f")
	if o := h.options(); o.Focus != `^main\.fib$` {
		t.Fatalf("f: focus %q", o.Focus)
	}
	find("main.runFib")
	h.keys("f")
	if o := h.options(); o.Focus != `^main\.fib$|^main\.runFib$` {
		t.Fatalf("f, f: focus %q", o.Focus)
	}
	h.keys("<enter>")
	if o := h.options(); o.Focus != `^main\.runFib$` {
		t.Fatalf("enter: focus %q", o.Focus)
	}
}

// TestHelpVerb: :help explains the : line's own commands from their
// table, and tab completes their names.
func TestHelpVerb(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.command("help save")
	if s := h.screen(); !strings.Contains(s, ":save FILE") || !strings.Contains(s, ".pb.gz profile") {
		t.Errorf(":help save:\n%s", s)
	}
	h.keys("x")
	h.keys(":")
	h.typeText("cm")
	h.keys("<tab>")
	var line string
	h.do(func(m *Model) { line = m.line.input.Value() })
	if line != "cmd" {
		t.Errorf("completed cm to %q", line)
	}
}
