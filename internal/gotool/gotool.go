// Package gotool runs the Go toolchain's pprof for the tests that compare
// with it.
package gotool

import (
	"os"
	"os/exec"
	"strings"
	"sync"
)

// pprofPath is the pprof binary that go tool pprof runs (go tool -n
// pprof names it, building it first if need be), or "" when it cannot
// be found.
var pprofPath = sync.OnceValue(func() string {
	out, err := exec.Command("go", "tool", "-n", "pprof").Output()
	if err != nil {
		return ""
	}
	p := strings.TrimSpace(string(out))
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return p
})

// Pprof is the command go tool pprof ARGS: the binary go tool would run,
// found once per process, so that a test comparing with pprof many
// times does not start the go command (a third of a second of CPU) each
// time; go tool pprof itself when that binary is not found.
func Pprof(args ...string) *exec.Cmd {
	if p := pprofPath(); p != "" {
		return exec.Command(p, args...)
	}
	return exec.Command("go", append([]string{"tool", "pprof"}, args...)...)
}
