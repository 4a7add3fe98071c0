package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// The words the `:` line takes besides pprof's settings. The command
// line runs a line that starts with one through its row, and completes
// and explains them (:help NAME) from the table.

// verb is one of them.
type verb struct {
	name string
	args string // what follows the name, as :help NAME shows it
	help string
	// bang: the name may end in ! (save! overwrites).
	bang bool
	// run does what a line starting with the verb asks; nil for reset,
	// which is a word among settings (Model.apply).
	run func(m *Model, args []string, bang bool) (tea.Cmd, error)
	// complete lists what may replace word, an argument after the
	// arguments before; nil: the verb's arguments are not completed.
	complete func(m *Model, before []string, word string) []string
}

// verbReset clears the filters, alone or among settings; a bare line
// means it.
const verbReset = "reset"

// verbs is the table. (A function: :help, one of its rows, looks verbs
// up.)
func verbs() []verb {
	return []verb{
		{name: verbReset, help: "clear the filters; may come among settings, and an empty line means it"},
		{name: "help", args: "[NAME]", help: "every setting with its value, or one setting or command in full", run: runHelp},
		{name: "save", args: "FILE", bang: true, run: runSave,
			help: "write what the settings select: a .pb.gz profile, .folded stacks or the .txt top table; save! overwrites"},
		{name: "cmd", help: "the pprof-tui and go tool pprof command lines that reopen this view; y copies the first",
			run: func(m *Model, _ []string, _ bool) (tea.Cmd, error) {
				m.showCommand()
				return nil, nil
			}},
		{name: "base", args: "[-base|-diff_base] [FILE]", run: runBase, complete: (*Model).completeBase,
			help: "compare the profile with FILE, read again with FILE subtracted as go tool pprof's -diff_base (percentages of the new profile) or -base; no FILE clears the base"},
		{name: "config", args: "[NAME | save NAME | delete NAME]", run: runConfig, complete: (*Model).completeConfig,
			help: "pprof's saved configurations, shared with go tool pprof -http's Config menu: NAME applies one, save NAME saves the current settings as one, delete NAME deletes one; alone, lists them"},
	}
}

// lookupVerb finds the verb word names, reporting whether it ends in a
// bang the verb takes.
func lookupVerb(word string) (v verb, bang, ok bool) {
	for _, v := range verbs() {
		if word == v.name {
			return v, false, true
		}
		if v.bang && word == v.name+"!" {
			return v, true, true
		}
	}
	return verb{}, false, false
}

// verbNames are the verbs' names, for completion.
func verbNames() []string {
	vs := verbs()
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.name
	}
	return names
}

func runSave(m *Model, args []string, force bool) (tea.Cmd, error) {
	if len(args) > 1 {
		return nil, fmt.Errorf("save takes one file name (quote it if it has spaces)")
	}
	return m.save(strings.Join(args, ""), force)
}

func runHelp(m *Model, args []string, _ bool) (tea.Cmd, error) {
	switch len(args) {
	case 0:
		m.help.open(m.settingsHelp())
	case 1:
		lines, err := m.settingHelp(args[0])
		if err != nil {
			return nil, err
		}
		m.help.open(lines)
	default:
		return nil, fmt.Errorf("help takes one setting name")
	}
	return nil, nil
}

// verbHelp is `:help NAME` for a verb.
func (m *Model) verbHelp(v verb) []string {
	st := m.c.Styles
	lines := []string{st.HelpTitle.Render(strings.TrimSpace(":"+v.name+" "+v.args)) + st.HelpDesc.Render("  (command)")}
	for _, l := range wrap(v.help+".", max(20, m.width-4)) {
		lines = append(lines, "  "+st.HelpDesc.Render(l))
	}
	return lines
}

// completeArgs completes a verb's argument: word, after the words
// before (the verb first).
func (m *Model) completeArgs(before []string, word string) ([]string, bool) {
	v, _, ok := lookupVerb(before[0])
	if !ok || v.complete == nil {
		return nil, false
	}
	return v.complete(m, before[1:], word), true
}
