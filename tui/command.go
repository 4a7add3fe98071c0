package tui

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/views"
)

// The command line (`:`) takes pprof's settings as `name=value`, through
// analysis.Options.Set, so it accepts exactly what pprof's interactive
// mode and flags do. The search line (`/`) takes a regexp.

// openInput opens the command or search line, holding value.
func (m *Model) openInput(mode inputMode, value string) tea.Cmd {
	m.note = footNote{}
	return m.line.open(mode, value)
}

// inputKey passes a key to the open command or search line and does
// what it asks.
func (m *Model) inputKey(msg tea.KeyMsg) tea.Cmd {
	mode := m.line.mode
	act, value, cmd := m.line.update(msg, m.prof)
	switch act {
	case lineCancelled:
		if mode == inputSearch {
			m.setSearch(nil)
		}
		m.note = footNote{}
	case lineEntered:
		if mode == inputSearch {
			m.searchInput(value, true)
			return nil
		}
		cmd, err := m.command(value)
		if err != nil {
			// Keep the line for editing; say what is wrong above it.
			open := m.openInput(inputCommand, value)
			m.setNote(views.Safe(err.Error()), true)
			return open
		}
		return cmd
	case lineEdited:
		if mode == inputSearch {
			m.searchInput(value, false)
		} else {
			m.note = footNote{}
		}
	case lineRecalled:
		m.note = footNote{}
	case lineNoCompletion:
		m.setNote(views.Safe("no completion for "+value), true)
	}
	return cmd
}

// searchInput applies the search as it is typed (incremental); a bad
// regexp keeps the previous search and says why. What it finds is said
// by searchStatus, under the line as it is typed and in the footer
// after.
func (m *Model) searchInput(value string, final bool) {
	if value == "" {
		m.setSearch(nil)
		m.note = footNote{}
		return
	}
	re, err := regexp.Compile(value)
	if err != nil {
		m.setNote(views.Safe("bad regexp: "+strings.TrimPrefix(err.Error(), "error parsing regexp: ")), true)
		return
	}
	m.note = footNote{}
	m.search = re
	m.ActiveView().SetSearch(re)
}

// searchStatus says what the search finds in the active view: "3/17"
// (the match under the cursor of how many), "-/17" off them, "no
// match"; in Top and Flame also the share of the total the matches
// account for, what -focus=the search would keep under the filters.
// ok is false without a search.
func (m *Model) searchStatus() (text string, noMatch, ok bool) {
	if m.search == nil {
		return "", false, false
	}
	v := m.ActiveView()
	text = "/" + m.search.String() + "  "
	mv, counts := v.(views.Matcher)
	if !counts || !v.HasResult() {
		return text + "…", false, true
	}
	cur, n, more := mv.Matches()
	if n == 0 && !more {
		return text + "no match", true, true
	}
	switch {
	case cur < 0:
		text += fmt.Sprintf("on one of %d+", n)
	case more:
		text += fmt.Sprintf("%s/%d+", rank(cur), n)
	default:
		text += fmt.Sprintf("%s/%d", rank(cur), n)
	}
	if re := m.shareOf(); re != nil {
		k, ok := m.counted(tallySearch, m.optsKey(m.opts)+re.String())
		share := "…"
		if ok {
			_, unit := m.sampleTypeLabel()
			share = fmt.Sprintf("%s (%s)", views.Format(m.c, unit, m.opts)(k.Value), strings.TrimSpace(analysis.Percentage(k.Value, k.Total)))
		}
		text += " · focus would keep " + share
	}
	return text, false, true
}

// rank is a match's rank as searchStatus prints it: "-" for none.
func rank(cur int) string {
	if cur == 0 {
		return "-"
	}
	return fmt.Sprint(cur)
}

// command runs one command line: settings as name=value (several on a
// line, quoted when they hold spaces), a choice or boolean by its name
// alone, a sample type by its name, or one of the verbs (verbs.go). A
// bare line clears the filters. Nothing changes unless every part is
// right; the error says what is wrong.
func (m *Model) command(line string) (tea.Cmd, error) {
	words, err := splitCommand(line)
	if err != nil {
		return nil, err
	}
	if len(words) == 0 {
		words = []string{verbReset}
	}
	if v, bang, ok := lookupVerb(words[0]); ok && v.run != nil {
		return v.run(m, words[1:], bang)
	}
	next := m.target
	sorted := false
	for _, w := range words {
		if err := m.apply(&next, w); err != nil {
			return nil, err
		}
		if s, _ := analysis.LookupSetting(strings.SplitN(w, "=", 2)[0]); s.Name == "sort" {
			sorted = true
		}
	}
	if top := m.views.top; sorted && next.Sort == m.target.Sort && top.Sorted() != next.Sort {
		top.SortBy(next.Sort) // the Top view was sorted by o: :sort= sorts it back
	}
	if next == m.target {
		if len(words) == 1 && words[0] == verbReset {
			m.setNote(views.Safe("no filters to clear"), false)
		}
		return nil, nil
	}
	return m.change(next, true), nil
}

