package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/views"
)

// The root's keys are one table: handleKey dispatches on it, and the
// footer's hint line, the `?` help and the README's key table are made
// from it, so that a key documented is a key handled.

// keyRow is one of the root's bindings.
type keyRow struct {
	group string // the help's group it is listed in
	key   key.Binding
	when  keyWhen
	// do is what the key does; nil leaves it to the active view (the
	// moving keys, which every view has, listed for the help).
	do func(m *Model, msg tea.KeyMsg) tea.Cmd
	// hint is the binding's place in the footer's hint line, after the
	// view's own, from 1 (0: not there); offered, when set, says when the
	// line shows it: when the key does something.
	hint    int
	offered func(m *Model) bool
}

// keyWhen says when a binding applies.
type keyWhen int

const (
	always keyWhen = iota
	// withPicker: the profile opened from the picker, to go back to it;
	// otherwise the key is the active view's.
	withPicker
	// whenLive: with -refresh; otherwise the key says how to turn it on.
	whenLive
)

// Help group titles.
const (
	groupGeneral  = "General"
	groupMove     = "Move"
	groupSelected = "Selected row"
	groupLive     = "Live (-refresh)"
)

// rootKeys is the root's table over k, in the help's order.
func rootKeys(k *views.KeyMap) []keyRow {
	view := func(b key.Binding) keyRow { return keyRow{group: groupMove, key: b} }
	filter := func(b key.Binding, kind filterKind) keyRow {
		return keyRow{group: groupSelected, key: b, do: func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.filterSelected(kind) }}
	}
	live := func(b key.Binding, do func(*Model, tea.KeyMsg) tea.Cmd) keyRow {
		return keyRow{group: groupLive, key: b, when: whenLive, do: do}
	}
	step := func(m *Model, msg tea.KeyMsg) tea.Cmd {
		m.stepSnapshot(stepDir(msg, k))
		return nil
	}
	return []keyRow{
		{group: groupGeneral, key: k.Quit, hint: 6, do: quit},
		{group: groupGeneral, key: k.Help, hint: 5, do: func(m *Model, _ tea.KeyMsg) tea.Cmd {
			m.help.open(nil)
			return nil
		}},
		{group: groupGeneral, key: k.Views, do: func(m *Model, msg tea.KeyMsg) tea.Cmd {
			return m.switchView(viewID(msg.Runes[0] - '1'))
		}},
		{group: groupGeneral, key: k.NextView, do: func(m *Model, _ tea.KeyMsg) tea.Cmd {
			return m.switchView((m.views.active + 1) % numViews)
		}},
		{group: groupGeneral, key: k.PrevView, do: func(m *Model, _ tea.KeyMsg) tea.Cmd {
			return m.switchView((m.views.active + numViews - 1) % numViews)
		}},
		{group: groupGeneral, key: k.Command, hint: 1, do: func(m *Model, _ tea.KeyMsg) tea.Cmd {
			return m.openInput(inputCommand, "")
		}},
		{group: groupGeneral, key: k.SampleType, hint: 3, do: func(m *Model, _ tea.KeyMsg) tea.Cmd {
			cmd := m.nextSampleType()
			m.inStreak()
			return cmd
		}},
		{group: groupGeneral, key: k.Back, hint: 4, do: func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.back() }, offered: func(m *Model) bool {
			// Something to go back to, and the view leaves backspace to the root (a zoomed flame graph zooms out).
			kc, claims := m.ActiveView().(views.KeyClaimer)
			return len(m.history) > 0 && !(claims && kc.Claims(tea.KeyMsg{Type: tea.KeyBackspace}))
		}},
		{group: groupGeneral, key: k.Picker, when: withPicker, do: func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.closeProfile() }},
		{group: groupGeneral, key: k.Copy, do: func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.copySelected() }},
		{group: groupGeneral, key: k.Info, do: func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.showInfo() }},
		{group: groupGeneral, key: k.Recursion, do: func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.cycleRecursion() }},

		view(k.Up), view(k.Down), view(k.PageUp), view(k.PageDown), view(k.Home), view(k.End),
		{group: groupMove, key: k.Search, hint: 2, do: func(m *Model, _ tea.KeyMsg) tea.Cmd {
			return m.openInput(inputSearch, "")
		}},
		{group: groupMove, key: k.NextMatch, do: func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.nextMatch(1) }},
		{group: groupMove, key: k.PrevMatch, do: func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.nextMatch(-1) }},
		{group: groupMove, key: k.Clear, do: func(m *Model, _ tea.KeyMsg) tea.Cmd {
			m.setSearch(nil)
			return nil
		}},

		filter(k.Drill, filterDrill), filter(k.Focus, filterFocus), filter(k.Ignore, filterIgnore), filter(k.Hide, filterHide),
		{group: groupSelected, key: k.Pivot, do: func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.pivotSelected() }},

		live(k.Pause, func(m *Model, _ tea.KeyMsg) tea.Cmd {
			m.setNote(m.live.pause(), false)
			return nil
		}),
		live(k.Refresh, func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.refreshNow() }),
		live(k.Delta, func(m *Model, _ tea.KeyMsg) tea.Cmd {
			cmd, note := m.live.toggleDelta()
			if !note.IsEmpty() {
				m.setNote(note, false)
			}
			return cmd
		}),
		live(k.Mark, func(m *Model, _ tea.KeyMsg) tea.Cmd {
			cmd, note := m.live.toggleMark()
			m.setNote(note, false)
			return cmd
		}),
		live(k.Trend, func(m *Model, _ tea.KeyMsg) tea.Cmd {
			m.toggleTrend()
			return nil
		}),
		live(k.StepBack, step),
		live(k.StepForward, step),
	}
}

