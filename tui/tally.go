package tui

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/views"
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
// of what is shown, nor for a filter that only folds the stacks
// (recursion), which keeps every sample.
func (m *Model) trims() bool {
	return !m.opts.Mean && !m.c.Diff && slices.ContainsFunc(m.filters(), func(f analysis.Filter) bool { return !f.Folds })
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
	if t.key == key || t.inflight != "" {
		// One count at a time: as a search is typed, the newest is
		// counted after the one on its way (tallies runs again when it
		// lands).
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
	if a := m.announced; a != nil && msg.which == tallyFilters && msg.key == a.key {
		m.announced = nil
		if m.note.text.String() == a.note.String() && !t.failed {
			_, unit := m.sampleTypeLabel()
			m.setNote(a.result(t.kept, views.Format(m.c, unit, m.opts)), false)
		}
	}
}

// announcement is what a filter key set, said in the footer at once and
// again with what it keeps once that is counted: the filter shows where
// it was set, even when the view looks the same (peek's enter on its own
// function focuses on it, which its callers and callees all pass).
type announcement struct {
	key    string // the options' optsKey the count is for
	set    string // "focus=^main\\.fib$"
	note   views.Text
	before int64 // what was kept before; -1: all of the total
	// shapes: it changes the stacks' frames, so keeping every sample
	// still changes what the views show.
	shapes bool
}

// announceFilter says what a filter key changes from old to next.
func (m *Model) announceFilter(old, next analysis.Options) {
	var set []string
	prev := map[string]string{}
	for _, f := range old.Filters() {
		prev[f.Name] = f.Value
	}
	shapes := false
	for _, f := range next.Filters() {
		if prev[f.Name] != f.Value {
			set = append(set, f.String())
			if s, ok := analysis.LookupSetting(f.Name); ok && s.ShapesStacks() {
				shapes = true
			}
		}
	}
	a := &announcement{key: m.optsKey(next), set: strings.Join(set, " "), before: -1, shapes: shapes}
	a.note = views.Safe(a.set + " · ⌫ back undoes it")
	m.setNote(a.note, false)
	if next.Mean || m.c.Diff {
		return // a mean or a diff is no sum of what is kept
	}
	if len(old.Filters()) > 0 {
		k, ok := m.counted(tallyFilters, m.optsKey(old))
		if !ok {
			return // not known: nothing to compare with
		}
		a.before = k.Value
	}
	m.announced = a
}

// result is the announcement once what the filters keep, k, is counted.
// label prints values as the views do.
func (a *announcement) result(k analysis.Kept, label func(int64) string) views.Text {
	before := a.before
	if before < 0 {
		before = k.Total
	}
	switch {
	case k.Value == before && a.shapes:
		return views.Safe(a.set + " keeps all that was shown; its frames change · ⌫ back undoes it")
	case k.Value == before:
		return views.Safe(a.set + " keeps all that was shown: nothing changes · ⌫ back undoes it")
	case k.Value == 0:
		return views.Safe(a.set + " keeps nothing of " + label(k.Total) + " · ⌫ back undoes it")
	}
	return views.Safe(fmt.Sprintf("%s keeps %s of %s total (%s) · ⌫ back undoes it", a.set, label(k.Value), label(k.Total),
		strings.TrimSpace(analysis.Percentage(k.Value, k.Total))))
}

// counted returns tally which if it is for key.
func (m *Model) counted(which int, key string) (analysis.Kept, bool) {
	t := &m.jobs.tally[which]
	return t.kept, t.key == key && !t.failed
}
