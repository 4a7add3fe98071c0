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
	m.input.Placeholder = "focus=RE ignore=RE  sample_index=NAME  lines  reset  help  (tab completes, ↑ recalls)"
	if mode == inputSearch {
		m.input.Prompt = "/"
		m.input.Placeholder = "regexp"
	}
	m.input.SetValue(value)
	m.input.CursorEnd()
	m.note = views.Text{}
	m.comp = completion{}
	m.cmdHistoryPos = len(m.cmdHistory)
	return m.input.Focus()
}

func (m *Model) closeInput() {
	m.mode = inputNone
	m.input.Blur()
	m.input.SetValue("")
	m.comp = completion{}
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
		m.note = views.Text{}
		return nil
	case tea.KeyEnter:
		value := m.input.Value()
		mode := m.mode
		m.closeInput()
		if mode == inputSearch {
			m.searchInput(value, true)
			return nil
		}
		m.remember(value)
		cmd, err := m.command(value)
		if err != nil {
			// Keep the line for editing; say what is wrong above it.
			open := m.openInput(inputCommand, value)
			m.setNote(views.Safe(err.Error()), true)
			return open
		}
		return cmd
	case tea.KeyTab:
		if m.mode == inputCommand {
			m.complete()
		}
		return nil
	case tea.KeyUp, tea.KeyDown:
		if m.mode == inputCommand {
			m.recall(map[bool]int{true: -1, false: 1}[msg.Type == tea.KeyUp])
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
		m.note = views.Text{}
		m.comp = completion{}
	}
	return cmd
}

// remember adds a command line to the history ↑ walks.
func (m *Model) remember(line string) {
	line = strings.TrimSpace(line)
	if line == "" || (len(m.cmdHistory) > 0 && m.cmdHistory[len(m.cmdHistory)-1] == line) {
		return
	}
	m.cmdHistory = append(m.cmdHistory, line)
	if len(m.cmdHistory) > 100 {
		m.cmdHistory = m.cmdHistory[1:]
	}
}

// recall replaces the command line by an earlier (dir -1) or later one;
// past the newest it is empty again.
func (m *Model) recall(dir int) {
	pos := m.cmdHistoryPos + dir
	if pos < 0 || pos > len(m.cmdHistory) {
		return
	}
	m.cmdHistoryPos = pos
	line := ""
	if pos < len(m.cmdHistory) {
		line = m.cmdHistory[pos]
	}
	m.input.SetValue(line)
	m.input.CursorEnd()
	m.note, m.comp = views.Text{}, completion{}
}

// searchInput applies the search as it is typed (incremental); a bad
// regexp keeps the previous search and says why.
func (m *Model) searchInput(value string, final bool) {
	if value == "" {
		m.setSearch(nil)
		m.note = views.Text{}
		return
	}
	re, err := regexp.Compile(value)
	if err != nil {
		m.setNote(views.Safe("bad regexp: "+strings.TrimPrefix(err.Error(), "error parsing regexp: ")), true)
		return
	}
	m.search = re
	if m.ActiveView().SetSearch(re) {
		m.note = views.Text{}
		if final {
			m.setNote(views.Safe("/"+value+"  (n next, N previous, esc clears)"), false)
		}
	} else {
		m.setNote(views.Safe("no match for "+value), true)
	}
}

// command runs one command line: settings as name=value (several on a
// line, quoted when they hold spaces), a choice or boolean by its name
// alone, a sample type by its name, reset (clear the filters) and help.
// A bare line clears the filters. Nothing changes unless every part is
// right; the error says what is wrong.
func (m *Model) command(line string) (tea.Cmd, error) {
	words, err := splitCommand(line)
	if err != nil {
		return nil, err
	}
	if len(words) == 0 {
		words = []string{"reset"}
	}
	switch words[0] {
	case "save", "save!":
		if len(words) > 2 {
			return nil, fmt.Errorf("save takes one file name (quote it if it has spaces)")
		}
		return m.save(strings.Join(words[1:], ""), words[0] == "save!")
	case "cmd":
		m.showCommand()
		return nil, nil
	}
	if words[0] == "help" {
		if len(words) > 2 {
			return nil, fmt.Errorf("help takes one setting name")
		}
		if len(words) == 2 {
			lines, err := m.settingHelp(words[1])
			if err != nil {
				return nil, err
			}
			m.openHelp(lines)
		} else {
			m.openHelp(m.settingsHelp())
		}
		return nil, nil
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
		if len(words) == 1 && words[0] == "reset" {
			m.setNote(views.Safe("no filters to clear"), false)
		}
		return nil, nil
	}
	return m.change(next, true), nil
}

