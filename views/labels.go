package views

import (
	"regexp"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// Labels is pprof's -tags: every label key with the totals and shares of
// its values, over the samples the options keep.
type Labels struct {
	c       *Common
	r       *analysis.TagReport
	numeric map[string]bool // keys of numeric labels
	pctW    int             // the share column's width
	q       quantity        // how the values print
	valW    int             // the value column's width

	rows          []labelRow
	l             list
	m             matchSet
	width, height int
}

type labelRow struct {
	key   int // into r.Keys
	value int // into the key's Values, or -1 for the key's own row
}

type labelsResult struct {
	r       *analysis.TagReport
	numeric map[string]bool
}

// NewLabels makes the Labels view.
func NewLabels(c *Common) *Labels { return &Labels{c: c} }

func (v *Labels) Title() string { return "Labels" }
func (v *Labels) Init() tea.Cmd { return nil }

func (v *Labels) SetSize(w, h int) {
	v.width, v.height = w, h
	v.l.fit(h, 1)
}

func (v *Labels) ShortHelp() []key.Binding {
	b := v.c.Keys.LabelBindings()
	_, row := v.Selection()
	return []key.Binding{offer(b[0], row), offer(b[2], row), offer(b[3], row)}
}

// withHelp relabels b for a view where it does something more specific.
func withHelp(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

func (v *Labels) Query(e *analysis.Engine, opt analysis.Options, _ string) (Job, string) {
	return job(opt, func() (labelsResult, error) { return labelsData(e, opt) }, v.setResult), ""
}

// labelsData computes the Labels view's data: the report, and which of
// its keys are numeric.
func labelsData(e *analysis.Engine, opt analysis.Options) (labelsResult, error) {
	r, err := e.Tags(opt)
	if err != nil {
		return labelsResult{}, err
	}
	p := e.Profile()
	numeric := map[string]bool{}
	seen := map[int32]bool{}
	for _, l := range p.Samples.NumKinds {
		if !seen[l.Key] {
			seen[l.Key] = true
			numeric[p.Strings[l.Key]] = true
		}
	}
	return labelsResult{r, numeric}, nil
}

func (v *Labels) HasResult() bool { return v.r != nil }

func (v *Labels) setResult(res labelsResult, opt analysis.Options) {
	// follow looks at the cursor's row and at most a screen of rows
	// around it: only theirs are named (a label with a value per sample
	// has a million rows).
	old, cur := make([]string, len(v.rows)), v.l.cursor
	reach := max(1, v.l.height)
	for i := max(0, cur-reach); i < min(len(v.rows), cur+reach+1); i++ {
		old[i] = v.rowKey(i)
	}
	v.r, v.numeric = res.r, res.numeric
	n := 0 // values: a million rows grew in copies
	for _, tk := range v.r.Keys {
		n += len(tk.Values)
	}
	v.rows = slices.Grow(v.rows[:0], n+len(v.r.Keys))
	totals := make([]int64, 0, n+1+len(v.r.Keys))
	for k, tk := range v.r.Keys {
		v.rows = append(v.rows, labelRow{k, -1})
		for i := range tk.Values {
			v.rows = append(v.rows, labelRow{k, i})
			totals = append(totals, tk.Values[i].Total)
		}
	}
	totals = append(totals, v.r.Total)
	for _, tk := range v.r.Keys {
		totals = append(totals, tk.Total)
	}
	v.pctW = percentWidth(totals, v.r.Total)
	v.q = newQuantity(v.c, v.r.SampleType.Unit, opt)
	v.valW = max(10, v.q.widest(totals...)+1)
	v.l.setLen(len(v.rows))
	// The cursor stays on its key or value, or goes to its nearest
	// neighbour that survives (a tagignore on it), never to the row at
	// its index; the search's highlights follow without moving it.
	v.l.follow(old, cur, v.rowIndex(), false)
	v.m.set(v.m.re, len(v.rows), v.rowName)
}

// rowIndex returns a function giving the row of a rowKey, or -1. The
// rows of a key's values are indexed on the first look-up into that key.
func (v *Labels) rowIndex() func(string) int {
	first := make(map[string]int, len(v.r.Keys)) // key → its row
	for i, row := range v.rows {
		if row.value < 0 {
			if _, ok := first[v.r.Keys[row.key].Key]; !ok {
				first[v.r.Keys[row.key].Key] = i
			}
		}
	}
	values := map[string]map[string]int{}
	return func(k string) int {
		if i, ok := first[k]; ok {
			return i
		}
		for key, at := range first {
			value, ok := strings.CutPrefix(k, key+"=")
			if !ok {
				continue
			}
			idx := values[key]
			if idx == nil {
				idx = map[string]int{}
				tk := v.r.Keys[v.rows[at].key]
				for j := len(tk.Values) - 1; j >= 0; j-- {
					idx[tk.Values[j].Value] = at + 1 + j
				}
				values[key] = idx
			}
			if i, ok := idx[value]; ok {
				return i
			}
		}
		return -1
	}
}

// rowKey names row i among the rows of any result: "key" or "key=value".
func (v *Labels) rowKey(i int) string {
	row := v.rows[i]
	tk := v.r.Keys[row.key]
	if row.value < 0 {
		return tk.Key
	}
	return tk.Key + "=" + tk.Values[row.value].Value
}

func (v *Labels) Update(msg tea.Msg) tea.Cmd {
	if v.r != nil {
		v.l.navigate(v.c.Keys, msg, 1)
	}
	return nil
}

func (v *Labels) Selection() (Selection, bool) {
	if v.r == nil || len(v.rows) == 0 {
		return Selection{}, false
	}
	row := v.rows[v.l.cursor]
	tk := v.r.Keys[row.key]
	if row.value < 0 {
		return Selection{Kind: SelTagKey, Key: tk.Key, Numeric: v.numeric[tk.Key]}, true
	}
	return Selection{Kind: SelTagValue, Key: tk.Key, Value: tk.Values[row.value].Value, Numeric: v.numeric[tk.Key]}, true
}

// Reveal does nothing: label rows are not functions.
func (v *Labels) Reveal(string) {}

func (v *Labels) rowName(i int) string {
	row := v.rows[i]
	tk := v.r.Keys[row.key]
	if row.value < 0 {
		return tk.Key
	}
	return tk.Values[row.value].Value
}

func (v *Labels) SetSearch(re *regexp.Regexp) bool {
	if v.r == nil {
		v.m.re = re
		return false
	}
	return v.m.search(&v.l, re, len(v.rows), v.rowName)
}

func (v *Labels) NextMatch(dir int) bool {
	return v.m.step(&v.l, dir, false)
}

func (v *Labels) View() string {
	if v.r == nil {
		return fillLines([]string{v.c.Styles.Dim.Render("  computing…")}, v.height)
	}
	st := v.c.Styles
	value := v.q.format
	total := v.r.Total
	valW := v.valW
	barW := 0
	if v.width >= 60 {
		barW = min(20, v.width/6)
	}
	head := padLeft("value", valW) + " " + padLeft("share", v.pctW)
	if barW > 0 {
		head += " " + PadRight("", barW)
	}
	head += "  label"
	lines := []string{st.Header.Render(PadRight(head, v.width))}
	if len(v.rows) == 0 {
		lines = append(lines, st.Dim.Render("  the profile has no labels (or none in the samples the options keep)"))
		return fillLines(lines, v.height)
	}
	from, to := v.l.visible()
	for i := from; i < to; i++ {
		row := v.rows[i]
		tk := v.r.Keys[row.key]
		sel := i == v.l.cursor
		base := st.Plain
		if sel {
			base = st.Selected
		}
		var b strings.Builder
		if row.value < 0 {
			text := tk.Key + ":  Total " + value(tk.Total) + " of " + value(total)
			if total > 0 {
				text += " (" + strings.TrimSpace(share(tk.Total, total)) + ")"
			}
			text = fitName(text, v.width)
			if sel {
				text = fitName("▶ "+text, v.width)
			}
			ks := st.Key
			if sel {
				ks = st.Selected
			}
			b.WriteString(highlight(text, v.m.re, ks, st.Match))
			if pad := v.width - ansi.StringWidth(text); sel && pad > 0 {
				b.WriteString(st.Selected.Render(strings.Repeat(" ", pad)))
			}
			lines = append(lines, b.String())
			continue
		}
		tv := tk.Values[row.value]
		cells := []cell{
			valueCell(v.c, padLeft(value(tv.Total), valW), tv.Total, total),
			pctCell(v.c, padLeft(share(tv.Total, total), v.pctW), tv.Total, total),
		}
		used := writeCells(&b, st, cells, sel)
		if barW > 0 {
			n := 0
			if total != 0 {
				n = int(pct(tv.Total, total)/100*float64(barW) + 0.5)
			}
			n = min(n, barW)
			bar := " " + strings.Repeat("█", n) + strings.Repeat(" ", barW-n)
			bs := st.Bar
			if sel {
				bs = st.Selected
			}
			b.WriteString(bs.Render(bar))
			used += barW + 1
		}
		nameW := v.width - used - 2
		name := fitName(tv.Value, nameW)
		b.WriteString(base.Render("  "))
		b.WriteString(highlight(name, v.m.re, base, st.Match))
		if pad := nameW - ansi.StringWidth(name); sel && pad > 0 {
			b.WriteString(st.Selected.Render(strings.Repeat(" ", pad)))
		}
		lines = append(lines, b.String())
	}
	return fillLines(lines, v.height)
}

// Total is the percentage denominator of the data shown.
func (v *Labels) Total() int64 { return v.r.Total }
