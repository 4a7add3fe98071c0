package tui

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/analysis/report"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/internal/synth"
	"github.com/pprof-tui/pprof-tui/views"
)

// pprofTop returns the rows of the -top report for file and opt, as
// report.Top (byte for byte pprof's) prints them, and the units its
// values and the explorer's read in.
func pprofTop(t *testing.T, file string, opt analysis.Options) ([]string, topUnits) {
	t.Helper()
	p, err := format.Load(context.Background(), format.Sources{Sources: []string{file}}, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := analysis.NewEngine(p)
	top, err := e.Top(opt)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := report.Top(&b, p, top, opt); err != nil {
		t.Fatal(err)
	}
	zero := opt.Unit
	if zero == "" || zero == "minimum" {
		zero = analysis.OutputUnit(top, top.SampleType.Unit)
	}
	u := topUnits{top.SampleType.Unit, zero}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for i, l := range lines {
		if strings.Contains(l, "flat%") {
			return lines[i+1:], u
		}
	}
	t.Fatalf("no table in:\n%s", b.String())
	return nil, u
}

// topUnits says how a Top table's values read: the sample type's unit,
// and the unit of pprof's table, in which its "0" is any value below
// half a hundredth.
type topUnits struct{ sample, table string }

// sameValue reports whether the explorer's value got is pprof's want:
// the same quantity within the rounding of each ("0.75s" is "750ms";
// pprof's "0" is any value below half a hundredth of its table's unit).
func sameValue(got, want string, u topUnits) bool {
	g, gstep, ok1 := parseValue(got, u)
	w, wstep, ok2 := parseValue(want, u)
	return ok1 && ok2 && math.Abs(g-w) <= (gstep+wstep)/2*1.0001
}

// parseValue reads a printed value in the sample unit, with the step of
// its last digit.
func parseValue(s string, u topUnits) (v, step float64, ok bool) {
	i := strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune("+-.0123456789", r) })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], s[i:]
	}
	x, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, 0, false
	}
	size := func(unit string) float64 {
		if unit == "" {
			return 1
		}
		f, _ := analysis.ScaleValue(1, unit, u.sample)
		return f
	}
	if s == "0" {
		// Rounded to zero in the table's unit.
		return 0, size(u.table) / 100, true
	}
	step = size(unit)
	if i := strings.IndexByte(num, '.'); i >= 0 {
		step /= math.Pow(10, float64(len(num)-i-1))
	}
	return x * size(unit), step, true
}

// screenRows returns the table rows of a Top screen: the lines between
// the headings and the status bar, without the cursor mark.
func screenRows(screen string) []string {
	lines := strings.Split(screen, "\n")
	var out []string
	for _, l := range lines[2 : len(lines)-2] {
		l = strings.TrimRight(l, " ")
		if l == "" {
			continue
		}
		out = append(out, strings.Replace(l, "▶", " ", 1))
	}
	return out
}

// checkTop asserts that the Top screen shows pprof's rows for opt.
func checkTop(t *testing.T, h *harness, file string, opt analysis.Options) {
	t.Helper()
	want, units := pprofTop(t, file, opt)
	h.keys("g")
	got := screenRows(h.screen())
	if len(got) == 0 {
		t.Fatalf("no rows on screen:\n%s", h.screen())
	}
	for i, g := range got {
		if i >= len(want) {
			t.Fatalf("screen row %d %q: pprof has only %d rows", i, g, len(want))
		}
		if g != want[i] && !sameRow(g, want[i], units) {
			t.Errorf("row %d:\n got %q\nwant %q", i, g, want[i])
		}
	}
}

// sameRow reports whether a screen row shows pprof's row: the same five
// numbers (the values in the explorer's unit: sameValue), and the name,
// or the name cut to fit (its visible pieces in pprof's name in order).
func sameRow(got, want string, u topUnits) bool {
	gf, wf := strings.Fields(got), strings.Fields(want)
	if len(gf) < 6 || len(wf) < 6 {
		return false
	}
	for k := range 5 {
		if gf[k] != wf[k] && (k != 0 && k != 3 || !sameValue(gf[k], wf[k], u)) {
			return false
		}
	}
	gname, wname := strings.Join(gf[5:], " "), strings.Join(wf[5:], " ")
	if gname == wname {
		return true
	}
	if !strings.Contains(gname, "…") {
		return false
	}
	rest := wname
	for _, piece := range strings.Split(gname, "…") {
		piece = strings.TrimSpace(piece)
		i := strings.Index(rest, piece)
		if i < 0 {
			return false
		}
		rest = rest[i+len(piece):]
	}
	return true
}

func uiOptions() analysis.Options {
	o := analysis.DefaultOptions()
	o.NodeFraction = 0
	return o
}

