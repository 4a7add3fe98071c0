//go:build unix

package symbolize_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system, all threads) the process has
// used: on a shared machine it varies far less than the wall time.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
