//go:build unix

package analysis

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSourceFilesNotFiles: a profile may name any path as a source file;
// one that is not a regular file (an endless device, a FIFO that would
// wait for a writer, a directory) is a miss, promptly.
func TestSourceFilesNotFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.go")
	names := []string{dir, "/dev/urandom", "/dev/zero"}
	if err := syscall.Mkfifo(fifo, 0o644); err == nil {
		names = append(names, fifo)
	}
	for _, name := range names {
		if _, err := os.Stat(name); err != nil {
			continue
		}
		done := make(chan error, 1)
		go func() {
			_, _, err := NewSourceFiles().Find(name, Options{})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: read as a source file", name)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still reading after 10 s", name)
		}
	}
}
