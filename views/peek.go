package views

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// Peek is the sandwich of the selected function: its callers above, the
// function itself, its callees below, with the call edges' weights and
// their shares of the function's cum (pprof's -peek, speedscope's
// sandwich). enter on a caller or callee makes it the selection, so one
// walks the call graph from the keyboard.
type Peek struct {
	c *Common
	aboutFunction
	// data is the result shown, for data.name.
	data  *peekResult
	value func(int64) string
	valW  int
	pctW  int

	rows          []peekRow
	l             list
	m             matchSet
	click         DoubleClick
	width, height int
}

type peekResult struct {
	name string
	pk   *analysis.Peek // nil when nothing is selected
}

type peekRowKind int

const (
	peekCaller peekRowKind = iota
	peekCenter
	peekCallee
)

type peekRow struct {
	kind  peekRowKind
	entry int           // into pk.Entries
	edge  analysis.Edge // for callers and callees
}

// NewPeek makes the Peek view.
func NewPeek(c *Common) *Peek { return &Peek{c: c} }

func (p *Peek) Title() string { return "Peek" }
func (p *Peek) Init() tea.Cmd { return nil }

// The summary line and the column headings come before the rows.
const peekHeadLines = 2

func (p *Peek) SetSize(w, h int) {
	p.width, p.height = w, h
	p.l.fit(h, peekHeadLines)
}

func (p *Peek) ShortHelp() []key.Binding {
	k := p.c.Keys
	// enter walks from a caller or callee (Claims), and drills from the
	// function itself.
	f, edge := filterable(p), p.onEdge()
	return []key.Binding{offer(k.Walk, edge), offer(k.Drill, !edge && f), offer(k.Center, edge), offer(k.Focus, f), offer(k.Ignore, f)}
}

// peekOptions are opt as the sandwich on sel wants them: no trimming (as
// pprof's -peek), and functions rather than lines or addresses, whose
// nodes would cut one function into many — but for an address without a
// name, which only the addresses granularity tells from the others.
func peekOptions(opt analysis.Options, sel string) analysis.Options {
	opt.NodeFraction, opt.EdgeFraction, opt.NodeCount = 0, 0, 0
	if opt.Granularity == "lines" || (opt.Granularity == "addresses" && !analysis.Unnamed(sel)) {
		opt.Granularity = "functions"
	}
	return opt
}

func (p *Peek) Query(e *analysis.Engine, opt analysis.Options, sel string) (Job, string) {
	return job(opt, func() (*peekResult, error) {
		if sel == "" {
			return &peekResult{}, nil
		}
		pk, err := e.PeekFunction(peekOptions(opt, sel), sel)
		if err != nil {
			return nil, err
		}
		return &peekResult{name: sel, pk: pk}, nil
	}, p.setResult), sel
}

func (p *Peek) HasResult() bool { return p.data != nil && p.data.pk != nil }

// Total is the percentage denominator of the data shown.
func (p *Peek) Total() int64 { return p.data.pk.Top.Total }

func (p *Peek) setResult(r *peekResult, opt analysis.Options) {
	moved := p.data == nil || p.data.name != r.name
	p.data, p.name = r, r.name
	p.rows = p.rows[:0]
	if r.pk == nil {
		p.l.setLen(0)
		return
	}
	top := r.pk.Top
	var vals []int64
	for i, en := range r.pk.Entries {
		for _, e := range en.In {
			p.rows = append(p.rows, peekRow{kind: peekCaller, entry: i, edge: e})
			vals = append(vals, e.Weight)
		}
		p.rows = append(p.rows, peekRow{kind: peekCenter, entry: i})
		vals = append(vals, en.Flat, en.Cum)
		for _, e := range en.Out {
			p.rows = append(p.rows, peekRow{kind: peekCallee, entry: i, edge: e})
			vals = append(vals, e.Weight)
		}
	}
	q := newQuantity(p.c, top.SampleType.Unit, opt)
	p.value = q.format
	p.valW = max(10, q.widest(vals...)+1)
	p.pctW = 7 // "100.00%" is the longest share of a cum
	p.l.setLen(len(p.rows))
	if moved {
		p.center()
	}
	p.SetSearch(p.m.re)
}

