package tui

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// statusLineOf is a screen's status bar.
func statusLineOf(screen string) string {
	lines := strings.Split(screen, "\n")
	return lines[len(lines)-2]
}

// Every view's status bar follows a filter set in it at once: what the
// filters keep of the total, without visiting another view.
func TestStatusFollowsFiltersInEveryView(t *testing.T) {
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.keys("j") // a function for the views about one
	for _, v := range []string{"1", "2", "3", "4", "5", "6", "7", "8"} {
		h.keys(v)
		h.command("tagfocus=worker=w1")
		if s := statusLineOf(h.screen()); !strings.Contains(s, "690ms of 2.84s total") {
			t.Errorf("view %s: the status bar does not follow tagfocus: %q", v, s)
		}
		h.command("reset")
		h.command("focus=main.fib")
		if s := statusLineOf(h.screen()); !strings.Contains(s, "750ms of 2.84s total") {
			t.Errorf("view %s: the status bar does not follow focus: %q", v, s)
		}
		h.command("reset")
		if s := statusLineOf(h.screen()); !strings.Contains(s, "│ total 2.84s") {
			t.Errorf("view %s: the status bar does not follow reset: %q", v, s)
		}
	}
}

// In Labels, enter on a value sets a tagfocus, and the status bar says
// at once what it keeps (@datadog/pprof's wall profile).
func TestStatusFollowsLabelsEnter(t *testing.T) {
	h := start(t, testConfig(filepath.Join("..", "testdata", "producers", "ddnode", "wall.pb.gz")))
	h.keys("3", "g", "j", "j", "<enter>")
	s := h.screen()
	st := statusLineOf(s)
	var o string
	h.do(func(m *Model) { o = m.opts.TagFocus })
	if o == "" || !regexp.MustCompile(`[0-9.]+[mu]?s of [0-9.]+[mu]?s total`).MatchString(st) || !strings.Contains(st, "tagfocus=") {
		t.Errorf("tagfocus %q: the status bar does not say what it keeps: %q\n%s", o, st, s)
	}
	golden(t, "ddwall-labels-tagfocus", s)
}

// At 80 columns, filters that do not fit are counted, and the file name
// and sample type stay.
func TestStatusCountsFilters(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		cfg := testConfig(testdata("cpu_labels.pb.gz"))
		cfg.Width, cfg.Height = size[0], size[1]
		h := start(t, cfg)
		h.command(`ignore=^runtime\.memclrNoHeapPointers$ hide=^fmt\.\(\*pp\)\.doPrintf$`)
		st := statusLineOf(h.screen())
		for _, want := range []string{"cpu_labels.pb.gz", "cpu", "ignore=^runtime"} {
			if !strings.Contains(st, want) {
				t.Errorf("%dx%d: no %q in the status bar %q", size[0], size[1], want, st)
			}
		}
		if size[0] == 80 && !strings.Contains(st, " +1") {
			t.Errorf("80 columns: the hidden filter is not counted: %q", st)
		}
		if size[0] == 200 && (strings.Contains(st, "+1") || !strings.Contains(st, "hide=")) {
			t.Errorf("200 columns: not every filter shows: %q", st)
		}
		golden(t, "cpu-status-filters-"+map[int]string{80: "80x24", 200: "200x50"}[size[0]], h.screen())
	}
}
