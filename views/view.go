package views

import (
	"regexp"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// Common is what every component shares: the styles, the key map and
// what kind of profile is open. The root program makes one and hands it
// to each view.
type Common struct {
	Styles *Styles
	Keys   *KeyMap
	// Diff is set when a base profile was subtracted (-base or
	// -diff_base): values are signed deltas, and views colour them by
	// sign.
	Diff bool
	// Rate, when set and not zero for the options a view's data are
	// for, is the time its values are a change over (a live delta of a
	// cumulative profile): they print as a rate per second, which only
	// their display changes (sorting and percentages stay).
	Rate func(analysis.Options) time.Duration
	// SourceFiles, when set, is where the Source view reads files
	// (analysis.SourceFilesIn when served); nil: the file system.
	SourceFiles *analysis.SourceFiles
	// Served is set when the explorer is served to others: a profile's
	// mappings name paths on the server, so no binary is opened for
	// them.
	Served bool
}

// View is one tab of the explorer. The root program routes keys and
// mouse events (with Y relative to the view's first line) to the focused
// view only, sizes every view, and runs the view's Query off the UI
// goroutine, showing its outcome on the UI goroutine.
type View interface {
	Title() string
	Init() tea.Cmd
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(width, height int)
	// ShortHelp is the view's part of the key hint line; FullHelp its
	// groups in the `?` help.
	ShortHelp() []key.Binding

	// Query returns the computation of the view's data for opt, to run
	// in the background, and a key naming the view's own settings that
	// change its data (the tree's inversion), so the root knows when a
	// result is stale. sel is the shared selection (a function name, or
	// ""), for views whose data is about one function (peek, source);
	// those name it in state.
	Query(e *analysis.Engine, opt analysis.Options, sel string) (run Job, state string)
	// HasResult reports whether the view has data to show; Total is
	// then its percentage denominator.
	HasResult() bool
	Total() int64

	// Selection is the row under the cursor. The root shares a function
	// selection between the views: after every key or click it reads the
	// active view's, and it shows the same function when another view
	// takes over (Reveal).
	Selection() (Selection, bool)
	// Reveal moves the cursor to the function named name (a Selection's
	// Name), opening what hides it, if the view shows it; else nothing
	// changes.
	Reveal(name string)
	// SetSearch highlights the rows matching re (nil clears) and moves
	// to the first match at or after the cursor; NextMatch moves to the
	// next (dir > 0) or previous match. Both report whether a row matched.
	SetSearch(re *regexp.Regexp) bool
	NextMatch(dir int) bool
}

// Job computes a view's data off the UI goroutine. What it returns,
// show, puts the data in the view that made the job, typed as that view
// needs them, with the options they are for; the root calls it on the UI
// goroutine if the data are still wanted, and drops it otherwise.
type Job func() (show func(), err error)

// job is the Job of a view whose data of type T compute makes, and set
// puts in the view.
func job[T any](opt analysis.Options, compute func() (T, error), set func(T, analysis.Options)) Job {
	return func() (func(), error) {
		d, err := compute()
		if err != nil {
			return nil, err
		}
		return func() { set(d, opt) }, nil
	}
}

// SelectionKind says what a selected row stands for.
type SelectionKind int

const (
	SelFunction SelectionKind = iota // a node of the top table or tree
	SelTagKey                        // a label key
	SelTagValue                      // one value of a label key
)

// Selection is the thing a row stands for, so that the root can filter
// on it.
type Selection struct {
	Kind SelectionKind
	// Name is the function's name (or file, at files granularity): what
	// pprof's focus and ignore regexps are matched against.
	Name       string
	Key, Value string
	// Numeric is set for a value of a numeric label.
	Numeric bool
}

// RecomputeMsg asks the root to compute View's data again: a setting of
// the view's own changed what it needs (the tree's inversion; the Top
// view's order, over a partial table). Views send it as a command's
// message.
type RecomputeMsg struct{ View View }

// SelectMsg asks the root to make Name the shared selection, recomputing
// the views whose data is about it (peek's enter on a caller sends it).
type SelectMsg struct{ Name string }

// ViewMsg carries the outcome of a view's own background work (the
// flame graph's layout of a zoom) back to it: the root hands Msg to To's
// Update, whichever view is focused.
type ViewMsg struct {
	To  View
	Msg tea.Msg
}

// KeyClaimer is a view that gives some of the root's keys a meaning of
// its own while it is active: the flame graph's enter zooms instead of
// drilling. The root offers it every key first; a claimed key goes to
// the view's Update.
type KeyClaimer interface {
	Claims(msg tea.KeyMsg) bool
}

// aboutFunction is the function a view about one function (peek, source)
// shows: the shared selection, which Reveal sets before the view's data
// for it arrives (the root recomputes). Selection returns it, so filters
// act on it and the other views show it.
type aboutFunction struct{ name string }

func (a *aboutFunction) Selection() (Selection, bool) {
	if a.name == "" {
		return Selection{}, false
	}
	return Selection{Kind: SelFunction, Name: a.name}, true
}

// Reveal re-centres the view on name.
func (a *aboutFunction) Reveal(name string) {
	if name != "" {
		a.name = name
	}
}

// list is the cursor and scroll state every view keeps over its rows.
// Rendering uses only rows offset..offset+height.
type list struct {
	cursor, offset int
	n              int // rows
	height         int // visible rows
	// back is set when the cursor last moved up: the direction of travel
	// a filter that removes the selected row continues in (follow).
	back bool
}

func (l *list) setLen(n int) {
	l.n = n
	l.clamp()
}

// fit gives the list the rows a view of h lines has below its head
// lines of headings, and keeps the cursor on screen.
func (l *list) fit(h, head int) {
	l.height = max(0, h-head)
	l.clamp()
}

func (l *list) clamp() {
	if l.cursor >= l.n {
		l.cursor = l.n - 1
	}
	if l.cursor < 0 {
		l.cursor = 0
	}
	if l.height <= 0 {
		l.offset = l.cursor
		return
	}
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+l.height {
		l.offset = l.cursor - l.height + 1
	}
	if max := l.n - l.height; l.offset > max {
		l.offset = max
	}
	if l.offset < 0 {
		l.offset = 0
	}
}

func (l *list) move(d int) {
	if d != 0 {
		l.back = d < 0
	}
	l.cursor += d
	l.clamp()
}

func (l *list) moveTo(i int) {
	if i != l.cursor {
		l.back = i < l.cursor
	}
	l.cursor = i
	l.clamp()
}

// follow puts the cursor back on the selected function after the rows
// changed under it (a new result, another order). old names the rows as
// they were, with the cursor on old[cur]; index finds a name among the
// new rows (-1 when it is gone). The selected function keeps the cursor
// when it survives; else the cursor goes to the nearest survivor within
// a screen of it, first in the direction of travel; else to the first
// row. Never to the same row index, which is another function now.
//
// With keepLine (the same table over new numbers: a live refresh) the
// cursor keeps its screen line, as far as the rows above and below it
// allow, so the row a person watches does not jump when its rank
// changes; but a cursor on the first row, where it opens, watches the
// top, which stays in sight (a function that becomes the heaviest is
// not hidden above it). Otherwise (new options: a filter, another
// sort) the window keeps the cursor's screen line unless the cursor
// fits on the first screen, which then shows (the heaviest rows stay
// in sight).
func (l *list) follow(old []string, cur int, index func(name string) int, keepLine bool) {
	line := l.cursor - l.offset
	keepLine = keepLine && cur > 0
	next := 0
	if cur >= 0 && cur < len(old) {
		next = index(old[cur])
		if next < 0 {
			next = nearest(old, cur, max(1, l.height), l.back, index)
		}
	}
	l.cursor = max(0, next)
	l.offset = 0
	if l.height > 0 && (keepLine || l.cursor >= l.height) {
		l.keepLine(line)
	}
	l.clamp()
}

// keepLine scrolls the window so the cursor is on screen line line (0
// the first row), or as near it as the ends of the rows allow.
func (l *list) keepLine(line int) {
	l.offset = l.cursor - max(0, min(line, l.height-1))
	l.clamp()
}

// nearest is the new index of the first of old's rows around cur, up to
// reach rows away, that index finds: downwards first, or upwards when
// back. It is 0 when none is.
func nearest(old []string, cur, reach int, back bool, index func(string) int) int {
	dirs := [2]int{1, -1}
	if back {
		dirs = [2]int{-1, 1}
	}
	for _, d := range dirs {
		for k := 1; k <= reach; k++ {
			j := cur + d*k
			if j < 0 || j >= len(old) {
				break
			}
			if i := index(old[j]); i >= 0 {
				return i
			}
		}
	}
	return 0
}

// scroll moves the window by d rows, dragging the cursor along when it
// would leave it (as a mouse wheel does).
func (l *list) scroll(d int) {
	l.offset += d
	if max := l.n - l.height; l.offset > max {
		l.offset = max
	}
	if l.offset < 0 {
		l.offset = 0
	}
	if l.cursor < l.offset {
		l.cursor = l.offset
	}
	if l.height > 0 && l.cursor >= l.offset+l.height {
		l.cursor = l.offset + l.height - 1
	}
	l.clamp()
}

// navigate applies the moving keys and the mouse to l; first is the
// screen row (within the view) of the first list row. It reports
// whether msg was one of them.
func (l *list) navigate(k *KeyMap, msg tea.Msg, first int) bool {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, k.Up):
			l.move(-1)
		case key.Matches(msg, k.Down):
			l.move(1)
		case key.Matches(msg, k.PageUp):
			l.move(-max(1, l.height-1))
		case key.Matches(msg, k.PageDown):
			l.move(max(1, l.height-1))
		case key.Matches(msg, k.Home):
			l.moveTo(0)
		case key.Matches(msg, k.End):
			l.moveTo(l.n - 1)
		default:
			return false
		}
		return true
	case tea.MouseMsg:
		switch {
		case msg.Button == tea.MouseButtonWheelUp:
			l.scroll(-3)
		case msg.Button == tea.MouseButtonWheelDown:
			l.scroll(3)
		case msg.Button == tea.MouseButtonLeft && msg.Action == tea.MouseActionPress:
			if i := l.offset + msg.Y - first; msg.Y >= first && i < l.n && i < l.offset+l.height {
				l.moveTo(i)
			}
		default:
			return false
		}
		return true
	}
	return false
}

