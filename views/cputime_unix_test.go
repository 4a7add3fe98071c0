//go:build unix

package views

import (
	"syscall"
	"time"
)

// processCPU is the process's CPU time so far, every thread's.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
