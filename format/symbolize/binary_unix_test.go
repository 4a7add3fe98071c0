//go:build unix

package symbolize_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/pprof-tui/pprof-tui/format/symbolize"
)

// TestOpenNotFiles: a profile names its binaries; one that is not a
// regular file (a FIFO, which would wait for a writer; a device; a
// directory) is an error, promptly.
func TestOpenNotFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	names := []string{dir, "/dev/zero"}
	if err := syscall.Mkfifo(fifo, 0o644); err == nil {
		names = append(names, fifo)
	}
	for _, name := range names {
		if _, err := os.Stat(name); err != nil {
			continue
		}
		done := make(chan error, 1)
		go func() {
			b, err := symbolize.Open(name)
			if err == nil {
				b.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: opened as a binary", name)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still opening after 10 s", name)
		}
	}
}
