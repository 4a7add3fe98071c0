package analysis

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestSourceFilesIn(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "src")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "goprof"), 0o755))
	must(os.WriteFile(filepath.Join(root, "goprof", "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644))
	must(os.WriteFile(filepath.Join(tmp, "secret.go"), []byte("secret\n"), 0o644))
	must(os.Symlink("../secret.go", filepath.Join(root, "out.go")))
	must(syscall.Mkfifo(filepath.Join(root, "fifo.go"), 0o644))
	r, err := os.OpenRoot(root)
	must(err)
	defer r.Close()
	s := SourceFilesIn(r)
	// source_path and trim_path play no part: the : line cannot point
	// the lookup elsewhere.
	opt := Options{SourcePath: tmp, TrimPath: "/"}

	lines, found, err := s.Find("/tmp/profgen/goprof/main.go", opt)
	if err != nil || found != "goprof/main.go" || len(lines) != 3 {
		t.Errorf("a profile's path under the root: %q %v %v", found, len(lines), err)
	}
	for _, path := range []string{"/x/out.go", "/x/secret.go", "../secret.go", filepath.Join(tmp, "secret.go")} {
		if _, found, err := s.Find(path, opt); err == nil {
			t.Errorf("%s: read %s, outside the root", path, found)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := s.Find("/x/fifo.go", opt)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("a FIFO read as a source file")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a FIFO hangs the lookup")
	}

	_, _, err = SourceFilesIn(nil).Find("/tmp/profgen/goprof/main.go", opt)
	var se *SourceError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "not read here") {
		t.Errorf("without a root: %v", err)
	}
}