func TestGoldenScreens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, file string
		keys       []string
		diffBase   string
		w, h       int
	}{
		{"cpu-top", "cpu_labels.pb.gz", nil, "", 0, 0},
		{"cpu-tree", "cpu_labels.pb.gz", []string{"2"}, "", 0, 0},
		{"cpu-tree-inverted", "cpu_labels.pb.gz", []string{"2", "b"}, "", 0, 0},
		{"cpu-labels", "cpu_labels.pb.gz", []string{"3"}, "", 0, 0},
		{"cpu-help", "cpu_labels.pb.gz", []string{"?"}, "", 0, 0},
		{"heap-top", "heap.pb.gz", nil, "", 0, 0},
		{"heap-tree", "heap.pb.gz", []string{"2"}, "", 0, 0},
		{"heap-labels", "heap.pb.gz", []string{"3"}, "", 0, 0},
		{"block-top", "block.pb.gz", nil, "", 0, 0},
		{"cpu-flame", "cpu_labels.pb.gz", []string{"4"}, "", 0, 0},
		{"cpu-flame-zoomed", "cpu_labels.pb.gz", []string{"4", "g", "<down>", "<down>", "<down>", "<down>", "<right>", "<right>", "<enter>", "<down>", "<down>"}, "", 0, 0},
		{"cpu-flame-80x24", "cpu_labels.pb.gz", []string{"4"}, "", 80, 24},
		{"cpu-flame-diff", "cpu_labels.pb.gz", []string{"4"}, "cpu_labels_no_w0.pb.gz", 0, 0},
		// cpu_labels_no_w0 is cpu_labels without one worker: the diff
		// against it shows growth (cpu_labels is the newer profile).
		{"diff-cpu-top", "cpu_labels.pb.gz", nil, "cpu_labels_no_w0.pb.gz", 0, 0},
		{"diff-cpu-tree", "cpu_labels.pb.gz", []string{"2"}, "cpu_labels_no_w0.pb.gz", 0, 0},
		{"diff-cpu-labels", "cpu_labels.pb.gz", []string{"3"}, "cpu_labels_no_w0.pb.gz", 0, 0},
		{"diff-reverse-top", "cpu_labels_no_w0.pb.gz", nil, "cpu_labels.pb.gz", 0, 0},
		{"goroutine-flame-diff-zoomed", "../notes/goroutine1.pb.gz", []string{"4", "w", "g", "<down>", "<right>", "<right>", "<right>", "<right>", "<enter>"}, "../notes/goroutine2.pb.gz", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(testdata(tc.file))
			if tc.diffBase != "" {
				cfg.Sources.DiffBase = []string{testdata(tc.diffBase)}
			}
			if tc.w > 0 {
				cfg.Width, cfg.Height = tc.w, tc.h
			}
			h := start(t, cfg)
			h.keys(tc.keys...)
			if tc.name == "cpu-tree-inverted" {
				h.waitFor("the inverted tree", func(m *Model) bool {
					return strings.Contains(m.View(), "inverted tree")
				})
			}
			golden(t, tc.name, h.screen())
		})
	}
}

func TestTopEqualsPprof(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"cpu_labels.pb.gz", "heap.pb.gz", "block.pb.gz", "mutex.pb.gz", "goroutine.pb.gz"} {
		t.Run(file, func(t *testing.T) {
			h := start(t, testConfig(testdata(file)))
			checkTop(t, h, testdata(file), uiOptions())
		})
	}
}

func TestStatusBar(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("heap.pb.gz")))
	s := h.screen()
	status := strings.Split(s, "\n")[testH-2]
	for _, want := range []string{"heap.pb.gz", "inuse_space (bytes)", "total 17.3MB", "functions"} {
		if !strings.Contains(status, want) {
			t.Errorf("status bar %q lacks %q", status, want)
		}
	}
}

func TestSampleTypeSwitch(t *testing.T) {
	t.Parallel()
	file := testdata("heap.pb.gz")
	h := start(t, testConfig(file))
	// heap: alloc_objects, alloc_space, inuse_objects, inuse_space; the
	// default is the last, and s goes round to the first.
	for _, want := range []string{"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"} {
		h.keys("s")
		var opts analysis.Options
		h.do(func(m *Model) { opts = m.Options() })
		if opts.SampleIndex != want {
			t.Fatalf("after s: sample_index %q, want %q", opts.SampleIndex, want)
		}
		if !strings.Contains(h.screen(), " "+want+" (") {
			t.Errorf("status bar does not name %s:\n%s", want, h.screen())
		}
		o := uiOptions()
		o.SampleIndex = want
		checkTop(t, h, file, o)
	}
	// The command line does the same, by name or index.
	h.command("sample_index=alloc_space")
	o := uiOptions()
	o.SampleIndex = "alloc_space"
	checkTop(t, h, file, o)
	h.command("sample_index=0")
	o.SampleIndex = "0"
	checkTop(t, h, file, o)
	// A wrong name changes nothing and says so.
	h.command("sample_index=nope")
	if s := h.screen(); !strings.Contains(s, `sample type "nope" not found`) {
		t.Errorf("no error for a bad sample type:\n%s", s)
	}
	checkTop(t, h, file, o)
}

