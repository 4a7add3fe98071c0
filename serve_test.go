package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
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

// TestServeSignal runs the serve command as an operator would, with the
// host key in its default place, and stops it with SIGTERM while a
// session is open: the session is told, the command returns nil (exit
// status 0).
func TestServeSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "cpu.pb.gz"), mustRead(t, "testdata/go/cpu_labels.pb.gz"), 0o644)
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	client, _ := gossh.NewSignerFromKey(priv)
	keys := filepath.Join(t.TempDir(), "authorized_keys")
	os.WriteFile(keys, gossh.MarshalAuthorizedKey(client.PublicKey()), 0o600)

	log := &lockedBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(context.Background(), []string{"serve", "-listen", "127.0.0.1:0", "-authorized_keys", keys, dir}, io.Discard, log)
	}()
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, after, ok := strings.Cut(log.String(), "msg=serving "); ok {
			if _, after, ok = strings.Cut(after, " addr="); ok {
				addr, _, _ = strings.Cut(after, " ")
			}
		}
	}
	if addr == "" {
		t.Fatalf("the server did not start:\n%s", log.String())
	}
	hostKey := filepath.Join(state, "pprof-tui", "host_ed25519")
	st, err := os.Stat(hostKey)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("host key at its default place: %v %v", err, st)
	}
	signer, err := gossh.ParsePrivateKey(mustRead(t, hostKey))
	if err != nil {
		t.Fatal(err)
	}
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "op", Auth: []gossh.AuthMethod{gossh.PublicKeys(client)},
		HostKeyCallback: gossh.FixedHostKey(signer.PublicKey())})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sess, _ := c.NewSession()
	if err := sess.RequestPty("xterm", 30, 100, nil); err != nil {
		t.Fatal(err)
	}
	out := &lockedBuffer{}
	sess.Stdout = out
	stdin, _ := sess.StdinPipe() // open: no EOF, which would end the session
	defer stdin.Close()
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), "choose a profile"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no picker: %q", out.String())
		}
	}
	syscall.Kill(os.Getpid(), syscall.SIGTERM) // caught by the command while it runs
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve after SIGTERM: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("serve did not stop on SIGTERM:\n%s", log.String())
	}
	sess.Wait()
	if !strings.Contains(out.String(), "the server is shutting down") {
		t.Errorf("the session was not told: %q", out.String())
	}
	if !strings.Contains(log.String(), `msg="session ended"`) || !strings.Contains(log.String(), "why=shutdown") {
		t.Errorf("the log:\n%s", log.String())
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