// visible returns the range of rows on screen.
func (l *list) visible() (from, to int) {
	return l.offset, min(l.n, l.offset+max(0, l.height))
}

// matchSet is the rows matching the search.
type matchSet struct {
	re   *regexp.Regexp
	rows []int // ascending
}

// set recomputes the matches over n rows named by name.
func (m *matchSet) set(re *regexp.Regexp, n int, name func(i int) string) {
	m.re, m.rows = re, m.rows[:0]
	if re == nil {
		return
	}
	for i := 0; i < n; i++ {
		if re.MatchString(name(i)) {
			m.rows = append(m.rows, i)
		}
	}
}

// next returns the first match after from (dir > 0) or before it, wrapping
// around; with inclusive, from itself counts.
func (m *matchSet) next(from, dir int, inclusive bool) (int, bool) {
	if len(m.rows) == 0 {
		return 0, false
	}
	if dir > 0 {
		for _, r := range m.rows {
			if r > from || (inclusive && r == from) {
				return r, true
			}
		}
		return m.rows[0], true
	}
	for i := len(m.rows) - 1; i >= 0; i-- {
		if r := m.rows[i]; r < from || (inclusive && r == from) {
			return r, true
		}
	}
	return m.rows[len(m.rows)-1], true
}

// search sets the matches over n rows named by name and moves l's cursor
// to the first match at or after it, reporting whether there was one.
func (m *matchSet) search(l *list, re *regexp.Regexp, n int, name func(i int) string) bool {
	m.set(re, n, name)
	return m.step(l, 1, true)
}

