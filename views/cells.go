// How a row's text is laid out: its value cells, the cursor mark and
// highlight, padding, names cut to fit, search matches and the view's
// lines filled to its height.

package views

import (
	"regexp"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
)

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

// PadRight left-aligns s in w columns. Exported so that the root's
// panels (help, settings, the command line) pad as the views do.
func PadRight(s string, w int) string {
	if d := w - ansi.StringWidth(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}

// fitName cuts a name to w columns. A name with a location ("main.f
// /src/pkg/f.go:12", at lines or files granularity) loses its directory
// first, and an address without a name ("000000000040fa72 <unknown>")
// its "<unknown>"; then the start goes, keeping the end (the method name
// is the informative part of "pkg/path.(*T).Method", the last digits of
// an address).
func fitName(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	if addr, ok := strings.CutSuffix(s, " <unknown>"); ok && analysis.Unnamed(s) {
		return fitName(addr, w)
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

// markCursor puts the cursor mark in the first column of the selected
// row when that column is blank, so the row stands out without colour
// (NO_COLOR, text captures).
func markCursor(s string) string {
	if strings.HasPrefix(s, " ") {
		return "▶" + s[1:]
	}
	return s
}
