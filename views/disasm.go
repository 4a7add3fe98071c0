package views

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format/symbolize"
)

// Disasm is the selected function's machine code with each
// instruction's flat and cum (pprof's -disasm), the source lines above
// the instructions they produced, inlined calls named (as pprof's
// weblist), the hottest instructions highlighted and the cursor on the
// hottest. enter on a call selects the callee in every view, on a jump
// moves to its target; backspace comes back.
type Disasm struct {
	c *Common
	aboutFunction
	bins  *binaries
	data  *disasmResult
	value func(int64) string

	l             list
	m             matchSet
	width, height int

	// back is where enter came from, newest last; pending is where
	// backspace is going when it left the function.
	back    []asmPlace
	pending *asmPlace
}

type asmPlace struct {
	name string
	addr uint64
}

type disasmResult struct {
	name string
	d    *analysis.Disasm
	err  error // why there is nothing to show
	rows []asmRow
}

type asmRowKind int

const (
	asmTitle  asmRowKind = iota // "fib in cpubench"
	asmTotals                   // the routine's flat and cum
	asmSource                   // a source line (or an inlined call)
	asmInst
	asmNote
)

type asmRow struct {
	kind    asmRowKind
	routine int
	inst    int
	depth   int // inline depth of a source line
	text    string
	isErr   bool
}

// binaries opens the profile's binaries for decoding, once each. Queries
// run off the UI goroutine, hence the lock.
type binaries struct {
	mu    sync.Mutex
	cache *symbolize.Cache
	dis   map[string]*symbolize.Disassembler
	files *analysis.SourceFiles
	// served refuses every binary (see Common.Served).
	served bool
}

var errServedBinaries = errors.New("binaries are not read here: the explorer is served, and a profile's paths name files on the server")

