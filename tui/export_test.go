package tui

import "github.com/pprof-tui/pprof-tui/analysis"

// Accessors only the tests use.

// Options returns the options the views show.
func (m *Model) Options() analysis.Options { return m.opts }

// History returns the depth of the back history.
func (m *Model) History() int { return len(m.history) }

// Selected returns the shared selection: the selected function's name.
func (m *Model) Selected() string { return m.selected }
