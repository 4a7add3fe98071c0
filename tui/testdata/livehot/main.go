// Command livehot serves net/http/pprof on 127.0.0.1 and burns half a
// core in one function until it gets SIGUSR1 (or -switch passes), then in
// another: the program live-e2e.sh watches with pprof-tui -refresh. It
// prints its address on its first line.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

var sink uint64

//go:noinline
func hotAlpha() {
	for i := 0; i < 1_000_000; i++ {
		sink = sink*6364136223846793005 + uint64(i)
	}
}

//go:noinline
func hotBeta() {
	for i := 0; i < 1_000_000; i++ {
		sink = sink*2862933555777941757 + uint64(i)
	}
}

func main() {
	after := flag.Duration("switch", 5*time.Second, "when the hot function changes, unless SIGUSR1 comes first")
	life := flag.Duration("life", 2*time.Minute, "when to exit")
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr())
	go http.Serve(ln, nil)
	// Half the time on the CPU, half asleep: the profile's top row is
	// the hot function all the same, and the tests that run beside this
	// one keep a core.
	var switched atomic.Bool
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	go func() {
		<-usr1
		switched.Store(true)
	}()
	start := time.Now()
	for time.Since(start) < *life {
		t := time.Now()
		if t.Sub(start) < *after && !switched.Load() {
			hotAlpha()
		} else {
			hotBeta()
		}
		time.Sleep(time.Since(t))
	}
}
