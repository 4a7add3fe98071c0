// Command racetimer shows how a data race can kill a race-enabled Go
// program with a bare SIGSEGV instead of a race report (Go 1.26,
// linux/amd64): the race's second access is made by a channel timer's
// send, which the scheduler runs on the system stack. The send calls
// time.Now, which reads time.Local, written here by another goroutine.
//
//	go run -race ./testdata/racetimer        # signal: segmentation fault
//	go run -race ./testdata/racetimer -goroutine   # the race is reported
//
// See docs/testing.md (the race suite) for why the report is lost.
package main

import (
	"flag"
	"fmt"
	"time"
)

func main() {
	inGoroutine := flag.Bool("goroutine", false, "make the second access from a goroutine instead of a timer")
	flag.Parse()
	go func() { time.Local = time.UTC }() // the first access: a write, unsynchronised
	time.Sleep(100 * time.Millisecond)    // sleeping orders nothing for the race detector
	if *inGoroutine {
		done := make(chan bool)
		go func() { _ = time.Now(); done <- true }()
		<-done
	} else {
		t := time.NewTimer(time.Millisecond) // its send, on the system stack, calls time.Now
		<-t.C
	}
	fmt.Println("no race detected")
}
