package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/views"
)

// show focuses view id as a person does: with its tab's number.
func (h *harness) show(id viewID) {
	h.t.Helper()
	h.keys(fmt.Sprint(int(id) + 1))
}

func (h *harness) peek() *views.Peek {
	var p *views.Peek
	h.do(func(m *Model) { p = m.views.get(viewPeek).(*views.Peek) })
	return p
}

// sourceConfig finds the generator's source under testdata/src.
func sourceConfig(file string) Config {
	cfg := testConfig(testdata(file))
	cfg.Options.SourcePath = filepath.Join("..", "testdata", "src")
	cfg.Options.TrimPath = "/tmp/profgen"
	return cfg
}

func TestPeekSourceScreens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		view viewID
		w, h int
		diff bool
		keys []string
	}{
		{"cpu-peek", viewPeek, testW, testH, false, nil},
		{"cpu-peek-80x24", viewPeek, 80, 24, false, nil},
		{"cpu-peek-partition", viewPeek, testW, testH, false, []string{"/", "^main.partition$"}},
		{"cpu-peek-diff", viewPeek, testW, testH, true, nil},
		{"cpu-peek-diff-80x24", viewPeek, 80, 24, true, nil},
		{"cpu-source", viewSource, testW, testH, false, nil},
		{"cpu-source-80x24", viewSource, 80, 24, false, nil},
		{"cpu-source-diff", viewSource, testW, testH, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sourceConfig("cpu_labels.pb.gz")
			cfg.Width, cfg.Height = tc.w, tc.h
			if tc.diff {
				cfg.Sources.DiffBase = []string{testdata("cpu_labels_no_w0.pb.gz")}
			}
			h := start(t, cfg)
			if len(tc.keys) > 0 {
				h.keys(tc.keys[0])
				h.typeText(tc.keys[1])
				h.keys("<enter>")
			}
			h.show(tc.view)
			golden(t, tc.name, h.screen())
		})
	}
}

// TestWalkCallers walks the call graph in the Peek view with enter and
// double clicks: each step makes the caller or callee the selection,
// the view recomputes about it, and Top shows it after a switch.
func TestWalkCallers(t *testing.T) {
	t.Parallel()
	h := start(t, sourceConfig("cpu_labels.pb.gz"))
	selected := func() string {
		var s string
		h.do(func(m *Model) { s = m.Selected() })
		return s
	}
	if s := selected(); s != "main.fib" {
		t.Fatalf("first selection %q", s)
	}
	h.show(viewPeek)
	p := h.peek()
	center := func() string {
		var name string
		h.do(func(*Model) { s, _ := p.Selection(); name = s.Name })
		return name
	}
	cursor := func() (string, bool) {
		var name string
		var edge bool
		h.do(func(*Model) { name, edge = p.Cursor() })
		return name, edge
	}
	topCursor := func() string {
		var name string
		h.do(func(m *Model) { name = m.views.top.RowName(0) })
		return name
	}
	// Up to the heaviest caller of main.fib (callers come heaviest
	// first, as in pprof's -peek), and enter.
	h.keys("g")
	if c, edge := cursor(); c != "main.runFib.func1" || !edge {
		t.Fatalf("caller above main.fib: %q", c)
	}
	h.keys("<enter>")
	waitSelected(h, "main.runFib.func1")
	if s, c := selected(), center(); s != "main.runFib.func1" || c != s {
		t.Fatalf("after enter: selected %q, peek about %q", s, c)
	}
	if !strings.Contains(h.screen(), "● main.runFib.func1") || strings.Contains(h.screen(), "computing") {
		t.Errorf("peek not recomputed:\n%s", h.screen())
	}
	var history int
	h.do(func(m *Model) { history = m.History() })
	if history != 0 {
		t.Errorf("walking changed the options (history %d)", history)
	}
	// Top shows the same function.
	h.keys("1")
	if c := topCursor(); c != "main.runFib.func1" {
		t.Errorf("Top after the walk: cursor on %q", c)
	}
	// Back in Peek, down to the callee (main.fib) and enter walks back.
	h.show(viewPeek)
	h.keys("<down>")
	if c, edge := cursor(); c != "main.fib" || !edge {
		t.Fatalf("callee below main.runFib.func1: %q", c)
	}
	h.keys("<enter>")
	waitSelected(h, "main.fib")
	// On the function itself, enter drills as everywhere (focus).
	h.keys("<enter>")
	var focus string
	h.do(func(m *Model) { focus = m.Options().Focus })
	if focus != `^main\.fib$` {
		t.Errorf("enter on the function: focus %q", focus)
	}
	h.keys("<backspace>")
	// A double click on a caller walks there: the first caller is on
	// screen line 3 (tab bar, summary, headings).
	click := func() {
		h.tm.Send(tea.MouseMsg{X: 40, Y: 3, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
		h.settle()
	}
	click()
	if s := selected(); s != "main.fib" {
		t.Errorf("one click walked to %q", s)
	}
	click()
	waitSelected(h, "main.runFib.func1")
	// Source shows the new selection too.
	h.show(viewSource)
	if s := h.screen(); !strings.Contains(s, "main.runFib.func1 in goprof/main.go") {
		t.Errorf("source after the walk:\n%s", s)
	}
}

// waitSelected waits for the selection to become name and the view's
// data for it.
func waitSelected(h *harness, name string) {
	h.t.Helper()
	h.waitFor("the selection "+name, func(m *Model) bool {
		return m.Selected() == name && m.ActiveView().HasResult()
	})
}

// listLine is a line of pprof's -list: "%10s %10s %6d:%s".
var listLine = regexp.MustCompile(`^\s*(\S+)\s+(\S+)\s+(\d+):(.*)$`)

// pprofList reads a -list golden of analysis/report (go tool pprof's
// output) and returns, per function, its header values and lines.
func pprofList(t *testing.T, golden string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "analysis", "report", "testdata", golden))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	var fn string
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "ROUTINE ======================== "); ok {
			fn, _, _ = strings.Cut(rest, " in ")
			continue
		}
		if fn == "" {
			continue
		}
		if strings.Contains(l, "(flat, cum)") {
			f := strings.Fields(l)
			out[fn] = append(out[fn], f[0]+" "+f[1]+" "+f[4])
			continue
		}
		if m := listLine.FindStringSubmatch(l); m != nil {
			out[fn] = append(out[fn], m[1]+" "+m[2]+" "+m[3]+" "+expandTabs(m[4]))
		}
	}
	return out
}

