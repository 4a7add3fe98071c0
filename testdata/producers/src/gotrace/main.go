// gotrace writes an execution trace (runtime/trace) of a program that
// waits on the network (loopback TCP), on a mutex and a channel, in
// syscalls (file writes) and for the scheduler, for
// go tool trace -pprof=net|sync|syscall|sched.
//
//	go build -o gotrace . && ./gotrace trace.out
package main

import (
	"io"
	"net"
	"os"
	"runtime/trace"
	"sync"
	"time"
)

//go:noinline
func serve(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			buf := make([]byte, 512)
			for {
				n, err := c.Read(buf)
				if err != nil {
					return
				}
				time.Sleep(200 * time.Microsecond)
				c.Write(buf[:n])
			}
		}()
	}
}

//go:noinline
func client(addr string, rounds int) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		panic(err)
	}
	defer c.Close()
	buf := make([]byte, 512)
	for i := 0; i < rounds; i++ {
		c.Write(buf)
		io.ReadFull(c, buf)
	}
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
				time.Sleep(50 * time.Microsecond)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

//go:noinline
func pipeline(n int) {
	ch := make(chan int)
	done := make(chan bool)
	go func() {
		for range ch {
			time.Sleep(20 * time.Microsecond)
		}
		done <- true
	}()
	for i := 0; i < n; i++ {
		ch <- i
	}
	close(ch)
	<-done
}

//go:noinline
func writeFiles(dir string, n int) {
	f, err := os.CreateTemp(dir, "gotrace")
	if err != nil {
		panic(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 64<<10)
	for i := 0; i < n; i++ {
		f.Write(buf)
		f.Sync()
	}
}

//go:noinline
func spin(d time.Duration) {
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := uint64(1)
			for t := time.Now(); time.Since(t) < d; {
				x = x*6364136223846793005 + 1
			}
			_ = x
		}()
	}
	wg.Wait()
}

func main() {
	out, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go serve(l)
	if err := trace.Start(out); err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); client(l.Addr().String(), 100) }()
	}
	contend(4, 50)
	pipeline(300)
	writeFiles(os.TempDir(), 20)
	spin(30 * time.Millisecond)
	wg.Wait()
	trace.Stop()
	out.Close()
}
