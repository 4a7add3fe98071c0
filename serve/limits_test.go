package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"
)

func TestConcurrentSessions(t *testing.T) {
	t.Parallel()
	ts := startServer(t, func(c *Config) { c.MaxSessionsPerKey = 8 })
	// Each session its own size and terminal: 16 colours, 256, true
	// colour, and none (NO_COLOR, dumb).
	kinds := []struct {
		term string
		env  map[string]string
		want func(raw string) bool
	}{
		{"xterm", nil, func(raw string) bool {
			return strings.Contains(raw, "\x1b[1;9") || strings.Contains(raw, ";9") && !strings.Contains(raw, "38;5;") && !strings.Contains(raw, "38;2;")
		}},
		{"xterm-256color", nil, func(raw string) bool { return strings.Contains(raw, "38;5;") && !strings.Contains(raw, "38;2;") }},
		{"xterm-256color", map[string]string{"COLORTERM": "truecolor"}, func(raw string) bool { return strings.Contains(raw, "38;2;") }},
		{"xterm-256color", map[string]string{"NO_COLOR": "1"}, noColour},
		{"dumb", nil, noColour},
	}
	terms := make([]*term, 8)
	sizes := make([][2]int, 8)
	var wg sync.WaitGroup
	for i := range terms {
		k := kinds[i%len(kinds)]
		sizes[i] = [2]int{60 + 9*i, 16 + 3*i}
		terms[i] = ts.open(termOpt{term: k.term, env: k.env, w: sizes[i][0], h: sizes[i][1]})
		wg.Add(1)
		go func() {
			defer wg.Done()
			tm := terms[i]
			tm.waitFor(0, "choose a profile")
			tm.press("j\r", "main.fib")
		}()
	}
	wg.Wait()
	for i, tm := range terms {
		k := kinds[i%len(kinds)]
		raw := tm.raw(0)
		if w := widthOf(statusLine, raw); w != sizes[i][0] {
			t.Errorf("session %d (%dx%d): status line %d wide", i, sizes[i][0], sizes[i][1], w)
		}
		if !k.want(raw) {
			t.Errorf("session %d (TERM=%s %v): not its colours", i, k.term, k.env)
		}
	}
	if n := ts.srv.Sessions(); n != 8 {
		t.Errorf("%d sessions open, want 8", n)
	}

	// The ninth is refused, with a message.
	ninth := ts.open(termOpt{})
	err := ninth.wait()
	var exit *gossh.ExitError
	if !errors.As(err, &exit) || exit.ExitStatus() != 1 || !strings.Contains(ninth.text(0), "has its 8 sessions open") {
		t.Errorf("the ninth session: %v, %q", err, ninth.text(0))
	}
	// One ends; another may come.
	terms[0].send("q")
	terms[0].wait()
	waitUntil(t, 5*time.Second, "the slot to free", func() bool { return ts.srv.Sessions() == 7 })
	again := ts.open(termOpt{})
	again.waitFor(0, "choose a profile")
}

// noColour: no colour at all, only attributes (bold, reverse).
func noColour(raw string) bool {
	return !strings.Contains(raw, "38;") && !strings.Contains(raw, "48;") && !strings.Contains(raw, "[3") &&
		!strings.Contains(raw, ";3")
}

func TestSessionsPerKey(t *testing.T) {
	t.Parallel()
	ts := startServer(t, func(c *Config) { c.MaxSessionsPerKey = 2 })
	for range 2 {
		ts.open(termOpt{}).waitFor(0, "choose a profile")
	}
	third := ts.open(termOpt{})
	third.wait()
	if !strings.Contains(third.text(0), "your key has 2 sessions open") {
		t.Errorf("a third session for one key: %q", third.text(0))
	}
}

