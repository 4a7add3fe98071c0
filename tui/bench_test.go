package tui

import (
	"testing"

	"github.com/pprof-tui/pprof-tui/internal/bigprof"
	"github.com/pprof-tui/pprof-tui/internal/synth"
)

// The explorer's work on the UI goroutine, which every frame and every
// message pay: drawing the frame (View, with the status bar's total and
// the tab bar) and a message nothing answers (Update, with the tallies
// it starts). Measured with the filters set, where the status bar asks
// what they keep.
//
//	go test ./tui -run XXX -bench UI -benchmem

// benchReady opens cpu_labels.pb.gz at 200x50 with filters set, in the
// view its key shows, every computation done.
func benchReady(b *testing.B, view string) *harness {
	cfg := testConfig(testdata("cpu_labels.pb.gz"))
	cfg.Width, cfg.Height = 200, 50
	h := start(b, cfg)
	h.command("focus=fib hide=runtime")
	h.keys(view)
	h.settle()
	return h
}

func BenchmarkUIView(b *testing.B) {
	for _, v := range []struct{ name, key string }{{"top", "1"}, {"tree", "2"}, {"flame", "4"}} {
		b.Run(v.name, func(b *testing.B) {
			h := benchReady(b, v.key)
			h.do(func(m *Model) {
				b.ResetTimer()
				for range b.N {
					m.View()
				}
			})
		})
	}
}

// BenchmarkUIUpdate is a message no part of the explorer answers.
func BenchmarkUIUpdate(b *testing.B) {
	type nothing struct{}
	h := benchReady(b, "1")
	h.do(func(m *Model) {
		b.ResetTimer()
		for range b.N {
			if _, cmd := m.Update(nothing{}); cmd != nil {
				b.Fatal("an idle message started work")
			}
		}
	})
}

// BenchmarkUIOptsKey is the key every frame and message format from
// the options, at least once.
func BenchmarkUIOptsKey(b *testing.B) {
	h := benchReady(b, "1")
	h.do(func(m *Model) {
		b.ResetTimer()
		for range b.N {
			_ = m.optsKey(m.opts)
		}
	})
}

// BenchmarkSafeProfile1M is what every load spends making the profile's
// strings safe to draw (safeProfile, in accept), per shape: wide's
// 100,000 functions have long package paths, read twice (the string
// table and the functions):
//
//	PPROF_TUI_SHAPES=wide,distinct go test ./tui -run XXX -bench SafeProfile1M -benchtime 20x
func BenchmarkSafeProfile1M(b *testing.B) {
	for _, s := range synth.BenchShapes() {
		b.Run(string(s), func(b *testing.B) {
			e, err := bigprof.Engine(s)
			if err != nil {
				b.Fatal(err)
			}
			p := e.Profile()
			for b.Loop() {
				safeProfile(p)
			}
		})
	}
}
