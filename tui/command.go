package tui

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/views"
)

// The command line (`:`) takes pprof's settings as `name=value`, through
// analysis.Options.Set, so it accepts exactly what pprof's interactive
// mode and flags do. The search line (`/`) takes a regexp.

func (m *Model) openInput(mode inputMode, value string) tea.Cmd {
	m.mode = mode
	m.input.Prompt = ":"
	m.input.Placeholder = "focus=RE  ignore=RE  hide=RE  sample_index=NAME  granularity=lines  reset  (tab completes)"
	if mode == inputSearch {
		m.input.Prompt = "/"
		m.input.Placeholder = "regexp"
	}
	m.input.SetValue(value)
	m.input.CursorEnd()
	m.note = ""
	return m.input.Focus()
}

func (m *Model) closeInput() {
	m.mode = inputNone
	m.input.Blur()
	m.input.SetValue("")
}

// inputKey handles a key while the command or search line has focus:
// it gets the letters (q, ?, / type themselves).
func (m *Model) inputKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.Type {
	case tea.KeyEsc:
		if m.mode == inputSearch {
			m.setSearch(nil)
		}
		m.closeInput()
		m.note = ""
		return nil
	case tea.KeyEnter:
		value := m.input.Value()
		mode := m.mode
		m.closeInput()
		if mode == inputSearch {
			m.searchInput(value, true)
			return nil
		}
		return m.command(value)
	case tea.KeyTab:
		if m.mode == inputCommand {
			m.complete()
		}
		return nil
	case tea.KeyBackspace:
		if m.input.Value() == "" {
			m.closeInput()
			return nil
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if m.mode == inputSearch {
		m.searchInput(m.input.Value(), false)
	} else {
		m.note = ""
	}
	return cmd
}

// searchInput applies the search as it is typed (incremental); a bad
// regexp keeps the previous search and says why.
func (m *Model) searchInput(value string, final bool) {
	if value == "" {
		m.setSearch(nil)
		m.note = ""
		return
	}
	re, err := regexp.Compile(value)
	if err != nil {
		m.setNote("bad regexp: "+strings.TrimPrefix(err.Error(), "error parsing regexp: "), true)
		return
	}
	m.search = re
	if m.ActiveView().SetSearch(re) {
		m.note = ""
		if final {
			m.setNote("/"+value+"  (n next, N previous, esc clears)", false)
		}
	} else {
		m.setNote("no match for "+value, true)
	}
}

// filterOptions are the options that `reset` and a bare `:` clear.
var filterOptions = []string{"focus", "ignore", "hide", "show", "show_from", "prune_from", "tagfocus", "tagignore", "tagshow", "taghide"}

func clearFilters(o analysis.Options) analysis.Options {
	for _, name := range filterOptions {
		o.Set(name, "")
	}
	return o
}

// command runs one command line.
func (m *Model) command(line string) tea.Cmd {
	line = strings.TrimSpace(line)
	if line == "" || line == "reset" {
		next := clearFilters(m.target)
		if next == m.target {
			m.setNote("no filters to clear", false)
			return nil
		}
		return m.change(next, true)
	}
	name, value, hasValue := strings.Cut(line, "=")
	name = strings.TrimSpace(name)
	if !hasValue {
		value = "" // boolean options: "mean" is "mean=true"
	}
	if name == "sort" {
		if value != "flat" && value != "cum" && value != "name" {
			m.setNote(fmt.Sprintf("sort: %q is not flat, cum or name (nothing changed)", value), true)
			return nil
		}
		m.views[0].(*views.Top).SortBy(value)
		return nil
	}
	next := m.target
	if err := next.Set(name, value); err != nil {
		m.setNote(errorText(err), true)
		return nil
	}
	if next == m.target {
		return nil
	}
	return m.change(next, true)
}

// completions lists what may follow the command line's text.
func (m *Model) completions(line string) (prefix string, cands []string) {
	name, value, hasValue := strings.Cut(line, "=")
	if !hasValue {
		all := append([]string{"reset"}, analysis.Settings...)
		all = append(all, analysis.Granularities...)
		for _, c := range all {
			if strings.HasPrefix(c, line) && !slices.Contains(cands, c) {
				cands = append(cands, c)
			}
		}
		return "", cands
	}
	var values []string
	switch name {
	case "sample_index":
		for _, st := range m.prof.SampleTypes {
			values = append(values, st.Type)
		}
	case "granularity":
		values = analysis.Granularities
	case "sort":
		values = []string{"flat", "cum", "name"}
	case "mean", "noinlines", "relative_percentages", "drop_negative",
		"functions", "filefunctions", "files", "lines", "addresses":
		values = []string{"true", "false"}
	case "unit":
		values = []string{"minimum", "auto", "ns", "us", "ms", "s", "B", "kB", "MB", "GB"}
	}
	for _, v := range values {
		if strings.HasPrefix(v, value) {
			cands = append(cands, v)
		}
	}
	return name + "=", cands
}

// complete extends the command line by tab: to the one completion, or
// to the candidates' common prefix, listing them.
func (m *Model) complete() {
	line := m.input.Value()
	prefix, cands := m.completions(line)
	switch len(cands) {
	case 0:
		m.setNote("no completion", true)
		return
	case 1:
		c := prefix + cands[0]
		if prefix == "" && c != "reset" && !slices.Contains(analysis.Granularities, c) {
			c += "="
		}
		m.input.SetValue(c)
	default:
		common := cands[0]
		for _, c := range cands[1:] {
			for !strings.HasPrefix(c, common) {
				common = common[:len(common)-1]
			}
		}
		m.input.SetValue(prefix + common)
		m.setNote(strings.Join(cands, "  "), false)
	}
	m.input.CursorEnd()
}

type filterKind int

const (
	filterFocus filterKind = iota
	filterIgnore
	filterHide
)

// filterSelected filters on the selected row: focus, ignore or hide
// exactly that function (its name regexp-escaped and anchored), or
// tagfocus/tagignore exactly that label value, or taghide its key.
// Focus replaces the focus (drilling in); ignore and hide add to theirs.
func (m *Model) filterSelected(kind filterKind) tea.Cmd {
	sel, ok := m.ActiveView().Selection()
	if !ok {
		return nil
	}
	next := m.target
	switch sel.Kind {
	case views.SelFunction:
		if sel.Name == "" {
			m.setNote("this node has no function or file name to filter on", true)
			return nil
		}
		re := "^" + regexp.QuoteMeta(sel.Name) + "$"
		switch kind {
		case filterFocus:
			next.Focus = re
		case filterIgnore:
			next.Ignore = addAlternative(next.Ignore, re)
		case filterHide:
			next.Hide = addAlternative(next.Hide, re)
		}
	case views.SelTagKey, views.SelTagValue:
		if kind == filterHide {
			next.TagHide = addAlternative(next.TagHide, "^"+regexp.QuoteMeta(sel.Key)+"$")
			break
		}
		f, err := tagFilter(sel)
		if err != nil {
			m.setNote(err.Error(), true)
			return nil
		}
		if kind == filterFocus {
			next.TagFocus = f
		} else {
			next.TagIgnore = f
		}
	}
	if next == m.target {
		m.setNote("already filtered so", false)
		return nil
	}
	return m.change(next, true)
}

func addAlternative(old, re string) string {
	if old == "" {
		return re
	}
	return old + "|" + re
}

// numericValue is a numeric label value as the -tags report prints it
// that is also an exact tag filter: an integer and a unit ("64B").
var numericValue = regexp.MustCompile(`^[0-9]+[A-Za-z]*$`)

// tagFilter is the tagfocus/tagignore value that selects exactly sel:
// key=^value$ for a string label (commas escaped, as pprof splits the
// value at commas), key=value for an exact numeric label, key=. for a
// key row (any value of that key).
func tagFilter(sel views.Selection) (string, error) {
	if sel.Kind == views.SelTagKey {
		if sel.Numeric {
			return "", fmt.Errorf("%s is a numeric label: use :tagfocus=%s=LO:HI", sel.Key, sel.Key)
		}
		return sel.Key + "=.", nil
	}
	if sel.Numeric {
		if !numericValue.MatchString(sel.Value) {
			return "", fmt.Errorf("%s=%s is rounded: use :tagfocus=%s=LO:HI", sel.Key, sel.Value, sel.Key)
		}
		return sel.Key + "=" + sel.Value, nil
	}
	v := strings.ReplaceAll(regexp.QuoteMeta(sel.Value), ",", `\x2c`)
	return sel.Key + "=^" + v + "$", nil
}

// nextSampleType switches to the profile's next sample type.
func (m *Model) nextSampleType() tea.Cmd {
	types := m.prof.SampleTypes
	if len(types) < 2 {
		m.setNote("the profile has one sample type", false)
		return nil
	}
	i, err := analysis.SampleIndex(m.prof, m.target.SampleIndex)
	if err != nil {
		i = 0
	}
	next := m.target
	next.SampleIndex = types[(i+1)%len(types)].Type
	return m.change(next, true)
}

// back returns to the options before the last change.
func (m *Model) back() tea.Cmd {
	if len(m.history) == 0 {
		m.setNote("nothing to go back to", false)
		return nil
	}
	prev := m.history[len(m.history)-1]
	m.history = m.history[:len(m.history)-1]
	return m.change(prev, false)
}
