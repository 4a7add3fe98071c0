package tui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/views"
)

// TestStaleBackgroundAfterClose: the completion timer, the completion
// itself and the prefetch a profile started outlive it when P closes it.
// Their messages, arriving in the picker or after the same file is opened
// again (whose requests have the same keys), must change nothing: not
// index the empty tables of the picker, not start a completion or end a
// background job of the new profile, not complete its table with the
// old one's.
func TestStaleBackgroundAfterClose(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyTo(t, testdata("cpu_labels.pb.gz"), filepath.Join(dir, "cpu.pb.gz"))
	cfg := testConfig()
	cfg.Dir = dir
	h := start(t, cfg)
	h.waitFor("the picker", func(m *Model) bool { return m.picker != nil })
	h.keys("<enter>")
	h.waitReady()
	var (
		old request
		top *analysis.Top
		err error
	)
	h.do(func(m *Model) {
		old = request{view: 0, opts: m.opts, key: m.jobs.have[0], epoch: m.jobs.epoch}
		top, err = m.engine.Top(m.opts)
	})
	if err != nil {
		t.Fatal(err)
	}
	h.keys("P")
	stale := func(where string) {
		t.Helper()
		h.do(func(m *Model) {
			bg, views := m.jobs.background, m.views.get(viewTop)
			m.Update(completeTopMsg{old})
			if m.jobs.background != bg {
				t.Errorf("%s: a stale completion timer started a completion", where)
			}
			m.jobs.background = true
			m.Update(backgroundDoneMsg{old.epoch})
			m.Update(topCompleteMsg{req: old, top: top})
			if !m.jobs.background {
				t.Errorf("%s: a stale background job ended the current one", where)
			}
			m.jobs.background = bg
			if m.views.get(viewTop) != views {
				t.Errorf("%s: the views were replaced", where)
			}
		})
	}
	stale("in the picker")
	h.keys("<enter>")
	h.waitReady()
	stale("the same file opened again")
	if s := h.screen(); !strings.Contains(s, "main.fib") {
		t.Errorf("the reopened profile is not shown:\n%s", s)
	}
}

// TestFlameRecentAfterRefresh: the flame graph keeps the graphs it
// showed, to show one again at once (b twice, R round), but never one
// of the profile before a refresh: after the file changed, b and b
// again show the new profile's numbers.
func TestFlameRecentAfterRefresh(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "cpu.pb.gz")
	copyTo(t, testdata("cpu_labels.pb.gz"), file)
	cfg := testConfig(file)
	cfg.Refresh = 100 * time.Millisecond
	h := start(t, cfg)
	h.keys("4")
	total := func(what string) (shown, want int64) {
		t.Helper()
		h.settle()
		h.do(func(m *Model) {
			f := m.views.get(viewFlame).(*views.Flame)
			shown = f.Total()
			top, err := m.engine.Top(m.opts)
			if err != nil {
				t.Fatal(err)
			}
			want = top.Total
		})
		if shown != want {
			t.Errorf("%s: the flame graph's total is %d, the profile's %d", what, shown, want)
		}
		return shown, want
	}
	before, _ := total("the graph")
	for _, k := range []string{"b", "b", "R", "R", "R"} {
		h.keys(k)
		total("before the refresh, " + k)
	}
	copyTo(t, testdata("cpu_labels_no_w0.pb.gz"), file)
	h.waitFor("the new file", func(m *Model) bool { return m.gen == 1 && !m.live.loading })
	for _, k := range []string{"refresh", "b", "b", "R", "R", "R"} {
		if k != "refresh" {
			h.keys(k)
		}
		if shown, _ := total("after the refresh, " + k); shown == before {
			t.Errorf("after the refresh, %s: the total of the profile before", k)
		}
	}
}
