package views

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// Traces is pprof's -traces made browsable: the distinct stacks through
// the selected function (every stack when nothing is selected), the
// heaviest first, each headed by its value, share, sample count and
// labels, the selected function marked in it. enter on a frame makes
// that function the selection of every view.
//
// A big profile has hundreds of thousands of stacks and millions of
// frames, so rows are not materialised: start[k] is stack k's first row
// (its head, then its frames leaf first), and a row is found by binary
// search; only the rows on screen are drawn.
type Traces struct {
	c *Common
	aboutFunction
	cache *stackCache
	data  *tracesResult
	value func(int64) string

	start         []int // stack k's rows are start[k] .. start[k+1]-1
	l             list
	m             matchSet
	width, height int
}

type tracesResult struct {
	name   string
	tr     *analysis.Traces
	stacks []analysis.Stack
	all    int // stacks before keeping those through name
	// marked[n] is set for the nodes that are the selected function.
	marked []bool
	// start[k] is stack k's first row, start[len(stacks)] the rows'
	// count; computed with the data, off the UI goroutine.
	start []int
	// The labels, for search: stacks share label sets (labelSet[k] is
	// stack k's), and sets share lines (setLines, into lines), so a
	// search matches each distinct line once.
	labelSet []int32
	setLines [][]int32
	lines    []string
}

// index numbers the rows (each stack's head, then its frames) and the
// distinct label sets and lines.
func (r *tracesResult) index() *tracesResult {
	sets := map[*string]int32{}
	lineID := map[string]int32{}
	r.labelSet = make([]int32, len(r.stacks))
	for k, s := range r.stacks {
		if len(s.Labels) == 0 {
			r.labelSet[k] = -1
			continue
		}
		id, ok := sets[&s.Labels[0]]
		if !ok {
			id = int32(len(r.setLines))
			sets[&s.Labels[0]] = id
			ids := make([]int32, len(s.Labels))
			for j, l := range s.Labels {
				lid, ok := lineID[l]
				if !ok {
					lid = int32(len(r.lines))
					lineID[l] = lid
					r.lines = append(r.lines, l)
				}
				ids[j] = lid
			}
			r.setLines = append(r.setLines, ids)
		}
		r.labelSet[k] = id
	}
	r.start = make([]int, len(r.stacks)+1)
	n := 0
	for k, s := range r.stacks {
		r.start[k] = n
		n += 1 + len(s.Frames)
	}
	r.start[len(r.stacks)] = n
	return r
}

// stackCache keeps the stacks of the last options, so that selecting
// another function only picks among them. Queries run off the UI
// goroutine, hence the lock.
type stackCache struct {
	mu     sync.Mutex
	key    string
	tr     *analysis.Traces
	stacks []analysis.Stack
}

// NewTraces makes the Traces view.
func NewTraces(c *Common) *Traces { return &Traces{c: c, cache: &stackCache{}} }

func (t *Traces) Title() string { return "Traces" }
func (t *Traces) Init() tea.Cmd { return nil }

// The summary line and the column headings come before the rows.
const tracesHeadLines = 2

func (t *Traces) SetSize(w, h int) {
	t.width, t.height = w, h
	t.l.fit(h, tracesHeadLines)
}

func (t *Traces) ShortHelp() []key.Binding {
	k := t.c.Keys
	// enter selects a frame's function (Claims), and drills from a
	// stack's head.
	f, frame := filterable(t), t.onFrame()
	return []key.Binding{offer(k.SelectFrame, frame), offer(k.Drill, !frame && f), offer(k.Focus, f), offer(k.Ignore, f)}
}

func (t *Traces) Query(e *analysis.Engine, opt analysis.Options, sel string) (Job, string) {
	cache := t.cache
	return job(opt, func() (*tracesResult, error) {
		tr, all, err := cache.get(e, opt)
		if err != nil {
			return nil, err
		}
		r := &tracesResult{name: sel, tr: tr, stacks: all, all: len(all)}
		if sel == "" {
			return r.index(), nil
		}
		r.marked = make([]bool, tr.Nodes.Len())
		for n := range r.marked {
			r.marked[n] = tr.Nodes.FuncName(int32(n)) == sel
		}
		r.stacks = nil
		for _, s := range all {
			for _, f := range s.Frames {
				if r.marked[f.Node] {
					r.stacks = append(r.stacks, s)
					break
				}
			}
		}
		return r.index(), nil
	}, t.setResult), sel
}

