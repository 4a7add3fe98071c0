// Package bigprof loads the benchmarks' 1M-sample synthesized profiles
// (internal/synth) into analysis engines, one shape at a time, for the
// benchmarks of analysis and views.
package bigprof

import (
	"context"
	"sync"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/internal/synth"
)

var (
	mu      sync.Mutex
	engines = map[synth.Shape]*analysis.Engine{}
)

// Engine returns an engine over the 1M-sample profile of a shape (for the
// Zipf shape the file named by $PPROF_TUI_BIGPROF, if set; see
// synth.BenchmarkProfile), loading it on first use. Only the last shape
// asked for is kept, so a run over every shape holds one profile.
func Engine(shape synth.Shape) (*analysis.Engine, error) {
	mu.Lock()
	defer mu.Unlock()
	if e := engines[shape]; e != nil {
		return e, nil
	}
	clear(engines)
	path, err := synth.BenchmarkShape(shape)
	if shape == synth.Zipf {
		path, err = synth.BenchmarkProfile()
	}
	if err != nil {
		return nil, err
	}
	p, err := format.Open(context.Background(), path, format.Options{})
	if err != nil {
		return nil, err
	}
	e := analysis.NewEngine(p)
	engines[shape] = e
	return e, nil
}