// TestFilters adds each kind of filter from the selected row and from
// the command line, checks the table against pprof's, and undoes it.
func TestFilters(t *testing.T) {
	t.Parallel()
	file := testdata("cpu_labels.pb.gz")
	h := start(t, testConfig(file))
	base := uiOptions()
	checkTop(t, h, file, base)
	for _, tc := range []struct {
		name  string
		keys  []string
		check func(o analysis.Options) bool
	}{
		{"focus", []string{"f"}, func(o analysis.Options) bool { return o.Focus == `^main\.fib$` }},
		{"drill", []string{"<enter>"}, func(o analysis.Options) bool { return o.Focus == `^main\.fib$` }},
		{"ignore", []string{"i"}, func(o analysis.Options) bool { return o.Ignore == `^main\.fib$` }},
		{"hide", []string{"H"}, func(o analysis.Options) bool { return o.Hide == `^main\.fib$` }},
		{"show", []string{":", "show=main", "<enter>"}, func(o analysis.Options) bool { return o.Show == "main" }},
		{"show_from", []string{":", "show_from=main.cpuPhase", "<enter>"}, func(o analysis.Options) bool { return o.ShowFrom == "main.cpuPhase" }},
		{"prune_from", []string{":", "prune_from=runtime", "<enter>"}, func(o analysis.Options) bool { return o.PruneFrom == "runtime" }},
		{"tagfocus", []string{":", "tagfocus=worker=w1", "<enter>"}, func(o analysis.Options) bool { return o.TagFocus == "worker=w1" }},
		{"tagignore", []string{":", "tagignore=algo=fib", "<enter>"}, func(o analysis.Options) bool { return o.TagIgnore == "algo=fib" }},
		{"granularity", []string{":", "granularity=lines", "<enter>"}, func(o analysis.Options) bool { return o.Granularity == "lines" }},
		{"mean", []string{":", "mean=true", "<enter>"}, func(o analysis.Options) bool { return o.Mean }},
		{"noinlines", []string{":", "noinlines=true", "<enter>"}, func(o analysis.Options) bool { return o.NoInlines }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.keys("g")
			for _, k := range tc.keys {
				if strings.Contains(k, "=") {
					h.typeText(k)
				} else {
					h.keys(k)
				}
			}
			var opts analysis.Options
			var depth int
			h.do(func(m *Model) { opts, depth = m.Options(), m.History() })
			if !tc.check(opts) {
				t.Fatalf("options after %v: %+v\n%s", tc.keys, opts, h.screen())
			}
			if depth != 1 {
				t.Errorf("history depth %d, want 1", depth)
			}
			checkTop(t, h, file, opts)
			if fs := opts.Filters(); len(fs) > 0 && !strings.Contains(h.screen(), fs[0].String()[:min(len(fs[0].String()), 14)]) {
				t.Errorf("status bar lacks the filter %s:\n%s", fs[0], h.screen())
			}
			h.keys("<backspace>")
			h.do(func(m *Model) { opts, depth = m.Options(), m.History() })
			if opts != base || depth != 0 {
				t.Fatalf("back did not restore the options: %+v (history %d)", opts, depth)
			}
			checkTop(t, h, file, base)
		})
	}
}

func TestFiltersStackAndReset(t *testing.T) {
	t.Parallel()
	file := testdata("cpu_labels.pb.gz")
	h := start(t, testConfig(file))
	h.keys("i", "j", "i") // ignore the first row, then the new second one
	var o analysis.Options
	h.do(func(m *Model) { o = m.Options() })
	if o.Ignore != `^main\.fib$|^main\.partition$` {
		t.Fatalf("ignore %q", o.Ignore)
	}
	checkTop(t, h, file, o)
	h.command("reset")
	h.do(func(m *Model) { o = m.Options() })
	if o != uiOptions() {
		t.Fatalf("reset left %+v", o)
	}
	h.command("focus=fib")
	h.command("") // a bare : and enter clears the filters too
	h.do(func(m *Model) { o = m.Options() })
	if o != uiOptions() {
		t.Fatalf("bare enter left %+v", o)
	}
}

func TestBadRegexpChangesNothing(t *testing.T) {
	t.Parallel()
	file := testdata("cpu_labels.pb.gz")
	h := start(t, testConfig(file))
	before := h.screen()
	h.command("focus=main.(fib")
	var o analysis.Options
	var depth int
	h.do(func(m *Model) { o, depth = m.Options(), m.History() })
	if o != uiOptions() || depth != 0 {
		t.Fatalf("a bad regexp changed the options: %+v", o)
	}
	s := h.screen()
	if !strings.Contains(s, "focus: invalid regexp") {
		t.Errorf("no inline error:\n%s", s)
	}
	// The line stays open with the text for editing.
	var line string
	h.do(func(m *Model) { line = m.line.input.Value() })
	if line != "focus=main.(fib" {
		t.Errorf("the command line holds %q after the error", line)
	}
	// Closed, everything is as it was.
	h.keys("<esc>")
	if s := h.screen(); s != before {
		t.Errorf("the screen changed:\n%s", s)
	}
	h.command("tagfocus=worker=(")
	h.keys("<esc>")
	h.do(func(m *Model) { o = m.Options() })
	if o != uiOptions() {
		t.Fatalf("a bad tag filter changed the options: %+v", o)
	}
	h.command("nosuchoption=1")
	if s := h.screen(); !strings.Contains(s, "nosuchoption: unknown setting") {
		t.Errorf("no error for an unknown option:\n%s", s)
	}
	h.keys("<esc>")
}

