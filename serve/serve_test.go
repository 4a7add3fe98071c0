package serve

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"
)

// tabLine matches the explorer's tab line, one column narrower than the
// window (the last column stays empty).
var tabLine = regexp.MustCompile(`.?1( Top)?.? +2( Tree)?.*\? help`)

// statusLine matches the explorer's status bar on cpu.pb.gz, which is
// padded to the window's width.
var statusLine = regexp.MustCompile(` cpu.pb.gz │ .*`)

// cursorMove is a CSI sequence that moves the cursor or erases: a line
// break, as far as reading the text goes.
var cursorMove = regexp.MustCompile(`\x1b\[[0-9;]*[HJ]`)

// widthOfTabLine is the width of the last tab line drawn in raw.
func widthOfTabLine(raw string) int { return widthOf(tabLine, raw) }

// widthOf is the width of the last line of raw's output that re matches.
func widthOf(re *regexp.Regexp, raw string) int {
	w := 0
	text := ansi.Strip(cursorMove.ReplaceAllString(raw, "\n"))
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if m := re.FindString(line); m != "" {
			w = ansi.StringWidth(m)
		}
	}
	return w
}

func TestSession(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	tm := ts.open(termOpt{})
	tm.waitFor(0, "choose a profile")
	tm.waitFor(0, "cpu.pb.gz")
	tm.waitFor(0, "profiles: 1 profile") // DIR's name, not its path

	// The terminal is never asked anything (background, foreground,
	// cursor position): a client that does not answer would hang.
	for _, query := range []string{"\x1b]11;?", "\x1b]10;?", "\x1b[6n"} {
		if strings.Contains(tm.raw(0), query) {
			t.Errorf("the server queried the terminal: %q", query)
		}
	}
	tm.press("j\r", "cpu.pb.gz │") // the demo is first, then cpu.pb.gz
	tm.waitFor(0, "main.fib")
	m := tm.quiet()
	if w := widthOfTabLine(tm.raw(0)); w != 99 {
		t.Errorf("tab line %d wide at 100 columns", w)
	}

	if err := tm.sess.WindowChange(20, 80); err != nil {
		t.Fatal(err)
	}
	// At 80 columns the tabs close up: one space between them.
	waitUntil(t, 5*time.Second, "the redraw at 80 columns", func() bool {
		return strings.Contains(ansi.Strip(tm.raw(m)), "2 Tree 3 Labels")
	})

	tm.press(":save out.pb.gz\r", "writes nothing on the server")
	if des, _ := os.ReadDir(ts.dir); len(des) != 1 {
		t.Errorf("the served directory holds %d files after :save, want 1", len(des))
	}
	tm.send("\x1b") // leave the command line
	time.Sleep(100 * time.Millisecond)

	m = tm.quiet()
	tm.send("q")
	if err := tm.wait(); err != nil {
		t.Errorf("exit after q: %v", err)
	}
	if raw := tm.raw(m); !strings.Contains(raw, ansi.ResetAltScreenSaveCursorMode) || !strings.Contains(raw, ansi.ShowCursor) {
		t.Errorf("the terminal was not given back (alternate screen left, cursor shown): %q", raw)
	}
	waitUntil(t, 5*time.Second, "the session's log line", func() bool {
		return strings.Contains(ts.log.String(), `msg="session ended"`) && strings.Contains(ts.log.String(), `why=quit`)
	})
	log := ts.log.String()
	for _, want := range []string{`msg="conn open" addr=127.0.0.1:`, `msg="auth accepted" addr=127.0.0.1:`, `user=tester key=SHA256:`, `msg="session started"`, `term=xterm-256color size=100x30 colours="256 colours"`, `opened=cpu.pb.gz`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
}

func TestWrongKeyRefused(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	if _, err := ts.dial(newKey(t)); err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
		t.Errorf("an unknown key: %v, want refused", err)
	}
	_, err := gossh.Dial("tcp", ts.addr, &gossh.ClientConfig{
		User:            "tester",
		Auth:            []gossh.AuthMethod{gossh.Password("secret"), gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return nil, nil })},
		HostKeyCallback: gossh.FixedHostKey(ts.hostKey),
	})
	if err == nil {
		t.Errorf("password and keyboard-interactive authentication were accepted")
	}
	// Three tries at most: the fourth key offered is not even looked at.
	var keys []gossh.Signer
	for range 3 {
		keys = append(keys, newKey(t))
	}
	keys = append(keys, ts.key)
	_, err = gossh.Dial("tcp", ts.addr, &gossh.ClientConfig{
		User:            "tester",
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(keys...)},
		HostKeyCallback: gossh.FixedHostKey(ts.hostKey),
	})
	if err == nil {
		t.Errorf("the good key was tried after three bad ones")
	}
	if log := ts.log.String(); !strings.Contains(log, "not an authorized key") {
		t.Errorf("refusals not logged:\n%s", log)
	}
}

