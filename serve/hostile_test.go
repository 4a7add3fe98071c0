package serve

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/pprof-tui/pprof-tui/format"
)

// The tests of this file play the stranger: the one who wrote a served
// file, holds a key with options, or only reaches the port.

// dialFrom dials the server from a local address of 127/8 other than
// 127.0.0.1 (Linux routes all of it to lo), with key.
func (ts *testServer) dialFrom(ip string, key gossh.Signer) (*gossh.Client, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", ts.addr)
	if err != nil {
		return nil, err
	}
	conn, chans, reqs, err := gossh.NewClientConn(c, ts.addr, &gossh.ClientConfig{
		User:            "tester",
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.FixedHostKey(ts.hostKey),
		Timeout:         5 * time.Second,
	})
	if err != nil {
		c.Close()
		return nil, err
	}
	return gossh.NewClient(conn, chans, reqs), nil
}

func TestMemoryBudgetShared(t *testing.T) {
	data := testProfile(t)
	need := reckon(decodedCap(bytes.NewReader(data), int64(len(data)), 512<<20))
	ts := startServer(t, func(c *Config) {
		c.MaxMemory = need + need/2 // one profile, not two
		c.MemoryWait = time.Second
	})
	first := ts.open(termOpt{})
	first.waitFor(0, "cpu.pb.gz")
	first.press("j\r", "main.fib")
	if got := ts.srv.Memory(); got != need {
		t.Errorf("one profile loaded: %d bytes reserved, want %d", got, need)
	}
	second := ts.open(termOpt{})
	second.waitFor(0, "cpu.pb.gz")
	m := second.quiet()
	second.send("j\r")
	second.waitFor(m, "Loading cpu.pb.gz")
	second.waitFor(m, "cpu.pb.gz: the server's memory is held by other sessions' profiles; try again later")
	if got := ts.srv.Memory(); got != need {
		t.Errorf("after a refused load: %d bytes reserved, want %d", got, need)
	}

	m = second.quiet()
	second.send("\r")
	second.waitFor(m, "Loading cpu.pb.gz")
	time.Sleep(200 * time.Millisecond)
	first.send("q")
	if err := first.wait(); err != nil {
		t.Errorf("the first session's exit: %v", err)
	}
	second.waitFor(m, "main.fib")
	second.send("q")
	second.wait()
	waitUntil(t, 5*time.Second, "the memory freed", func() bool { return ts.srv.Memory() == 0 })
}

func TestMemoryBudgetTooSmallForOne(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.MaxMemory = 1 << 20 })
	tm := ts.open(termOpt{})
	tm.waitFor(0, "cpu.pb.gz")
	tm.press("j\r", "cpu.pb.gz: needs about 1.05MB of memory; the server allows 1MB in all")
}

