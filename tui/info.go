package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/analysis/report"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/views"
)

// The info panel (I): the profile's facts as pprof's report header gives
// them, its sample types, the settings in force and how many nodes the
// views show.

// infoMsg carries the Top table the panel needs (computed in the
// background when the Top view's is stale).
type infoMsg struct {
	top  *analysis.Top
	opts analysis.Options
	err  error
	// The base's header (a diff), its error, and the base as read.
	base    []string
	baseErr error
	facts   baseFacts
	gen     int
}

// showInfo computes what the panel needs; infoMsg opens it.
func (m *Model) showInfo() tea.Cmd {
	e, opts := m.engine, m.opts
	ctx, read, src, facts, gen := m.ctx, m.sourceReader(), m.sources, m.baseFacts, m.gen
	if m.live != nil {
		src = format.Sources{} // a live diff's sources are read on every refresh
	}
	return guard(func() tea.Msg {
		top, err := e.Top(opts)
		msg := infoMsg{top: top, opts: opts, err: err, gen: gen}
		msg.facts, msg.base, msg.baseErr = baseInfo(ctx, read, src, facts, opts)
		return msg
	})
}

// infoLines renders the panel.
func (m *Model) infoLines(msg infoMsg) []string {
	st := m.c.Styles
	w := max(20, m.width-4)
	var lines []string
	section := func(title string) {
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, st.HelpTitle.Render(title))
	}
	text := func(t views.Text) {
		s := t.String()
		body := strings.TrimLeft(s, " ")
		indent := "  " + s[:len(s)-len(body)]
		for _, l := range wrap(body, w-len(indent)+2) {
			lines = append(lines, indent+st.HelpDesc.Render(l))
		}
	}
	field := func(k string, v views.Text) {
		lines = append(lines, "  "+st.HelpKey.Render(views.PadRight(k, 14))+st.HelpDesc.Render(v.String()))
	}
	section("Profile")
	field("Source", m.source)
	p := m.prof
	if msg.err != nil {
		text(views.Safe(msg.err.Error()))
	} else {
		for _, l := range report.Header(p, msg.top, msg.opts) {
			text(views.Safe(l))
		}
	}
	field("Samples", views.Textf("%d", p.Samples.Len()))
	if p.Period != 0 {
		field("Period", views.Textf("%s of %s", analysis.ScaledLabel(p.Period, p.PeriodType.Unit, "auto"), p.PeriodType.Type))
	}
	if msg.base != nil || msg.baseErr != nil {
		section("Base (" + strings.TrimPrefix(baseFlag(m.sources), "-") + ")")
		if msg.baseErr != nil {
			text(views.Safe(msg.baseErr.Error()))
		}
		for _, l := range msg.base {
			text(views.Safe(l))
		}
	}
	if l := m.live; l != nil {
		section("Live")
		field("Status", m.liveStatus(0))
		if line := sparkline(l.totals, max(2, w-16)); line != "" {
			field("Total trend", views.Safe(line))
		}
		field("Snapshots", views.Textf("%d kept of the last %d (-history)", len(l.totals), l.keep))
		if l.mark != nil {
			field("Mark", l.markLine(msg.opts))
		}
	}
	section("Sample types")
	cur, _ := analysis.SampleIndex(p, msg.opts.SampleIndex)
	for i, t := range p.SampleTypes {
		mark := "  "
		if i == cur {
			mark = "▶ "
		}
		lines = append(lines, "  "+mark+st.HelpDesc.Render(views.Textf("%d  %s (%s)", i, t.Type, t.Unit).String()))
	}
	if msg.err == nil {
		section("Nodes")
		top := msg.top
		shown := fmt.Sprintf("showing %d of %d nodes", len(top.Rows), top.AllNodes+top.DroppedNodes)
		if top.DroppedNodes > 0 {
			shown += fmt.Sprintf(", %d dropped below nodefraction=%g", top.DroppedNodes, msg.opts.NodeFraction)
		}
		if n := top.AllNodes - len(top.Rows); n > 0 {
			shown += fmt.Sprintf(", %d beyond nodecount=%d", n, msg.opts.NodeCount)
		}
		text(views.Safe(shown))
	}
	section("Settings (differing from the explorer's defaults)")
	explorer := analysis.DefaultOptions()
	explorer.NodeFraction = 0
	n := 0
	for _, s := range analysis.Settings() {
		if v := s.Value(msg.opts); v != s.Value(explorer) {
			field(s.Name, views.Safe(v))
			n++
		}
	}
	if n == 0 {
		text(views.Safe("none: every setting has its default (:help lists them)"))
	}
	return lines
}
