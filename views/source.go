package views

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// Source is the selected function's source with each line's flat and
// cum in the gutter (pprof's -list), the hottest lines highlighted and
// the view scrolled to the hottest one. analysis finds and reads the
// files (source_path, trim_path); a file not found says where it looked,
// and the lines with samples are still listed by number.
type Source struct {
	c     *Common
	files *analysis.SourceFiles
	aboutFunction
	data  *sourceResult
	value func(int64) string
	valW  int // the value columns' width

	rows          []sourceRow
	l             list
	left          int // columns of source text scrolled off to the left
	textMax       int // the widest source line
	m             matchSet
	width, height int
}

type sourceResult struct {
	name string
	lst  *analysis.List // nil when nothing is selected
}

type sourceRowKind int

const (
	srcTitle  sourceRowKind = iota // "main.fib in main.go"
	srcTotals                      // the listing's flat and cum
	srcNote                        // a missing file, where it was looked for
	srcLine
)

type sourceRow struct {
	kind    sourceRowKind
	listing int
	line    analysis.ListingRow
	text    string // for notes; tabs expanded for lines
	isErr   bool   // a note that is an error
}

// NewSource makes the Source view.
func NewSource(c *Common) *Source {
	files := c.SourceFiles
	if files == nil {
		files = analysis.NewSourceFiles()
	}
	return &Source{c: c, files: files, valW: srcValW}
}

func (s *Source) Title() string { return "Source" }
func (s *Source) Init() tea.Cmd { return nil }

func (s *Source) SetSize(w, h int) {
	s.width, s.height = w, h
	s.l.fit(h, 3) // the column headings, and the function's title and totals pinned
}

func (s *Source) ShortHelp() []key.Binding {
	k := s.c.Keys
	f := filterable(s)
	return []key.Binding{offer(k.Hottest, s.HasResult() && len(s.data.lst.Listings) > 0), offer(k.Focus, f), offer(k.Ignore, f)}
}

func (s *Source) Query(e *analysis.Engine, opt analysis.Options, sel string) (Job, string) {
	files := s.files
	return job(opt, func() (*sourceResult, error) {
		if sel == "" {
			return &sourceResult{}, nil
		}
		lst, err := e.List(opt, regexp.MustCompile("^"+regexp.QuoteMeta(sel)+"$"), files)
		if err != nil {
			return nil, err
		}
		return &sourceResult{name: sel, lst: lst}, nil
	}, s.setResult), sel
}

func (s *Source) HasResult() bool { return s.data != nil && s.data.lst != nil }

// Total is the percentage denominator of the data shown.
func (s *Source) Total() int64 { return s.data.lst.Total }

func (s *Source) setResult(r *sourceResult, opt analysis.Options) {
	s.data, s.name = r, r.name
	s.rows = s.rows[:0]
	if r.lst == nil {
		s.l.setLen(0)
		return
	}
	var vals []int64
	for _, l := range r.lst.Listings {
		vals = append(vals, l.Flat, l.Cum)
		for _, row := range l.Rows {
			vals = append(vals, row.Flat, row.Cum)
		}
	}
	q := newQuantity(s.c, r.lst.SampleType.Unit, opt)
	s.value = q.format
	s.valW = max(srcValW, q.widest(vals...)+1)
	for i, l := range r.lst.Listings {
		if l.File == "" {
			s.rows = append(s.rows, sourceRow{kind: srcNote, listing: i, text: "no source information for " + l.Name})
			continue
		}
		if i > 0 {
			// The first listing's title and totals are pinned above the
			// rows (View); a later one's separate it from the one before.
			s.rows = append(s.rows, sourceRow{kind: srcTitle, listing: i}, sourceRow{kind: srcTotals, listing: i})
		}
		if l.Err != nil {
			s.rows = append(s.rows, sourceRow{kind: srcNote, listing: i, text: l.Err.Error(), isErr: true})
			var se *analysis.SourceError
			if errors.As(l.Err, &se) && len(se.Tried) > 0 {
				s.rows = append(s.rows, sourceRow{kind: srcNote, listing: i, text: "looked in (set source_path or trim_path with :):"})
				for _, t := range se.Tried {
					s.rows = append(s.rows, sourceRow{kind: srcNote, listing: i, text: "  " + t})
				}
			}
		}
		for _, row := range l.Rows {
			s.rows = append(s.rows, sourceRow{kind: srcLine, listing: i, line: row, text: SafeText(expandTabs(row.Text, 4))})
		}
	}
	s.left, s.textMax = 0, 0
	for _, r := range s.rows {
		if r.kind == srcLine {
			s.textMax = max(s.textMax, ansi.StringWidth(r.text))
		}
	}
	s.l.setLen(len(s.rows))
	s.hottest()
	s.SetSearch(s.m.re)
}

