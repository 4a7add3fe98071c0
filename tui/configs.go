package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/views"
)

// :config: pprof's saved configurations (analysis.ConfigFile), shared
// with go tool pprof -http through its settings.json, or kept in memory
// for one program when Config.SettingsFile is empty (serve: a session
// neither reads nor writes the server's files).

// configStore is where the configurations are.
type configStore struct {
	path string               // settings.json; "" keeps them in mem
	mem  *analysis.ConfigFile // the configurations without a file
}

// read returns the configurations, read afresh: pprof's web UI may
// have saved one since.
func (s *configStore) read() (*analysis.ConfigFile, error) {
	if s.path == "" {
		if s.mem == nil {
			s.mem = &analysis.ConfigFile{}
		}
		return s.mem, nil
	}
	return analysis.ReadConfigFile(s.path)
}

// edit changes the configurations with fn and writes them back.
func (s *configStore) edit(fn func(*analysis.ConfigFile) error) error {
	f, err := s.read()
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		return err
	}
	if s.path == "" {
		return nil
	}
	return analysis.WriteConfigFile(s.path, f)
}

// where names the store for a note.
func (s *configStore) where() string {
	if s.path == "" {
		return "for this session"
	}
	return "in " + s.path
}

// names lists the saved configurations' names (none when the file
// cannot be read: completion says nothing then).
func (s *configStore) names() []string {
	f, err := s.read()
	if err != nil {
		return nil
	}
	return f.Names()
}

// explorerDefaults are the settings the explorer opens with when no
// flag is given; a configuration's pprof defaults stand for them.
func explorerDefaults() analysis.Options {
	o := analysis.DefaultOptions()
	o.NodeFraction = 0
	return o
}

// :config's words before a name.
const (
	configSave   = "save"
	configDelete = "delete"
)

func runConfig(m *Model, args []string, _ bool) (tea.Cmd, error) {
	switch {
	case len(args) == 0:
		return nil, m.showConfigs()
	case len(args) == 2 && args[0] == configSave:
		name := args[1]
		if err := m.configs.edit(func(f *analysis.ConfigFile) error {
			return f.Save(name, m.target, explorerDefaults())
		}); err != nil {
			return nil, err
		}
		m.setNote(views.Textf("saved configuration %s %s", name, m.configs.where()), false)
		return nil, nil
	case len(args) == 2 && args[0] == configDelete:
		name := args[1]
		if err := m.configs.edit(func(f *analysis.ConfigFile) error { return f.Delete(name) }); err != nil {
			return nil, err
		}
		m.setNote(views.Textf("deleted configuration %s", name), false)
		return nil, nil
	case len(args) == 1:
		f, err := m.configs.read()
		if err != nil {
			return nil, err
		}
		next, err := f.Apply(args[0], m.target, explorerDefaults())
		if err != nil {
			return nil, err
		}
		if next == m.target {
			m.setNote(views.Textf("configuration %s is what the view shows", args[0]), false)
			return nil, nil
		}
		m.setNote(views.Textf("applied configuration %s", args[0]), false)
		return m.change(next, true), nil
	}
	return nil, fmt.Errorf("config takes a name, save NAME or delete NAME (quote a name with spaces)")
}

// showConfigs is :config alone: the saved configurations and what each
// sets, in the help panel.
func (m *Model) showConfigs() error {
	f, err := m.configs.read()
	if err != nil {
		return err
	}
	st := m.c.Styles
	lines := []string{st.HelpTitle.Render("Saved configurations") + st.HelpDesc.Render(views.Safe("  "+m.configs.where()).String())}
	if len(f.Names()) == 0 {
		lines = append(lines, "  "+st.Dim.Render("none yet: :config save NAME saves the current settings"))
	}
	def := explorerDefaults()
	for _, name := range f.Names() {
		o, err := f.Apply(name, def, def)
		desc := "(the defaults)"
		if err != nil {
			desc = err.Error()
		} else if d := settingsDiff(o, def); d != "" {
			desc = d
		}
		lines = append(lines, "  "+st.HelpKey.Render(views.Safe(name).String()))
		for _, l := range wrap(views.Safe(desc).String(), max(20, m.width-6)) {
			lines = append(lines, "    "+st.HelpDesc.Render(l))
		}
	}
	lines = append(lines, "", st.Dim.Render("  :config NAME applies one · :config save NAME · :config delete NAME"))
	m.help.open(lines)
	return nil
}

// settingsDiff spells the saved settings of o that differ from def.
func settingsDiff(o, def analysis.Options) string {
	var parts []string
	for _, name := range analysis.ConfigFields() {
		s, _ := analysis.LookupSetting(name)
		if v := s.Value(o); v != s.Value(def) {
			parts = append(parts, name+"="+quoteWord(v))
		}
	}
	return strings.Join(parts, " ")
}

// completeConfig completes :config's arguments: save, delete or a
// name, then a name.
func (m *Model) completeConfig(before []string, word string) []string {
	names := m.configs.names()
	switch len(before) {
	case 0:
		return withPrefix(append(slices.Clone(names), configSave, configDelete), "", word)
	case 1:
		if before[0] == configSave || before[0] == configDelete {
			return withPrefix(names, "", word)
		}
	}
	return nil
}