func TestOversizedAndFIFOOverSSH(t *testing.T) {
	t.Parallel()
	ts := startServer(t, func(c *Config) { c.MaxBytes = 1 << 20 })
	if err := os.WriteFile(filepath.Join(ts.dir, "big.pb.gz"), make([]byte, 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	tm := ts.open(termOpt{})
	tm.waitFor(0, "cpu.pb.gz")
	// Newest first: big.pb.gz follows the demo.
	tm.press("j\r", "big.pb.gz: too large to serve (2MB; the limit is 1MB)")
	// cpu.pb.gz becomes a FIFO after it was listed: opening it must
	// not wait for a writer.
	os.Remove(filepath.Join(ts.dir, "cpu.pb.gz"))
	if err := syscall.Mkfifo(filepath.Join(ts.dir, "cpu.pb.gz"), 0o644); err != nil {
		t.Fatal(err)
	}
	tm.press("j\r", "cpu.pb.gz: not a regular file")
}

func TestClientCutMidLoad(t *testing.T) {
	t.Parallel()
	reads := make(chan struct{}, 1)
	ts := startServer(t, func(c *Config) {
		c.wrapRead = func(r io.Reader) io.Reader { return &slowReader{r: r, reads: reads} }
	})
	tm := ts.open(termOpt{})
	tm.waitFor(0, "cpu.pb.gz")
	tm.send("j\r")
	<-reads
	if n := ts.srv.Loads(); n != 1 {
		t.Fatalf("%d loads running, want 1", n)
	}
	tm.client.Close()
	waitUntil(t, 3*time.Second, "the load to stop", func() bool { return ts.srv.Loads() == 0 })
	waitUntil(t, 3*time.Second, "the session to end", func() bool { return ts.srv.Sessions() == 0 })
	select {
	case <-reads:
	default:
	}
	time.Sleep(100 * time.Millisecond)
	select {
	case <-reads:
		t.Errorf("the profile is still read after the client went")
	default:
	}
	if log := ts.log.String(); !strings.Contains(log, `why="client gone"`) {
		t.Errorf("the log does not say the client went:\n%s", log)
	}
}

func TestLoadsWaitTheirTurn(t *testing.T) {
	t.Parallel()
	reads := make(chan struct{}, 1)
	ts := startServer(t, func(c *Config) {
		c.MaxLoads = 1
		c.wrapRead = func(r io.Reader) io.Reader { return &slowReader{r: r, reads: reads} }
	})
	a, b := ts.open(termOpt{}), ts.open(termOpt{})
	a.waitFor(0, "cpu.pb.gz")
	b.waitFor(0, "cpu.pb.gz")
	a.send("j\r")
	<-reads
	b.press("j\r", "queued behind other sessions' loads")
}

func TestCrashEndsOnlyItsSession(t *testing.T) {
	t.Parallel()
	ts := startServer(t, func(c *Config) {
		c.wrapRead = func(io.Reader) io.Reader { panic("a bug in the loader") }
	})
	crashing, other := ts.open(termOpt{}), ts.open(termOpt{})
	crashing.waitFor(0, "cpu.pb.gz")
	other.waitFor(0, "cpu.pb.gz")
	crashing.send("j\r")
	err := crashing.wait()
	var exit *gossh.ExitError
	if !errors.As(err, &exit) || exit.ExitStatus() != 1 || !strings.Contains(crashing.text(0), "the explorer crashed") {
		t.Errorf("the crashed session: %v, %q", err, crashing.text(0))
	}
	if !strings.Contains(crashing.raw(0), ansi.ResetAltScreenSaveCursorMode) {
		t.Errorf("the crashed session's terminal was not given back")
	}
	// The other session carries on: the embedded demo needs no file.
	other.press("\r", "main.fib")
	if log := ts.log.String(); !strings.Contains(log, "a bug in the loader") || !strings.Contains(log, "goroutine") {
		t.Errorf("the crash's stack is not in the log:\n%s", log)
	}
}

func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	ts := startServer(t, func(c *Config) { c.Idle = 600 * time.Millisecond })
	tm := ts.open(termOpt{})
	tm.waitFor(0, "choose a profile")
	// Keys keep it open.
	for range 4 {
		time.Sleep(300 * time.Millisecond)
		tm.send("j")
	}
	select {
	case err := <-tm.ended:
		t.Fatalf("the session ended while keys came: %v", err)
	default:
	}
	if err := tm.wait(); err != nil {
		t.Errorf("an idle session's exit: %v", err)
	}
	if !strings.Contains(tm.text(0), "no key pressed for 600ms") || !strings.Contains(tm.raw(0), ansi.ResetAltScreenSaveCursorMode) {
		t.Errorf("the idle session did not end cleanly: %q", tm.raw(0))
	}
}

func TestUnauthenticatedConnections(t *testing.T) {
	t.Parallel()
	ts := startServer(t, func(c *Config) {
		c.Startups = Startups{2, 100, 2}
		c.Handshake = 400 * time.Millisecond
	})
	// Authenticated sessions do not hold the slots.
	for range 3 {
		ts.open(termOpt{}).waitFor(0, "choose a profile")
	}
	var idle []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", ts.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		idle = append(idle, c)
	}
	ts.waitUnauth(2)
	// A third is closed at once.
	third, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	third.SetReadDeadline(time.Now().Add(time.Second))
	if n, err := third.Read(make([]byte, 64)); err != io.EOF {
		t.Errorf("a connection beyond the cap: read %d, %v; want it closed", n, err)
	}
	// The two silent ones are closed at the handshake deadline.
	start := time.Now()
	for _, c := range idle {
		c.SetReadDeadline(time.Now().Add(3 * time.Second))
		if _, err := io.ReadAll(c); err != nil {
			t.Errorf("a silent connection: %v; want it closed", err)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("silent connections closed after %v", d)
	}
	ts.open(termOpt{}).waitFor(0, "choose a profile")
	if log := ts.log.String(); !strings.Contains(log, "not authenticated within 400ms") || !strings.Contains(log, "2 connections are authenticating") {
		t.Errorf("the log:\n%s", log)
	}
}

func TestShutdownWithOpenSessions(t *testing.T) {
	t.Parallel()
	runs := 20
	if testing.Short() {
		runs = 3
	}
	for i := range runs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			ts := startServer(t, nil)
			picking, exploring := ts.open(termOpt{}), ts.open(termOpt{w: 90, h: 25})
			picking.waitFor(0, "choose a profile")
			exploring.waitFor(0, "choose a profile")
			exploring.press("j\r", "main.fib")
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			start := time.Now()
			if err := ts.srv.Shutdown(ctx); err != nil {
				t.Fatalf("Shutdown: %v after %v", err, time.Since(start))
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("Shutdown took %v", d)
			}
			for _, tm := range []*term{picking, exploring} {
				tm.wait()
				if !strings.Contains(tm.text(0), "the server is shutting down") || !strings.Contains(tm.raw(0), ansi.ResetAltScreenSaveCursorMode) {
					t.Errorf("a session at shutdown: %q", tm.text(0))
				}
			}
			select {
			case err := <-ts.done:
				ts.done <- err
			case <-time.After(3 * time.Second):
				t.Fatal("Serve did not return")
			}
			if _, err := ts.dial(ts.key); err == nil {
				t.Errorf("a connection after Shutdown")
			}
		})
	}
}