func TestDecodedCap(t *testing.T) {
	t.Parallel()
	data := testProfile(t)
	n := decodedCap(bytes.NewReader(data), int64(len(data)), 1<<30)
	if n <= int64(len(data)) {
		t.Errorf("gzip profile of %d bytes: decoded cap %d", len(data), n)
	}
	// A trailer claiming less than the file is not believed below the
	// file's size; the parse is capped there.
	lie := append([]byte(nil), data...)
	copy(lie[len(lie)-4:], []byte{1, 0, 0, 0})
	if got := decodedCap(bytes.NewReader(lie), int64(len(lie)), 1<<30); got != int64(len(lie)) {
		t.Errorf("lying trailer: cap %d, want the file's size %d", got, len(lie))
	}
	if got := decodedCap(bytes.NewReader(data), int64(len(data)), 1000); got != 1000 {
		t.Errorf("cap above max bytes: %d", got)
	}
	ts := startServer(t, nil)
	if err := os.WriteFile(filepath.Join(ts.dir, "lie.pb.gz"), lie, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.srv.files.Load(t.Context(), "lie.pb.gz", format.Options{}); err == nil {
		t.Errorf("a profile larger than its gzip trailer says was loaded")
	}
}

func TestPerfDataRefused(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	perf := append([]byte("PERFILE2"), make([]byte, 200)...)
	if err := os.WriteFile(filepath.Join(ts.dir, "perf.data"), perf, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ts.srv.files.Load(t.Context(), "perf.data", format.Options{})
	if err == nil || !strings.Contains(err.Error(), "which is not allowed here") {
		t.Errorf("perf.data: %v", err)
	}
	tm := ts.open(termOpt{})
	tm.waitFor(0, "perf.data")
	tm.press("j\r", "perf.data: perf.data: reading it runs Linux perf, which is not allowed here")
}

// TestPreAuthFlood holds many silent connections from one address, as
// a flood would, re-opened before the handshake deadline: a key from
// another address still gets in, and the flood holds only its
// per-source share of the slots.
func TestPreAuthFlood(t *testing.T) {
	t.Parallel()
	ts := startServer(t, func(c *Config) { c.Handshake = 2 * time.Second })
	var flood []net.Conn
	defer func() {
		for _, c := range flood {
			c.Close()
		}
	}()
	for round := range 3 {
		for range 16 {
			c, err := net.Dial("tcp", ts.addr)
			if err != nil {
				t.Fatal(err)
			}
			flood = append(flood, c)
		}
		ts.waitUnauth(4)
		client, err := ts.dialFrom("127.0.0.2", ts.key)
		if err != nil {
			t.Fatalf("round %d: a real key from another address under the flood: %v", round, err)
		}
		client.Close()
	}
	if log := ts.log.String(); !strings.Contains(log, "4 connections from this address are authenticating") {
		t.Errorf("the log does not say why the flood was refused:\n%s", log)
	}
}

func TestStartups(t *testing.T) {
	t.Parallel()
	st, err := ParseStartups("10:30:100")
	if err != nil || st != (Startups{10, 30, 100}) {
		t.Fatalf("ParseStartups: %v %v", st, err)
	}
	for _, c := range []struct {
		n    int
		want float64
	}{{0, 0}, {9, 0}, {10, 0.3}, {55, 0.65}, {100, 1}, {200, 1}} {
		if got := st.dropChance(c.n); got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("drop chance at %d: %v, want %v", c.n, got, c.want)
		}
	}
	if st, err := ParseStartups("5"); err != nil || st.dropChance(4) != 0 || st.dropChance(5) != 1 {
		t.Errorf("ParseStartups(5): %v %v", st, err)
	}
	for _, bad := range []string{"", "1:2", "10:101:100", "10:30:5", "a:b:c", "0:30:100"} {
		if _, err := ParseStartups(bad); err == nil {
			t.Errorf("ParseStartups(%q) accepted", bad)
		}
	}
	// Early drop between start and full, by the coin.
	var coin atomic.Value // read by the server's connection goroutines
	coin.Store(0.5)
	ts := startServer(t, func(c *Config) {
		c.Startups = Startups{1, 40, 3}
		c.random = func() float64 { return coin.Load().(float64) }
	})
	first, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	ts.waitUnauth(1)
	if c, err := ts.dialFrom("127.0.0.2", ts.key); err == nil { // 40% < 0.5: admitted
		c.Close()
	} else {
		t.Errorf("at 40%% with the coin at 0.5: %v", err)
	}
	coin.Store(0.3)
	if c, err := ts.dialFrom("127.0.0.2", ts.key); err == nil {
		c.Close()
		t.Errorf("at 40%% with the coin at 0.3: admitted")
	}
	if log := ts.log.String(); !strings.Contains(log, "dropped early at random") {
		t.Errorf("the log:\n%s", log)
	}
}

func TestConnectionsPerKey(t *testing.T) {
	t.Parallel()
	other := newKey(t)
	ts := startServer(t, func(c *Config) {
		c.MaxConnsPerKey = 2
		f, _ := os.OpenFile(c.AuthorizedKeys, os.O_APPEND|os.O_WRONLY, 0)
		f.Write(gossh.MarshalAuthorizedKey(other.PublicKey()))
		f.Close()
	})
	// Connections without a session (ssh -N) count.
	for range 2 {
		c, err := ts.dial(ts.key)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	if c, err := ts.dial(ts.key); err == nil {
		c.Close()
		t.Errorf("a third connection for one key with a cap of 2")
	}
	c, err := ts.dial(other)
	if err != nil {
		t.Fatalf("another key, while the first holds its cap: %v", err)
	}
	c.Close()
	if log := ts.log.String(); !strings.Contains(log, `why="this key has 2 connections open, the most it may"`) {
		t.Errorf("the log:\n%s", log)
	}
}

func writeKeys(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestKeyOptions(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	pub := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(ts.key.PublicKey())))
	auth := ts.srv.cfg.AuthorizedKeys
	for _, c := range []struct {
		options string
		ok      bool
		why     string
	}{
		{`from="127.0.0.1"`, true, ""},
		{`from="127.0.0.*"`, true, ""},
		{`from="127.0.0.0/8"`, true, ""},
		{`from="10.9.9.9"`, false, `address 127.0.0.1 is not in the key's from=`},
		{`from="127.0.0.*,!127.0.0.1"`, false, `is not in the key's from=`},
		{`from="10.0.0.0/8"`, false, `is not in the key's from=`},
		{`expiry-time="20000101"`, false, "the key expired at 2000-01-01 00:00:00"},
		{`expiry-time="29991231"`, true, ""},
		{`no-port-forwarding,no-agent-forwarding`, true, ""},
		{`command="/bin/false"`, false, "option command limits the key"},
		{`no-pty`, false, "option no-pty limits the key"},
		{`restrict`, false, "option restrict limits the key"},
		{`from="10.9.9.9",no-pty,expiry-time="20000101",command="/bin/false",restrict`, false, "limits the key"},
		{`cert-authority`, false, "option cert-authority is not supported"},
		{`frobnicate`, false, `option frobnicate is not known`},
		{`from="10.0.0.0/99"`, false, "is not an address block"},
	} {
		mark := len(ts.log.String())
		line := pub
		if c.options != "" {
			line = c.options + " " + pub
		}
		writeKeys(t, auth, line+"\n"+string(gossh.MarshalAuthorizedKey(newKey(t).PublicKey())))
		// The file is read again when its size or time changes.
		future := time.Now().Add(time.Duration(len(c.options)) * time.Second)
		os.Chtimes(auth, future, future)
		client, err := ts.dial(ts.key)
		if client != nil {
			client.Close()
		}
		if (err == nil) != c.ok {
			t.Errorf("%s: login %v, want ok=%v", c.options, err, c.ok)
		}
		if log := ts.log.String()[mark:]; c.why != "" && !strings.Contains(log, c.why) {
			t.Errorf("%s: the log does not say %q:\n%s", c.options, c.why, log)
		}
	}
}

func TestFromPatterns(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ip, list string
		want     bool
	}{
		{"192.168.1.7", "192.168.1.?", true},
		{"192.168.1.17", "192.168.1.?", false},
		{"192.168.1.17", "192.168.*", true},
		{"192.168.1.17", "!192.168.1.17,192.168.*", false},
		{"192.168.1.17", "192.168.*,!192.168.1.17", false},
		{"192.168.1.17", "10.0.0.1,192.168.0.0/16", true},
		{"::ffff:192.168.1.17", "192.168.0.0/16", true},
		{"2001:db8::1", "2001:db8::/32", true},
		{"2001:db8::1", "2001:DB8::*", true},
		{"2001:db8::1", "!2001:db8::/32", false},
		{"10.1.2.3", "host.example.com", false},
		{"10.1.2.3", "[10.1.2.3]", false},
	} {
		list, err := parseFromList(c.list)
		if err != nil {
			t.Fatalf("%q: %v", c.list, err)
		}
		if got := list.match(c.ip); got != c.want {
			t.Errorf("%s in %q: %v, want %v", c.ip, c.list, got, c.want)
		}
	}
	for _, c := range []struct {
		v    string
		want time.Time
	}{
		{"20250102", time.Date(2025, 1, 2, 0, 0, 0, 0, time.Local)},
		{"202501021504", time.Date(2025, 1, 2, 15, 4, 0, 0, time.Local)},
		{"20250102150405Z", time.Date(2025, 1, 2, 15, 4, 5, 0, time.UTC)},
	} {
		if got, err := parseExpiry(c.v); err != nil || !got.Equal(c.want) {
			t.Errorf("expiry %s: %v %v, want %v", c.v, got, err, c.want)
		}
	}
	for _, bad := range []string{"2025", "2025010", "20251301", "yesterday"} {
		if _, err := parseExpiry(bad); err == nil {
			t.Errorf("expiry %q accepted", bad)
		}
	}
}