func TestLabelFilters(t *testing.T) {
	t.Parallel()
	file := testdata("cpu_labels.pb.gz")
	h := start(t, testConfig(file))
	h.keys("3", "j", "j") // algo: fib, hash
	h.keys("<enter>")
	var o analysis.Options
	h.do(func(m *Model) { o = m.Options() })
	if o.TagFocus != "algo=^hash$" {
		t.Fatalf("tagfocus %q", o.TagFocus)
	}
	if s := h.screen(); !strings.Contains(s, "algo:  Total 700ms of 2.84s (24.65%)") || strings.Contains(s, "fib") {
		t.Errorf("labels after tagfocus:\n%s", s)
	}
	h.keys("1")
	checkTop(t, h, file, o)
	h.keys("<backspace>", "3", "g", "j", "i") // tagignore algo=fib
	h.do(func(m *Model) { o = m.Options() })
	if o.TagIgnore != "algo=^fib$" || o.TagFocus != "" {
		t.Fatalf("options %+v", o)
	}
	h.keys("1")
	checkTop(t, h, file, o)
	h.keys("3", "g", "H") // taghide the key algo
	h.do(func(m *Model) { o = m.Options() })
	if o.TagHide != "^algo$" {
		t.Fatalf("taghide %q", o.TagHide)
	}
	if strings.Contains(h.screen(), "algo:") {
		t.Errorf("algo still shown:\n%s", h.screen())
	}
}

func TestSearch(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	cursor := func() string {
		var name string
		h.do(func(m *Model) { name = m.views.top.RowName(0) })
		return name
	}
	h.keys("/")
	h.typeText("part")
	if c := cursor(); c != "main.partition" {
		t.Fatalf("incremental search: cursor on %q", c)
	}
	h.keys("<enter>", "n")
	if c := cursor(); c != "slices.partitionOrdered[go.shape.string]" {
		t.Errorf("n: cursor on %q", c)
	}
	h.keys("N")
	if c := cursor(); c != "main.partition" {
		t.Errorf("N: cursor on %q", c)
	}
	// Letters go to the search line, not to the key bindings.
	h.keys("/")
	h.typeText("q?s")
	var mode inputMode
	h.do(func(m *Model) { mode = m.line.mode })
	if mode != inputSearch {
		t.Fatalf("q or ? left the search line")
	}
	h.keys("<esc>")
	h.do(func(m *Model) { mode = m.line.mode })
	if mode != inputNone {
		t.Fatal("esc did not close the search line")
	}
	var re *regexp.Regexp
	h.do(func(m *Model) { re = m.search })
	if re != nil {
		t.Error("esc did not clear the search")
	}
	// A bad regexp is reported and keeps the last good search.
	h.keys("/")
	h.typeText("fib(")
	if s := h.screen(); !strings.Contains(s, "bad regexp") {
		t.Errorf("no error for a bad regexp:\n%s", s)
	}
	h.keys("<esc>")
	// Search works in the tree too.
	h.keys("2", "/")
	h.typeText("runFib")
	var node string
	h.do(func(m *Model) {
		tr := m.views.get(viewTree).(*views.Tree)
		if n := tr.Cursor(); n != nil {
			sel, _ := tr.Selection()
			node = sel.Name
		}
	})
	if node != "main.runFib" {
		t.Errorf("tree search: cursor on %q", node)
	}
	// A function in a closed part of the tree is found, its path opened,
	// and n walks on to its next occurrence (main.mix is under hashBlock,
	// which sits under the closed main.runHash, and also elsewhere).
	h.keys("c", "<esc>", "/")
	h.typeText("main\\.mix")
	h.keys("enter")
	treeCursor := func() (string, int) {
		var name string
		var depth int
		h.do(func(m *Model) {
			tr := m.views.get(viewTree).(*views.Tree)
			if n := tr.Cursor(); n != nil {
				sel, _ := tr.Selection()
				name, depth = sel.Name, n.Depth
			}
		})
		return name, depth
	}
	name, depth := treeCursor()
	if name != "main.mix" || depth < 2 {
		t.Errorf("search into closed nodes: cursor on %q at depth %d:\n%s", name, depth, h.screen())
	}
	first := h.screen()
	h.keys("n")
	if name, _ := treeCursor(); name != "main.mix" {
		t.Errorf("n: cursor on %q", name)
	}
	if h.screen() == first {
		t.Errorf("n did not move to another main.mix:\n%s", first)
	}
}