func (c *stackCache) get(e *analysis.Engine, opt analysis.Options) (*analysis.Traces, []analysis.Stack, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := fmt.Sprintf("%p %#v", e, opt)
	if c.key == k {
		return c.tr, c.stacks, nil
	}
	tr, err := e.Traces(opt)
	if err != nil {
		return nil, nil, err
	}
	keyOK, err := analysis.LabelKeyFilter(opt)
	if err != nil {
		return nil, nil, err
	}
	c.key, c.tr, c.stacks = k, tr, analysis.Stacks(e.Profile(), tr, keyOK, nil)
	return c.tr, c.stacks, nil
}

func (t *Traces) HasResult() bool { return t.data != nil }

// Total is the percentage denominator of the data shown.
func (t *Traces) Total() int64 { return t.data.tr.Total }

func (t *Traces) setResult(r *tracesResult, opt analysis.Options) {
	moved := t.data == nil || t.data.name != r.name || len(t.data.stacks) != len(r.stacks)
	t.data, t.name = r, r.name
	t.value = newQuantity(t.c, r.tr.SampleType.Unit, opt).format
	t.start = r.start
	t.l.setLen(r.start[len(r.stacks)])
	if moved {
		t.l.moveTo(0)
		t.focusMarked()
	}
	t.SetSearch(t.m.re)
}

// focusMarked puts the cursor on the first stack's frame of the selected
// function.
func (t *Traces) focusMarked() {
	if len(t.data.stacks) == 0 || t.data.marked == nil {
		return
	}
	for i, f := range t.data.stacks[0].Frames {
		if t.data.marked[f.Node] {
			t.l.moveTo(1 + i)
			return
		}
	}
}

// at returns the stack of row i and the frame (-1: the stack's head).
func (t *Traces) at(i int) (stack, frame int) {
	k := sort.Search(len(t.start)-1, func(k int) bool { return t.start[k+1] > i })
	return k, i - t.start[k] - 1
}

// Cursor returns the stack and frame (-1: the head) under the cursor;
// tui's tests read it too.
func (t *Traces) Cursor() (stack, frame int, name string) {
	if !t.HasResult() || t.l.n == 0 {
		return 0, 0, ""
	}
	k, f := t.at(t.l.cursor)
	if f >= 0 {
		name = t.data.tr.Nodes.FuncName(t.data.stacks[k].Frames[f].Node)
	}
	return k, f, name
}

// onFrame reports whether the cursor is on a frame (not a stack's head).
func (t *Traces) onFrame() bool {
	if !t.HasResult() || t.l.n == 0 {
		return false
	}
	_, f := t.at(t.l.cursor)
	return f >= 0
}

// Claims takes enter on a frame: it selects that function rather than
// drilling into the selection.
func (t *Traces) Claims(msg tea.KeyMsg) bool {
	return key.Matches(msg, t.c.Keys.SelectFrame) && t.onFrame()
}

func (t *Traces) Update(msg tea.Msg) tea.Cmd {
	if !t.HasResult() {
		return nil
	}
	if t.l.navigate(t.c.Keys, msg, tracesHeadLines) {
		return nil
	}
	if km, ok := msg.(tea.KeyMsg); ok && key.Matches(km, t.c.Keys.SelectFrame) && t.onFrame() {
		_, _, name := t.Cursor()
		t.c.Ask(SelectMsg{Name: name})
		return nil
	}
	return nil
}

// SetSearch matches frames by name and stack heads by their labels.
// Each node's name and each distinct label line is matched once; then
// the rows are one pass over the frames.
func (t *Traces) SetSearch(re *regexp.Regexp) bool {
	t.m.re, t.m.rows = re, t.m.rows[:0]
	if !t.HasResult() || re == nil {
		return false
	}
	d := t.data
	nodes := d.tr.Nodes
	hit := make([]bool, nodes.Len())
	for n := range hit {
		hit[n] = re.MatchString(nodes.Name(int32(n)))
	}
	lineHit := make([]bool, len(d.lines))
	for i, l := range d.lines {
		lineHit[i] = re.MatchString(l)
	}
	setHit := make([]bool, len(d.setLines))
	for i, ids := range d.setLines {
		for _, id := range ids {
			setHit[i] = setHit[i] || lineHit[id]
		}
	}
	for k, s := range d.stacks {
		if set := d.labelSet[k]; set >= 0 && setHit[set] {
			t.m.rows = append(t.m.rows, t.start[k])
		}
		for i, f := range s.Frames {
			if hit[f.Node] {
				t.m.rows = append(t.m.rows, t.start[k]+1+i)
			}
		}
	}
	return t.m.step(&t.l, 1, true)
}