// step moves l's cursor to the next match in direction dir.
func (m *matchSet) step(l *list, dir int, inclusive bool) bool {
	if i, ok := m.next(l.cursor, dir, inclusive); ok {
		l.moveTo(i)
		return true
	}
	return false
}

// percentWidth is the width a column of shares of total needs for these
// values: pprof's six, or what the longest needs ("0.0092%", "2.9e-05%",
// "16556.10%" for a mean above the total).
//
// Only the shares that can widen it are formatted: a million rows took
// 65 ms. From 0.1% up to the total a share ("0.12%" to "99.94%") is no
// wider than the column's minimum, and none below the total is wider
// than analysis.PartWidth.
func percentWidth(values []int64, total int64) int {
	w := 6
	t := float64(abs(total))
	for _, v := range values {
		a := float64(abs(v))
		switch {
		case a < t && 1000*a >= t:
		case a < t && w >= analysis.PartWidth:
		default:
			w = max(w, analysis.PercentageWidth(v, total))
		}
	}
	return w
}

// share is v's share of total, the one way every view prints one:
// pprof's percentage ("26.41%", "  100%", "0.0092%").
func share(v, total int64) string { return analysis.Percentage(v, total) }

// writeCells writes a row's value cells, space-separated, the first one
// carrying the cursor mark when the row is selected, and returns the
// columns they take.
func writeCells(b *strings.Builder, st *Styles, cells []cell, sel bool) int {
	used := 0
	for k, c := range cells {
		text := c.text
		if k > 0 {
			text = " " + text
		} else if sel {
			text = markCursor(text)
		}
		used += ansi.StringWidth(text)
		b.WriteString(c.render(st, text, sel))
	}
	return used
}

