//go:build !unix

package views

import "time"

// processCPU is not measured here.
func processCPU() time.Duration { return 0 }