func TestMalformedAuthorizedKeyLine(t *testing.T) {
	t.Parallel()
	ts := startServer(t, func(c *Config) {
		good, _ := os.ReadFile(c.AuthorizedKeys)
		bad := "ssh-ed25519 AAAAnot-base64!!! broken\nthis is not a key\n"
		os.WriteFile(c.AuthorizedKeys, []byte(bad+string(good)), 0o600)
	})
	c, err := ts.dial(ts.key)
	if err != nil {
		t.Fatalf("the key after the malformed lines was refused: %v", err)
	}
	c.Close()
	if log := ts.log.String(); !strings.Contains(log, `line=1 why="not a key"`) || !strings.Contains(log, `line=2 why="not a key"`) {
		t.Errorf("the malformed lines are not reported:\n%s", log)
	}
}

func TestNothingButTheExplorer(t *testing.T) {
	ts := startServer(t, nil)
	client, err := ts.dial(ts.key)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	sess, _ := client.NewSession()
	if out, err := sess.CombinedOutput("cat /etc/passwd"); err == nil {
		t.Errorf("exec ran: %q", out)
	}
	sess, _ = client.NewSession()
	if err := sess.RequestSubsystem("sftp"); err == nil {
		t.Errorf("the sftp subsystem was granted")
	}
	// A shell without a PTY gets a message, no explorer.
	sess, _ = client.NewSession()
	var out strings.Builder
	sess.Stdout, sess.Stderr = &out, &out
	err = sess.Shell()
	if err == nil {
		err = sess.Wait()
	}
	var exit *gossh.ExitError
	if !errors.As(err, &exit) || exit.ExitStatus() != 1 || !strings.Contains(out.String(), "in a terminal: ssh -t") {
		t.Errorf("a shell without a PTY: %v, %q", err, out.String())
	}
	// Agent and X11 forwarding.
	sess, _ = client.NewSession()
	for _, req := range []string{"auth-agent-req@openssh.com", "x11-req"} {
		if ok, err := sess.SendRequest(req, true, nil); ok || err != nil {
			t.Errorf("%s: granted %v, %v", req, ok, err)
		}
	}
	// Environment: the colour variables only.
	if err := sess.Setenv("LD_PRELOAD", "/tmp/x.so"); err == nil {
		t.Errorf("LD_PRELOAD was accepted")
	}
	if err := sess.Setenv("COLORTERM", "truecolor"); err != nil {
		t.Errorf("COLORTERM: %v", err)
	}
	// -L: a direct-tcpip channel; -R: a tcpip-forward request.
	target, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	target.Close()
	if c, err := client.Dial("tcp", ts.addr); err == nil {
		c.Close()
		t.Errorf("local port forwarding (-L) was granted")
	}
	if l, err := client.Listen("tcp", "127.0.0.1:0"); err == nil {
		l.Close()
		t.Errorf("remote port forwarding (-R) was granted")
	}
	if ok, _, err := client.SendRequest("streamlocal-forward@openssh.com", true, gossh.Marshal(struct{ Path string }{"/tmp/x.sock"})); ok || err != nil {
		t.Errorf("unix socket forwarding: %v %v", ok, err)
	}
	log := ts.log.String()
	for _, want := range []string{`request=exec command="cat /etc/passwd"`, `request=subsystem subsystem=sftp`, `why="no terminal"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
}

func TestHostKeyPersisted(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state", "pprof-tui", "host_ed25519")
	a, created, err := hostKey(path)
	if err != nil || !created {
		t.Fatalf("first start: %v, created %v", err, created)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("host key file: %v, mode %v", err, st.Mode())
	}
	if st, _ := os.Stat(filepath.Dir(path)); st.Mode().Perm() != 0o700 {
		t.Errorf("host key directory mode %v", st.Mode().Perm())
	}
	b, created, err := hostKey(path)
	if err != nil || created {
		t.Fatalf("second start: %v, created %v", err, created)
	}
	if gossh.FingerprintSHA256(a.PublicKey()) != gossh.FingerprintSHA256(b.PublicKey()) {
		t.Errorf("the host key changed across restarts")
	}
}

func TestHugeWindowClamped(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	tm := ts.open(termOpt{w: 100000, h: 50000})
	tm.waitFor(0, "choose a profile")
	tm.press("\r", "main.fib")
	if w := widthOfTabLine(tm.raw(0)); w != maxWidth-1 {
		t.Errorf("tab line %d wide for a 100000-column window; want the %d-column cap", w, maxWidth)
	}
}

func TestAuthorizedKeysReadAgain(t *testing.T) {
	t.Parallel()
	var path string
	ts := startServer(t, func(c *Config) { path = c.AuthorizedKeys })
	other := newKey(t)
	if _, err := ts.dial(other); err == nil {
		t.Fatal("a key not in the file was accepted")
	}
	// Added: in without a restart. (The size changes, so a same-second
	// modification time does not hide the change.)
	data := append(gossh.MarshalAuthorizedKey(ts.key.PublicKey()), gossh.MarshalAuthorizedKey(other.PublicKey())...)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := ts.dial(other)
	if err != nil {
		t.Fatalf("a key added to the file: %v", err)
	}
	c.Close()
	// Removed: out.
	if err := os.WriteFile(path, gossh.MarshalAuthorizedKey(other.PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.dial(ts.key); err == nil {
		t.Errorf("a key removed from the file was accepted")
	}
}

func TestHostKeyReadableByOthersRefused(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "host_ed25519")
	if _, _, err := hostKey(path); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o644)
	if _, _, err := hostKey(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a host key others can read: %v", err)
	}
}