func quit(*Model, tea.KeyMsg) tea.Cmd { return tea.Quit }

// stepDir is the direction [ (-1) or ] (1) steps through the snapshots.
func stepDir(msg tea.KeyMsg, k *views.KeyMap) int {
	if key.Matches(msg, k.StepBack) {
		return -1
	}
	return 1
}

// runKey does what the table says msg does, reporting false when the
// key is the active view's.
func (m *Model) runKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	for _, r := range m.keys {
		if r.do == nil || !key.Matches(msg, r.key) {
			continue
		}
		switch r.when {
		case withPicker:
			if m.picker == nil {
				continue
			}
		case whenLive:
			if m.live == nil {
				m.setNote(views.Safe("live refresh is off: open a URL or file with -refresh=10s"), false)
				return nil, true
			}
		}
		return r.do(m, msg), true
	}
	return nil, false
}

// keyGroups is every binding as the help lists it: the root's groups,
// then each view's.
func keyGroups(rows []keyRow, k *views.KeyMap) []views.KeyGroup {
	var groups []views.KeyGroup
	for _, r := range rows {
		if n := len(groups); n == 0 || groups[n-1].Title != r.group {
			groups = append(groups, views.KeyGroup{Title: r.group})
		}
		g := &groups[len(groups)-1]
		g.Bindings = append(g.Bindings, r.key)
	}
	return append(groups, k.ViewGroups()...)
}

// hints are the root's rows of the footer's hint line, in its order.
func hints(rows []keyRow) []keyRow {
	var out []keyRow
	for _, r := range rows {
		if r.hint > 0 {
			out = append(out, keyRow{})
		}
	}
	for _, r := range rows {
		if r.hint > 0 {
			out[r.hint-1] = r
		}
	}
	return out
}

// copySelected copies the selected row's name.
func (m *Model) copySelected() tea.Cmd {
	sel, ok := m.ActiveView().Selection()
	if !ok || sel.Name == "" {
		m.setNote(views.Safe("nothing selected to copy"), false)
		return nil
	}
	return m.copyText(sel.Name, sel.Name)
}

// nextMatch moves the active view to the search's next match (dir 1)
// or previous one (-1).
func (m *Model) nextMatch(dir int) tea.Cmd {
	if m.search == nil {
		m.setNote(views.Safe("no search: press / to search"), false)
	} else {
		m.ActiveView().NextMatch(dir) // the footer says where it is (searchStatus)
	}
	return nil
}

// pivotSelected pivots on the selected function: in the active view when
// it pivots (the flame graph, the tree), else in the flame graph.
func (m *Model) pivotSelected() tea.Cmd {
	sel, ok := m.ActiveView().Selection()
	if !ok || sel.Kind != views.SelFunction || sel.Name == "" {
		m.setNote(views.Safe("select a function to pivot on"), false)
		return nil
	}
	if p, ok := m.ActiveView().(views.Pivoter); ok {
		p.Pivot(sel.Name)
		return nil
	}
	// The flame graph's next result is the pivot: switching to it
	// computes that, and the recomputation it asks for is dropped.
	m.views.get(viewFlame).(views.Pivoter).Pivot(sel.Name)
	m.c.TakeAsked()
	return m.switchView(viewFlame)
}

// cycleRecursion folds all recursion, then direct recursion only, then
// none: one step of the history each, as any setting.
func (m *Model) cycleRecursion() tea.Cmd {
	next := m.target
	switch next.Recursion {
	case "":
		next.Recursion = analysis.RecursionAll
	case analysis.RecursionAll:
		next.Recursion = analysis.RecursionDirect
	default:
		next.Recursion = ""
	}
	return m.change(next, true)
}
