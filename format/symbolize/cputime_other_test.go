//go:build !unix

package symbolize_test

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
