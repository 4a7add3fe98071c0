// goheap writes Go's legacy text profiles, as net/http/pprof serves them
// with ?debug=1: heap, block, mutex, goroutine and threadcreate. Its
// allocations go through compress/flate (runtime frames under library
// code), its own functions, and reflect.Value.Call (runtime.call* frames
// in the middle of a stack, which pprof's keep_frames keeps).
//
//	go build -o goheap . && ./goheap DIR
package main

import (
	"bytes"
	"compress/flate"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

var keep [][]byte

//go:noinline
func makeBuffers(n, size int) {
	for i := 0; i < n; i++ {
		keep = append(keep, make([]byte, size))
	}
}

//go:noinline
func compressAll() {
	var out bytes.Buffer
	for i := 0; i < 8; i++ {
		w, _ := flate.NewWriter(&out, flate.BestCompression)
		w.Write(bytes.Repeat([]byte("pprof-tui "), 1000))
		w.Close()
	}
	keep = append(keep, out.Bytes())
}

//go:noinline
func viaReflect(size int) []byte { return make([]byte, size) }

//go:noinline
func churn() {
	for i := 0; i < 2000; i++ {
		_ = fmt.Sprintf("garbage %d %s", i, make([]byte, 64))
	}
}

func contend() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				mu.Lock()
				time.Sleep(20 * time.Microsecond)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

func main() {
	runtime.MemProfileRate = 16 * 1024
	runtime.SetBlockProfileRate(1)
	runtime.SetMutexProfileFraction(1)
	makeBuffers(64, 16*1024)
	compressAll()
	f := reflect.ValueOf(viaReflect)
	for i := 0; i < 16; i++ {
		keep = append(keep, f.Call([]reflect.Value{reflect.ValueOf(32 * 1024)})[0].Bytes())
	}
	churn()
	contend()
	runtime.GC()
	dir := os.Args[1]
	for _, name := range []string{"heap", "block", "mutex", "goroutine", "threadcreate"} {
		out, err := os.Create(filepath.Join(dir, name+".debug1.txt"))
		if err != nil {
			panic(err)
		}
		if err := pprof.Lookup(name).WriteTo(out, 1); err != nil {
			panic(err)
		}
		out.Close()
	}
	runtime.KeepAlive(keep)
}
