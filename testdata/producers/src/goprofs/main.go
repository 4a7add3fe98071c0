// goprofs writes profiles with two Go profilers beyond runtime/pprof:
// github.com/felixge/fgprof (wall clock, every goroutine, on and off CPU)
// and github.com/grafana/pyroscope-go/godeltaprof (heap, block and mutex
// profiles as deltas since the previous call), around a workload that
// computes, sleeps, allocates and contends. Its test (work_test.go) is run
// with go test -memprofile -blockprofile -mutexprofile.
//
//	go build -o goprofs . && ./goprofs DIR
package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/felixge/fgprof"
	"github.com/grafana/pyroscope-go/godeltaprof"
)

var keep [][]byte

//go:noinline
func compute(d time.Duration) uint64 {
	x := uint64(1)
	for t := time.Now(); time.Since(t) < d; {
		for i := 0; i < 1000; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	return x
}

//go:noinline
func allocate(n, size int) {
	for i := 0; i < n; i++ {
		keep = append(keep, make([]byte, size))
	}
}

//go:noinline
func compress(n int) {
	var buf bytes.Buffer
	for i := 0; i < n; i++ {
		w := gzip.NewWriter(&buf)
		w.Write(bytes.Repeat([]byte("goprofs "), 4096))
		w.Close()
	}
	keep = append(keep, buf.Bytes())
}

//go:noinline
func contend(workers, rounds int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				mu.Lock()
				time.Sleep(30 * time.Microsecond)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// work is the workload, in phases.
func work(phase int) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); compute(80 * time.Millisecond) }()
	go func() { defer wg.Done(); time.Sleep(60 * time.Millisecond) }()
	allocate(100*phase, 8<<10)
	compress(4 * phase)
	contend(4, 40*phase)
	wg.Wait()
}

func write(dir, name string, fn func(io.Writer) error) {
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		panic(err)
	}
	if err := fn(f); err != nil {
		panic(err)
	}
	if err := f.Close(); err != nil {
		panic(err)
	}
}

func main() {
	dir := os.Args[1]
	runtime.MemProfileRate = 32 << 10
	runtime.SetBlockProfileRate(10000)
	runtime.SetMutexProfileFraction(1)

	var fg bytes.Buffer
	stop := fgprof.Start(&fg, fgprof.FormatPprof)
	work(1)
	if err := stop(); err != nil {
		panic(err)
	}
	write(dir, "fgprof.pb.gz", func(w io.Writer) error { _, err := w.Write(fg.Bytes()); return err })

	heap := godeltaprof.NewHeapProfiler()
	block := godeltaprof.NewBlockProfiler()
	mutex := godeltaprof.NewMutexProfiler()
	// The first call of each is the baseline; the second the delta of phase 2.
	for _, suffix := range []string{"1", "2"} {
		if suffix == "2" {
			work(2)
		}
		runtime.GC()
		write(dir, "delta-heap."+suffix+".pb.gz", heap.Profile)
		write(dir, "delta-block."+suffix+".pb.gz", block.Profile)
		write(dir, "delta-mutex."+suffix+".pb.gz", mutex.Profile)
	}
	runtime.KeepAlive(keep)
}
