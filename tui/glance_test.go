package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// statusLineOf is a screen's status bar.
func statusLineOf(screen string) string {
	lines := strings.Split(screen, "\n")
	return lines[len(lines)-2]
}

// Every view's status bar follows a filter set in it at once: what the
// filters keep of the total, without visiting another view.
func TestStatusFollowsFiltersInEveryView(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// TestStatusFoldsOnly: recursion keeps every sample, so the status bar
// says the total without counting what it keeps; with a filter that
// drops samples beside it, the count runs.
func TestStatusFoldsOnly(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.command("recursion=all")
	var counted string
	h.do(func(m *Model) { counted = m.jobs.tally[tallyFilters].key })
	if st := statusLineOf(h.screen()); counted != "" || !strings.Contains(st, "total 2.84s") || strings.Contains(st, " of ") {
		t.Errorf("recursion=all: counted %v, status bar %q", counted != "", st)
	}
	h.command("recursion=all focus=fib")
	h.waitFor("the count", func(m *Model) bool { return m.jobs.tally[tallyFilters].key != "" })
	if st := statusLineOf(h.screen()); !strings.Contains(st, " of 2.84s total") {
		t.Errorf("recursion=all focus=fib: status bar %q", st)
	}
}

// footerOf is a screen's last line.
func footerOf(screen string) string {
	lines := strings.Split(screen, "\n")
	return lines[len(lines)-1]
}

// A search answers in every view that searches: "no match", or which
// match of how many as it is typed and stepped through.
func TestSearchCounts(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.keys("j")
	count := regexp.MustCompile(`/main\.  ([0-9]+|-)/([0-9]+)\b`)
	for _, v := range []string{"1", "2", "3", "4", "5", "6", "7", "8"} {
		h.keys(v, "/")
		h.typeText("zzzq")
		if s := h.screen(); !strings.Contains(s, "/zzzq  no match") {
			t.Errorf("view %s: typing a search that finds nothing does not say so:\n%s", v, s)
		}
		h.keys("<esc>", "/")
		h.typeText("main.")
		typed := count.FindStringSubmatch(h.screen())
		h.keys("<enter>")
		entered := count.FindStringSubmatch(footerOf(h.screen()))
		if v == "3" {
			// Labels: no label is named main.
			if entered != nil || !strings.Contains(footerOf(h.screen()), "no match") {
				t.Errorf("view 3: %q", footerOf(h.screen()))
			}
			h.keys("<esc>")
			continue
		}
		if typed == nil || entered == nil || typed[1] == "-" || entered[1] != typed[1] {
			t.Errorf("view %s: no count as typed (%q) or after enter (%q)", v, typed, footerOf(h.screen()))
			h.keys("<esc>")
			continue
		}
		cur, _ := strconv.Atoi(entered[1])
		n, _ := strconv.Atoi(entered[2])
		h.keys("n")
		want := fmt.Sprintf("/main.  %d/%d ", cur%n+1, n)
		if s := footerOf(h.screen()); !strings.Contains(s, want) {
			t.Errorf("view %s: n does not step from match %d of %d to %q: %q", v, cur, n, want, s)
		}
		h.keys("<esc>")
		if strings.Contains(footerOf(h.screen()), "/main.") {
			t.Errorf("view %s: esc does not clear the search: %q", v, footerOf(h.screen()))
		}
	}
}

// In Top and Flame a search says its matches' share of the total: what
// go tool pprof -top -focus=RE keeps (the golden
// analysis/testdata/top/cpu-focus.txt that pprof made).
func TestSearchShareIsPprofFocus(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "analysis", "testdata", "top", "cpu-focus.txt"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`Showing nodes accounting for ([0-9]+)ns, ([0-9.]+%) of ([0-9]+)ns total`).FindSubmatch(data)
	if m == nil || !strings.Contains(string(data), "focus=quicksort") {
		t.Fatalf("no header in pprof's -top -focus=quicksort:\n%s", data)
	}
	kept, _ := strconv.ParseInt(string(m[1]), 10, 64)
	want := fmt.Sprintf("focus would keep %s (%s)", analysis.ReadableLabel(float64(kept), "nanoseconds", ""), m[2])
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		cfg := testConfig(testdata("cpu_labels.pb.gz"))
		cfg.Width, cfg.Height = size[0], size[1]
		h := start(t, cfg)
		for _, v := range []string{"1", "4"} {
			h.keys(v, "/")
			h.typeText("quicksort")
			if s := h.screen(); !strings.Contains(s, want) {
				t.Errorf("view %s, typed: no %q:\n%s", v, want, s)
			}
			h.keys("<enter>")
			s := h.screen()
			if !strings.Contains(footerOf(s), want) {
				t.Errorf("view %s: no %q in the footer %q", v, want, footerOf(s))
			}
			golden(t, fmt.Sprintf("cpu-search-share-%s-%dx%d", v, size[0], size[1]), s)
			h.keys("<esc>")
		}
	}
}

// A filter key says what it set, where it was set, and what it keeps;
// a key that changes nothing says so (gperftools' cpubench profile:
// enter on Peek's own function focuses on it, which leaves Peek as it
// was).
func TestFilterKeysSayWhatTheyDo(t *testing.T) {
	t.Parallel()
	cfg := testConfig(filepath.Join("..", "testdata", "legacy", "cpu.prof"))
	cfg.Sources.Binary = filepath.Join("..", "testdata", "legacy", "cpubench")
	h := start(t, cfg)
	h.keys("/")
	h.typeText("^partition$")
	h.keys("<enter>", "<esc>", "5")
	before := h.screen()
	h.keys("<enter>") // on ● partition: drill
	s := h.screen()
	if !strings.Contains(footerOf(s), "focus=^partition$ keeps 266ms of 728ms total (36.54%)") || !strings.Contains(statusLineOf(s), "266ms of 728ms total") || !strings.Contains(statusLineOf(s), "focus=^partition$") {
		t.Errorf("enter on peek's function does not say what it set and keeps:\n%s", s)
	}
	if strings.Join(strings.Split(before, "\n")[:5], "\n") != strings.Join(strings.Split(s, "\n")[:5], "\n") {
		t.Errorf("peek changed:\n%s\n%s", before, s)
	}
	golden(t, "cpubench-peek-drill", s)
	h.keys("<enter>")
	if f := footerOf(h.screen()); !strings.Contains(f, "already filtered so: nothing changes") {
		t.Errorf("enter again: %q", f)
	}
	h.command("reset")
	h.keys("1", "/")
	h.typeText("^main$")
	h.keys("<enter>", "<esc>", "f")
	if f := footerOf(h.screen()); !strings.Contains(f, "focus=^main$ keeps all that was shown: nothing changes") {
		t.Errorf("f on main, which every sample passes: %q", f)
	}
	// hide keeps every sample but moves values to the callers: the
	// views change though the total does not.
	h.command("reset")
	h.keys("1", "/")
	h.typeText("^partition$")
	h.keys("<enter>", "<esc>", "H")
	if f := footerOf(h.screen()); !strings.Contains(f, "keeps all that was shown; its frames change") || strings.Contains(f, "nothing changes") {
		t.Errorf("H on partition: %q", f)
	}
}