// apply applies one word of a command line to o.
func (m *Model) apply(o *analysis.Options, word string) error {
	if word == verbReset {
		*o = o.ClearFilters()
		return nil
	}
	name, value, hasValue := strings.Cut(word, "=")
	if s, ok := analysis.LookupSetting(name); ok {
		if !hasValue {
			if s.Kind != analysis.KindBool && s.Name == name {
				return fmt.Errorf("%s needs a value: %s=%s", name, name, s.ValueName())
			}
			value = "true"
		}
		if s.Name == "sample_index" && value != "" {
			if _, err := analysis.SampleIndex(m.prof, value); err != nil {
				return err
			}
		}
		return o.Set(name, value)
	}
	if !hasValue {
		// pprof's shortcuts: a sample type's name, total_NAME, mean_NAME.
		for _, st := range m.prof.SampleTypes {
			switch word {
			case st.Type, "total_" + st.Type:
				o.SampleIndex, o.Mean = st.Type, false
				return nil
			case "mean_" + st.Type:
				o.SampleIndex, o.Mean = st.Type, true
				return nil
			}
		}
	}
	return o.Set(name, value) // the unknown-setting error
}

// splitCommand splits a command line into words at spaces outside
// quotes. Quotes group and are dropped: focus="a b" is the word focus=a b.
// Inside double quotes \" and \\ stand for " and \; a backslash anywhere
// else is kept, as regexps need it.
func splitCommand(line string) ([]string, error) {
	words, _, quote := scanCommand(line)
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	return words, nil
}

// scanCommand is splitCommand's scanner: it also returns where the last
// word starts in line (len(line) after a trailing space) and the quote
// still open at the end (0 for none), for completion.
func scanCommand(line string) (words []string, lastStart int, quote rune) {
	var b strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote == 0 && (c == ' ' || c == '\t'):
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
			continue
		case !inWord:
			inWord, lastStart = true, i
		}
		switch {
		case quote == 0 && (c == '"' || c == '\''):
			quote = rune(c)
		case quote != 0 && rune(c) == quote:
			quote = 0
		case quote == '"' && c == '\\' && i+1 < len(line) && (line[i+1] == '"' || line[i+1] == '\\'):
			i++
			b.WriteByte(line[i])
		default:
			b.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, b.String())
	} else {
		lastStart = len(line)
	}
	return words, lastStart, quote
}

// quoteWord quotes s for the command line when it holds a space or a
// quote.
func quoteWord(s string) string {
	if !strings.ContainsAny(s, " \t\"'") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

type filterKind int

const (
	filterDrill filterKind = iota // focus on the selection alone
	filterFocus                   // add the selection to the focus
	filterIgnore
	filterHide
)

// filterSelected filters on the selected row: drill into, focus on,
// ignore or hide exactly that function (its name regexp-escaped and
// anchored), or tagfocus/tagignore exactly that label value, or taghide
// its key. Drill replaces the focus; focus, ignore and hide add the
// function to theirs as an alternative.
func (m *Model) filterSelected(kind filterKind) tea.Cmd {
	sel, ok := m.ActiveView().Selection()
	if !ok {
		return nil
	}
	next := m.target
	switch sel.Kind {
	case views.SelFunction:
		if !sel.Filterable() {
			m.setNote(views.Safe(cmp.Or(sel.Name, "this node")+" has no function, file or object name to filter on"), true)
			return nil
		}
		re := "^" + regexp.QuoteMeta(sel.Name) + "$"
		switch kind {
		case filterDrill:
			next.Focus = re
		case filterFocus:
			next.Focus = addAlternative(next.Focus, re)
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
			m.setNote(views.Safe(err.Error()), true)
			return nil
		}
		if kind == filterDrill || kind == filterFocus {
			next.TagFocus = f
		} else {
			next.TagIgnore = f
		}
	}
	if next == m.target {
		m.setNote(views.Safe("already filtered so: nothing changes"), false)
		return nil
	}
	m.announceFilter(m.target, next)
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
		m.setNote(views.Safe("the profile has one sample type"), false)
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
	prev, ok := m.optionState.pop()
	if !ok {
		m.setNote(views.Safe("nothing to go back to"), false)
		return nil
	}
	return m.change(prev, false)
}
