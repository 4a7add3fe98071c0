//go:build !race

package tui

const (
	raceEnabled = false
	patience    = 1
)
