//go:build unix

package format

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPerfDataBounded runs a stand-in for perf that misbehaves: under
// NoPrograms it is never run; its output is capped at MaxBytes; it and
// the children it forks are killed when it runs too long.
func TestPerfDataBounded(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	fake := func(body string) {
		t.Helper()
		script := "#!/bin/sh\ntouch " + ran + "\n" + body + "\n"
		if err := os.WriteFile(filepath.Join(dir, "perf"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	saved, savedTimeout := perfCommand, perfTimeout
	defer func() { perfCommand, perfTimeout = saved, savedTimeout }()
	perfCommand = filepath.Join(dir, "perf")
	data := append([]byte("PERFILE2"), make([]byte, 200)...)

	fake("exit 0")
	_, err := Parse(bytes.NewReader(data), Options{NoPrograms: true})
	if err == nil || !strings.Contains(err.Error(), "which is not allowed here") {
		t.Errorf("NoPrograms: %v", err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("NoPrograms ran perf")
	}

	fake("yes 'perfwork  1/1 [001]   1.0:    1 cpu-clock:'")
	start := time.Now()
	_, err = Parse(bytes.NewReader(data), Options{MaxBytes: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "wrote more than 1048576 bytes") {
		t.Errorf("endless output: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("endless output stopped after %v", d)
	}

	pidFile := filepath.Join(dir, "child")
	fake("sleep 60 & echo $! > " + pidFile + "; wait")
	perfTimeout = 300 * time.Millisecond
	_, err = Parse(bytes.NewReader(data), Options{})
	if err == nil || !strings.Contains(err.Error(), "ran longer than 300ms") {
		t.Errorf("endless run: %v", err)
	}
	pid, _ := os.ReadFile(pidFile)
	if n, err := strconv.Atoi(strings.TrimSpace(string(pid))); err == nil {
		// The kill is sent when Parse returns, but a busy machine may
		// take a moment to deliver it.
		alive := func() bool {
			if syscall.Kill(n, 0) != nil {
				return false
			}
			st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", n))
			return !strings.Contains(string(st), ") Z ")
		}
		for deadline := time.Now().Add(2 * time.Second); alive() && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if alive() {
			t.Errorf("perf's child %d still runs after perf was stopped", n)
		}
	} else {
		t.Errorf("the stand-in wrote no child pid: %q", pid)
	}
}