// center puts the cursor on the (first) selected function's row.
func (p *Peek) center() {
	for i, r := range p.rows {
		if r.kind == peekCenter {
			p.l.moveTo(i)
			// Show its callers above it as far as they fit.
			p.l.offset = max(0, i-p.l.height/2)
			p.l.clamp()
			return
		}
	}
}

// rowName is the function a row stands for: what a walk selects.
func (p *Peek) rowName(i int) string {
	r := p.rows[i]
	top := p.data.pk.Top
	if r.kind == peekCenter {
		return top.Nodes.FuncName(p.data.pk.Entries[r.entry].Node)
	}
	return top.Nodes.FuncName(r.edge.Node)
}

// label is the row's name as shown.
func (p *Peek) label(i int) string {
	r := p.rows[i]
	top := p.data.pk.Top
	if r.kind == peekCenter {
		return top.Nodes.Name(p.data.pk.Entries[r.entry].Node)
	}
	return top.Nodes.Name(r.edge.Node)
}

// onEdge reports whether the cursor is on a caller or a callee.
func (p *Peek) onEdge() bool {
	return p.HasResult() && len(p.rows) > 0 && p.rows[p.l.cursor].kind != peekCenter
}

// Claims takes enter when the cursor is on a caller or callee: it walks
// there instead of drilling (on the function itself, enter drills).
func (p *Peek) Claims(msg tea.KeyMsg) bool {
	return key.Matches(msg, p.c.Keys.Walk) && p.onEdge()
}

// walk makes the row under the cursor the selection.
func (p *Peek) walk() {
	if p.onEdge() {
		p.c.Ask(SelectMsg{Name: p.rowName(p.l.cursor)})
	}
}

func (p *Peek) Update(msg tea.Msg) tea.Cmd {
	if !p.HasResult() {
		return nil
	}
	if mm, ok := msg.(tea.MouseMsg); ok && mm.Button == tea.MouseButtonLeft && mm.Action == tea.MouseActionPress {
		i := p.l.offset + mm.Y - peekHeadLines
		if mm.Y < peekHeadLines || i >= len(p.rows) {
			return nil
		}
		p.l.moveTo(i)
		if p.click.Press(i) {
			p.walk()
		}
		return nil
	}
	if p.l.navigate(p.c.Keys, msg, peekHeadLines) {
		return nil
	}
	if km, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(km, p.c.Keys.Walk):
			p.walk()
		case key.Matches(km, p.c.Keys.Center):
			p.center()
		}
	}
	return nil
}

// Cursor returns the function named by the row under the cursor and
// whether it is a caller or callee (rather than the function itself).
// Exported for tui's tests, which drive the whole program.
func (p *Peek) Cursor() (name string, edge bool) {
	if !p.HasResult() || len(p.rows) == 0 {
		return "", false
	}
	return p.rowName(p.l.cursor), p.onEdge()
}

func (p *Peek) SetSearch(re *regexp.Regexp) bool {
	if !p.HasResult() {
		p.m.re = re
		return false
	}
	return p.m.search(&p.l, re, len(p.rows), p.label)
}

func (p *Peek) NextMatch(dir int) bool { return p.m.step(&p.l, dir, false) }

func (p *Peek) View() string {
	st := p.c.Styles
	switch {
	case p.data == nil || p.data.name != p.name:
		if p.name == "" && p.data != nil {
			break
		}
		return fillLines([]string{st.Dim.Render("  computing…")}, p.height)
	}
	if p.name == "" || p.data.pk == nil {
		return fillLines([]string{st.Dim.Render("  no function selected: pick one in Top or Tree, then come back")}, p.height)
	}
	pk := p.data.pk
	if len(pk.Entries) == 0 {
		return fillLines([]string{st.Dim.Render(fmt.Sprintf("  %s has no samples with the current options", p.name))}, p.height)
	}
	total := pk.Top.Total
	en := pk.Entries[0]
	parts := []string{plural(len(en.In), "caller"), plural(len(en.Out), "callee")}
	if len(pk.Entries) > 1 {
		parts = append(parts, fmt.Sprintf("%d nodes", len(pk.Entries)))
	}
	summary := funcSummary(pk.Top.Nodes.Name(en.Node), p.width, p.value, en.Flat, en.Cum, total, parts...)
	head := st.Key.Render(ansi.Truncate(summary, p.width, "…"))
	if rest := p.width - ansi.StringWidth(summary) - 3; p.c.Diff && rest > 0 {
		head += "   " + st.DiffLegend(rest) // the colours of the values
	}
	lines := []string{head}
	var h strings.Builder
	if !p.narrow() {
		h.WriteString(padLeft("flat", p.valW) + " " + padLeft("cum", p.valW) + " ")
	}
	h.WriteString(padLeft("calls", p.valW) + " " + padLeft("calls%", p.pctW))
	h.WriteString("  callers ↑ · function ● · callees ↓")
	lines = append(lines, st.Header.Render(PadRight(ansi.Truncate(h.String(), p.width, "…"), p.width)))

	from, to := p.l.visible()
	for i := from; i < to; i++ {
		lines = append(lines, p.renderRow(i))
	}
	return fillLines(lines, p.height)
}