// padSelected extends the cursor row's highlight over the pad columns
// left after its text.
func padSelected(b *strings.Builder, st *Styles, sel bool, pad int) {
	if sel && pad > 0 {
		b.WriteString(st.Selected.Render(strings.Repeat(" ", pad)))
	}
}

// padLeft right-aligns s in w columns.
func padLeft(s string, w int) string {
	if d := w - ansi.StringWidth(s); d > 0 {
		return strings.Repeat(" ", d) + s
	}
	return s
}

// padRight left-aligns s in w columns.
func padRight(s string, w int) string {
	if d := w - ansi.StringWidth(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}

// fitName cuts a name to w columns. A name with a location ("main.f
// /src/pkg/f.go:12", at lines or files granularity) loses its directory
// first; then the start goes, keeping the end (the method name is the
// informative part of "pkg/path.(*T).Method").
func fitName(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	if i := strings.LastIndexByte(s, ' '); i > 0 {
		fn, loc := s[:i], s[i+1:]
		if j := strings.LastIndexByte(loc, '/'); j >= 0 {
			short := fn + " …" + loc[j:]
			if ansi.StringWidth(short) <= w {
				return short
			}
			if ansi.StringWidth(loc[j:])+12 <= w {
				return fitName(fn, w-ansi.StringWidth(loc[j:])-2) + " …" + loc[j:]
			}
		}
	}
	if w == 1 {
		return "…"
	}
	return ansi.TruncateLeft(s, ansi.StringWidth(s)-w+1, "…")
}

// highlight renders s with base, and the parts re matches with hi.
func highlight(s string, re *regexp.Regexp, base, hi lipgloss.Style) string {
	if re == nil || s == "" {
		return base.Render(s)
	}
	locs := re.FindAllStringIndex(s, -1)
	if len(locs) == 0 {
		return base.Render(s)
	}
	var b strings.Builder
	prev := 0
	for _, l := range locs {
		if l[0] == l[1] {
			continue
		}
		if l[0] > prev {
			b.WriteString(base.Render(s[prev:l[0]]))
		}
		b.WriteString(hi.Render(s[l[0]:l[1]]))
		prev = l[1]
	}
	if prev < len(s) {
		b.WriteString(base.Render(s[prev:]))
	}
	return b.String()
}

// fillLines pads a view's output to h lines so the layout below it stays
// put.
func fillLines(lines []string, h int) string {
	for len(lines) < h {
		lines = append(lines, "")
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	return strings.Join(lines, "\n")
}

// quantity prints the values of one table, all in the one unit
// analysis.DisplayUnit picks from the largest of them, after divide_by;
// as a rate per second when Common.Rate says so. Every number a view
// shows goes through it, and so does the status bar's total (Format).
type quantity struct {
	from, to string
	ratio    float64 // 1/divide_by
	per      float64 // seconds the values are a change over; 0: not a rate
}

// newQuantity is the quantity for values vs in sampleUnit, as the unit
// and divide_by settings and c's Rate ask. Views pass the sum of the
// samples they show among vs, which is the largest value of a table
// that is not a mean or a diff, and the same in every view, so that
// every view picks the same unit.
func newQuantity(c *Common, sampleUnit string, opt analysis.Options, vs ...int64) quantity {
	var hi int64
	for _, v := range vs {
		hi = max(hi, abs(v))
	}
	q := quantity{from: sampleUnit, ratio: opt.Ratio()}
	if c.Rate != nil {
		q.per = c.Rate(opt).Seconds()
	}
	scale := q.ratio
	if q.per > 0 {
		scale /= q.per // the unit that suits the largest rate
	}
	q.to = analysis.DisplayUnit(sampleUnit, opt.Unit, int64(float64(hi)*scale))
	return q
}

// Format returns how the views print values of at most hi in magnitude,
// in sampleUnit, under opt and c, for numbers shown outside the views
// (the status bar's total) to read as the views' do.
func Format(c *Common, sampleUnit string, opt analysis.Options, hi int64) func(int64) string {
	return newQuantity(c, sampleUnit, opt, hi).format
}

func (q quantity) format(v int64) string {
	if q.per > 0 {
		// Not truncated to an integer as divide_by's values are: a rate
		// of 0.4/s is not 0.
		return analysis.RateLabel(float64(v)*q.ratio/q.per, q.from, q.to)
	}
	if q.ratio != 1 {
		v = int64(float64(v) * q.ratio)
	}
	return analysis.ScaledLabel(v, q.from, q.to)
}

// widest is the width of the longest of vs as q prints them: the
// largest magnitude, or the most negative value. A rate below 1 prints
// more decimals ("0.0012MB/s") than a larger one, so for rates every
// value is measured (a live delta's table, some thousands of values).
func (q quantity) widest(vs ...int64) int {
	var big, neg int64
	w := 0
	for _, v := range vs {
		big = max(big, abs(v))
		neg = min(neg, v)
		if q.per > 0 {
			w = max(w, ansi.StringWidth(q.format(v)))
		}
	}
	return max(w, ansi.StringWidth(q.format(big)), ansi.StringWidth(q.format(neg)))
}

// treeQuantity is the quantity of a call tree's values (its roots sum
// the samples shown), and the roots' totals and self values, which size
// the columns.
func treeQuantity(c *Common, tr *analysis.Tree, opt analysis.Options) (quantity, []int64) {
	var sum int64
	vs := make([]int64, 0, 2*len(tr.Roots())+1)
	for _, r := range tr.Roots() {
		sum += r.Total
		vs = append(vs, r.Total, r.Self)
	}
	return newQuantity(c, tr.SampleType.Unit, opt, append(vs, sum)...), vs
}

// shownSum is the sum of the samples a top table shows: its flats.
func shownSum(top *analysis.Top) int64 {
	var sum int64
	for _, r := range top.Rows {
		sum += r.Flat
	}
	return sum
}

// pct is |v/total| in percent, for heat colours.
func pct(v, total int64) float64 {
	if total == 0 {
		return 0
	}
	f := float64(v) / float64(total) * 100
	if f < 0 {
		f = -f
	}
	return f
}

// nodeName is what focus and ignore match for node n: its function
// name, else its file, else its mapping's file (pprof's regexps match
// all three).
func nodeName(ns *analysis.NodeSet, n int32) string {
	info := ns.Info(n)
	switch {
	case info.Name != "":
		return info.Name
	case info.File != "":
		return info.File
	}
	return info.Objfile
}

// markCursor puts the cursor mark in the first column of the selected
// row when that column is blank, so the row stands out without colour
// (NO_COLOR, text captures).
func markCursor(s string) string {
	if strings.HasPrefix(s, " ") {
		return "▶" + s[1:]
	}
	return s
}

// DoubleClick tells a second press on the same row (or frame) soon
// after the first. The root uses one for the views that leave clicks to
// it; Flame and Peek keep their own.
type DoubleClick struct {
	row  int
	at   time.Time
	now  func() time.Time // time.Now; tests replace it
	last bool             // a first click is pending
}

// DoubleClickTime is the longest gap between the clicks of a double click.
const DoubleClickTime = 400 * time.Millisecond

// Press records a click on row and reports whether it completes a
// double click.
func (d *DoubleClick) Press(row int) bool {
	now := time.Now
	if d.now != nil {
		now = d.now
	}
	t := now()
	double := d.last && d.row == row && t.Sub(d.at) <= DoubleClickTime
	d.row, d.at, d.last = row, t, !double
	return double
}

// Reset forgets the pending click (the rows changed under it).
func (d *DoubleClick) Reset() { d.last = false }

// ShownTotaler is a view that knows how much of the total its rows
// account for after the filters (pprof's "Showing nodes accounting for
// X"), for the status bar's "X of T total".
type ShownTotaler interface {
	ShownTotal() int64
}

// rootsTotal sums a call tree's roots: the samples it shows.
func rootsTotal(tr *analysis.Tree) int64 {
	var sum int64
	for _, r := range tr.Roots() {
		sum += r.Total
	}
	return sum
}
