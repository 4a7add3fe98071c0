package tui

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/internal/testrun"
)

// liveServer serves the files in order, one per request, repeating the
// last; fail makes a request fail with a 500.
type liveServer struct {
	mu    sync.Mutex
	files []string
	n     int
	fail  bool
	// failedAt is when each request was failed (fail).
	failedAt []time.Time
	// once: after the files, hold every request until the explorer
	// gives up on it or the test stops the server (stop), so that the
	// snapshots stay as served, whenever the test's keys land, and no
	// failed fetch changes the status bar.
	once    bool
	stopped chan struct{}
	// gate, when set, holds every request after the first until it is
	// closed; a request the explorer gives up on meanwhile (p cancels
	// a fetch under way) is not served.
	gate chan struct{}
}

func (s *liveServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	gate, first := s.gate, s.n == 0
	s.mu.Unlock()
	if gate != nil && !first {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
	}
	s.mu.Lock()
	if s.once && s.n >= len(s.files) {
		stopped := s.stopped
		s.mu.Unlock()
		select {
		case <-r.Context().Done():
		case <-stopped:
		}
		http.Error(w, "no more snapshots", http.StatusServiceUnavailable)
		return
	}
	defer s.mu.Unlock()
	if s.fail {
		s.failedAt = append(s.failedAt, time.Now())
		http.Error(w, "down for maintenance", http.StatusInternalServerError)
		return
	}
	f := s.files[min(s.n, len(s.files)-1)]
	s.n++
	data, err := os.ReadFile(f)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Write(data)
}

// newOnceServer is a liveServer that serves files once each (once).
// The caller defers stop after the httptest server's Close.
func newOnceServer(files ...string) *liveServer {
	return &liveServer{files: files, once: true, stopped: make(chan struct{})}
}

// stop lets the requests a once server holds end.
func (s *liveServer) stop() { close(s.stopped) }

