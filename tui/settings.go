package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/views"
)

// What the command line shows besides itself: `:help` (every setting
// with its value, or one in full) in the help overlay, and the panel
// above the line with the tab completions and the last error.

// settingsHelp is `:help`: every setting by group, with its value in
// the explorer and one line of help.
func (m *Model) settingsHelp() []string {
	st := m.c.Styles
	const nameW, valueW = 22, 16
	helpW := max(20, m.width-2-nameW-valueW)
	lines := []string{
		st.HelpTitle.Render("Settings") + st.HelpDesc.Render("  :name=value sets one, several per line (quote values with spaces);"),
		st.HelpDesc.Render("  :help NAME explains one; :reset clears the filters; backspace undoes."),
		"",
	}
	settings := analysis.Settings()
	for _, g := range analysis.SettingGroups() {
		lines = append(lines, st.HelpTitle.Render(g))
		for _, s := range settings {
			if s.Group != g {
				continue
			}
			text := views.PadRight(ansi.Truncate(m.shownValue(s).String(), valueW-1, "…"), valueW)
			shown := st.Dim.Render(text)
			if s.Value(m.opts) != s.Default() {
				shown = st.HelpKey.Render(text)
			}
			for i, h := range wrap(s.Help, helpW) {
				if i == 0 {
					lines = append(lines, "  "+st.HelpKey.Render(views.PadRight(s.Name, nameW))+shown+st.HelpDesc.Render(h))
				} else {
					lines = append(lines, strings.Repeat(" ", 2+nameW+valueW)+st.HelpDesc.Render(h))
				}
			}
		}
		lines = append(lines, "")
	}
	return lines
}

// settingHelp is `:help NAME`: one setting in full.
func (m *Model) settingHelp(name string) ([]string, error) {
	s, ok := analysis.LookupSetting(name)
	if v, _, isVerb := lookupVerb(name); isVerb && !ok {
		return m.verbHelp(v), nil
	}
	if !ok {
		return nil, (&analysis.Options{}).Set(name, "") // the unknown-setting error
	}
	st := m.c.Styles
	w := max(20, m.width-4)
	lines := []string{st.HelpTitle.Render(s.Name) + st.HelpDesc.Render("  ("+s.Group+")")}
	para := func(text string) {
		for _, l := range wrap(text, w) {
			lines = append(lines, "  "+st.HelpDesc.Render(l))
		}
	}
	para(s.Help + ".")
	if s.More != "" {
		para(s.More)
	}
	lines = append(lines, "")
	field := func(k, v string) {
		lines = append(lines, "  "+st.HelpKey.Render(views.PadRight(k, 10))+st.HelpDesc.Render(v))
	}
	field("value", m.shownValue(s).String())
	field("default", orDash(s.Default()))
	if len(s.Choices) > 0 {
		field("choices", strings.Join(s.Choices, ", ")+" (each also a setting: :"+s.Choices[len(s.Choices)-1]+")")
	}
	syntax := ":" + s.Name + "=" + s.ValueName()
	if s.IsBool() {
		syntax = ":" + s.Name + " or :" + s.Name + "=false"
	}
	field("set", syntax+"   flag -"+s.Name)
	if s.Filter {
		field("filter", "shown in the status bar; :reset clears it")
	}
	return lines, nil
}

// panel is what shows above the command line: the completions, paged,
// and the note (an error, or what the completions are of).
func (m *Model) panel() []string {
	st := m.c.Styles
	lines := m.line.completionLines(st)
	if text, noMatch, ok := m.searchStatus(); ok && m.line.mode == inputSearch && m.note.text.IsEmpty() {
		style := st.Info
		if noMatch {
			style = st.Error
		}
		lines = append(lines, style.Render(views.PadRight(ansi.Truncate(views.Safe(text).String(), m.width, "…"), m.width)))
	}
	if !m.note.text.IsEmpty() {
		style := st.Info
		if m.note.isErr {
			style = st.Error
		}
		for _, l := range wrap(m.note.text.String(), m.width) {
			lines = append(lines, style.Render(views.PadRight(l, m.width)))
		}
	}
	return lines
}

// overlay puts lines over the last lines of body.
func overlay(body string, lines []string) string {
	if len(lines) == 0 {
		return body
	}
	bl := strings.Split(body, "\n")
	start := max(0, len(bl)-len(lines))
	copy(bl[start:], lines[max(0, len(lines)-len(bl)):])
	return strings.Join(bl, "\n")
}

// wrap breaks text into lines of at most w columns at spaces; a word
// longer than w is cut.
func wrap(text string, w int) []string {
	var lines []string
	for _, word := range strings.Fields(text) {
		n := len(lines)
		if n > 0 && ansi.StringWidth(lines[n-1])+1+ansi.StringWidth(word) <= w {
			lines[n-1] += " " + word
			continue
		}
		lines = append(lines, ansi.Truncate(word, w, "…"))
	}
	return lines
}

// shownValue is s's value as :help shows it: an unset sample_index by
// the type it resolves to in this profile. A value may have come from
// a command line someone shared, as the info panel's may.
func (m *Model) shownValue(s analysis.Setting) views.Text {
	v := s.Value(m.opts)
	if s.Name == "sample_index" && v == "" && m.prof != nil {
		if i, err := analysis.SampleIndex(m.prof, ""); err == nil {
			return views.Safe(m.prof.SampleTypes[i].Type + " (the profile's default)")
		}
	}
	return views.Safe(orDash(v))
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
