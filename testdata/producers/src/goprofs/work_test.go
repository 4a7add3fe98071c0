package main

import (
	"runtime"
	"testing"
)

// TestWork runs the workload for go test -memprofile -blockprofile
// -mutexprofile.
func TestWork(t *testing.T) {
	runtime.SetMutexProfileFraction(1)
	work(2)
}
