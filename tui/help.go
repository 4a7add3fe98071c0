package tui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/views"
)

// helpPanel is what shows in the view's place: the key help (?), or the
// lines another part gives it: :help, :cmd, the info panel (I), a live
// snapshot ([ ]). It scrolls; any key it has no use for closes it.
type helpPanel struct {
	shown  bool
	offset int      // the scroll position
	text   []string // what shows; nil: the keys
	copy   string   // what y copies while text shows (:cmd)
	step   bool     // text is a live snapshot: [ and ] step
	width  int
	height int // the view's
	st     *views.Styles
	keys   *views.KeyMap
	groups []views.KeyGroup // the key help's
	// drawn is lines' result for the text and width: every frame and
	// every key on the panel wants it, and the key help is some sixty
	// styled rows. nil: to be made.
	drawn []string
	hint  help.Model // draws the footer's one-line key hint
	// rootHints end the hint line, after the view's, shortened once:
	// the footer is drawn every frame.
	rootHints []keyRow
}

func newHelpPanel(st *views.Styles, keys *views.KeyMap, groups []views.KeyGroup, rootHints []keyRow) helpPanel {
	hint := help.New()
	hint.Styles.ShortKey = st.HelpKey
	hint.Styles.ShortDesc = st.HelpDesc
	hint.Styles.ShortSeparator = st.HelpSep
	hint.Styles.Ellipsis = st.HelpSep
	for i := range rootHints {
		rootHints[i].key = shortened([]key.Binding{rootHints[i].key})[0]
	}
	return helpPanel{st: st, keys: keys, groups: groups, hint: hint, rootHints: rootHints}
}

func (p *helpPanel) setSize(w, h int) {
	p.width, p.height = w, h
	p.hint.Width = w
	p.drawn = nil
}

// hintLine is the footer's key hint: the view's bindings, then the
// root's, shortened; of the root's, those offered says do something now
// (the view's come enabled or not).
func (p *helpPanel) hintLine(view []key.Binding, offered func(keyRow) bool) string {
	bindings := shortened(view)
	for _, r := range p.rootHints {
		b := r.key
		b.SetEnabled(offered(r))
		bindings = append(bindings, b)
	}
	// help truncates with an ellipsis, but not when the ellipsis itself
	// does not fit.
	return ansi.Truncate(p.hint.ShortHelpView(bindings), p.width, "…")
}

// shortened drops the explanations from bindings for the one-line hint:
// "focus: on exactly the selected function" becomes "focus".
func shortened(bs []key.Binding) []key.Binding {
	out := make([]key.Binding, len(bs))
	for i, b := range bs {
		h := b.Help()
		desc, _, _ := strings.Cut(h.Desc, ":")
		b.SetHelp(h.Key, desc)
		out[i] = b
	}
	return out
}

// open shows lines (nil: the key help) from the top.
func (p *helpPanel) open(lines []string) {
	p.shown, p.offset, p.text, p.copy, p.step = true, 0, lines, "", false
	p.drawn = nil
}

func (p *helpPanel) close() { p.shown = false }

// openCopy shows lines, and y copies text.
func (p *helpPanel) openCopy(lines []string, text string) {
	p.open(lines)
	p.copy = text
}

// openStep shows a live snapshot's lines: [ and ] step.
func (p *helpPanel) openStep(lines []string) {
	p.open(lines)
	p.step = true
}

// reset forgets the panel's text, with the profile it was about.
func (p *helpPanel) reset() { p.shown, p.text, p.drawn = false, nil, nil }

// helpAction is what a key on the panel asks of the root.
type helpAction int

const (
	helpKept    helpAction = iota // scrolled, or closed
	helpQuit                      // q
	helpCommand                   // : closed the panel for the command line
	helpStep                      // [ or ] on a snapshot: step dir
	helpCopy                      // y: copy the panel's copy text
)