func (b *binaries) open(path string) (*symbolize.Disassembler, error) {
	if b.served {
		return nil, errServedBinaries
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if d, ok := b.dis[path]; ok {
		return d, nil
	}
	bin, err := b.cache.Open(path)
	if err != nil {
		return nil, err
	}
	d, err := symbolize.NewDisassembler(bin)
	if err != nil {
		return nil, err
	}
	b.dis[path] = d
	return d, nil
}

// NewDisasm makes the Disassembly view.
func NewDisasm(c *Common) *Disasm {
	files := c.SourceFiles
	if files == nil {
		files = analysis.NewSourceFiles()
	}
	return &Disasm{c: c, bins: &binaries{cache: symbolize.NewCache(), dis: map[string]*symbolize.Disassembler{}, files: files, served: c.Served}}
}

func (v *Disasm) Title() string { return "Disasm" }
func (v *Disasm) Init() tea.Cmd { return nil }

func (v *Disasm) SetSize(w, h int) {
	v.width, v.height = w, h
	v.l.fit(h, 1)
}

func (v *Disasm) ShortHelp() []key.Binding {
	k := v.c.Keys
	// enter follows a call or jump (Claims), and drills elsewhere.
	in, ok := v.Cursor()
	follow, f := ok && in.Target != 0, filterable(v)
	return []key.Binding{offer(k.Follow, follow), offer(k.Drill, !follow && f), offer(withHelp(k.Hottest, "hottest"), v.HasResult() && v.data.err == nil), offer(k.Focus, f), offer(k.Ignore, f)}
}

func (v *Disasm) Query(e *analysis.Engine, opt analysis.Options, sel string) (Job, string) {
	bins := v.bins
	return job(opt, func() (*disasmResult, error) {
		if sel == "" {
			return &disasmResult{}, nil
		}
		d, err := e.Disasm(opt, regexp.MustCompile(regexp.QuoteMeta(sel)), analysis.DisasmOptions{
			Syntax: analysis.DisasmSyntax(opt), Open: bins.open, AnySymbols: true, Function: sel, Frames: true,
		})
		r := &disasmResult{name: sel, d: d, err: err}
		if err != nil {
			var miss *analysis.DisasmMissing
			if !errors.As(err, &miss) {
				return nil, err
			}
			r.rows = missingRows(miss)
			return r, nil
		}
		r.rows = asmRows(d, bins.files, opt)
		return r, nil
	}, v.setResult), sel
}

// missingRows say why a function has no disassembly: which binaries its
// samples need and what went wrong opening them.
func missingRows(m *analysis.DisasmMissing) []asmRow {
	note := func(s string, isErr bool) asmRow { return asmRow{kind: asmNote, text: s, isErr: isErr} }
	if len(m.Mappings) == 0 && analysis.Unnamed(m.Function) {
		return []asmRow{note(fmt.Sprintf("no machine code for %s: it has no function name to look up in a binary", m.Function), false)}
	}
	if len(m.Mappings) == 0 {
		return []asmRow{note(fmt.Sprintf("no machine code for %s in the profile's binaries: inlined into its callers, or in a binary the profile does not name", m.Function), false)}
	}
	rows := []asmRow{note(fmt.Sprintf("no disassembly for %s: it needs the binary its samples are in:", m.Function), true)}
	for _, f := range m.Mappings {
		rows = append(rows, note("  "+f, false))
	}
	for _, e := range m.Errors {
		rows = append(rows, note("  "+e, true))
	}
	if len(m.Errors) == 0 {
		rows = append(rows, note("which has no symbol "+m.Function, false))
	}
	return append(rows,
		note("looked for it where the profile says, then as pprof does: the BINARY argument (or -binary=),", false),
		note("$PPROF_BINARY_PATH (default $HOME/pprof/binaries) by build ID and by name", false))
}

// asmRows lays out the routines: a title and totals each, then every
// instruction, with the source lines it comes from above it where they
// change: the outermost frame first, then each inlined call.
func asmRows(d *analysis.Disasm, files *analysis.SourceFiles, opt analysis.Options) []asmRow {
	var rows []asmRow
	source := func(f symbolize.Frame) string {
		loc := fmt.Sprintf("%s:%d", filepath.Base(f.File), f.Line)
		if f.File == "" {
			return "(no source line)"
		}
		if lines, _, err := files.Find(f.File, opt); err == nil && f.Line >= 1 && int(f.Line) <= len(lines) {
			return loc + "  " + SafeText(expandTabs(strings.TrimSpace(lines[f.Line-1]), 4))
		}
		return loc
	}
	seen := map[string]bool{}
	for ri, r := range d.Routines {
		key := fmt.Sprintf("%s %x", r.Binary, r.Start)
		if seen[key] {
			continue // pprof lists a binary mapped twice twice
		}
		seen[key] = true
		rows = append(rows, asmRow{kind: asmTitle, routine: ri}, asmRow{kind: asmTotals, routine: ri})
		var prev []symbolize.Frame
		for ii, in := range r.Insts {
			// Frames outermost first; a frame is shown when it or one
			// outside it changed.
			fs := in.Frames
			changed := false
			for k := len(fs) - 1; k >= 0; k-- {
				depth := len(fs) - 1 - k
				pk := len(prev) - 1 - depth
				if !changed && pk >= 0 && prev[pk].Func == fs[k].Func && prev[pk].File == fs[k].File && prev[pk].Line == fs[k].Line {
					continue
				}
				changed = true
				text := source(fs[k])
				if depth > 0 {
					text = "inlined " + fs[k].Func + "  " + text
				}
				rows = append(rows, asmRow{kind: asmSource, routine: ri, depth: depth, text: text})
			}
			prev = fs
			rows = append(rows, asmRow{kind: asmInst, routine: ri, inst: ii, text: SafeText(in.Text)})
		}
	}
	return rows
}

func (v *Disasm) HasResult() bool { return v.data != nil && v.data.d != nil }

// Total is the percentage denominator of the data shown.
func (v *Disasm) Total() int64 { return v.data.d.Total }

func (v *Disasm) setResult(r *disasmResult, opt analysis.Options) {
	v.data, v.name = r, r.name
	if r.d != nil {
		v.value = newQuantity(v.c, r.d.SampleType.Unit, opt).format
	}
	v.l.setLen(len(r.rows))
	if p := v.pending; p != nil && p.name == r.name {
		v.pending = nil
		if !v.moveToAddr(p.addr) {
			v.hottest()
		}
	} else {
		v.hottest()
	}
	v.SetSearch(v.m.re)
}

func (v *Disasm) rows() []asmRow {
	if v.data == nil {
		return nil
	}
	return v.data.rows
}

func (v *Disasm) inst(i int) *analysis.AsmInst {
	r := v.rows()[i]
	if r.kind != asmInst {
		return nil
	}
	return &v.data.d.Routines[r.routine].Insts[r.inst]
}

// hottest moves the cursor to the instruction with the most flat (then
// cum), in the middle of the window.
func (v *Disasm) hottest() {
	best := -1
	var bf, bc int64
	for i, r := range v.rows() {
		if r.kind != asmInst {
			continue
		}
		in := v.inst(i)
		if best < 0 || abs(in.Flat) > bf || (abs(in.Flat) == bf && abs(in.Cum) > bc) {
			best, bf, bc = i, abs(in.Flat), abs(in.Cum)
		}
	}
	if best < 0 {
		v.l.moveTo(0)
		return
	}
	v.center(best)
}

func (v *Disasm) center(i int) {
	v.l.moveTo(i)
	v.l.offset = max(0, i-v.l.height/2)
	v.l.clamp()
}

// moveToAddr puts the cursor on the instruction at object address addr
// (or the one holding it).
func (v *Disasm) moveToAddr(addr uint64) bool {
	for i, r := range v.rows() {
		if r.kind != asmInst {
			continue
		}
		in := v.inst(i)
		if in.Addr <= addr && addr < in.Addr+uint64(max(1, in.Len)) {
			v.center(i)
			return true
		}
	}
	return false
}

// Cursor returns the instruction under the cursor; tui's tests read it
// too.
func (v *Disasm) Cursor() (analysis.AsmInst, bool) {
	if !v.HasResult() || v.l.n == 0 {
		return analysis.AsmInst{}, false
	}
	if in := v.inst(v.l.cursor); in != nil {
		return *in, true
	}
	return analysis.AsmInst{}, false
}

// Claims takes enter on a call or jump (follow) and backspace while
// there is somewhere to go back to.
func (v *Disasm) Claims(msg tea.KeyMsg) bool {
	switch {
	case key.Matches(msg, v.c.Keys.Follow):
		in, ok := v.Cursor()
		return ok && in.Target != 0
	case key.Matches(msg, v.c.Keys.Return):
		return len(v.back) > 0
	}
	return false
}

func (v *Disasm) Update(msg tea.Msg) tea.Cmd {
	if !v.HasResult() {
		return nil
	}
	if v.l.navigate(v.c.Keys, msg, 1) {
		return nil
	}
	km, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(km, v.c.Keys.Hottest):
		v.hottest()
	case key.Matches(km, v.c.Keys.Follow):
		v.follow()
	case key.Matches(km, v.c.Keys.Return):
		v.goBack()
	}
	return nil
}