// TestLogForgingBeforeLogin sends what a client chooses before it is
// known: a user name, offered algorithm names, a disconnect message,
// an auth method name, each with an escape sequence and a line that
// reads like the server's own. The log must hold none of them raw.
func TestLogForgingBeforeLogin(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	forged := "\x1b[2J\x1b[Hx\ntime=2026-01-01T00:00:00Z level=INFO msg=\"auth accepted\" addr=10.0.0.1:1 user=root\r"

	// A user name, with a key that is not authorized.
	if c, err := gossh.Dial("tcp", ts.addr, &gossh.ClientConfig{
		User:            "evil" + forged,
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(newKey(t))},
		HostKeyCallback: gossh.FixedHostKey(ts.hostKey),
		Timeout:         5 * time.Second,
	}); err == nil {
		c.Close()
		t.Fatal("an unauthorized key got in")
	}
	// Algorithm names nobody has, then a disconnect message, in raw
	// packets before key exchange.
	rawClient(t, ts.addr, kexInit("kex"+forged))
	rawClient(t, ts.addr, disconnect("bye"+forged))
	// An auth method name (x/crypto's client sends only real ones).
	cfg := ts.srv.serverConfig(noConnCtx{})
	cfg.AuthLogCallback(fakeMeta{user: "evil" + forged}, "method"+forged, nil)

	waitUntil(t, 5*time.Second, "the raw clients' lines", func() bool {
		log := ts.log.String()
		return strings.Contains(log, "no common algorithm") && strings.Contains(log, "disconnect")
	})
	quotedLog(t, ts.log.String(), `user="evil\x1b[2J`, `method="method\x1b[2J`, `peer offered: [kex\x1b[2J`, `bye\x1b[2J`)
}

