package analysis

import (
	"context"
	"sync"
	"testing"

	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/format/synth"
)

var (
	bigOnce   sync.Once
	bigEngine *Engine
	bigErr    error
)

// bigEngine loads the synthesized 1M-sample profile once (set
// PPROF_TUI_BIGPROF to use another file; see synth.BenchmarkProfile).
func engine1M(b *testing.B) *Engine {
	b.Helper()
	bigOnce.Do(func() {
		var path string
		if path, bigErr = synth.BenchmarkProfile(); bigErr != nil {
			return
		}
		var p *format.Profile
		p, bigErr = format.Open(context.Background(), path, format.Options{})
		if bigErr == nil {
			bigEngine = NewEngine(p)
			_, bigErr = bigEngine.Top(DefaultOptions()) // warm the node table
		}
	})
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	return bigEngine
}

// BenchmarkReaggregate1M is what a change of sample type or filter costs
// on a 1M-sample profile (issue target: <= 150 ms):
//
//	go test ./analysis -run XXX -bench 1M -benchtime 10x
func BenchmarkReaggregate1M(b *testing.B) {
	e := engine1M(b)
	for _, c := range []struct {
		name string
		set  map[string]string
	}{
		{"default", nil},
		{"sample_index", map[string]string{"sample_index": "samples"}},
		{"focus", map[string]string{"focus": "Handle"}},
		{"hide", map[string]string{"hide": "runtime"}},
		{"tagfocus", map[string]string{"tagfocus": "service=checkout"}},
		{"lines", map[string]string{"granularity": "lines"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			opt := DefaultOptions()
			for k, v := range c.set {
				if err := opt.Set(k, v); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := e.Top(opt); err != nil { // node table for the granularity
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.Top(opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTreeFirstScreen1M builds the call tree and expands what a
// first screen shows: the roots and the heaviest path (target: <= 100 ms).
func BenchmarkTreeFirstScreen1M(b *testing.B) {
	e := engine1M(b)
	opt := DefaultOptions()
	for i := 0; i < b.N; i++ {
		t, err := e.Tree(opt, TreeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if roots := t.Roots(); len(roots) > 0 {
			t.HeaviestPath(roots[0])
		}
	}
}
