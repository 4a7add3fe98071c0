//go:build unix

// Package cputime reads the CPU time the process has used, for the
// benchmarks: on a shared machine it varies far less than the wall time.
package cputime

import (
	"syscall"
	"time"
)

// Now returns the CPU time (user and system, all threads) the process has
// used so far, and whether the system reports it.
func Now() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
