package tui

import (
	"errors"
	"fmt"
	"runtime/debug"

	tea "github.com/charmbracelet/bubbletea"
)

// CrashError is a panic in the explorer's background work (loading,
// computing a view) or in its Update: a bug. The program ends with it, and main prints
// it once the terminal is restored, stack included, for the report.
type CrashError struct {
	Value any
	Stack []byte
}

func (e *CrashError) Error() string {
	return fmt.Sprintf("internal error (a bug; please report it with this text): %v\n\n%s", e.Value, e.Stack)
}

// crashMsg carries a CrashError from a background command to the root.
type crashMsg struct{ err *CrashError }

// guard runs cmd, turning a panic into a crashMsg: bubbletea would
// recover it too, but would print the stack on the alternate screen,
// which is erased on exit.
func guard(cmd tea.Cmd) tea.Cmd {
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = crashMsg{&CrashError{Value: r, Stack: debug.Stack()}}
			}
		}()
		return cmd()
	}
}

// crashed reports whether the program is ending with a crash.
func (m *Model) crashed() bool {
	var crash *CrashError
	return errors.As(m.err, &crash)
}
