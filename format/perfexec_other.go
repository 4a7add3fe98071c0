//go:build !unix

package format

import "os/exec"

// ownProcessGroup leaves cmd as it is: perf runs on Linux only, where
// the unix version applies; cancellation kills the process itself.
func ownProcessGroup(*exec.Cmd) {}