// sourceScreen reads the same from the Source view's screen.
var screenLine = regexp.MustCompile(`^\s*(\S+)\s+(\S+)\s+(\d+)(?:  (.*))?$`)

func sourceScreen(screen string) []string {
	var out []string
	for _, l := range strings.Split(screen, "\n") {
		l = strings.TrimRight(strings.Replace(l, "▶", " ", 1), " ")
		if strings.Contains(l, "(flat, cum)") {
			f := strings.Fields(l)
			out = append(out, f[0]+" "+f[1]+" "+f[4])
			continue
		}
		if m := screenLine.FindStringSubmatch(l); m != nil {
			out = append(out, m[1]+" "+m[2]+" "+m[3]+" "+m[4])
		}
	}
	return out
}

func expandTabs(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '\t' {
			b.WriteString(strings.Repeat(" ", 4-b.Len()%4))
			continue
		}
		b.WriteRune(r)
	}
	return strings.TrimRight(b.String(), " ")
}

// TestSourceGutterMatchesPprof selects functions by searching in Top,
// switches to Source, and holds every line of the gutter (flat, cum,
// line number), the text and the header totals against go tool pprof's
// -list of the same function, for the Go profile and for the gperftools
// profile symbolized with its binary.
func TestSourceGutterMatchesPprof(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		cfg    func() Config
		golden string
		fns    []string
	}{
		{"go", func() Config { return sourceConfig("cpu_labels.pb.gz") }, "list-main.txt",
			[]string{"main.fib", "main.partition", "main.hashBlock", "main.quicksort", "main.buildStrings"}},
		{"c", func() Config {
			cfg := testConfig(filepath.Join("..", "testdata", "legacy", "cpu.prof"))
			cfg.Sources.Binary = filepath.Join("..", "testdata", "legacy", "cpubench")
			cfg.Load.NoInlines, cfg.Options.NoInlines = true, true
			cfg.Options.SourcePath = filepath.Join("..", "testdata", "legacy")
			cfg.Options.TrimPath = "/tmp/gperftools-build"
			return cfg
		}, "list-c.txt", []string{"fib", "partition", "quicksort", "matmul"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := pprofList(t, tc.golden)
			cfg := tc.cfg()
			cfg.Width, cfg.Height = 160, 60
			h := start(t, cfg)
			for _, fn := range tc.fns {
				h.keys("1", "/")
				h.typeText("^" + regexp.QuoteMeta(fn) + "$")
				h.keys("<enter>", "<esc>")
				h.show(viewSource)
				got := sourceScreen(h.screen())
				w := want[fn]
				if len(w) == 0 {
					t.Fatalf("%s: not in %s", fn, tc.golden)
				}
				var u topUnits
				h.do(func(m *Model) {
					u.sample = m.engine.Profile().SampleTypes[m.prof.DefaultSampleIndex()].Unit
					u.table = u.sample // -list labels each value on its own
				})
				if !sameGutter(got, w, u) {
					t.Errorf("%s: the source view differs from pprof's -list\n got:\n%s\nwant:\n%s", fn, strings.Join(got, "\n"), strings.Join(w, "\n"))
				}
			}
		})
	}
}

// sameGutter reports whether source lines got show pprof's -list lines
// want: the same text, and the same flat and cum, which pprof scales
// value by value and the explorer in one unit for the listing.
func sameGutter(got, want []string, u topUnits) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := strings.SplitN(got[i], " ", 3), strings.SplitN(want[i], " ", 3)
		if len(g) != 3 || len(w) != 3 || g[2] != w[2] {
			return false
		}
		for k := range 2 {
			if g[k] != w[k] && !sameValue(g[k], w[k], u) {
				return false
			}
		}
	}
	return true
}

// The Source view keeps the function's title and totals on screen
// however far the source scrolls (issue 13: at 80×24 they scrolled off
// with goroutine.pb.gz's hot line far down a long file).
func TestSourceHeaderPinned(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		cfg := sourceConfig("cpu_labels.pb.gz")
		cfg.Width, cfg.Height = size[0], size[1]
		h := start(t, cfg)
		h.keys("/")
		h.typeText("^main.cpuPhase$") // 31 lines of source
		h.keys("<enter>", "<esc>")
		h.show(viewSource)
		h.keys("G")
		s := h.screen()
		lines := strings.Split(s, "\n")
		if !strings.HasPrefix(lines[2], " main.cpuPhase in goprof/main.go") || !strings.Contains(lines[3], "(flat, cum)") {
			t.Errorf("%dx%d: the header scrolled off:\n%s", size[0], size[1], s)
		}
		if !strings.Contains(s, "▶") {
			t.Errorf("%dx%d: the cursor is off screen:\n%s", size[0], size[1], s)
		}
		golden(t, fmt.Sprintf("cpu-source-end-%dx%d", size[0], size[1]), s)
	}
}
