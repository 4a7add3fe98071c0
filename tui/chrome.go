package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/views"
)

// The frame around the views: tab bar, status bar, footer, help.

// View draws the frame through views.SafeFrame, which all the explorer
// shows passes: should a string from outside reach it unsanitised, it
// still cannot set the title or the clipboard, or move the cursor.
func (m *Model) View() string { return views.SafeFrame(m.frame()) }

func (m *Model) frame() string {
	st := m.c.Styles
	switch m.phase {
	case phaseEntering:
		if m.picker != nil {
			return m.load.view(m.source, m.spin.Model) // the alt screen already
		}
		return ""
	case phaseLoading, phaseOpening:
		if m.err != nil {
			return ""
		}
		line := m.load.view(m.source, m.spin.Model)
		if m.phase == phaseOpening {
			line = m.spin.View() + " " + st.Prompt.Render("Opening") + " " + m.source.String()
		}
		if m.picker != nil {
			return line // in the alt screen already
		}
		return line + "\n"
	}
	if m.width < minWidth || m.height < minHeight {
		return fmt.Sprintf("window too small: %d×%d\nneeds %d×%d", m.width, m.height, minWidth, minHeight)
	}
	if m.phase == phasePicking {
		return m.picker.view()
	}
	body := m.ActiveView().View()
	if m.help.shown {
		body = m.help.view()
	}
	if m.line.isOpen() {
		body = overlay(body, m.panel())
	}
	return strings.Join([]string{m.tabBar(), body, m.statusBar(), m.footer()}, "\n")
}

// tabs returns the tab labels, "1 Top" ...; in a window too narrow for
// them all, the tabs other than the active one show their number only.
func (m *Model) tabs() []string {
	out := make([]string, numViews)
	w := 2 // the active tab's brackets without colour
	for i, v := range m.views.all {
		out[i] = fmt.Sprintf("%d %s", i+1, v.Title())
		w += ansi.StringWidth(out[i]) + 2
	}
	if w > m.width {
		for i := range out {
			if viewID(i) != m.views.active {
				out[i] = fmt.Sprint(i + 1)
			}
		}
	}
	return out
}

func (m *Model) tabBar() string {
	st := m.c.Styles
	var b strings.Builder
	for i, t := range m.tabs() {
		if viewID(i) == m.views.active {
			if st.NoColor {
				t = "[" + t + "]"
			}
			b.WriteString(st.TabActive.Render(t))
		} else {
			b.WriteString(st.TabInactive.Render(t))
		}
	}
	used := ansi.StringWidth(b.String())
	right := "? help"
	if pad := m.width - used - len(right) - 1; pad > 0 {
		b.WriteString(strings.Repeat(" ", pad) + st.Dim.Render(right))
	}
	return b.String()
}

// tabAt returns the view whose tab is under column x, if any.
func (m *Model) tabAt(x int) (viewID, bool) {
	pos := 0
	for i, t := range m.tabs() {
		w := ansi.StringWidth(t) + 2 // padding
		if x >= pos && x < pos+w {
			return viewID(i), true
		}
		pos += w
	}
	return 0, false
}

// sampleTypeLabel names the sample type as the profile does, with its
// unit: "cpu (nanoseconds)", "mean_delay (nanoseconds)".
func (m *Model) sampleTypeLabel() (string, string) {
	i, err := analysis.SampleIndex(m.prof, m.opts.SampleIndex)
	if err != nil {
		return "?", ""
	}
	t := m.prof.SampleTypes[i]
	name := t.Type
	if m.opts.Mean {
		name = "mean_" + name
	}
	return name, t.Unit
}