// update takes a key while the panel shows. dir is the step's direction
// (helpStep); text is what to copy (helpCopy).
func (p *helpPanel) update(msg tea.KeyMsg) (act helpAction, dir int, text string) {
	k := p.keys
	switch {
	case key.Matches(msg, k.Down):
		p.offset++
	case key.Matches(msg, k.Up):
		p.offset = max(0, p.offset-1)
	case key.Matches(msg, k.PageDown):
		p.offset += (p.height + 3) / 2
	case key.Matches(msg, k.PageUp):
		p.offset = max(0, p.offset-(p.height+3)/2)
	case key.Matches(msg, k.Home):
		p.offset = 0
	case key.Matches(msg, k.End):
		p.offset = len(p.lines())
	case key.Matches(msg, k.Quit):
		return helpQuit, 0, ""
	case key.Matches(msg, k.Command):
		p.shown = false
		return helpCommand, 0, ""
	case p.step && (key.Matches(msg, k.StepBack) || key.Matches(msg, k.StepForward)):
		return helpStep, stepDir(msg, k), ""
	case key.Matches(msg, k.Copy) && p.copy != "":
		p.shown = false
		return helpCopy, 0, p.copy
	default:
		p.shown = false
	}
	p.offset = max(0, min(p.offset, len(p.lines())-p.height+1))
	return helpKept, 0, ""
}

// view renders the panel in the view's place, scrolled to offset.
func (p *helpPanel) view() string {
	st, h := p.st, p.height
	lines := p.lines()
	// Scrolled by the moving keys when it does not fit.
	if len(lines) > h {
		from := min(p.offset, len(lines)-h+1)
		end := min(len(lines), from+h-1)
		more := "  ↑↓ pgup pgdn g G scroll · any other key closes"
		lines = append(lines[from:end:end], st.Dim.Render(ansi.Truncate(more, p.width, "…")))
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// lines is what the panel shows: its text, or every key group, in two
// columns when wide. The slice is shared: append to it only clipped.
func (p *helpPanel) lines() []string {
	if p.drawn == nil {
		p.drawn = slices.Clip(p.draw())
	}
	return p.drawn
}

// draw makes lines.
func (p *helpPanel) draw() []string {
	st := p.st
	if p.text != nil {
		lines := make([]string, len(p.text))
		for i, l := range p.text {
			lines[i] = ansi.Truncate(l, p.width, "…")
		}
		return lines
	}
	var blocks [][]string
	groups := p.groups
	for i, g := range groups {
		lines := []string{st.HelpTitle.Render(g.Title)}
		for _, b := range g.Bindings {
			lines = append(lines, "  "+st.HelpKey.Render(views.PadRight(b.Help().Key, 10))+" "+st.HelpDesc.Render(b.Help().Desc))
		}
		if i != 1 && i != len(groups)-1 {
			lines = append(lines, "") // no blank line at the foot of a column
		}
		blocks = append(blocks, lines)
	}
	// The glyphs on screen that are not keys.
	glyphs := []string{"", st.HelpTitle.Render("On screen")}
	for _, g := range [][2]string{
		{"│", "status bar: source │ sample type (unit) │ total │ granularity │ filters"},
		{"›", "between the active filters; all of them apply (:reset clears them)"},
		{"X of T", "what the rows account for of the total, when filters trim it"},
		{"⌫ back (N)", "N option changes that backspace undoes, newest first"},
		{"↓", "in the headings: the column the table is sorted by"},
		{"▶", "the selected row, the same function in every view"},
		{"(inline)", "a function inlined into its caller, as pprof marks it"},
	} {
		glyphs = append(glyphs, "  "+st.HelpKey.Render(views.PadRight(g[0], 10))+" "+st.HelpDesc.Render(g[1]))
	}
	blocks[1] = append(blocks[1], glyphs...)
	var lines []string
	if p.width >= 120 {
		// Two columns: the general keys left, the row and view keys right.
		var left, right []string
		for i, b := range blocks {
			if i < 2 {
				left = append(left, b...)
			} else {
				right = append(right, b...)
			}
		}
		colW := p.width / 2
		for i := 0; i < max(len(left), len(right)); i++ {
			var l, r string
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				r = right[i]
			}
			lines = append(lines, views.PadRight(ansi.Truncate(l, colW-1, "…"), colW)+ansi.Truncate(r, p.width-colW, "…"))
		}
	} else {
		for _, b := range blocks {
			for _, l := range b {
				lines = append(lines, ansi.Truncate(l, p.width, "…"))
			}
		}
	}
	return lines
}
