package format

import (
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/pprof-tui/pprof-tui/format/synth"
)

// bigProfile returns the synthesized 1M-sample profile the benchmarks
// share (written once into the temporary directory). Set
// PPROF_TUI_BIGPROF to benchmark another file instead.
func bigProfile(b *testing.B) string {
	b.Helper()
	if p := os.Getenv("PPROF_TUI_BIGPROF"); p != "" {
		return p
	}
	path, err := synth.Cached(synth.Config{Samples: 1_000_000, Labels: true, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	return path
}

// peakHeap runs fn while sampling the live heap every millisecond and
// returns the largest value seen, in bytes.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	close(done)
	wg.Wait()
	if peak < base {
		return 0
	}
	return peak - base
}

func uncompressedSize(b *testing.B, path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	n, err := io.Copy(io.Discard, zr)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkDecode1M measures the targets on a 1M-sample profile,
// in one run so the machine's load affects both sides alike:
//
//	go test ./format -run XXX -bench Decode1M -benchtime 5x
//
// gunzip is decompression alone (klauspost, as Parse uses); parse is the
// full decode. Compare their ns/op; peak-heap/uncompressed is reported
// for parse.
func BenchmarkDecode1M(b *testing.B) {
	path := bigProfile(b)
	size := uncompressedSize(b, path)
	b.Run("gunzip", func(b *testing.B) {
		b.SetBytes(size)
		for i := 0; i < b.N; i++ {
			uncompressedSize(b, path)
		}
	})
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(size)
		var peak uint64
		for i := 0; i < b.N; i++ {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			var p *Profile
			peak = max(peak, peakHeap(func() {
				p, err = Parse(f, Options{})
			}))
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			if p.Samples.Len() != 1_000_000 {
				b.Fatalf("%d samples", p.Samples.Len())
			}
		}
		b.ReportMetric(float64(peak)/float64(size), "peak-heap/uncompressed")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	})
}
