package tui

import (
	"regexp"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// Tallies: what the filters keep (analysis.Engine.Kept), counted off
// the UI goroutine for whichever view is open, so that the status bar's
// "X of T total" follows every filter at once, and what a search would
// keep as a focus, its share of the total.

const (
	tallyFilters = iota // the options' filters: the status bar
	tallySearch         // the options' and -focus=the search: its share
	numTallies
)

// tally is one count: what it is for (key), what is on its way.
type tally struct {
	key, inflight string
	kept          analysis.Kept
	failed        bool
}

type tallyMsg struct {
	which int
	key   string
	kept  analysis.Kept
	err   error
	epoch int
}

// tallies starts the counts the screen needs that are not made or on
// their way: after every message, so that no change of options, search
// or view forgets them.
func (m *Model) tallies() tea.Cmd {
	if m.phase != phaseReady || m.engine == nil {
		return nil
	}
	var cmds []tea.Cmd
	key := m.optsKey(m.opts)
	if m.trims() {
		cmds = append(cmds, m.startTally(tallyFilters, key, nil))
	}
	if re := m.shareOf(); re != nil {
		cmds = append(cmds, m.startTally(tallySearch, key+re.String(), re))
	}
	return tea.Batch(cmds...)
}

// trims reports whether filters may keep less than the total, which the
// status bar then says: not for means and diffs, whose total is no sum
// of what is shown.
func (m *Model) trims() bool {
	return !m.opts.Mean && !m.c.Diff && len(m.opts.Filters()) > 0
}

// shareOf is the search whose share of the total the active view shows
// (Top and Flame: what -focus=the search keeps), or nil.
func (m *Model) shareOf() *regexp.Regexp {
	if m.search == nil || m.opts.Mean || (m.views.active != viewTop && m.views.active != viewFlame) {
		return nil
	}
	return m.search
}

func (m *Model) startTally(which int, key string, focus *regexp.Regexp) tea.Cmd {
	t := &m.jobs.tally[which]
	if t.key == key || t.inflight == key {
		return nil
	}
	t.inflight = key
	e, opts, epoch := m.engine, m.opts, m.jobs.epoch
	return guard(func() tea.Msg {
		k, err := e.Kept(opts, focus)
		return tallyMsg{which, key, k, err, epoch}
	})
}

func (m *Model) tallied(msg tallyMsg) {
	if msg.epoch != m.jobs.epoch {
		return
	}
	t := &m.jobs.tally[msg.which]
	if t.inflight == msg.key {
		t.inflight = ""
	}
	t.key, t.kept, t.failed = msg.key, msg.kept, msg.err != nil
}

// counted returns tally which if it is for key.
func (m *Model) counted(which int, key string) (analysis.Kept, bool) {
	t := &m.jobs.tally[which]
	return t.kept, t.key == key && !t.failed
}