// hottest moves the cursor to the line with the most cum (then flat),
// scrolled to the middle of the window.
func (s *Source) hottest() {
	best := -1
	for i, r := range s.rows {
		if r.kind != srcLine {
			continue
		}
		if best < 0 || r.line.Cum > s.rows[best].line.Cum ||
			(r.line.Cum == s.rows[best].line.Cum && r.line.Flat > s.rows[best].line.Flat) {
			best = i
		}
	}
	if best < 0 {
		s.l.moveTo(0)
		return
	}
	s.l.moveTo(best)
	s.l.offset = max(0, best-s.l.height/2)
	s.l.clamp()
}

func (s *Source) Update(msg tea.Msg) tea.Cmd {
	if !s.HasResult() {
		return nil
	}
	if s.l.navigate(s.c.Keys, msg, 3) {
		return nil
	}
	if km, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(km, s.c.Keys.Hottest):
			s.hottest()
		case key.Matches(km, s.c.Keys.ScrollRight):
			s.left = min(s.left+scrollStep, max(0, s.textMax-s.textWidth()))
		case key.Matches(km, s.c.Keys.ScrollLeft):
			s.left = max(0, s.left-scrollStep)
		}
	}
	return nil
}

// scrollStep is how far ←/→ move the source text.
const scrollStep = 8

// textWidth is the room for source text right of the gutter (flat, cum
// and the line number, space-separated, then two spaces).
func (s *Source) textWidth() int { return s.width - (s.valW + 1 + s.valW + 1 + 6 + 2) }

func (s *Source) rowText(i int) string {
	if s.rows[i].kind == srcLine || s.rows[i].kind == srcNote {
		return s.rows[i].text
	}
	return ""
}

func (s *Source) SetSearch(re *regexp.Regexp) bool {
	if !s.HasResult() {
		s.m.re = re
		return false
	}
	return s.m.search(&s.l, re, len(s.rows), s.rowText)
}

func (s *Source) NextMatch(dir int) bool { return s.m.step(&s.l, dir, false) }

const srcValW = 10

func (s *Source) View() string {
	st := s.c.Styles
	if s.data == nil || (s.data.name != s.name && s.name != "") {
		return fillLines([]string{st.Dim.Render("  computing…")}, s.height)
	}
	if s.name == "" || s.data.lst == nil {
		return fillLines([]string{st.Dim.Render("  no function selected: pick one in Top or Tree, then come back")}, s.height)
	}
	if len(s.data.lst.Listings) == 0 && analysis.Unnamed(s.name) {
		return fillLines([]string{st.Dim.Render(fmt.Sprintf("  %s has no function or file name: no source to list", s.name))}, s.height)
	}
	if len(s.data.lst.Listings) == 0 {
		return fillLines([]string{st.Dim.Render(fmt.Sprintf("  %s has no samples with the current options", s.name))}, s.height)
	}
	head := padLeft("flat", s.valW) + " " + padLeft("cum", s.valW) + " " + padLeft("line", 6) + "  source (pprof's list)"
	lines := []string{st.Header.Render(PadRight(ansi.Truncate(head, s.width, "…"), s.width))}
	// The title and totals of the function the cursor is in stay at the
	// top however far the source scrolls.
	k := 0
	if len(s.rows) > 0 {
		k = s.rows[s.l.cursor].listing
	}
	title, totals := s.titleText(k), s.totalsText(k)
	lines = append(lines, st.Key.Render(ansi.Truncate(title, s.width, "…")), st.Header.Render(ansi.Truncate(totals, s.width, "…")))
	from, to := s.l.visible()
	for i := from; i < to; i++ {
		lines = append(lines, s.renderRow(i))
	}
	return fillLines(lines, s.height)
}