func TestTreeKeys(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.keys("2", "R", "R") // fold direct recursion: main.fib is one row
	if !strings.Contains(h.screen(), "recursion=direct") {
		t.Fatalf("R R: no recursion=direct in the status bar:\n%s", h.screen())
	}
	rows := func() int {
		n := 0
		for _, l := range strings.Split(h.screen(), "\n")[2 : testH-2] {
			if strings.TrimSpace(l) != "" {
				n++
			}
		}
		return n
	}
	opened := rows()
	h.keys("c")
	if n := rows(); n != 2 {
		t.Errorf("collapse all: %d rows, want the 2 roots:\n%s", n, h.screen())
	}
	h.keys("e")
	if n := rows(); n != opened {
		t.Errorf("heaviest path: %d rows, want %d:\n%s", n, opened, h.screen())
	}
	var sel views.Selection
	h.do(func(m *Model) { sel, _ = m.ActiveView().Selection() })
	if sel.Name != "main.fib" {
		t.Errorf("heaviest path ends at %q, want main.fib", sel.Name)
	}
	h.keys("h") // main.fib is a leaf: h goes to its parent
	h.keys("<left>")
	if n := rows(); n != opened-1 {
		t.Errorf("collapse: %d rows, want %d", n, opened-1)
	}
	h.keys("<space>")
	if n := rows(); n != opened {
		t.Errorf("toggle: %d rows, want %d", n, opened)
	}
	// Drill in from the tree and go back.
	h.keys("<enter>")
	var o analysis.Options
	h.do(func(m *Model) { o = m.Options() })
	if o.Focus != `^main\.runFib\.func1$` {
		t.Errorf("drill from the tree: focus %q", o.Focus)
	}
	h.keys("<backspace>")
	h.do(func(m *Model) { o = m.Options() })
	if o.Focus != "" {
		t.Errorf("back: focus %q", o.Focus)
	}
}

// TestTreeEqualsAnalysis checks the numbers of the tree's first screen
// against analysis.Tree.
func TestTreeEqualsAnalysis(t *testing.T) {
	t.Parallel()
	file := testdata("cpu_labels.pb.gz")
	h := start(t, testConfig(file))
	h.keys("2", "R", "R")
	p, err := format.Load(context.Background(), format.Sources{Sources: []string{file}}, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opt := uiOptions()
	opt.Recursion = analysis.RecursionDirect
	tr, err := analysis.NewEngine(p).Tree(opt, analysis.TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(h.screen(), "\n")
	unit := p.SampleTypes[p.DefaultSampleIndex()].Unit
	n := tr.Roots()[0]
	for i, path := range tr.HeaviestPath(n) {
		label := func(v int64) string { return analysis.ReadableLabel(float64(v), unit, "") }
		want := fmt.Sprintf("%10s %s %10s %s", label(path.Total), analysis.Percentage(path.Total, tr.Total),
			label(path.Self), analysis.Percentage(path.Self, tr.Total))
		got := strings.Replace(lines[2+i], "▶", " ", 1)
		if !strings.HasPrefix(got, want) || !strings.Contains(got, tr.Nodes.Name(path.Node)) {
			t.Errorf("tree row %d:\n got %q\nwant %q … %s", i, got, want, tr.Nodes.Name(path.Node))
		}
	}
}

func TestResize(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	for _, size := range [][2]int{{80, 24}, {160, 45}, {40, 10}, {120, 35}} {
		h.tm.Send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		for _, view := range []string{"1", "2", "3", "4", "5", "6", "?"} {
			h.keys(view)
			s := h.screen()
			lines := strings.Split(s, "\n")
			if len(lines) != size[1] {
				t.Errorf("%dx%d view %s: %d lines", size[0], size[1], view, len(lines))
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > size[0] {
					t.Errorf("%dx%d view %s: line %d is %d wide: %q", size[0], size[1], view, i, w, l)
				}
			}
			if view == "?" {
				h.keys("<esc>")
			}
		}
	}
	h.tm.Send(tea.WindowSizeMsg{Width: 39, Height: 9})
	if s := h.screen(); !strings.Contains(s, "too small") {
		t.Errorf("39x9:\n%s", s)
	}
	h.tm.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.keys("3") // the view this golden has always shown
	golden(t, "cpu-top-80x24", h.screen())
}

func TestCompletion(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("heap.pb.gz")))
	h.keys(":")
	h.typeText("sam")
	h.keys("<tab>")
	value := func() string {
		var v string
		h.do(func(m *Model) { v = m.line.input.Value() })
		return v
	}
	if v := value(); v != "sample_index=" {
		t.Fatalf("completed to %q", v)
	}
	h.typeText("alloc")
	h.keys("<tab>")
	if v := value(); v != "sample_index=alloc_" {
		t.Fatalf("completed to %q", v)
	}
	if s := h.screen(); !strings.Contains(s, "alloc_objects  alloc_space") {
		t.Errorf("candidates not listed:\n%s", s)
	}
	h.typeText("s")
	h.keys("<tab>")
	if v := value(); v != "sample_index=alloc_space" {
		t.Fatalf("completed to %q", v)
	}
	h.keys("<enter>")
	var o analysis.Options
	h.do(func(m *Model) { o = m.Options() })
	if o.SampleIndex != "alloc_space" {
		t.Errorf("sample_index %q", o.SampleIndex)
	}
	// Granularity values complete too.
	h.keys(":")
	h.typeText("granularity=li")
	h.keys("<tab>")
	if v := value(); v != "granularity=lines" {
		t.Fatalf("completed to %q", v)
	}
	h.keys("<esc>")
}