func (m *Model) total() string {
	i, err := analysis.SampleIndex(m.prof, m.opts.SampleIndex)
	if err != nil {
		return ""
	}
	unit := m.prof.SampleTypes[i].Unit
	key := m.optsKey(m.opts) // every frame asks up to nine times
	fresh := func(id viewID) bool {
		v := m.views.get(id)
		_, state := v.Query(m.engine, m.opts, m.selected)
		return v.HasResult() && m.jobs.have[id] == key+state
	}
	active := m.views.active
	for _, id := range []viewID{active, viewTop, viewTree, viewLabels} {
		if !fresh(id) {
			continue
		}
		// The total by the tables' rule, as a table of it alone.
		t := m.views.get(id).Total()
		label := views.Format(m.c, unit, m.opts)
		// When the filters trim it, what is shown of it, as pprof's
		// "Showing nodes accounting for X, P% of T total".
		// (Not for means and diffs, whose total is no sum of the rows.)
		for _, j := range []viewID{id, active, viewTop, viewTree, viewFlame} {
			if m.opts.Mean || m.c.Diff {
				break
			}
			if st, ok := m.views.get(j).(views.ShownTotaler); ok && fresh(j) {
				if x := st.ShownTotal(); x != t {
					return label(x) + " of " + label(t) + " total"
				}
				break
			}
		}
		return "total " + label(t)
	}
	return ""
}

// statusBar shows the source, the sample type with its unit, the total,
// the granularity and the filters. When it does not fit, the unit, then
// the source, then a default granularity give way, so the filters stay.
func (m *Model) statusBar() string {
	st := m.c.Styles
	right := ""
	if m.jobs.busy() {
		right = m.spin.View() + st.Status.Render(" computing ")
	} else if len(m.history) > 0 {
		right = st.Status.Render(fmt.Sprintf(" ⌫ back (%d) ", len(m.history)))
	}
	avail := m.width - ansi.StringWidth(right)
	// The total asks every view whether its result is fresh: once a
	// frame, not once a level.
	total := m.total()
	var line string
	for level := 0; level < 4; level++ {
		line = m.statusLine(level, total)
		if ansi.StringWidth(line) <= avail {
			break
		}
	}
	if ansi.StringWidth(line) > avail {
		line = ansi.Truncate(line, max(0, avail-1), "…")
	}
	pad := m.width - ansi.StringWidth(line) - ansi.StringWidth(right)
	return line + st.Status.Render(strings.Repeat(" ", max(0, pad))) + right
}

// statusLine renders the status bar's text, shortened by level (0 full),
// with total as the total's part.
func (m *Model) statusLine(level int, total string) string {
	st := m.c.Styles
	sep := st.Status.Render(" │ ")
	name, unit := m.sampleTypeLabel()
	var parts []string
	if level < 2 {
		parts = append(parts, st.StatusLabel.Render(" "+m.source.String()))
	}
	if m.live != nil {
		parts = append(parts, st.Status.Render(m.liveStatus(level).String()))
	}
	stype := st.StatusLabel.Render(name)
	if level >= 2 {
		stype = st.StatusLabel.Render(" " + name)
	}
	if unit != "" && level < 1 {
		stype += st.Status.Render(" (" + unit + ")")
	}
	parts = append(parts, stype)
	if total != "" {
		parts = append(parts, st.Status.Render(total))
	}
	if level < 3 || m.opts.Granularity != "functions" {
		parts = append(parts, st.Status.Render(m.opts.Granularity))
	}
	if fs := m.opts.Filters(); len(fs) > 0 {
		crumbs := make([]string, len(fs))
		for i, f := range fs {
			crumbs[i] = st.Crumb.Render(views.Safe(f.String()).String()) // as the info panel's settings
		}
		parts = append(parts, strings.Join(crumbs, st.Status.Render(" › ")))
	}
	return strings.Join(parts, sep)
}

func (m *Model) footer() string {
	st := m.c.Styles
	if m.line.isOpen() {
		// The note and the completions show above the line (panel).
		return m.line.view()
	}
	if !m.note.text.IsEmpty() {
		if m.note.isErr {
			return st.Error.Render(ansi.Truncate(m.note.text.String(), m.width, "…"))
		}
		return st.Info.Render(ansi.Truncate(m.note.text.String(), m.width, "…"))
	}
	return m.help.hintLine(m.ActiveView().ShortHelp())
}
