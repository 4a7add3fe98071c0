package analysis

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain lets the heap grow by twice its live size between
// collections (GOGC=200, unless GOGC is set), outside the race
// detector: the comparisons allocate fresh engines and reference tables
// again and again, and at Go's default a sixth of their time went to
// marking (at most about 1.8 GB resident, with the parallel tests,
// instead of 0.65 GB).
//
// The tests that change the engine's thresholds (parallelRows,
// parallelGroup, sweepRow, keyedSort and the others a variable "for the
// tests") run one at a time; the heavy comparisons that only read them
// run in parallel (t.Parallel), after those, sharing engines as the
// explorer does (an Engine is safe for concurrent use).
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" && !raceEnabled {
		debug.SetGCPercent(200)
	}
	os.Exit(m.Run())
}
