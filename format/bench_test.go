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

// liveHeap collects garbage and returns the heap still in use.
func liveHeap() uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// peakHeap runs fn while sampling the heap every millisecond and returns
// the largest growth seen over the live heap before fn (base), in bytes.
func peakHeap(fn func()) (peak, base uint64) {
	base = liveHeap()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
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
	return max(peak, base) - base, base
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
		var peak, live uint64
		for i := 0; i < b.N; i++ {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			var p *Profile
			pk, base := peakHeap(func() {
				p, err = Parse(f, Options{})
			})
			peak = max(peak, pk)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			if p.Samples.Len() != 1_000_000 {
				b.Fatalf("%d samples", p.Samples.Len())
			}
			live = max(live, liveHeap()-base)
			runtime.KeepAlive(p)
		}
		b.ReportMetric(float64(live)/float64(size), "live-heap/uncompressed")
		b.ReportMetric(float64(peak)/float64(size), "peak-heap/uncompressed")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	})
}
