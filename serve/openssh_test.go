package serve

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// TestOpenSSH runs the real OpenSSH client in tmux against the server,
// checking the host key strictly against the persisted one, twice:
// the second time after a restart. Skipped with -short or without ssh
// and tmux.
func TestOpenSSH(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short")
	}
	for _, tool := range []string{"ssh", "tmux"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	tmp := t.TempDir()
	hostKeyPath := filepath.Join(tmp, "state", "pprof-tui", "host_ed25519")
	_, client := openSSHKey(t, tmp)
	for run := range 2 {
		ts := startServer(t, func(c *Config) {
			c.HostKey = hostKeyPath
			os.WriteFile(c.AuthorizedKeys, gossh.MarshalAuthorizedKey(client.PublicKey()), 0o600)
		})
		ts.key = client
		openSSHSession(t, ts, tmp, run)
	}
}

// openSSHKey writes a new client key for ssh -i to tmp/id.
func openSSHKey(t *testing.T, tmp string) (string, gossh.Signer) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	client, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(tmp, "id")
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, client
}

func openSSHSession(t *testing.T, ts *testServer, tmp string, run int) {
	_, port, _ := net.SplitHostPort(ts.addr)
	// The client's private key, and known_hosts from the host key file.
	keyFile := filepath.Join(tmp, "id")
	priv, err := os.ReadFile(ts.srv.cfg.HostKey)
	if err != nil {
		t.Fatal(err)
	}
	host, err := gossh.ParsePrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	knownHosts := filepath.Join(tmp, "known_hosts")
	line := fmt.Sprintf("[127.0.0.1]:%s %s", port, gossh.MarshalAuthorizedKey(host.PublicKey()))
	if err := os.WriteFile(knownHosts, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(tmp, fmt.Sprintf("tmux%d.sock", run)) // a server of its own each run
	tmux := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	cmd := fmt.Sprintf("ssh -tt -F /dev/null -i %s -p %s -o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes "+
		"-o IdentitiesOnly=yes -o BatchMode=yes -o PasswordAuthentication=no tester@127.0.0.1; echo EXIT=$?; sleep 60",
		keyFile, port, knownHosts)
	tmux("new-session", "-d", "-s", "e2e", "-x", "100", "-y", "30", cmd)
	defer exec.Command("tmux", "-S", sock, "kill-server").Run() // the test's own socket
	screen := func() string { return tmux("capture-pane", "-p", "-t", "e2e") }
	waitScreen := func(want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if strings.Contains(screen(), want) {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("run %d: %q not on the screen:\n%s\nserver log:\n%s", run, want, screen(), ts.log.String())
	}
	waitScreen("choose a profile")
	tmux("send-keys", "-t", "e2e", "j", "Enter")
	waitScreen("main.fib")
	tmux("resize-window", "-t", "e2e", "-x", "80", "-y", "20")
	waitScreen(" 1 Top  2 Tree 3 Labels 4 Flame 5 Peek 6 Source 7 Disasm 8 Traces 9 Graph")
	tmux("send-keys", "-t", "e2e", "q")
	waitScreen("EXIT=0")
	if s := screen(); strings.Contains(s, "main.fib") {
		t.Errorf("run %d: the explorer's screen is still there after q:\n%s", run, s)
	}
}
