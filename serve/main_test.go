package serve

import (
	"flag"
	"os"
	"testing"

	"github.com/pprof-tui/pprof-tui/internal/testrun"
)

// TestMain runs up to eight parallel tests at once unless -parallel says
// otherwise: each has a server of its own and mostly waits on a session,
// a timeout or a load's turn.
func TestMain(m *testing.M) {
	flag.Parse()
	testrun.Parallel(8)
	os.Exit(m.Run())
}