// follow goes to the target of the call or jump under the cursor.
func (v *Disasm) follow() {
	in, ok := v.Cursor()
	if !ok || in.Target == 0 {
		return
	}
	r := v.data.d.Routines[v.rows()[v.l.cursor].routine]
	here := asmPlace{v.name, in.Addr}
	if in.Target >= r.Start && in.Target < r.End {
		// A jump, or a recursive call: here, at the target.
		v.back = append(v.back, here)
		v.moveToAddr(in.Target)
		return
	}
	if in.TargetName == "" {
		return
	}
	v.back = append(v.back, here)
	v.c.Ask(SelectMsg{Name: in.TargetName})
}

// goBack returns to where the last follow started.
func (v *Disasm) goBack() {
	if len(v.back) == 0 {
		return
	}
	p := v.back[len(v.back)-1]
	v.back = v.back[:len(v.back)-1]
	if p.name == v.name {
		v.moveToAddr(p.addr)
		return
	}
	v.pending = &p
	v.c.Ask(SelectMsg{Name: p.name})
}

func (v *Disasm) rowText(i int) string {
	r := v.rows()[i]
	switch r.kind {
	case asmInst, asmSource, asmNote:
		return r.text
	}
	return ""
}

func (v *Disasm) SetSearch(re *regexp.Regexp) bool {
	if v.data == nil {
		v.m.re = re
		return false
	}
	return v.m.search(&v.l, re, len(v.rows()), v.rowText)
}