// narrow reports whether the window is too narrow for the flat and cum
// columns: the function's row then leaves its values to the summary.
func (p *Peek) narrow() bool { return p.width < 2*p.valW+p.pctW+30 }

// funcSummary is the line over a view about one function (Peek, Graph):
// its name, flat and cum with their shares of total, and what is said of
// its callers and callees.
func funcSummary(name string, width int, value func(int64) string, flat, cum, total int64, parts ...string) string {
	tail := fmt.Sprintf("  flat %s %s · cum %s %s", value(flat), strings.TrimSpace(share(flat, total)),
		value(cum), strings.TrimSpace(share(cum, total)))
	for _, p := range parts {
		tail += " · " + p
	}
	// The name gives way first (as a flame frame's does), down to
	// summaryName columns; past that the line is cut at its end.
	if nw, w := ansi.StringWidth(name), width-1-ansi.StringWidth(tail); nw > w && nw > summaryName {
		name = fitFrameName(name, max(w, summaryName))
	}
	return " " + name + tail
}

// summaryName is the fewest columns a summary line's name is cut to.
const summaryName = 32

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func (p *Peek) renderRow(i int) string {
	st := p.c.Styles
	r := p.rows[i]
	pk := p.data.pk
	en := pk.Entries[r.entry]
	total := pk.Top.Total
	sel := i == p.l.cursor
	blank := func(w int) cell { return cell{text: strings.Repeat(" ", w)} }
	val := func(v int64) cell { return valueCell(p.c, padLeft(p.value(v), p.valW), v, total) }
	var cells []cell
	var mark string
	switch {
	case r.kind == peekCenter && p.narrow():
		// The summary line above has the function's values.
		cells = []cell{blank(p.valW), blank(p.pctW)}
		mark = "● "
	case r.kind == peekCenter:
		cells = []cell{val(en.Flat), val(en.Cum), blank(p.valW), blank(p.pctW)}
		mark = "● "
	default:
		share := cell{text: padLeft(share(r.edge.Weight, en.Cum), p.pctW), heat: pct(r.edge.Weight, en.Cum), kind: cellHeat}
		if p.c.Diff {
			share.kind = cellPlain // red and green are the deltas' there
		}
		cells = []cell{val(r.edge.Weight), share}
		if !p.narrow() {
			cells = append([]cell{blank(p.valW), blank(p.valW)}, cells...)
		}
		mark = "  ↑ "
		if r.kind == peekCallee {
			mark = "  ↓ "
		}
	}
	var b strings.Builder
	used := writeCells(&b, st, cells, sel)
	used += 2 + ansi.StringWidth(mark)
	nameW := p.width - used
	suffix := ""
	if r.kind != peekCenter && r.edge.Inline {
		suffix = " (inline)"
	}
	name := fitName(p.label(i), nameW)
	if nameW-ansi.StringWidth(name) < len(suffix) {
		suffix = ""
	}
	base, tail := st.Plain, st.Dim
	if r.kind == peekCenter {
		base = st.Key
	}
	if sel {
		base, tail = st.Selected, st.Selected
	}
	b.WriteString(base.Render("  " + mark))
	b.WriteString(highlight(name, p.m.re, base, st.Match))
	if suffix != "" {
		b.WriteString(tail.Render(suffix))
	}
	padSelected(&b, st, sel, nameW-ansi.StringWidth(name)-len(suffix))
	return b.String()
}
