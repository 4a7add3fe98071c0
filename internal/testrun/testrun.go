// Package testrun is what test binaries share about how their tests
// run: how many parallel tests run at once where they mostly wait (on a
// session, a timer, a child program), and a test that measures the
// process's memory run in a process of its own, so that it need not
// keep the others waiting.
package testrun

import (
	"flag"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// Parallel sets -test.parallel to n unless the command line set it. Go's
// default is GOMAXPROCS, two on a two-core machine, which leaves tests
// that wait queued behind each other. Call it from TestMain after
// flag.Parse.
func Parallel(n int) {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}

// aloneEnv names the test a test binary was started to run alone.
const aloneEnv = "PPROF_TUI_TEST_ALONE"

// Alone reports whether t runs in a process of its own: for a test that
// reads the process's heap (runtime.ReadMemStats), which other tests'
// garbage would disturb. When it does not, Alone runs the test binary
// again for t alone, in parallel with the other tests, fails t with the
// child's output if the child fails, and returns false: the caller
// returns.
func Alone(t *testing.T) bool {
	t.Helper()
	if os.Getenv(aloneEnv) == t.Name() {
		return true
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), aloneEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s in a process of its own: %v\n%s", t.Name(), err, out)
	}
	t.Logf("in a process of its own:\n%s", out)
	return false
}