func (v *Disasm) NextMatch(dir int) bool { return v.m.step(&v.l, dir, false) }

const asmValW, asmAddrW = 10, 10

func (v *Disasm) View() string {
	st := v.c.Styles
	if v.data == nil || (v.data.name != v.name && v.name != "") {
		return fillLines([]string{st.Dim.Render("  computing…")}, v.height)
	}
	if v.name == "" {
		return fillLines([]string{st.Dim.Render("  no function selected: pick one in Top or Tree, then come back")}, v.height)
	}
	head := padLeft("flat", asmValW) + " " + padLeft("cum", asmValW) + " " + padLeft("address", asmAddrW) + "  instruction (pprof's disasm)"
	lines := []string{st.Header.Render(PadRight(ansi.Truncate(head, v.width, "…"), v.width))}
	from, to := v.l.visible()
	for i := from; i < to; i++ {
		lines = append(lines, v.renderRow(i))
	}
	return fillLines(lines, v.height)
}

func (v *Disasm) renderRow(i int) string {
	st := v.c.Styles
	r := v.rows()[i]
	sel := i == v.l.cursor
	line := func(text string, style func(...string) string) string {
		text = ansi.Truncate(text, v.width, "…")
		if sel {
			return st.Selected.Render(PadRight(markCursor(text), v.width))
		}
		return style(text)
	}
	if r.kind == asmNote {
		style := st.Dim
		if r.isErr {
			style = st.Error
		}
		return line("  "+r.text, style.Render)
	}
	d := v.data.d
	rt := &d.Routines[r.routine]
	switch r.kind {
	case asmTitle:
		text := fmt.Sprintf(" %s in %s", rt.Name, rt.Binary)
		return line(SafeText(text), st.Key.Render)
	case asmTotals:
		text := fmt.Sprintf("%*s %*s (flat, cum) %s of total", asmValW, v.value(rt.Flat), asmValW, v.value(rt.Cum),
			strings.TrimSpace(analysis.Percentage(rt.Cum, d.Total)))
		return line(text, st.Header.Render)
	case asmSource:
		pad := strings.Repeat(" ", asmValW+1+asmValW+1+asmAddrW+2+2*r.depth)
		return line(pad+r.text, func(s ...string) string { return highlight(s[0], v.m.re, st.Dim, st.Match) })
	}
	in := &rt.Insts[r.inst]
	orDot := func(x int64) cell {
		if x == 0 {
			return cell{text: padLeft(".", asmValW), kind: cellDim}
		}
		if v.c.Diff {
			return valueCell(v.c, padLeft(v.value(x), asmValW), x, d.Total)
		}
		return cell{text: padLeft(v.value(x), asmValW), heat: pct(x, rt.Cum), kind: cellHeat}
	}
	cells := []cell{orDot(in.Flat), orDot(in.Cum), {text: padLeft(fmt.Sprintf("%x", in.Addr), asmAddrW), kind: cellDim}}
	var b strings.Builder
	used := writeCells(&b, st, cells, sel)
	mark := "  "
	if in.Target != 0 {
		mark = "→ "
	}
	textW := max(0, v.width-used-2-2)
	text := r.text
	if in.TargetName != "" && (in.Target < rt.Start || in.Target >= rt.End) && !strings.Contains(text, in.TargetName) {
		text += "  ; " + in.TargetName
	}
	text = ansi.Truncate(text, textW, "…")
	base := st.Plain
	switch share := pct(in.Flat, rt.Cum); {
	case sel:
		base = st.Selected
	case v.c.Diff && in.Flat != 0:
		base = st.DiffText(in.Flat, d.Total)
	case !v.c.Diff && share >= 5:
		base = st.Heat(share)
	}
	b.WriteString(base.Render("  " + mark))
	b.WriteString(highlight(text, v.m.re, base, st.Match))
	padSelected(&b, st, sel, textW-ansi.StringWidth(text))
	return b.String()
}