func (s *liveServer) set(f func(*liveServer)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

// TestLiveRefresh: a heap URL refreshed keeps the options, the view and
// the selected function while the numbers change; a failure keeps the
// last data and says when it retries; a profile of another type is
// refused; p pauses.
func TestLiveRefresh(t *testing.T) {
	t.Parallel() // waits for refreshes
	srv := &liveServer{files: []string{testdata("cpu_labels.pb.gz"), testdata("cpu_labels_no_w0.pb.gz")}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	cfg := testConfig(ts.URL + "/debug/pprof/heap")
	cfg.Refresh = 300 * time.Millisecond
	h := start(t, cfg)
	h.command("focus=main")
	h.keys("/")
	h.typeText("^main.partition$")
	h.keys("<enter>", "<esc>", "2")
	total := func() string {
		var s string
		h.do(func(m *Model) { s = m.total() })
		return s
	}
	h.waitFor("the second snapshot", func(m *Model) bool { return m.gen >= 1 && !m.live.loading })
	h.settle()
	var sel string
	var active viewID
	h.do(func(m *Model) { sel, active = m.Selected(), m.views.active })
	o := h.options()
	if o.Focus != "main" || sel != "main.partition" || active != 1 {
		t.Errorf("after a refresh: focus %q, selection %q, view %d", o.Focus, sel, active+1)
	}
	if got := total(); !strings.Contains(got, "2.12s") {
		t.Errorf("the total after the refresh is %q, want the second profile's 2.12s", got)
	}
	// A failure keeps the data and says when it retries.
	srv.set(func(s *liveServer) { s.fail = true })
	// Read while the failure is shown: on a busy machine the retry may
	// already be under way when the test looks.
	h.waitFor("the failure on screen", func(m *Model) bool {
		s := m.View()
		return m.live.err != nil && strings.Contains(s, "server answe") && strings.Contains(s, "retry in")
	})
	if s := h.screen(); !strings.Contains(s, "main.partition") {
		t.Errorf("the data went after a failure:\n%s", s)
	}
	// Failures back off: the fetch after the second failure comes two
	// intervals after it, not one (a busy machine only delays fetches).
	h.waitFor("a third failure", func(m *Model) bool { return m.live.fails >= 3 })
	var failed []time.Time
	srv.set(func(s *liveServer) { failed = slices.Clone(s.failedAt) })
	if gap := failed[2].Sub(failed[1]); gap < 2*cfg.Refresh {
		t.Errorf("the fetch after the second failure came %v after it, not backed off to %v", gap, 2*cfg.Refresh)
	}
	// And recover.
	var before int
	h.do(func(m *Model) { before = m.gen })
	srv.set(func(s *liveServer) { s.fail = false })
	h.waitFor("the recovery", func(m *Model) bool { return m.gen > before && m.live.err == nil })
	// Another type of profile is refused.
	srv.set(func(s *liveServer) { s.fail, s.files, s.n = false, []string{testdata("heap.pb.gz")}, 0 })
	h.waitFor("the type change", func(m *Model) bool {
		return m.live.err != nil && strings.Contains(m.live.err.Error(), "now serves")
	})
	if got := total(); !strings.Contains(got, "2.12s") {
		t.Errorf("a heap profile replaced the CPU one: total %q", got)
	}
	// p pauses: no fetch while paused.
	h.keys("p")
	var n int
	srv.set(func(s *liveServer) { n = s.n })
	time.Sleep(time.Second)
	srv.set(func(s *liveServer) {
		if s.n != n {
			t.Errorf("%d fetches while paused", s.n-n)
		}
	})
	if s := h.screen(); !strings.Contains(s, "paused (p)") {
		t.Errorf("the status bar does not say paused:\n%s", s)
	}
}

// TestLiveFile: a file source is read again when it changes.
func TestLiveFile(t *testing.T) {
	t.Parallel()
	file := t.TempDir() + "/cpu.pb.gz"
	copyFile := func(from string) {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(testdata("cpu_labels.pb.gz"))
	cfg := testConfig(file)
	cfg.Refresh = 200 * time.Millisecond
	h := start(t, cfg)
	time.Sleep(500 * time.Millisecond)
	var gen int
	h.do(func(m *Model) { gen = m.gen })
	if gen != 0 {
		t.Errorf("an unchanged file was read again (%d times)", gen)
	}
	copyFile(testdata("cpu_labels_no_w0.pb.gz"))
	h.waitFor("the new file", func(m *Model) bool { return m.gen == 1 && !m.live.loading })
	if s := h.screen(); !strings.Contains(s, "2.12s") {
		t.Errorf("the new file's numbers are not shown:\n%s", s)
	}
}

// TestLiveDelta: d shows the change since the previous snapshot, equal
// to -base of it computed by the engine from the two files; d again
// shows the latest snapshot.
func TestLiveDelta(t *testing.T) {
	t.Parallel()
	a, b := testdata("cpu_labels.pb.gz"), testdata("cpu_labels_no_w0.pb.gz")
	// Only two snapshots: a third fetch, before the pause lands, would
	// make the delta b - b.
	srv := newOnceServer(a, b)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.stop()
	cfg := testConfig(ts.URL + "/debug/pprof/heap")
	cfg.Refresh = 300 * time.Millisecond
	h := start(t, cfg)
	h.waitFor("the second snapshot", func(m *Model) bool { return m.gen >= 1 && !m.live.loading })
	h.keys("p", "d")                                                // pause
	h.waitFor("the delta", func(m *Model) bool { return m.c.Diff }) // its engine is made in the background
	showsBase(t, h, b, a)
	if s := h.screen(); !strings.Contains(s, "Δ over") || !strings.Contains(s, "Δflat") {
		t.Errorf("the delta is not marked on screen:\n%s", s)
	}
	h.keys("d")
	// The snapshot is made ready in the background, outside the jobs
	// settle waits for.
	h.waitFor("d again to show the latest snapshot", func(m *Model) bool {
		return strings.Contains(m.View(), "total 2.12s")
	})
}

// TestLiveMemoryBounded: a thousand refreshes hold no more memory than a
// hundred: only the last two snapshots and the trend's totals are kept.
// It reads the heap, so it runs in a process of its own.
func TestLiveMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a thousand refreshes")
	}
	if !testrun.Alone(t) {
		return
	}
	small := filepath.Join("..", "testdata", "notes", "pprof.samples.cpu.001.pb.gz")
	srv := &liveServer{files: []string{small}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	cfg := testConfig(ts.URL + "/debug/pprof/heap")
	cfg.Refresh = time.Millisecond
	h := start(t, cfg)
	heap := func(gen int) uint64 {
		h.waitFor(fmt.Sprintf("snapshot %d", gen), func(m *Model) bool { return m.gen >= gen })
		var ms runtime.MemStats
		h.do(func(m *Model) {
			runtime.GC()
			runtime.ReadMemStats(&ms)
		})
		return ms.HeapAlloc
	}
	first, last := 100, 1000
	if raceEnabled {
		first, last = 50, 200
	}
	at100 := heap(first)
	at1000 := heap(last)
	if at1000 > 2*at100+1<<20 {
		t.Errorf("heap grew from %d to %d bytes between the %dth and the %dth refresh", at100, at1000, first, last)
	}
	var totals int
	h.do(func(m *Model) { totals = len(m.live.totals) })
	if totals > 60 {
		t.Errorf("the trend keeps %d totals, want at most 60", totals)
	}
	t.Logf("heap after %d refreshes %d bytes, after %d %d bytes", first, at100, last, at1000)
}

// TestLiveTrend: t shows each function's flat over the snapshots as a
// sparkline column in Top.
func TestLiveTrend(t *testing.T) {
	t.Parallel() // waits for refreshes
	a, b := testdata("cpu_labels.pb.gz"), testdata("cpu_labels_no_w0.pb.gz")
	srv := &liveServer{files: []string{a, b, a, b, a, b}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	cfg := testConfig(ts.URL + "/debug/pprof/heap")
	cfg.Refresh = 200 * time.Millisecond
	h := start(t, cfg)
	h.keys("t")
	h.waitFor("five snapshots", func(m *Model) bool { return len(m.live.snaps) >= 5 })
	h.keys("p")
	s := h.screen()
	if !strings.Contains(s, "trend") {
		t.Fatalf("no trend column:\n%s", s)
	}
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "main.xorshift") && !strings.ContainsAny(l, "▁█") {
			t.Errorf("main.xorshift's row has no sparkline: %q", l)
		}
	}
	h.keys("t")
	if s := h.screen(); strings.Contains(s, "trend") {
		t.Errorf("t again did not hide the column:\n%s", s)
	}
}

// TestLiveStepping: [ shows an earlier snapshot's heaviest functions and
// pauses; ] steps forward, and past the latest closes.
func TestLiveStepping(t *testing.T) {
	t.Parallel()
	a, b := testdata("cpu_labels.pb.gz"), testdata("cpu_labels_no_w0.pb.gz")
	srv := &liveServer{files: []string{a, b}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	cfg := testConfig(ts.URL + "/debug/pprof/heap")
	cfg.Refresh = 200 * time.Millisecond
	h := start(t, cfg)
	h.waitFor("three snapshots", func(m *Model) bool { return len(m.live.snaps) >= 3 })
	h.keys("[")
	// A refresh on its way when [ pauses still lands, after the panel
	// was drawn: the panel is checked against its own count.
	panel := regexp.MustCompile(`Snapshot (\d+) of (\d+)`)
	at := func() (step, of int, s string) {
		s = h.screen()
		if m := panel.FindStringSubmatch(s); m != nil {
			step, _ = strconv.Atoi(m[1])
			of, _ = strconv.Atoi(m[2])
		}
		return step, of, s
	}
	if step, of, s := at(); of < 3 || step != of-1 || !strings.Contains(s, "paused") {
		t.Fatalf("[ does not show the snapshot before the latest:\n%s", s)
	}
	h.keys("[", "[", "[", "[", "[", "[")
	if step, _, s := at(); step != 1 || !strings.Contains(s, "total 2.84s") {
		t.Errorf("[ many times does not stop at the first snapshot (cpu_labels, 2.84s):\n%s", s)
	}
	h.keys("]")
	if step, _, s := at(); step != 2 || !strings.Contains(s, "total 2.12s") {
		t.Errorf("] does not step forward to the second snapshot (2.12s):\n%s", s)
	}
	var n int
	h.do(func(m *Model) { n = len(m.live.snaps) })
	for i := 0; i < n; i++ {
		h.keys("]")
	}
	h.do(func(m *Model) {
		if m.help.shown {
			t.Error("] past the latest snapshot did not close it")
		}
		if !m.live.paused {
			t.Error("stepping did not pause the refreshes")
		}
	})
}

// TestLiveKeepsTree: a refresh keeps the tree's nodes as a person opened
// and closed them, not the hot path it opens on.
func TestLiveKeepsTree(t *testing.T) {
	t.Parallel()
	a, b := testdata("cpu_labels.pb.gz"), testdata("cpu_labels_no_w0.pb.gz")
	srv := &liveServer{files: []string{a, b, a, b, a, b, a, b}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	cfg := testConfig(ts.URL + "/debug/pprof/heap")
	cfg.Refresh = 300 * time.Millisecond
	h := start(t, cfg)
	h.keys("2", "c") // the tree, every node closed
	h.keys("/")
	h.typeText("^runtime.main$")
	h.keys("<enter>", "<esc>", "l") // runtime.main opened
	var gen int
	h.do(func(m *Model) { gen = m.gen })
	h.waitFor("two refreshes", func(m *Model) bool { return m.gen >= gen+2 && !m.live.loading })
	s := h.screen()
	if !strings.Contains(s, "main.main") {
		t.Errorf("runtime.main's child is gone after a refresh:\n%s", s)
	}
	if strings.Contains(s, "runtime/pprof.Do") {
		t.Errorf("the closed main.cpuPhase.func1 opened again after a refresh:\n%s", s)
	}
}

// cursorLine is the screen line of the row under the cursor (the one
// marked ▶) and that row's text.
func cursorLine(h *harness) (int, string) {
	for i, l := range strings.Split(h.screen(), "\n") {
		if strings.Contains(l, "▶") {
			return i, l
		}
	}
	return -1, ""
}

// TestLiveKeepsScreenLine: the selected function keeps its screen line
// across a refresh that changes its rank, though the table is on its
// first screen (issue 16: "the selected row stays where it is on
// screen"); in the tree too.
func TestLiveKeepsScreenLine(t *testing.T) {
	t.Parallel()
	// Without main.fib's weight, then with it: main.quicksort falls from
	// row 10 to 11 in Top; in the tree main.runFib comes in above
	// main.runHash.
	a, b := testdata("cpu_labels_no_w0.pb.gz"), testdata("cpu_labels.pb.gz")
	srv := &liveServer{files: []string{a, b, a, b}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	cfg := testConfig(ts.URL + "/debug/pprof/heap")
	cfg.Refresh = time.Hour // r fetches
	h := start(t, cfg)
	refresh := func() {
		t.Helper()
		var gen int
		h.do(func(m *Model) { gen = m.gen })
		h.keys("r")
		h.waitFor("the refresh", func(m *Model) bool { return m.gen > gen && !m.live.loading })
	}
	h.keys("/")
	h.typeText("^main.quicksort$")
	h.keys("<enter>", "<esc>")
	line, text := cursorLine(h)
	if !strings.Contains(text, "main.quicksort") {
		t.Fatalf("the search did not select main.quicksort:\n%s", h.screen())
	}
	var rank, newRank int
	h.do(func(m *Model) { rank, _ = m.views.top.Window() })
	refresh()
	h.do(func(m *Model) { newRank, _ = m.views.top.Window() })
	if newRank == rank {
		t.Fatalf("main.quicksort stayed at row %d: the test needs its rank to change", rank)
	}
	if l, r := cursorLine(h); l != line || !strings.Contains(r, "main.quicksort") {
		t.Errorf("main.quicksort (row %d, then %d) moved from screen line %d to %d (%q):\n%s", rank, newRank, line, l, r, h.screen())
	}

	// The tree, on a again then b: main.runHash keeps its line when
	// main.runFib comes in above it. (A screen short enough for the
	// tree to scroll: a table that fits does not.)
	refresh()
	h.tm.Send(tea.WindowSizeMsg{Width: testW, Height: 11})
	h.keys("2", "c", "/")
	h.typeText("^main.runHash$")
	h.keys("<enter>", "<esc>")
	line, text = cursorLine(h)
	if !strings.Contains(text, "main.runHash") {
		t.Fatalf("the search did not select main.runHash in the tree:\n%s", h.screen())
	}
	refresh()
	if l, r := cursorLine(h); l != line || !strings.Contains(r, "main.runHash") || !strings.Contains(h.screen(), "main.runFib") {
		t.Errorf("in the tree main.runHash moved from screen line %d to %d (%q), or main.runFib did not come in:\n%s", line, l, r, h.screen())
	}
}

// allocsPair writes two snapshots of an allocs profile taken apart
// apart by their TimeNanos: heap.pb.gz with alloc_space as its default,
// as /debug/pprof/allocs serves it, then the same with every value
// grown (by itself and a little more, so some deltas are small).
func allocsPair(t *testing.T, apart time.Duration) (first, second string) {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, at int64, grow bool) string {
		p, err := format.Load(t.Context(), format.Sources{Sources: []string{testdata("heap.pb.gz")}}, format.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p.DefaultSampleType, p.TimeNanos = "alloc_space", at
		if grow {
			for _, col := range p.Samples.Values {
				for i := range col {
					col[i] += col[i] + int64(i%7)
				}
			}
		}
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := format.Write(f, p); err != nil {
			t.Fatal(err)
		}
		return path
	}
	t0 := time.Date(2026, 11, 21, 1, 26, 10, 0, time.UTC).UnixNano()
	return write("allocs.1.pb.gz", t0, false), write("allocs.2.pb.gz", t0+int64(apart), true)
}

// rateValue reads a rate as the Top view prints it ("1.23MB/s", "12.5/s",
// "0/s") in units of the sample type (bytes or a count) per second.
func rateValue(t *testing.T, s string) float64 {
	t.Helper()
	num, ok := strings.CutSuffix(s, "/s")
	if !ok {
		t.Fatalf("%q is not a rate", s)
	}
	scale := 1.0
	for i, u := range []string{"kB", "MB", "GB", "TB", "B"} {
		if n, ok := strings.CutSuffix(num, u); ok {
			num = n
			if u != "B" {
				scale = float64(int64(1) << (10 * (i + 1)))
			}
			break
		}
	}
	var v float64
	if _, err := fmt.Sscan(num, &v); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v * scale
}

// TestLiveRate: the delta of a cumulative profile (allocs) is the
// default view and shows each value as a rate per second: the change
// -base of the previous snapshot gives, divided by the time between the
// snapshots' TimeNanos (10s here, where the fetches are milliseconds
// apart), in Top's flat and cum columns and the status bar's total; in
// the same order and with the same percentages as the change itself. A
// sample type that is not cumulative (inuse_space) shows the change.
func TestLiveRate(t *testing.T) {
	t.Parallel()
	const apart = 10 * time.Second
	a, b := allocsPair(t, apart)
	srv := &liveServer{files: []string{a, b}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	cfg := testConfig(ts.URL + "/debug/pprof/allocs")
	cfg.Refresh = time.Hour // r fetches
	h := start(t, cfg)
	h.keys("r")
	h.waitFor("the second snapshot", func(m *Model) bool { return m.gen >= 1 && !m.live.loading })
	h.settle()

	p, err := format.Load(t.Context(), format.Sources{Sources: []string{b}, Base: []string{a}}, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// check compares the screen with the change -base gives, and reports
	// whether a rate below 1/s showed (not as 0).
	check := func(sampleIndex string) (fraction bool) {
		t.Helper()
		opt := uiOptions()
		opt.SampleIndex = sampleIndex
		want, err := analysis.NewEngine(p).Top(opt)
		if err != nil {
			t.Fatal(err)
		}
		secs := apart.Seconds()
		screen := h.screen()
		lines := strings.Split(screen, "\n")
		if !strings.Contains(screen, "Δ/s over 10.0s") {
			t.Errorf("%s: the status bar does not say the values are a rate over 10s:\n%s", sampleIndex, screen)
		}
		// The total, as the status bar prints it (when it fits).
		var total string
		h.do(func(m *Model) { total = strings.TrimPrefix(m.total(), "total ") })
		if got, w := rateValue(t, total), float64(want.Total)/secs; !near(t, got, w, total) {
			t.Errorf("%s: the total reads %s (%g/s); Δ/seconds is %g/s", sampleIndex, total, got, w)
		}
		rows := 0
		for k, r := range want.Rows {
			if 2+k >= len(lines)-2 {
				break // past the table
			}
			f := strings.Fields(strings.Replace(lines[2+k], "▶", " ", 1))
			if name := want.Nodes.Name(r.Node); len(f) < 6 || f[5] != name {
				t.Errorf("%s: row %d is %q; the change's row %d is %s", sampleIndex, k, lines[2+k], k, name)
				continue
			}
			for _, c := range []struct {
				text string
				v    int64
			}{{f[0], r.Flat}, {f[3], r.Cum}} {
				w := float64(c.v) / secs
				if got := rateValue(t, c.text); !near(t, got, w, c.text) {
					t.Errorf("%s: %s reads %s (%g/s); Δ/seconds is %g/s", sampleIndex, f[5], c.text, got, w)
				}
				fraction = fraction || (w != 0 && math.Abs(w) < 1 && c.text != "0/s")
			}
			if f[1] != strings.TrimSpace(analysis.Percentage(r.Flat, want.Total)) || f[4] != strings.TrimSpace(analysis.Percentage(r.Cum, want.Total)) {
				t.Errorf("%s: %s's percentages are %s %s, the change's %s %s", sampleIndex, f[5], f[1], f[4],
					analysis.Percentage(r.Flat, want.Total), analysis.Percentage(r.Cum, want.Total))
			}
			rows++
		}
		if rows < 5 {
			t.Errorf("%s: only %d rows checked:\n%s", sampleIndex, rows, screen)
		}
		return fraction
	}
	check("alloc_space")
	h.command("sample_index=alloc_objects")
	if !check("alloc_objects") {
		t.Errorf("no allocation rate below 1/s shows, or it shows as 0:\n%s", h.screen())
	}
	// At 80 columns the status bar still has room for the total.
	h.tm.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.settle()
	var total string
	h.do(func(m *Model) { total = m.total() })
	if s := h.screen(); !strings.Contains(s, total) || !strings.HasSuffix(total, "/s") {
		t.Errorf("at 80 columns the status bar does not show the rate's total %q:\n%s", total, s)
	}
	h.tm.Send(tea.WindowSizeMsg{Width: testW, Height: testH})

	// inuse_space is a moment's, not a count since the start: its change.
	h.command("sample_index=inuse_space")
	if s := h.screen(); strings.Contains(s, "/s") || !strings.Contains(s, "Δ over") {
		t.Errorf("inuse_space's delta is shown as a rate, or not as a delta:\n%s", s)
	}
}

// near reports whether got, read from text, is want as printed: to the
// two decimals (or more below 1) of its unit.
func near(t *testing.T, got, want float64, text string) bool {
	unit := 1.0
	if strings.Contains(text, "B/") {
		unit = rateValue(t, "1"+strings.TrimLeft(text, "-0123456789."))
	}
	num := strings.TrimRight(strings.TrimLeft(text, "-"), "/sBkMGT")
	if i := strings.IndexByte(num, '.'); i >= 0 {
		unit /= math.Pow(10, float64(len(num)-i-1)) // the last digit's step
	}
	return math.Abs(got-want) <= 0.5*unit*1.0001+1e-9
}

// TestLiveTrendOfDelta: on a cumulative profile (allocs), where the delta
// is what is shown, the snapshots are the deltas': the trend column
// fills and [ shows a snapshot with its values as rates.
func TestLiveTrendOfDelta(t *testing.T) {
	t.Parallel()
	a, b := allocsPair(t, 10*time.Second)
	srv := &liveServer{files: []string{a, b, a, b, a, b}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	cfg := testConfig(ts.URL + "/debug/pprof/allocs")
	cfg.Refresh = 200 * time.Millisecond
	h := start(t, cfg)
	h.keys("t")
	h.waitFor("three snapshots", func(m *Model) bool { return len(m.live.snaps) >= 3 })
	h.keys("p")
	s := h.screen()
	if !strings.Contains(s, "trend") || !strings.Contains(s, "Δ") {
		t.Fatalf("no trend column on the delta:\n%s", s)
	}
	if !strings.ContainsAny(s, "▁▂▃▄▅▆▇█") {
		t.Errorf("no sparkline in the delta's trend column:\n%s", s)
	}
	h.keys("[")
	if s := h.screen(); !strings.Contains(s, "Snapshot ") || !strings.Contains(s, "/s") {
		t.Errorf("[ on the delta does not show a snapshot in rates:\n%s", s)
	}
}

// TestLiveInterval: fetches start an interval apart, start to start,
// whatever the fetch took and wherever the status bar's one-second clock
// stands (the clock ran on whole seconds past the end of the last fetch,
// so -refresh=1.5s fetched every 2s).
func TestLiveInterval(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits for four fetches 1.5s apart")
	}
	t.Parallel()
	a := testdata("cpu_labels.pb.gz")
	var mu sync.Mutex
	var starts []time.Time
	srv := &liveServer{files: []string{a}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		starts = append(starts, time.Now())
		mu.Unlock()
		time.Sleep(100 * time.Millisecond) // a fetch takes time
		srv.ServeHTTP(w, r)
	}))
	defer ts.Close()
	const every = 1500 * time.Millisecond
	cfg := testConfig(ts.URL + "/debug/pprof/heap")
	cfg.Refresh = every
	// The server sees a request some time after the explorer starts it:
	// under the race detector on a busy machine, up to a few hundred
	// milliseconds. A delay only ever lengthens an interval, so no
	// interval may be short, and the shortest must be the interval
	// itself: that tells 1.5 s from the whole seconds however busy the
	// machine is. A machine so busy that every interval so far was late
	// gets more fetches (up to maxFetches) to show one on time.
	early, late := 50*time.Millisecond, 300*time.Millisecond
	if raceEnabled {
		early, late = 400*time.Millisecond, 400*time.Millisecond
	}
	const maxFetches = 7
	shortestOf := func(starts []time.Time) time.Duration {
		shortest := time.Duration(1 << 62)
		for i := 2; i < len(starts); i++ { // the first refresh after the opening fetch on
			shortest = min(shortest, starts[i].Sub(starts[i-1]))
		}
		return shortest
	}
	h := start(t, cfg)
	h.waitFor("four fetches, one on time", func(m *Model) bool {
		mu.Lock()
		defer mu.Unlock()
		return len(starts) >= 4 && (shortestOf(starts) <= every+late || len(starts) >= maxFetches)
	})
	mu.Lock()
	defer mu.Unlock()
	for i := 2; i < len(starts); i++ {
		if d := starts[i].Sub(starts[i-1]); d < every-early {
			t.Errorf("fetch %d started %v after the one before; the interval is %v", i, d, every)
		}
	}
	if shortest := shortestOf(starts); shortest > every+late {
		t.Errorf("the fetches started at least %v apart in %d fetches; the interval is %v", shortest, len(starts), every)
	}
}

// TestSparkline: bars scale from the lowest value to the highest; a
// steady value is a full bar, and steadily nothing the lowest.
func TestSparkline(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		vs   []int64
		want string
	}{
		{[]int64{0, 7, 14}, "▁▄█"},
		{[]int64{5, 5, 5}, "███"},
		{[]int64{0, 0, 0}, "▁▁▁"},
		{[]int64{1, 2, 3, 4}, "▁▃▅█"},
		{[]int64{9}, ""},
	} {
		if got := sparkline(c.vs, 12); got != c.want {
			t.Errorf("sparkline(%v) = %q, want %q", c.vs, got, c.want)
		}
	}
	if got := sparkline([]int64{0, 1, 2, 3}, 2); got != "▁█" {
		t.Errorf("the last 2 of 4: %q", got)
	}
}

// TestLiveMark: m marks the snapshot shown; every later snapshot is
// then shown as its change since the mark, as go tool pprof's -base of
// the marked snapshot gives it (not since the snapshot before, which
// here is the same profile: its delta would be empty); m again clears.
func TestLiveMark(t *testing.T) {
	t.Parallel()
	a, b := testdata("cpu_labels.pb.gz"), testdata("cpu_labels_no_w0.pb.gz")
	// The snapshots after the first wait for the keys: on a busy machine
	// a fetch could otherwise be under way when p cancels it, and the
	// snapshot it took from the server would never be shown.
	srv := newOnceServer(a, b, b)
	srv.gate = make(chan struct{})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.stop()
	cfg := testConfig(ts.URL + "/debug/pprof/heap")
	cfg.Refresh = 200 * time.Millisecond
	h := start(t, cfg)
	h.keys("p", "m") // pause on the first snapshot and mark it
	if s := h.screen(); !strings.Contains(s, "every snapshot is shown as its change since it") || !strings.Contains(s, "Δ since mark") {
		t.Errorf("the mark is not said:\n%s", s)
	}
	h.keys("d") // the delta gives way to the mark
	h.keys("p")
	close(srv.gate)
	// Generations: 1 the mark, 2 and 3 the snapshots after it.
	h.waitFor("the third snapshot", func(m *Model) bool { return srv.served() == 3 && m.gen >= 3 })
	showsBase(t, h, b, a)
	if s := h.screen(); !strings.Contains(s, "Δflat") || !strings.Contains(s, "Δ since mark") {
		t.Errorf("the change since the mark is not on screen:\n%s", s)
	}
	h.keys("m")
	h.waitFor("the mark cleared", func(m *Model) bool { return m.live.mark == nil && m.live.shown == m.live.seq })
	if s := h.screen(); !strings.Contains(s, "mark cleared") {
		t.Errorf("no note for the mark cleared:\n%s", s)
	}
}

// served is how many requests the server answered with a profile.
func (s *liveServer) served() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return min(s.n, len(s.files))
}

// showsBase checks that the open engine's top table is newFile's with
// baseFile subtracted as -base subtracts it.
func showsBase(t *testing.T, h *harness, newFile, baseFile string) {
	t.Helper()
	p, err := format.Load(t.Context(), format.Sources{Sources: []string{newFile}, Base: []string{baseFile}}, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := analysis.NewEngine(p).Top(uiOptions())
	if err != nil {
		t.Fatal(err)
	}
	var got *analysis.Top
	h.do(func(m *Model) { got, err = m.engine.Top(m.opts) })
	if err != nil {
		t.Fatal(err)
	}
	sameTop(t, got, want)
}

// sameTop compares two top tables row by row.
func sameTop(t *testing.T, got, want *analysis.Top) {
	t.Helper()
	if len(got.Rows) != len(want.Rows) || got.Total != want.Total {
		t.Fatalf("%d rows, total %d; want %d rows, total %d", len(got.Rows), got.Total, len(want.Rows), want.Total)
	}
	for i := range want.Rows {
		g, w := got.Rows[i], want.Rows[i]
		gn, wn := got.Nodes.Name(g.Node), want.Nodes.Name(w.Node)
		if gn != wn || g.Flat != w.Flat || g.Cum != w.Cum {
			t.Errorf("row %d: %s %d %d, -base gives %s %d %d", i, gn, g.Flat, g.Cum, wn, w.Flat, w.Cum)
		}
	}
}