// rawClient sends an SSH version line and one unencrypted packet, then
// reads until the server closes.
func rawClient(t *testing.T, addr string, payload []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	pad := 8 - (5+len(payload))%8
	if pad < 4 {
		pad += 8
	}
	pkt := binary.BigEndian.AppendUint32(nil, uint32(1+len(payload)+pad))
	pkt = append(pkt, byte(pad))
	pkt = append(append(pkt, payload...), make([]byte, pad)...)
	if _, err := c.Write(append([]byte("SSH-2.0-evil\r\n"), pkt...)); err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, c)
}

func sshString(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint32(b, uint32(len(s))), s...)
}

func kexInit(kex string) []byte {
	b := append([]byte{20}, make([]byte, 16)...)
	for _, l := range []string{kex, "ssh-ed25519", "aes128-ctr", "aes128-ctr", "hmac-sha2-256", "hmac-sha2-256", "none", "none", "", ""} {
		b = sshString(b, l)
	}
	return append(b, 0, 0, 0, 0, 0)
}

func disconnect(msg string) []byte {
	b := binary.BigEndian.AppendUint32([]byte{1}, 11)
	return sshString(sshString(b, msg), "")
}

// noConnCtx is a connection's context without a limitedConn.
type noConnCtx struct{ ssh.Context }

func (noConnCtx) Value(any) any { return nil }

type fakeMeta struct {
	gossh.ConnMetadata
	user string
}

func (m fakeMeta) User() string         { return m.user }
func (m fakeMeta) RemoteAddr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 9), Port: 9} }

// TestOpenSSHKeyFrom is OpenSSH's client with a key whose from= names
// another address: it is refused, and the log says why.
func TestOpenSSHKeyFrom(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short")
	}
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("ssh is not installed")
	}
	tmp := t.TempDir()
	keyFile, client := openSSHKey(t, tmp)
	ts := startServer(t, func(c *Config) {
		writeKeys(t, c.AuthorizedKeys, `from="10.9.9.9",no-port-forwarding `+string(gossh.MarshalAuthorizedKey(client.PublicKey())))
	})
	_, port, _ := net.SplitHostPort(ts.addr)
	knownHosts := filepath.Join(tmp, "known_hosts")
	writeKeys(t, knownHosts, fmt.Sprintf("[127.0.0.1]:%s %s", port, gossh.MarshalAuthorizedKey(ts.hostKey)))
	cmd := exec.Command("ssh", "-F", "/dev/null", "-i", keyFile, "-p", port, "-o", "UserKnownHostsFile="+knownHosts,
		"-o", "StrictHostKeyChecking=yes", "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-T", "tester@127.0.0.1")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 255 || !strings.Contains(string(out), "Permission denied (publickey)") {
		t.Errorf("ssh with a key from another address: %v\n%s", err, out)
	}
	if log := ts.log.String(); !strings.Contains(log, `why="address 127.0.0.1 is not in the key's from=\"10.9.9.9\""`) {
		t.Errorf("the log:\n%s", log)
	}
}

// TestLogForgingAfterLogin sends what an authorized client chooses: an
// exec command, a subsystem name and a TERM, each with an escape
// sequence and a line that reads like the server's own.
func TestLogForgingAfterLogin(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	forged := "\x1b[2J\x1b[Hx\ntime=2026-01-01T00:00:00Z level=INFO msg=\"auth accepted\" addr=10.0.0.1:1 user=root\r"
	client, err := ts.dial(ts.key)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	sess, _ := client.NewSession()
	if err := sess.Start("cmd" + forged); err == nil {
		t.Errorf("exec was granted")
	}
	sess, _ = client.NewSession()
	if err := sess.RequestSubsystem("sub" + forged); err == nil {
		t.Errorf("a subsystem was granted")
	}
	tm := ts.open(termOpt{term: "xterm" + forged})
	tm.waitFor(0, "cpu.pb.gz")
	tm.send("q")
	tm.wait()

	waitUntil(t, 5*time.Second, "the session's end", func() bool {
		return strings.Contains(ts.log.String(), `msg="session ended"`)
	})
	quotedLog(t, ts.log.String(), `command="cmd\x1b[2J`, `subsystem="sub\x1b[2J`, `term="xterm\x1b[2J`)
}

