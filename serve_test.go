package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeCommandLine(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"serve", "-h"}, &stdout, &stderr); err != nil {
		t.Fatalf("serve -h: %v", err)
	}
	for _, want := range []string{"usage: pprof-tui serve [flags] DIR", "-authorized_keys", "-max_sessions", "-idle"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("serve -h lacks %q:\n%s", want, stdout.String())
		}
	}
	var ee *exitError
	if err := run(context.Background(), []string{"serve"}, &stdout, &stderr); !errors.As(err, &ee) || ee.code != 2 {
		t.Errorf("serve without DIR: %v, want a usage error", err)
	}
	dir := t.TempDir()
	keys := filepath.Join(dir, "authorized_keys")
	os.WriteFile(keys, []byte("# nobody\n"), 0o600)
	err := run(context.Background(), []string{"serve", "-authorized_keys", keys, "-host_key", filepath.Join(dir, "hk"), dir}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "nobody could log in") {
		t.Errorf("serve with no authorized key: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "hk")); err == nil {
		t.Errorf("a host key was written for a server that did not start")
	}
}
