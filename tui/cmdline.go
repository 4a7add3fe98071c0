package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/views"
)

// The command line (`:`) and the search line (`/`): one line at the foot
// of the screen, with the command line's tab completion and history.
// While it is open it takes every key (q, ?, / type themselves); what a
// key asks of the root (run the line, search as typed, clear the note)
// it returns as a lineAction.

type inputMode int

const (
	inputNone inputMode = iota
	inputCommand
	inputSearch
)

// lineAction is what a key on the line asks of the root.
type lineAction int

const (
	lineIgnored      lineAction = iota // nothing: tab completed, or ↑ in a search
	lineEdited                         // the text changed
	lineRecalled                       // ↑ or ↓ brought another command line
	lineCancelled                      // esc closed the line
	lineClosed                         // backspace on the empty line closed it
	lineEntered                        // enter closed the line to run it
	lineNoCompletion                   // tab found nothing for the word
)

type cmdline struct {
	mode    inputMode
	input   textinput.Model
	comp    completion
	history []string // earlier command lines, oldest first
	histPos int      // the one ↑/↓ shows (len: the new line)
	width   int
	height  int
	// The labels of the profile labelsOf, for completion, made once
	// per profile.
	labelsOf    *format.Profile
	labelKeys   []string
	labelValues map[string][]string
	// args completes a verb's argument: word, after the words before
	// it on the line (the verb first); false when the line does not
	// start with a verb that completes its arguments.
	args func(before []string, word string) ([]string, bool)
}

func newCmdline(st *views.Styles) cmdline {
	in := textinput.New()
	// Its ctrl+v runs xclip or the like to read the clipboard of the
	// machine the explorer runs on: a served explorer's would be the
	// server's. A terminal's own paste arrives as keys anyway.
	in.KeyMap.Paste.SetEnabled(false)
	in.Cursor.SetMode(cursor.CursorStatic)
	in.Cursor.Style = st.Selected
	in.PromptStyle = st.Prompt
	in.TextStyle = st.Plain
	in.PlaceholderStyle = st.Dim
	return cmdline{input: in}
}

func (c *cmdline) setSize(w, h int) {
	c.width, c.height = w, h
	c.input.Width = max(1, w-4)
}

// isOpen reports whether the line has the keys.
func (c *cmdline) isOpen() bool { return c.mode != inputNone }

// open shows the line in mode, holding value.
func (c *cmdline) open(mode inputMode, value string) tea.Cmd {
	c.mode = mode
	c.input.Prompt = ":"
	c.input.Placeholder = "focus=RE ignore=RE  sample_index=NAME  lines  reset  help  (tab completes, ↑ recalls)"
	if mode == inputSearch {
		c.input.Prompt = "/"
		c.input.Placeholder = "regexp"
	}
	c.input.SetValue(value)
	c.input.CursorEnd()
	c.comp = completion{}
	c.histPos = len(c.history)
	return c.input.Focus()
}

func (c *cmdline) close() {
	c.mode = inputNone
	c.input.Blur()
	c.input.SetValue("")
	c.comp = completion{}
}

// update takes a key while the line is open. value is the line's text
// (lineEdited, lineEntered) or the word without completions
// (lineNoCompletion). prof is the profile completions come from.
func (c *cmdline) update(msg tea.KeyMsg, prof *format.Profile) (act lineAction, value string, cmd tea.Cmd) {
	switch msg.Type {
	case tea.KeyEsc:
		c.close()
		return lineCancelled, "", nil
	case tea.KeyEnter:
		value, mode := c.input.Value(), c.mode
		c.close()
		if mode == inputCommand {
			c.remember(value)
		}
		return lineEntered, value, nil
	case tea.KeyTab:
		if c.mode == inputCommand {
			if word, ok := c.complete(prof); !ok {
				return lineNoCompletion, word, nil
			}
		}
		return lineIgnored, "", nil
	case tea.KeyUp, tea.KeyDown:
		dir := 1
		if msg.Type == tea.KeyUp {
			dir = -1
		}
		if c.mode == inputCommand && c.recall(dir) {
			return lineRecalled, "", nil
		}
		return lineIgnored, "", nil
	case tea.KeyBackspace:
		if c.input.Value() == "" {
			c.close()
			return lineClosed, "", nil
		}
	}
	c.input, cmd = c.input.Update(msg)
	if c.mode == inputCommand {
		c.comp = completion{}
	}
	return lineEdited, c.input.Value(), cmd
}

// remember adds a command line to the history ↑ walks.
func (c *cmdline) remember(line string) {
	line = strings.TrimSpace(line)
	if line == "" || (len(c.history) > 0 && c.history[len(c.history)-1] == line) {
		return
	}
	c.history = append(c.history, line)
	if len(c.history) > 100 {
		c.history = c.history[1:]
	}
}

// recall replaces the command line by an earlier (dir -1) or later one;
// past the newest it is empty again. It reports whether it moved.
func (c *cmdline) recall(dir int) bool {
	pos := c.histPos + dir
	if pos < 0 || pos > len(c.history) {
		return false
	}
	c.histPos = pos
	line := ""
	if pos < len(c.history) {
		line = c.history[pos]
	}
	c.input.SetValue(line)
	c.input.CursorEnd()
	c.comp = completion{}
	return true
}

func (c *cmdline) setLine(s string) {
	c.input.SetValue(s)
	c.input.CursorEnd()
}

// view is the line itself, for the footer.
func (c *cmdline) view() string { return ansi.Truncate(c.input.View(), c.width, "…") }

// completionLines are the completions, paged, for the panel above the
// line.
func (c *cmdline) completionLines(st *views.Styles) []string {
	var lines []string
	if len(c.comp.shown) == 0 {
		return nil
	}
	colW, perRow, rows, pages := compLayout(c.comp.shown, c.width, c.height)
	from := c.comp.page * perRow * rows
	cands := c.comp.shown[from:min(len(c.comp.shown), from+perRow*rows)]
	for r := 0; r*perRow < len(cands); r++ {
		var b strings.Builder
		for _, x := range cands[r*perRow : min(len(cands), (r+1)*perRow)] {
			b.WriteString(views.PadRight(ansi.Truncate(x, colW-2, "…"), colW))
		}
		lines = append(lines, st.Info.Render(views.PadRight(strings.TrimRight(b.String(), " "), c.width)))
	}
	if pages > 1 {
		more := fmt.Sprintf("%d of %d candidates · page %d/%d · tab for the next", len(cands), len(c.comp.shown), c.comp.page+1, pages)
		lines = append(lines, st.Dim.Render(views.PadRight(more, c.width)))
	}
	return lines
}

// compLayout lays candidates out in columns: their width, how many per
// row, rows per page, and pages, in a panel of at most a third of the
// window.
func compLayout(cands []string, width, height int) (colW, perRow, rows, pages int) {
	for _, c := range cands {
		colW = max(colW, ansi.StringWidth(c)+2)
	}
	colW = min(colW, width)
	perRow = max(1, width/colW)
	rows = max(1, min(8, height/3))
	total := (len(cands) + perRow - 1) / perRow
	if total > rows {
		rows = max(1, rows-1) // a line for "page 1/3"
	}
	pages = (len(cands) + perRow*rows - 1) / (perRow * rows)
	return colW, perRow, rows, pages
}
