package serve

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/pprof-tui/pprof-tui/format"
	gossh "golang.org/x/crypto/ssh"
)

// The tests run the server on 127.0.0.1:0 with its keys in a temporary
// directory, and talk to it with x/crypto/ssh clients holding a PTY.
// Each has its own server, so they run in parallel, but for the ones
// that read the process's memory (runtime.GC, ReadMemStats) or set its
// environment.

// testProfile is a real Go CPU profile from the repository's testdata.
func testProfile(t testing.TB) []byte {
	data, err := os.ReadFile("../testdata/go/cpu_labels.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

type testServer struct {
	t       testing.TB
	srv     *Server
	addr    string
	dir     string // the served directory
	tmp     string
	key     gossh.Signer // an authorized client key
	hostKey gossh.PublicKey
	log     *syncBuffer
	done    chan error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func newKey(t testing.TB) gossh.Signer {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// startServer serves a directory holding cpu.pb.gz; edit adjusts the
// configuration first.
func startServer(t testing.TB, edit func(*Config)) *testServer {
	t.Helper()
	tmp := t.TempDir()
	ts := &testServer{t: t, tmp: tmp, dir: filepath.Join(tmp, "profiles"), key: newKey(t), log: &syncBuffer{}}
	if err := os.Mkdir(ts.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ts.dir, "cpu.pb.gz"), testProfile(t), 0o644); err != nil {
		t.Fatal(err)
	}
	auth := filepath.Join(tmp, "authorized_keys")
	if err := os.WriteFile(auth, gossh.MarshalAuthorizedKey(ts.key.PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Dir:            ts.dir,
		HostKey:        filepath.Join(tmp, "state", "pprof-tui", "host_ed25519"),
		AuthorizedKeys: auth,
		Log:            ts.log,
	}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts.srv = srv
	signer, _, err := hostKey(cfg.HostKey)
	if err != nil {
		t.Fatal(err)
	}
	ts.hostKey = signer.PublicKey()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.addr = ln.Addr().String()
	ts.done = make(chan error, 1)
	go func() { ts.done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		select {
		case <-ts.done:
		case <-time.After(5 * time.Second):
			t.Errorf("Serve did not return after Shutdown")
		}
		if t.Failed() {
			t.Logf("server log:\n%s", ts.log.String())
		}
	})
	return ts
}

func (ts *testServer) dial(key gossh.Signer) (*gossh.Client, error) {
	return gossh.Dial("tcp", ts.addr, &gossh.ClientConfig{
		User:            "tester",
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.FixedHostKey(ts.hostKey),
		Timeout:         5 * time.Second,
	})
}

// term is a client session with a PTY: it sends keys and collects what
// the explorer draws.
type term struct {
	t      testing.TB
	client *gossh.Client
	sess   *gossh.Session
	in     io.WriteCloser
	mu     sync.Mutex
	out    []byte
	ended  chan error // the session's exit
}

type termOpt struct {
	term string
	env  map[string]string
	w, h int
	key  gossh.Signer
}

func (ts *testServer) open(o termOpt) *term {
	ts.t.Helper()
	tm, err := ts.tryOpen(o)
	if err != nil {
		ts.t.Fatal(err)
	}
	return tm
}

func (ts *testServer) tryOpen(o termOpt) (*term, error) {
	if o.term == "" {
		o.term = "xterm-256color"
	}
	if o.w == 0 {
		o.w, o.h = 100, 30
	}
	if o.key == nil {
		o.key = ts.key
	}
	client, err := ts.dial(o.key)
	if err != nil {
		return nil, err
	}
	sess, err := client.NewSession()
	if err != nil {
		client.Close()
		return nil, err
	}
	for k, v := range o.env {
		if err := sess.Setenv(k, v); err != nil {
			client.Close()
			return nil, err
		}
	}
	if err := sess.RequestPty(o.term, o.h, o.w, gossh.TerminalModes{}); err != nil {
		client.Close()
		return nil, err
	}
	tm := &term{t: ts.t, client: client, sess: sess, ended: make(chan error, 1)}
	tm.in, _ = sess.StdinPipe()
	stdout, _ := sess.StdoutPipe()
	stderr, _ := sess.StderrPipe()
	if err := sess.Shell(); err != nil {
		client.Close()
		return nil, err
	}
	var wg sync.WaitGroup
	wg.Add(2)
	for _, r := range []io.Reader{stdout, stderr} {
		go func() {
			defer wg.Done()
			buf := make([]byte, 32<<10)
			for {
				n, err := r.Read(buf)
				tm.mu.Lock()
				tm.out = append(tm.out, buf[:n]...)
				tm.mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		tm.ended <- sess.Wait()
	}()
	ts.t.Cleanup(func() { client.Close() })
	return tm, nil
}

// mark is a position in the output, for since.
func (tm *term) mark() int {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return len(tm.out)
}

// raw returns the output from mark on, escape sequences and all.
func (tm *term) raw(mark int) string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return string(tm.out[mark:])
}

// text returns the output from mark on without escape sequences.
func (tm *term) text(mark int) string { return ansi.Strip(tm.raw(mark)) }

// waitFor waits until the text from mark on holds want.
func (tm *term) waitFor(mark int, want string) {
	tm.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(tm.text(mark), want) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	tm.t.Fatalf("%q not shown; the screen got:\n%s", want, tm.text(mark))
}

// quiet waits until no output came for a while, and returns the mark.
func (tm *term) quiet() int {
	last, since := tm.mark(), time.Now()
	for time.Since(since) < 150*time.Millisecond {
		time.Sleep(10 * time.Millisecond)
		if m := tm.mark(); m != last {
			last, since = m, time.Now()
		}
	}
	return last
}

func (tm *term) send(keys string) {
	tm.t.Helper()
	if _, err := io.WriteString(tm.in, keys); err != nil {
		tm.t.Fatal(err)
	}
}

// wait waits for the session to end and returns its exit error.
func (tm *term) wait() error {
	tm.t.Helper()
	select {
	case err := <-tm.ended:
		return err
	case <-time.After(10 * time.Second):
		tm.t.Fatalf("the session did not end; the screen got:\n%s", tm.text(0))
		return nil
	}
}

// waitUntil polls cond for up to d.
func waitUntil(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitUnauth waits until n connections are authenticating.
func (ts *testServer) waitUnauth(n int) {
	ts.t.Helper()
	waitUntil(ts.t, 2*time.Second, fmt.Sprintf("%d connections authenticating", n), func() bool {
		ts.srv.mu.Lock()
		defer ts.srv.mu.Unlock()
		return ts.srv.unauth == n
	})
}

// press sends keys once the screen is still, and waits for want to be
// drawn after them.
func (tm *term) press(keys, want string) {
	tm.t.Helper()
	m := tm.quiet()
	tm.send(keys)
	tm.waitFor(m, want)
}

// Load is a load outside any session, for the tests of what is served:
// it holds its share of the memory budget only while it loads.
func (f *rootFiles) Load(ctx context.Context, name string, opt format.Options) (*format.Profile, error) {
	h := &memHold{b: f.mem}
	defer h.releaseAll()
	return f.load(ctx, name, opt, h)
}