// TestMemHoldProfiles: a session holds a reservation for each profile
// it keeps, given back when the profile is collected, when its load
// fails, or when the session ends; a profile merged from others (a
// diff) keeps theirs.
func TestMemHoldProfiles(t *testing.T) {
	b := &budget{total: 1000, wait: time.Second, changed: make(chan struct{})}
	h := &memHold{b: b}
	data := testProfile(t)
	load := func(n int64) *format.Profile {
		t.Helper()
		tk, err := h.reserve(t.Context(), n, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := format.Parse(bytes.NewReader(data), format.Options{})
		if err != nil {
			t.Fatal(err)
		}
		hold(p, tk)
		return p
	}
	settled := func(what string, want int64) {
		t.Helper()
		// Collect first, so that a reservation that should stay is
		// given the chance to go; then wait for the cleanups that
		// should run.
		for i := 0; i < 3 || (i < 100 && b.Memory() != want); i++ {
			runtime.GC()
			time.Sleep(2 * time.Millisecond)
		}
		if got := b.Memory(); got != want {
			t.Errorf("%s: %d reserved, want %d", what, got, want)
		}
		if got := h.held(); got != want {
			t.Errorf("%s: the session holds %d, want %d", what, got, want)
		}
	}
	// In a function of its own, so that no slot of this frame keeps
	// the two parts.
	merged := func() *format.Profile {
		a, b := load(30), load(50)
		settled("two profiles", 80)
		diff, err := format.Merge([]*format.Profile{a, b})
		if err != nil {
			t.Fatal(err)
		}
		return diff
	}
	diff := merged()
	settled("a diff of them, its parts dropped", 80)
	runtime.KeepAlive(diff)
	diff = nil
	settled("the diff dropped", 0)

	tk, err := h.reserve(t.Context(), 40, nil)
	if err != nil {
		t.Fatal(err)
	}
	settled("loading", 40)
	tk.release()
	tk.release()
	settled("a failed load", 0)

	kept := load(70)
	h.releaseAll()
	settled("the session ended", 0)
	runtime.KeepAlive(kept)
	kept = nil
	settled("its profile collected after", 0)
}

// TestOpenedNames: names a client typed stay apart in the log's list.
func TestOpenedNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		names []string
		want  string
	}{
		{nil, "nothing"},
		{[]string{"mem.pb.gz", "cpu.pb.gz"}, "cpu.pb.gz, mem.pb.gz"},
		{[]string{"a, b", "c"}, `"a, b", c`},
		{[]string{`say "hi"`, "x\ny"}, `"say \"hi\"", "x\ny"`},
	} {
		if got := opened(c.names); got != c.want {
			t.Errorf("opened(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}

// TestServedSmallProfiles: what loads on the command line loads when
// served. A small profile's decode takes several times its size; it
// must fit in what the server reserves for it.
func TestServedSmallProfiles(t *testing.T) {
	t.Parallel()
	ts := startServer(t, nil)
	files, err := filepath.Glob("../testdata/go/*.pb.gz")
	if err != nil || len(files) == 0 {
		t.Fatalf("no profiles: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(file)
		if err := os.WriteFile(filepath.Join(ts.dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ts.srv.files.Load(t.Context(), name, format.Options{}); err != nil {
			t.Errorf("%s (%d bytes): %v", name, len(data), err)
		}
	}
}

// quotedLog checks that log holds every line a client forged as slog
// quotes it, want, and no control byte or line of the client's own.
func quotedLog(t *testing.T, log string, want ...string) {
	t.Helper()
	if strings.ContainsAny(log, "\x1b\r") {
		t.Errorf("the log holds control bytes a client sent:\n%q", log)
	}
	for _, line := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
		if !strings.HasPrefix(line, "time=") || strings.Contains(line, "addr=10.0.0.1") && !strings.Contains(line, `\n`) {
			t.Errorf("a forged line: %q", line)
		}
	}
	for _, w := range want {
		if !strings.Contains(log, w) {
			t.Errorf("the log lacks %q:\n%s", w, log)
		}
	}
}