// apply applies one word of a command line to o.
func (m *Model) apply(o *analysis.Options, word string) error {
	if word == "reset" {
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

// completion is the tab list shown above the command line.
type completion struct {
	line  string   // the command line it was made for
	cands []string // what may replace the word being typed
	shown []string // the same, without their common "name=" part
	page  int      // the page shown, when they do not fit
	pages int
}

// completions lists what may replace the last word of the command line:
// setting names, choices, sample types, units, label keys and values,
// function names. Candidates are whole words, as they would be typed.
func (m *Model) completions(word string) []string {
	var values []string
	name, value, hasValue := strings.Cut(word, "=")
	s, known := analysis.LookupSetting(name)
	switch {
	case !hasValue:
		values = append([]string{"reset", "help", "save", "cmd"}, analysis.SettingNames()...)
		for _, st := range m.prof.SampleTypes {
			values = append(values, st.Type)
		}
		return withPrefix(values, "", word)
	case !known:
		return nil
	case s.Name != name: // a choice's name is a boolean setting
		return withPrefix([]string{"true", "false"}, name+"=", value)
	}
	switch s.Values {
	case analysis.ValuesBool:
		values = []string{"true", "false"}
	case analysis.ValuesChoice:
		values = s.Choices
	case analysis.ValuesSampleType:
		for _, st := range m.prof.SampleTypes {
			values = append(values, st.Type)
		}
	case analysis.ValuesUnit:
		values = analysis.UnitNames()
	case analysis.ValuesLabelFilter:
		keys, vals := m.labels()
		k, v, hasKey := strings.Cut(value, "=")
		if !hasKey {
			return withPrefix(appendEach(keys, "="), name+"=", value)
		}
		var quoted []string
		for _, x := range vals[k] {
			quoted = append(quoted, strings.ReplaceAll(regexp.QuoteMeta(x), ",", `\x2c`))
		}
		return withPrefix(quoted, name+"="+k+"=", v)
	case analysis.ValuesLabelKey:
		values, _ = m.labels()
	case analysis.ValuesLabelKeys:
		keys, _ := m.labels()
		i := strings.LastIndex(value, ",") + 1
		return withPrefix(keys, name+"="+value[:i], value[i:])
	case analysis.ValuesFunction:
		seen := map[string]bool{}
		for _, f := range m.prof.Functions {
			if q := regexp.QuoteMeta(f.Name); !seen[q] && strings.HasPrefix(q, value) {
				seen[q] = true
				values = append(values, q)
			}
		}
	}
	return withPrefix(values, name+"=", value)
}

// withPrefix returns prefix+v for each v of values that starts with
// typed, sorted and without repeats.
func withPrefix(values []string, prefix, typed string) []string {
	var out []string
	for _, v := range values {
		if strings.HasPrefix(v, typed) {
			out = append(out, prefix+v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func appendEach(ss []string, suffix string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s + suffix
	}
	return out
}

// labels returns the profile's label keys and each key's values,
// computed once per profile.
func (m *Model) labels() ([]string, map[string][]string) {
	if m.labelKeys == nil {
		m.labelKeys, m.labelValues = analysis.LabelValues(m.prof, 1000)
	}
	return m.labelKeys, m.labelValues
}

// complete extends the command line by tab: to the one completion, or
// to the candidates' common prefix, listing them above the line; tab
// again pages through a list too long to show at once.
func (m *Model) complete() {
	line := m.input.Value()
	if m.comp.line == line && m.comp.pages > 1 {
		m.comp.page = (m.comp.page + 1) % m.comp.pages
		return
	}
	_, start, quote := scanCommand(line)
	word := line[start:]
	if quote != 0 {
		word = strings.ReplaceAll(word, string(quote), "")
	} else if w, err := splitCommand(word); err == nil && len(w) == 1 {
		word = w[0]
	}
	cands := m.completions(word)
	m.comp = completion{}
	switch len(cands) {
	case 0:
		m.setNote(views.Safe("no completion for "+word), true)
		return
	case 1:
		c := cands[0]
		name, _, hasValue := strings.Cut(c, "=")
		if s, ok := analysis.LookupSetting(name); ok && !hasValue && s.Name == name && s.Kind != analysis.KindBool {
			c += "="
		}
		m.setLine(line[:start] + quoteCompletion(c))
		return
	}
	common := cands[0]
	for _, c := range cands[1:] {
		for !strings.HasPrefix(c, common) {
			common = common[:len(common)-1]
		}
	}
	m.setLine(line[:start] + quoteCompletion(common))
	cut := strings.LastIndex(common, "=") + 1
	shown := make([]string, len(cands))
	for i, c := range cands {
		shown[i] = c[cut:]
	}
	m.comp = completion{line: m.input.Value(), cands: cands, shown: shown}
	_, _, _, m.comp.pages = compLayout(shown, m.width, m.height)
}

// quoteCompletion quotes a completed word's value when it needs it.
func quoteCompletion(word string) string {
	name, value, ok := strings.Cut(word, "=")
	if !ok {
		return word
	}
	return name + "=" + quoteWord(value)
}

func (m *Model) setLine(s string) {
	m.input.SetValue(s)
	m.input.CursorEnd()
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
		if sel.Name == "" {
			m.setNote(views.Safe("this node has no function or file name to filter on"), true)
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
		m.setNote(views.Safe("already filtered so"), false)
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
	if len(m.history) == 0 {
		m.setNote(views.Safe("nothing to go back to"), false)
		return nil
	}
	prev := m.history[len(m.history)-1]
	m.history = m.history[:len(m.history)-1]
	return m.change(prev, false)
}