func TestSort(t *testing.T) {
	t.Parallel()
	file := testdata("cpu_labels.pb.gz")
	h := start(t, testConfig(file))
	h.keys("o") // by cum: must be pprof's -cum order
	o := uiOptions()
	o.Sort = "cum"
	checkTop(t, h, file, o)
	h.keys("o") // by name
	rows := screenRows(h.screen())
	var names []string
	for _, r := range rows {
		names = append(names, strings.TrimSuffix(strings.Fields(r)[5], " (inline)"))
	}
	for i := 1; i < len(names); i++ {
		if names[i-1] > names[i] {
			t.Errorf("not sorted by name: %q before %q", names[i-1], names[i])
		}
	}
	h.command("sort=flat")
	checkTop(t, h, file, uiOptions())
}

func TestOpeningOptions(t *testing.T) {
	t.Parallel()
	// Flags preset the opening state: -sample_index=alloc_space -focus=json.
	file := testdata("heap.pb.gz")
	cfg := testConfig(file)
	cfg.Options.SampleIndex = "alloc_space"
	cfg.Options.Focus = "main"
	h := start(t, cfg)
	o := uiOptions()
	o.SampleIndex, o.Focus = "alloc_space", "main"
	checkTop(t, h, file, o)
	if s := h.screen(); !strings.Contains(s, "alloc_space (bytes)") || !strings.Contains(s, "focus=main") {
		t.Errorf("status bar:\n%s", s)
	}
}

func TestPickerDemo(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.Dir = t.TempDir()
	// A file that starts as a profile.proto and breaks off; and one that
	// is not a profile, which the picker leaves out.
	os.WriteFile(cfg.Dir+"/cpu.pb.gz", []byte{0x0a, 0x05, 0x08, 0x01}, 0o644)
	os.WriteFile(cfg.Dir+"/notes.txt", []byte("not a profile"), 0o644)
	h := start(t, cfg)
	h.waitFor("the picker", func(m *Model) bool { return strings.Contains(m.View(), "demo") })
	golden(t, "picker", strings.ReplaceAll(h.screen(), cfg.Dir, "DIR"))
	// A broken file shows its error in the picker.
	h.keys("G", "<enter>")
	h.waitFor("the error", func(m *Model) bool { return strings.Contains(m.View(), "cpu.pb.gz: ") })
	h.keys("g", "<enter>")
	h.waitReady()
	if s := h.screen(); !strings.Contains(s, "main.fib") || !strings.Contains(s, "demo") {
		t.Errorf("demo:\n%s", s)
	}
}

func TestLoadError(t *testing.T) {
	t.Parallel()
	m := NewModel(context.Background(), testConfig(testdata("nope.pb.gz")))
	tm := newFinished(t, m)
	_ = tm
	if err := m.Err(); err == nil || !strings.Contains(err.Error(), "nope.pb.gz") {
		t.Fatalf("error %v", err)
	}
}

func TestOpeningErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		set  func(o *analysis.Options)
		msg  string
	}{
		{"heap.pb.gz", func(o *analysis.Options) { o.SampleIndex = "nope" }, `sample type "nope" not found`},
		{"heap.pb.gz", func(o *analysis.Options) { o.TagFocus = "bytes=x(" }, "tagfocus: invalid regexp"},
		{"../README.md", func(o *analysis.Options) {}, "unrecognized profile format"},
	} {
		cfg := testConfig(testdata(tc.file))
		tc.set(&cfg.Options)
		m := NewModel(context.Background(), cfg)
		newFinished(t, m)
		if err := m.Err(); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want %q", tc.file, err, tc.msg)
		}
		if m.phase == phaseReady {
			t.Errorf("%s: the explorer opened", tc.file)
		}
	}
}

func TestQuit(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"q", "<ctrl+c>"} {
		h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
		h.tm.Send(keyMsg(k))
		h.tm.WaitFinished(t)
	}
	// q types itself in the command line; ctrl+c still quits.
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.keys(":")
	h.typeText("q")
	var v string
	h.do(func(m *Model) { v = m.line.input.Value() })
	if v != "q" {
		t.Fatalf("command line %q", v)
	}
	h.tm.Send(keyMsg("<ctrl+c>"))
	h.tm.WaitFinished(t)
}