// titleText names listing k's function and file.
func (s *Source) titleText(k int) string {
	l := &s.data.lst.Listings[k]
	if l.File == "" {
		return " " + l.Name
	}
	text := " " + l.Name + " in " + l.File
	if l.Path != "" && l.Path != l.File {
		text += "  (" + l.Path + ")"
	}
	return text
}

// totalsText is listing k's flat and cum, aligned with the gutter.
func (s *Source) totalsText(k int) string {
	l := &s.data.lst.Listings[k]
	return fmt.Sprintf("%*s %*s (flat, cum) %s of total", s.valW, s.value(l.Flat), s.valW, s.value(l.Cum),
		strings.TrimSpace(share(l.Cum, s.data.lst.Total)))
}

func (s *Source) renderRow(i int) string {
	st := s.c.Styles
	r := s.rows[i]
	lst := s.data.lst
	l := &lst.Listings[r.listing]
	sel := i == s.l.cursor
	line := func(text string, style func() string) string {
		if sel {
			return st.Selected.Render(PadRight(markCursor(ansi.Truncate(text, s.width, "…")), s.width))
		}
		return style()
	}
	switch r.kind {
	case srcTitle:
		text := s.titleText(r.listing)
		return line(text, func() string { return st.Key.Render(ansi.Truncate(text, s.width, "…")) })
	case srcTotals:
		text := s.totalsText(r.listing)
		return line(text, func() string { return st.Header.Render(ansi.Truncate(text, s.width, "…")) })
	case srcNote:
		text := "  " + r.text
		style := st.Dim
		if r.isErr {
			style = st.Error
		}
		return line(text, func() string { return style.Render(ansi.Truncate(text, s.width, "…")) })
	}

	// A source line: the gutter, then the text.
	orDot := func(v int64) cell {
		if v == 0 {
			return cell{text: padLeft(".", s.valW), kind: cellDim}
		}
		if s.c.Diff {
			return valueCell(s.c, padLeft(s.value(v), s.valW), v, lst.Total)
		}
		return cell{text: padLeft(s.value(v), s.valW), heat: pct(v, l.Cum), kind: cellHeat}
	}
	cells := []cell{orDot(r.line.Flat), orDot(r.line.Cum), {text: padLeft(fmt.Sprint(r.line.Line), 6), kind: cellDim}}
	var b strings.Builder
	writeCells(&b, st, cells, sel)
	textW := s.textWidth()
	text := r.text
	if r.line.NoText {
		text = "(source not found)"
	}
	if s.left > 0 && !r.line.NoText {
		// Scrolled: a "…" in the first column says there is more.
		text = "…" + ansi.Cut(text, s.left+1, s.left+max(0, textW)+1)
	}
	if ansi.StringWidth(text) > textW {
		text = ansi.Truncate(text, max(0, textW), "…")
	}
	// The text of the hot lines takes the heat colour of their share of
	// the function's cum; the rest stays plain.
	base := st.Plain
	switch share := pct(r.line.Cum, l.Cum); {
	case sel:
		base = st.Selected
	case r.line.NoText:
		base = st.Dim
	case s.c.Diff && r.line.Cum != 0:
		base = st.DiffText(r.line.Cum, lst.Total)
	case !s.c.Diff && share >= 5:
		base = st.Heat(share)
	}
	b.WriteString(base.Render("  "))
	b.WriteString(highlight(text, s.m.re, base, st.Match))
	padSelected(&b, st, sel, textW-ansi.StringWidth(text))
	return b.String()
}

// expandTabs replaces tabs with spaces to the next multiple of w columns.
func expandTabs(s string, w int) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := w - col%w
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}
