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
func (m *Model) View() string {
	if m.crashed() {
		return "" // what is left of the state may not draw
	}
	return views.SafeFrame(m.frame())
}

func (m *Model) frame() string {
	st := m.c.Styles
	switch m.phase {
	case phaseEntering:
		if m.picker != nil {
			return m.load.view(m.source, m.spin.Model) // the alt screen already
		}
		return ""
	case phaseOpening: // in the alt screen
		if m.err != nil {
			return ""
		}
		return m.spin.View() + " " + st.Prompt.Render("Opening") + " " + m.source.String()
	case phaseLoading:
		if m.err != nil {
			return ""
		}
		line := m.load.view(m.source, m.spin.Model)
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

// tabs returns the tab labels, "1 Top" ..., and whether they are
// compact: in a window too narrow for them padded, the tabs other than
// the active one lose their padding but a space between them; too
// narrow for that, they show their number only.
func (m *Model) tabs() ([]string, bool) {
	out := make([]string, numViews)
	// The active tab takes 2 columns more than its label: its padding,
	// or without colour its brackets.
	padded, compact := 2, 2-1
	for i, v := range m.views.all {
		out[i] = fmt.Sprintf("%d %s", i+1, v.Title())
		padded += ansi.StringWidth(out[i]) + 2
		compact += ansi.StringWidth(out[i]) + 1
	}
	if padded <= m.width {
		return out, false
	}
	if compact <= m.width {
		return out, true
	}
	for i := range out {
		if viewID(i) != m.views.active {
			out[i] = fmt.Sprint(i + 1)
		}
	}
	return out, false
}

// tabWidth is the columns tab i takes in the tab bar, with the space
// after it when compact.
func (m *Model) tabWidth(i int, label string, compact bool) int {
	w := ansi.StringWidth(label)
	if !compact || viewID(i) == m.views.active {
		w += 2
	}
	if compact {
		w++
	}
	return w
}

func (m *Model) tabBar() string {
	st := m.c.Styles
	var b strings.Builder
	labels, compact := m.tabs()
	for i, t := range labels {
		if compact && i > 0 {
			b.WriteString(" ")
		}
		switch {
		case viewID(i) == m.views.active:
			if st.NoColor {
				t = "[" + t + "]"
			}
			b.WriteString(st.TabActive.Render(t))
		case compact:
			b.WriteString(st.TabInactive.UnsetPadding().Render(t))
		default:
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
	labels, compact := m.tabs()
	for i, t := range labels {
		w := m.tabWidth(i, t, compact)
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

// total is the status bar's total: "total T", or, when filters keep
// less, "X of T total" as pprof's "Showing nodes accounting for X" (with
// "…" for X while it is counted), for whichever view is open; in a
// pivot, X is what it shows.
func (m *Model) total() string {
	i, err := analysis.SampleIndex(m.prof, m.opts.SampleIndex)
	if err != nil {
		return ""
	}
	label := views.Format(m.c, m.prof.SampleTypes[i].Unit, m.opts)
	key := m.optsKey(m.opts) // every frame asks up to four times
	var t int64
	have := false
	for _, id := range []viewID{m.views.active, viewTop, viewTree, viewLabels} {
		v := m.views.get(id)
		if _, state := v.Query(m.engine, m.opts, m.selected); v.HasResult() && m.jobs.have[id] == key+state {
			// The total by the tables' rule.
			t, have = v.Total(), true
			if sc, ok := v.(views.Scoper); ok && id == m.views.active {
				if x, ok := sc.Scope(); ok { // a pivot: what it shows
					return label(x) + " of " + label(t) + " total"
				}
			}
			break
		}
	}
	if !m.trims() {
		if !have {
			return ""
		}
		return "total " + label(t)
	}
	k, ok := m.counted(tallyFilters, key)
	if !have && !ok {
		return ""
	}
	if !have {
		t = k.Total
	}
	switch {
	case !ok:
		return "… of " + label(t) + " total"
	case k.Value != t:
		return label(k.Value) + " of " + label(t) + " total"
	}
	return "total " + label(t)
}

// statusBar shows the source, the sample type with its unit, the total,
// the granularity and the filters. When it does not fit, the unit, a
// default granularity and the live segment's details give way first;
// then the filters that do not fit show as a count ("+2"), and only
// then is the source name shortened: the source, the sample type and
// the total stay in sight, and so does that filters are active.
func (m *Model) statusBar() string {
	st := m.c.Styles
	right := ""
	if m.jobs.busy() {
		right = m.spin.View() + st.Status.Render(" computing ")
	} else if len(m.history) > 0 {
		right = st.Status.Render(fmt.Sprintf(" ⌫ back (%d) ", len(m.history)))
	}
	avail := m.width - ansi.StringWidth(right)
	line := m.statusLine(avail, m.total())
	if ansi.StringWidth(line) > avail {
		line = ansi.Truncate(line, max(0, avail-1), "…")
	}
	pad := m.width - ansi.StringWidth(line) - ansi.StringWidth(right)
	return line + st.Status.Render(strings.Repeat(" ", max(0, pad))) + right
}

// statusSep separates the status bar's parts.
const statusSep = " │ "

// statusLine is the status bar's text in at most avail columns when it
// can be, with total as the total's part.
func (m *Model) statusLine(avail int, total string) string {
	st := m.c.Styles
	fs := m.filters()
	crumbs := make([]string, len(fs))
	for i, f := range fs {
		crumbs[i] = views.Safe(f.String()).String() // as the info panel's settings
	}
	source := m.source.String()
	join := func(head, filters string) string {
		if filters == "" {
			return head
		}
		return head + st.Status.Render(statusSep) + filters
	}
	// head is the parts before the filters at level, in at most w
	// columns when the source's name can give way enough: its end
	// stays, down to least columns; with least 0 it goes.
	head := func(level, w, least int) string {
		h := m.statusHead(level, source, total)
		sw := ansi.StringWidth(source)
		switch need := ansi.StringWidth(h) - w; {
		case need <= 0 || sw <= least:
		case least == 0:
			h = m.statusHead(level, "", total)
		case m.comparing(level) != "":
			h = m.statusHead(level, "", total) // the base's name, rather than half of both
		default:
			h = m.statusHead(level, "…"+ansi.TruncateLeft(source, min(need, sw-least)+1, ""), total)
		}
		return h
	}
	// The unit, a default granularity and the live segment's details
	// give way (levels), and the source's name, to 16 columns; then the
	// filters that do not fit are counted, and only in a window too
	// narrow for the rest is the source cut shorter, or goes.
	type try struct{ level, least int }
	tries := []try{{0, 1 << 30}, {1, 1 << 30}, {2, 1 << 30}, {2, 16}, {3, 16}}
	if len(crumbs) == 0 {
		for _, t := range []try{{0, 1 << 30}, {1, 1 << 30}, {2, 1 << 30}, {2, 16}, {2, 8}, {3, 8}} {
			if h := head(t.level, avail, t.least); ansi.StringWidth(h) <= avail {
				return h
			}
		}
		return head(3, avail, 0)
	}
	all := strings.Join(crumbs, " › ")
	for _, t := range tries {
		h := head(t.level, avail-len(statusSep)-ansi.StringWidth(all), t.least)
		if f, all := fitCrumbs(st, crumbs, avail-ansi.StringWidth(h)-len(statusSep)); all {
			return join(h, f)
		}
	}
	// Counted filters, with the first of them in some columns beside
	// the count when the source can give way, and at least the count.
	const minFilters, minCount = 24, 10
	h := head(3, avail-len(statusSep)-minFilters, 16)
	for _, least := range []int{8, 0} {
		if ansi.StringWidth(h)+len(statusSep)+minCount <= avail {
			break
		}
		h = head(3, avail-len(statusSep)-minCount, least)
	}
	f, _ := fitCrumbs(st, crumbs, avail-ansi.StringWidth(h)-len(statusSep))
	return join(h, f)
}

// statusHead is the status bar's parts before the filters, shortened by
// level (0 full).
func (m *Model) statusHead(level int, source, total string) string {
	st := m.c.Styles
	name, unit := m.sampleTypeLabel()
	var parts []string
	if source != "" {
		parts = append(parts, st.StatusLabel.Render(" "+source))
	} else if c := m.comparing(level); c != "" {
		parts = append(parts, st.StatusLabel.Render(" "+c)) // a diff says so at every width
	}
	if m.live != nil {
		parts = append(parts, st.Status.Render(m.liveStatus(level).String()))
	}
	if len(parts) == 0 {
		name = " " + name
	}
	stype := st.StatusLabel.Render(name)
	if unit != "" && level < 1 {
		stype += st.Status.Render(" (" + unit + ")")
	}
	parts = append(parts, stype)
	if total != "" {
		parts = append(parts, st.Status.Render(total))
	}
	if level < 2 || m.opts.Granularity != "functions" {
		parts = append(parts, st.Status.Render(m.opts.Granularity))
	}
	return strings.Join(parts, st.Status.Render(statusSep))
}

// fitCrumbs renders the filters in w columns, reporting whether all of
// them fit: else as many as fit whole, then how many more ("+2"); the
// first one cut short when none fits whole, or only the count ("3
// filters") in a very narrow window.
func fitCrumbs(st *views.Styles, crumbs []string, w int) (string, bool) {
	render := func(shown []string, more int) string {
		out := make([]string, len(shown))
		for i, c := range shown {
			out[i] = st.Crumb.Render(c)
		}
		s := strings.Join(out, st.Status.Render(" › "))
		if more > 0 {
			s += st.Crumb.Render(fmt.Sprintf(" +%d", more))
		}
		return s
	}
	width := func(shown []string, more int) int {
		n := 0
		for i, c := range shown {
			if i > 0 {
				n += 3
			}
			n += ansi.StringWidth(c)
		}
		if more > 0 {
			n += len(fmt.Sprintf(" +%d", more))
		}
		return n
	}
	for k := len(crumbs); k > 0; k-- {
		if width(crumbs[:k], len(crumbs)-k) <= w {
			return render(crumbs[:k], len(crumbs)-k), k == len(crumbs)
		}
	}
	more := len(crumbs) - 1
	if cut := w - width(nil, more); cut >= 8 {
		return render([]string{ansi.Truncate(crumbs[0], cut, "…")}, more), false
	}
	if len(crumbs) == 1 {
		return st.Crumb.Render("1 filter"), false
	}
	return st.Crumb.Render(fmt.Sprintf("%d filters", len(crumbs))), false
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
	if text, noMatch, ok := m.searchStatus(); ok {
		style := st.Info
		if noMatch {
			style = st.Error
		}
		return style.Render(ansi.Truncate(views.Safe(text+" · n/N next/previous · esc clears").String(), m.width, "…"))
	}
	return m.help.hintLine(m.ActiveView().ShortHelp(), func(r keyRow) bool { return r.offered == nil || r.offered(m) })
}
