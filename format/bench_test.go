package format

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/pprof-tui/pprof-tui/internal/cputime"
	"github.com/pprof-tui/pprof-tui/internal/synth"
)

// bigProfile returns the profile the benchmarks share (see
// synth.BenchmarkProfile).
func bigProfile(b *testing.B) string {
	b.Helper()
	path, err := synth.BenchmarkProfile()
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

// heapSampler samples the heap every millisecond, from start to stop, and
// keeps the largest size seen.
type heapSampler struct {
	peak uint64
	done chan struct{}
	wg   sync.WaitGroup
}

func (h *heapSampler) start() {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	h.peak, h.done = 0, make(chan struct{})
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			h.peak = max(h.peak, sample[0].Value.Uint64())
			select {
			case <-h.done:
				return
			case <-t.C:
			}
		}
	}()
}

func (h *heapSampler) stop() uint64 {
	close(h.done)
	h.wg.Wait()
	return h.peak
}

// cpuTime is the CPU time the process has used (0 where the system does
// not say).
func cpuTime() time.Duration {
	t, _ := cputime.Now()
	return t
}

// gunzipFile decompresses the file at path into w and returns the size.
func gunzipFile(b *testing.B, path string, w io.Writer) int64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	n, err := io.Copy(w, zr)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

func uncompressedSize(b *testing.B, path string) int64 { return gunzipFile(b, path, io.Discard) }

func uncompressed(b *testing.B, path string) []byte {
	var buf bytes.Buffer
	gunzipFile(b, path, &buf)
	return buf.Bytes()
}

// BenchmarkDecode1M measures the decode targets on a 1M-sample profile,
// in one run so the machine's load affects both sides alike:
//
//	go test ./format -run XXX -bench Decode1M -benchtime 10x
//
// gunzip is decompression alone (klauspost, as Parse uses); parse is the
// full decode, with its peak heap over the uncompressed size; ratio
// alternates the two and reports their ratio directly; plain is the
// decoder alone, on the uncompressed bytes.
func BenchmarkDecode1M(b *testing.B) {
	path := bigProfile(b)
	size := uncompressedSize(b, path)
	b.Run("gunzip", func(b *testing.B) {
		b.SetBytes(size)
		cpu := cpuTime()
		for i := 0; i < b.N; i++ {
			uncompressedSize(b, path)
		}
		b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
	})
	// plain is the decode of the same bytes uncompressed, from memory:
	// its CPU time is the decoder's alone.
	b.Run("plain", func(b *testing.B) {
		data := uncompressed(b, path)
		b.SetBytes(size)
		b.ResetTimer()
		cpu := cpuTime()
		for i := 0; i < b.N; i++ {
			if _, err := Parse(bytes.NewReader(data), Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
	})
	b.Run("ratio", func(b *testing.B) { benchDecodeRatio(b, path) })
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(size)
		var peak, live uint64
		var h heapSampler
		var cpu time.Duration
		for i := 0; i < b.N; i++ {
			// The collections that measure the heap are not decoding:
			// they stay out of the time.
			b.StopTimer()
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			base := liveHeap()
			h.start()
			b.StartTimer()
			c0 := cpuTime()
			p, err := Parse(f, Options{})
			cpu += cpuTime() - c0
			b.StopTimer()
			peak = max(peak, max(h.stop(), base)-base)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			if p.Samples.Len() != 1_000_000 {
				b.Fatalf("%d samples", p.Samples.Len())
			}
			live = max(live, liveHeap()-base)
			runtime.KeepAlive(p)
			b.StartTimer()
		}
		b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
		b.ReportMetric(float64(live)/float64(size), "live-heap/uncompressed")
		b.ReportMetric(float64(peak)/float64(size), "peak-heap/uncompressed")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	})
}

// benchDecodeRatio alternates gunzip and parse of path, so that a busy
// spell on the machine weighs on both alike, and reports parse time over
// gunzip time: over all rounds, and the median and worst round; and the
// decoded profile's live heap, in MB and over the uncompressed size.
func benchDecodeRatio(b *testing.B, path string) {
	var ratios []float64
	var tg, tp time.Duration
	var live uint64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		base := liveHeap()
		b.StartTimer()
		t0 := time.Now()
		uncompressedSize(b, path)
		t1 := time.Now()
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		p, err := Parse(f, Options{})
		t3 := time.Now()
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		live = max(live, liveHeap()-base)
		runtime.KeepAlive(p)
		b.StartTimer()
		tg += t1.Sub(t0)
		tp += t3.Sub(t2)
		ratios = append(ratios, float64(t3.Sub(t2))/float64(t1.Sub(t0)))
	}
	slices.Sort(ratios)
	b.ReportMetric(float64(tp)/float64(tg), "parse/gunzip")
	b.ReportMetric(float64(tp.Milliseconds())/float64(b.N), "parse-ms")
	b.ReportMetric(float64(tg.Milliseconds())/float64(b.N), "gunzip-ms")
	b.ReportMetric(ratios[len(ratios)/2], "median-ratio")
	b.ReportMetric(ratios[len(ratios)-1], "worst-ratio")
	b.ReportMetric(float64(live)/1e6, "live-heap-MB")
	b.ReportMetric(float64(live)/float64(uncompressedSize(b, path)), "live-heap/uncompressed")
}

// BenchmarkDecodeShapes1M is Decode1M's ratio on the 1M-sample profile
// of every shape (synth.BenchShapes):
//
//	go test ./format -run XXX -bench DecodeShapes1M -benchtime 5x
func BenchmarkDecodeShapes1M(b *testing.B) { forEachShape(b, benchDecodeRatio) }

// forEachShape runs bench on the 1M-sample profile of every shape
// (synth.BenchShapes), one sub-benchmark each.
func forEachShape(b *testing.B, bench func(b *testing.B, path string)) {
	for _, shape := range synth.BenchShapes() {
		b.Run(string(shape), func(b *testing.B) {
			path, err := synth.BenchmarkShape(shape)
			if err != nil {
				b.Fatal(err)
			}
			bench(b, path)
		})
	}
}

// BenchmarkSymbolizeShapes1M is Load's symbolization, in its default
// mode, of a parsed 1M-sample profile of each shape, whose mappings all
// have their symbols: the time and the memory it costs a load that has
// nothing to symbolize (on wide, 1.1M locations and 100,000 functions,
// most of it demangling the names).
//
//	PPROF_TUI_SHAPES=wide go test ./format -run XXX -bench SymbolizeShapes1M -benchtime 10x -benchmem
func BenchmarkSymbolizeShapes1M(b *testing.B) {
	forEachShape(b, func(b *testing.B, path string) {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		p, err := Parse(f, Options{})
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for b.Loop() {
			s := newSymbolizer(Options{})
			s.symbolize(p)
			s.close()
		}
	})
}