func TestMouse(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	cursor := func() string {
		var name string
		h.do(func(m *Model) { name = m.views.top.RowName(0) })
		return name
	}
	click := func(x, y int) {
		h.tm.Send(tea.MouseMsg{X: x, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
		h.settle()
	}
	// Screen line 5 is the table's fourth row (tab bar, headings first).
	click(50, 5)
	if c := cursor(); c != "main.hashBlock" {
		t.Errorf("click: cursor on %q", c)
	}
	h.tm.Send(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress, Y: 10})
	h.settle()
	if s := h.screen(); strings.Contains(strings.Split(s, "\n")[2], "main.fib") {
		t.Errorf("the wheel did not scroll:\n%s", s)
	}
	click(10, 0) // the tab bar: "2 Tree"
	var active viewID
	h.do(func(m *Model) { active = m.views.active })
	if active != 1 {
		t.Errorf("click on the Tree tab: view %d", active)
	}
	// A double click drills into the row: focus on it.
	h.keys("1", "g")
	press := tea.MouseMsg{X: 50, Y: 4, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress}
	h.tm.Send(press)
	h.tm.Send(press)
	h.waitFor("the drill", func(m *Model) bool { return m.Options().Focus != "" })
	var f string
	h.do(func(m *Model) { f = m.Options().Focus })
	if f != "^main\\.partition$" {
		t.Errorf("double click: focus=%q, want main.partition's (the third row)", f)
	}
}

// TestDiffColours: in a diff, growth is red and shrinkage green, in the
// Top values and the tree's names, strongest for the biggest change.
func TestDiffColours(t *testing.T) {
	t.Parallel()
	red := "38;2;255;77;77"    // colGrow[0], dark background
	green := "38;2;60;220;131" // colShrink[0], as termenv rounds it
	for _, tc := range []struct {
		newer, older, want, not string
	}{
		{"cpu_labels.pb.gz", "cpu_labels_no_w0.pb.gz", red, green},
		{"cpu_labels_no_w0.pb.gz", "cpu_labels.pb.gz", green, red},
	} {
		cfg := testConfig(testdata(tc.newer))
		cfg.Sources.DiffBase = []string{testdata(tc.older)}
		cfg.ColorProfile = termenv.TrueColor
		h := start(t, cfg)
		h.keys("j") // off the cursor row, whose style is the selection's
		for _, view := range []string{"1", "2"} {
			h.keys(view)
			if view == "2" {
				h.waitFor("the tree", func(m *Model) bool { return m.ActiveView().HasResult() })
				h.keys("g")
			}
			var fib string
			for _, l := range strings.Split(h.screen(), "\n") {
				if strings.Contains(ansi.Strip(l), "main.fib") {
					fib = l
				}
			}
			if !strings.Contains(fib, tc.want) || strings.Contains(fib, tc.not) {
				t.Errorf("%s view %s: main.fib's line %q should be coloured %s", tc.newer, view, fib, tc.want)
			}
		}
	}
}

// TestFlameKeys drives the flame graph from the root: the shared
// selection, enter zooming instead of drilling, backspace and esc zooming
// out while zoomed and keeping their meanings otherwise, n walking the
// matching frames.
func TestFlameKeys(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	selected := func() (string, string) {
		var view, shared string
		h.do(func(m *Model) {
			sel, _ := m.ActiveView().Selection()
			view, shared = sel.Name, m.Selected()
		})
		return view, shared
	}
	type state struct {
		opts   analysis.Options
		zoomed string
		depth  int
		search bool
	}
	now := func() state {
		var s state
		h.do(func(m *Model) {
			s.zoomed, s.depth = m.views.get(viewFlame).(*views.Flame).Zoomed()
			s.opts, s.search = m.Options(), m.search != nil
		})
		return s
	}
	// The Top view's first row, main.fib, is selected in the flame graph.
	h.keys("4")
	if v, s := selected(); v != "main.fib" || s != "main.fib" {
		t.Fatalf("flame graph opened on %q (shared %q)", v, s)
	}
	// Moving there moves the shared selection, which Top then shows.
	h.keys("g", "<down>", "<down>", "<down>", "<down>", "<right>")
	if v, s := selected(); v != "main.runHash" || s != "main.runHash" {
		t.Fatalf("after moving: %q (shared %q)", v, s)
	}
	h.keys("1")
	var row string
	h.do(func(m *Model) { row = m.views.top.RowName(0) })
	if row != "main.runHash" {
		t.Errorf("Top shows %q", row)
	}

	// A filter, so that backspace has an option change to undo.
	h.keys("4")
	h.command("focus=main")
	h.keys("/")
	h.typeText("hashBlock")
	h.keys("<enter>")
	if v, _ := selected(); v != "main.hashBlock" {
		t.Fatalf("search: cursor on %q", v)
	}
	// enter zooms, and does not drill.
	h.keys("<enter>")
	if s := now(); s.zoomed != "main.hashBlock" || s.depth != 1 || s.opts.Focus != "main" {
		t.Fatalf("enter: %+v", s)
	}
	if !strings.Contains(h.screen(), "zoomed ×1") {
		t.Errorf("no zoom in the detail line:\n%s", h.screen())
	}
	h.keys("<down>", "<enter>")
	if s := now(); s.zoomed != "main.mix" || s.depth != 2 {
		t.Fatalf("second enter: %+v", s)
	}
	// backspace zooms out, keeping the search and the options; esc
	// clears the search first (as the footer says), then zooms out
	// (issue 13: it zoomed out with the search still on).
	h.keys("<backspace>")
	if s := now(); s.zoomed != "main.hashBlock" || s.depth != 1 || !s.search || s.opts.Focus != "main" {
		t.Fatalf("backspace: %+v", s)
	}
	h.keys("<enter>")
	h.keys("<esc>")
	if s := now(); s.zoomed != "main.mix" || s.depth != 2 || s.search || s.opts.Focus != "main" {
		t.Fatalf("esc with a search: %+v", s)
	}
	h.keys("<esc>")
	if s := now(); s.zoomed != "main.hashBlock" || s.depth != 1 || s.opts.Focus != "main" {
		t.Fatalf("esc: %+v", s)
	}
	h.keys("<backspace>")
	if s := now(); s.zoomed != "" || s.depth != 0 || s.opts.Focus != "main" {
		t.Fatalf("backspace: %+v", s)
	}
	// Not zoomed, backspace is the root's again: it undoes the focus.
	h.keys("<backspace>")
	if s := now(); s.opts.Focus != "" {
		t.Fatalf("backspace unzoomed: %+v", s)
	}
	// f still focuses on the selected frame.
	h.keys("f")
	if s := now(); s.opts.Focus != `^main\.mix$` {
		t.Fatalf("f: focus %q", s.opts.Focus)
	}
	// The zoom survives a new result: another sample type, a filter.
	h.keys("<backspace>", "g", "<down>", "<down>", "<down>", "<down>", "<enter>")
	h.command("hide=fmt")
	if s := now(); s.zoomed != "main.runFib" || s.depth != 1 {
		t.Fatalf("after a new result: %+v", s)
	}
	h.keys("<esc>")
	if s := now(); s.zoomed != "" {
		t.Fatalf("esc after a new result: %+v", s)
	}
}

// TestFlameMouse clicks in the flame graph through the root: the tab,
// then a frame (the rows start under the tab bar and the detail line),
// then a double click to zoom.
func TestFlameMouse(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	click := func(x, y int) {
		h.tm.Send(tea.MouseMsg{X: x, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
		h.settle()
	}
	click(28, 0) // "4 Flame"
	var active viewID
	h.do(func(m *Model) { active = m.views.active })
	if active != 3 {
		t.Fatalf("click on the Flame tab: view %d", active)
	}
	// Screen line 6 is graph row 4: runFib, runHash, runStrings, runSort.
	click(30, 6)
	var sel views.Selection
	h.do(func(m *Model) { sel, _ = m.ActiveView().Selection() })
	if sel.Name != "main.runHash" {
		t.Fatalf("click: %q", sel.Name)
	}
	click(31, 6)
	var zoomed string
	h.do(func(m *Model) { zoomed, _ = m.views.get(viewFlame).(*views.Flame).Zoomed() })
	if zoomed != "main.runHash" {
		t.Errorf("double click: zoomed on %q", zoomed)
	}
}

// TestPrefetchNextSampleType: once the first screen is up, the next
// sample type's table is computed in the background, so s finds it kept;
// a profile with one sample type prefetches nothing.
func TestPrefetchNextSampleType(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.waitReady()
	next := uiOptions()
	next.SampleIndex = "samples" // the other of cpu and samples
	h.waitFor("the next sample type's table", func(m *Model) bool { return m.engine.TopKept(next) })
	h.keys("s")
	var shown string
	h.do(func(m *Model) { shown = m.opts.SampleIndex })
	if shown != "samples" {
		t.Fatalf("s shows sample type %q", shown)
	}
}

// TestFoldPrepared: a few frames after a flame graph (or call tree)
// without folded recursion is drawn, its stacks are folded under
// recursion=all in the background, which R asks for first; the Top view
// prepares nothing.
func TestFoldPrepared(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("recursive.pb.gz")))
	time.Sleep(3 * completeDelay)
	h.settle()
	h.do(func(m *Model) {
		if m.engine.FoldKept(m.opts) {
			t.Error("the Top view folded the stacks")
		}
	})
	h.keys("4")
	h.waitFor("the stacks folded", func(m *Model) bool { return m.engine.FoldKept(m.opts) && !m.jobs.background })
	h.keys("R")
	h.do(func(m *Model) {
		if m.opts.Recursion != analysis.RecursionAll {
			t.Errorf("R: recursion %q", m.opts.Recursion)
		}
	})
	if s := h.screen(); !strings.Contains(s, "recursion=all") {
		t.Errorf("R: the status bar does not say recursion=all:\n%s", s)
	}
}

// TestTopCompletesMarkers: the Top view's first table has the inline
// markers of the rows on screen only (analysis.Engine.TopFirst); the
// complete table replaces it in the background, so a row further down
// shows its marker as pprof gives it.
func TestTopCompletesMarkers(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "distinct.pb.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := synth.Write(f, synth.Config{Samples: 5000, Seed: 3, Labels: true, Shape: synth.Distinct}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	p, err := format.Open(context.Background(), path, format.Options{Symbolize: "none"})
	if err != nil {
		t.Fatal(err)
	}
	opt := uiOptions()
	if first, err := analysis.NewEngine(p).TopFirst(opt, testH); err != nil || !first.Partial() {
		t.Fatalf("TopFirst: partial %v, %v: the profile does not exercise the completion", first != nil && first.Partial(), err)
	}
	want, err := analysis.NewEngine(p).Top(opt)
	if err != nil {
		t.Fatal(err)
	}
	row := -1
	for i := 3 * testH; i < len(want.Rows); i++ {
		if want.Rows[i].Inline != analysis.NotInlined {
			row = i
			break
		}
	}
	if row < 0 {
		t.Fatal("no row past the first screens has an inline marker")
	}
	h := start(t, testConfig(path))
	h.keys(strings.Repeat("j", row))
	h.waitFor(fmt.Sprintf("row %d with marker %q", row, want.Rows[row].Inline), func(m *Model) bool {
		v := m.views.top
		r, ok := v.Cursor()
		return ok && v.RowName(0) == want.Nodes.Name(want.Rows[row].Node) && r.Inline == want.Rows[row].Inline
	})
}