func TestAuthenticatedConnectionsCapped(t *testing.T) {
	t.Parallel()
	ts := startServer(t, func(c *Config) { c.MaxConns = 2 })
	var clients []*gossh.Client
	for range 2 {
		c, err := ts.dial(ts.key)
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	if c, err := ts.dial(ts.key); err == nil {
		c.Close()
		t.Errorf("a third authenticated connection with a cap of 2")
	}
	clients[0].Close()
	waitUntil(t, 3*time.Second, "a slot", func() bool {
		ts.srv.mu.Lock()
		defer ts.srv.mu.Unlock()
		return ts.srv.conns == 1
	})
	c, err := ts.dial(ts.key)
	if err != nil {
		t.Fatalf("after one closed: %v", err)
	}
	c.Close()
	clients[1].Close()
	if log := ts.log.String(); !strings.Contains(log, `why="2 connections are open"`) {
		t.Errorf("the log:\n%s", log)
	}
}

func TestChannelsPerConnection(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	c, err := ts.dial(ts.key)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var open []*gossh.Session
	for range maxChannels {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, sess)
	}
	if _, err := c.NewSession(); err == nil || !strings.Contains(err.Error(), "too many sessions on this connection") {
		t.Errorf("a channel beyond %d: %v", maxChannels, err)
	}
	open[0].Close()
	waitUntil(t, 3*time.Second, "a channel to free", func() bool {
		sess, err := c.NewSession()
		if err == nil {
			sess.Close()
		}
		return err == nil
	})
}
