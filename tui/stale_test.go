package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// TestStaleBackgroundAfterClose: the completion timer, the completion
// itself and the prefetch a profile started outlive it when P closes it.
// Their messages, arriving in the picker or after the same file is opened
// again (whose requests have the same keys), must change nothing: not
// index the empty tables of the picker, not start a completion or end a
// background job of the new profile, not complete its table with the
// old one's.
func TestStaleBackgroundAfterClose(t *testing.T) {
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
			m.Update(prefetchedMsg{old.epoch})
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