func (t *Traces) NextMatch(dir int) bool { return t.m.step(&t.l, dir, false) }

const traceValW, tracePctW = 10, 7

func (t *Traces) View() string {
	st := t.c.Styles
	if t.data == nil || (t.data.name != t.name && t.name != "") {
		return fillLines([]string{st.Dim.Render("  computing…")}, t.height)
	}
	d := t.data
	var summary string
	switch {
	case d.name == "":
		summary = fmt.Sprintf(" every stack: %s, heaviest first", plural(len(d.stacks), "stack"))
	default:
		summary = fmt.Sprintf(" stacks through %s: %d of %d, heaviest first", d.name, len(d.stacks), d.all)
	}
	lines := []string{st.Key.Render(ansi.Truncate(SafeText(summary), t.width, "…"))}
	if len(d.stacks) == 0 {
		msg := "  no samples with the current options"
		if d.name != "" {
			msg = fmt.Sprintf("  no stack goes through %s with the current options", d.name)
		}
		return fillLines(append(lines, st.Dim.Render(SafeText(msg))), t.height)
	}
	head := padLeft("value", traceValW) + " " + padLeft("share", tracePctW) + "  stack (leaf first) · labels"
	lines = append(lines, st.Header.Render(PadRight(ansi.Truncate(head, t.width, "…"), t.width)))
	from, to := t.l.visible()
	for i := from; i < to; i++ {
		lines = append(lines, t.renderRow(i))
	}
	return fillLines(lines, t.height)
}

func (t *Traces) renderRow(i int) string {
	st := t.c.Styles
	d := t.data
	k, f := t.at(i)
	s := &d.stacks[k]
	sel := i == t.l.cursor
	var b strings.Builder
	var used int
	textW := t.width - (traceValW + 1 + tracePctW + 2)
	if f < 0 {
		cells := []cell{valueCell(t.c, padLeft(t.value(s.Value), traceValW), s.Value, d.tr.Total),
			{text: padLeft(strings.TrimSpace(analysis.Percentage(s.Value, d.tr.Total)), tracePctW), kind: cellDim}}
		used = writeCells(&b, st, cells, sel)
		text := fmt.Sprintf("#%d · %s", k+1, plural(s.Samples, "sample"))
		if len(s.Labels) > 0 {
			text += " · " + strings.Join(s.Labels, " ")
		}
		text = ansi.Truncate(SafeText(text), max(0, textW), "…")
		base := st.Dim
		if sel {
			base = st.Selected
		}
		b.WriteString(base.Render("  "))
		b.WriteString(highlight(text, t.m.re, base, st.Match))
		padSelected(&b, st, sel, t.width-used-2-ansi.StringWidth(text))
		return b.String()
	}
	// A frame: blank gutter, the name indented under the head, the
	// selected function marked.
	fr := s.Frames[f]
	gutter := strings.Repeat(" ", traceValW+1+tracePctW)
	if sel {
		gutter = markCursor(gutter)
	}
	mark := "  "
	if d.marked != nil && d.marked[fr.Node] {
		mark = "● "
	}
	suffix := ""
	if fr.Inlined {
		suffix = " (inline)"
	}
	nameW := textW - 2 // after the mark
	name := fitName(SafeText(d.tr.Nodes.Name(fr.Node)), nameW)
	if nameW-ansi.StringWidth(name) < len(suffix) {
		suffix = ""
	}
	base, tail := st.Plain, st.Dim
	if mark != "  " {
		base = st.Key
	}
	if sel {
		base, tail = st.Selected, st.Selected
	}
	b.WriteString(base.Render(gutter + "  " + mark))
	b.WriteString(highlight(name, t.m.re, base, st.Match))
	if suffix != "" {
		b.WriteString(tail.Render(suffix))
	}
	padSelected(&b, st, sel, nameW-ansi.StringWidth(name)-len(suffix))
	return b.String()
}
