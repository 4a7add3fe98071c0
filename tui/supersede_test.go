package tui

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// TestChangeSupersededBySnapshot: a live snapshot that lands while a
// change of options is being computed recomputes the view with the new
// options on the new data; the change must still take effect (and go on
// the history) when that result comes, not be dropped with the request
// it superseded.
func TestChangeSupersededBySnapshot(t *testing.T) {
	t.Parallel()
	srv := &liveServer{files: []string{testdata("cpu_labels.pb.gz")}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	cfg := testConfig(ts.URL + "/debug/pprof/heap")
	cfg.Refresh = time.Hour // the snapshot below is the only one
	h := start(t, cfg)
	var snapshot func() any
	h.do(func(m *Model) {
		opts := m.opts
		opts.Focus = "main"
		m.change(opts, true) // its result never comes: the snapshot supersedes it
		msg := snapshotMsg{seq: m.live.seq, p: m.prof, engine: analysis.NewEngine(m.prof)}
		cmd := m.showSnapshot(msg)
		snapshot = func() any { return cmd() }
	})
	h.tm.Send(snapshot())
	h.settle()
	var focus string
	var depth int
	h.do(func(m *Model) { focus, depth = m.Options().Focus, m.History() })
	if focus != "main" || depth != 1 {
		t.Errorf("after the snapshot: focus %q, history %d; want main, 1", focus, depth)
	}
}
