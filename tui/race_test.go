//go:build race

package tui

// raceEnabled: the race detector slows the code ten times or more; the
// tests that loop many times run fewer rounds under it.
const raceEnabled = true

// patience scales how long the harness waits for the program before it
// gives up, for the same reason.
const patience = 4
