package serve

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// DefaultHostKey is where the host key lives unless -host_key says
// otherwise: $XDG_STATE_HOME/pprof-tui/host_ed25519, or under
// ~/.local/state.
func DefaultHostKey() (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("host key: no $XDG_STATE_HOME and no home directory: %w", err)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "pprof-tui", "host_ed25519"), nil
}

// hostKey reads the host key at path, or creates it (ed25519, mode
// 0600, its directory 0700) when there is none, so that clients'
// known_hosts entries stay valid across restarts.
func hostKey(path string) (gossh.Signer, bool, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
			return nil, false, fmt.Errorf("host key %s: mode %v lets others read it; chmod 600 it", path, st.Mode().Perm())
		}
		s, err := gossh.ParsePrivateKey(data)
		if err != nil {
			return nil, false, fmt.Errorf("host key %s: %w", path, err)
		}
		return s, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("host key: %w", err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, false, fmt.Errorf("host key: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "pprof-tui serve host key")
	if err != nil {
		return nil, false, fmt.Errorf("host key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false, fmt.Errorf("host key: %w", err)
	}
	// O_EXCL: two servers starting at once must not overwrite each
	// other's key.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("host key: %w", err)
	}
	if _, err := f.Write(pem.EncodeToMemory(block)); err != nil {
		f.Close()
		os.Remove(path)
		return nil, false, fmt.Errorf("host key: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, false, fmt.Errorf("host key: %w", err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	return s, true, err
}

// authorizedKeys reads an authorized_keys file: one key a line, each
// parsed on its own, so that a malformed line is reported and skipped
// without disabling the keys after it. Of the options, from= and
// expiry-time= are honoured (see keyEntry); a line whose options limit
// what the key may do in ways the explorer cannot keep (command=,
// no-pty, restrict, ...) is skipped, as the key was not meant to open
// it. bad says why each skipped line was.
func authorizedKeys(path string) (keys map[string][]keyEntry, bad []badLine, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("authorized keys: %w", err)
	}
	keys = map[string][]keyEntry{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		k, _, options, _, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			bad = append(bad, badLine{i + 1, "not a key"})
			continue
		}
		if _, isCert := k.(*gossh.Certificate); isCert {
			bad = append(bad, badLine{i + 1, "a certificate, not a key"})
			continue
		}
		e, err := parseKeyOptions(options)
		if err != nil {
			bad = append(bad, badLine{i + 1, err.Error()})
			continue
		}
		keys[string(k.Marshal())] = append(keys[string(k.Marshal())], e)
	}
	if len(keys) == 0 {
		return nil, bad, fmt.Errorf("authorized keys: no key in %s: nobody could log in", path)
	}
	return keys, bad, nil
}

type badLine struct {
	line int
	why  string
}

// keyFile is the authorized_keys file, read again when it changes (as
// OpenSSH reads it at each login), so that adding or removing a key
// needs no restart.
type keyFile struct {
	path string
	log  *slog.Logger
	mu   sync.Mutex
	keys map[string][]keyEntry
	mod  time.Time
	size int64
}

// load reads the file; the keys it had are dropped if it cannot be
// read.
func (k *keyFile) load() error {
	st, err := os.Stat(k.path)
	if err != nil {
		k.keys = nil
		return fmt.Errorf("authorized keys: %w", err)
	}
	k.mod, k.size = st.ModTime(), st.Size()
	keys, bad, err := authorizedKeys(k.path)
	for _, b := range bad {
		k.log.Warn("authorized keys: line skipped", "path", k.path, "line", b.line, "why", b.why)
	}
	k.keys = keys
	return err
}

// authorized says why key may not log in from addr at now, or "" when
// it may: one of its lines must let it.
func (k *keyFile) authorized(key gossh.PublicKey, addr net.Addr, now time.Time) string {
	// The stat runs outside the lock, so that logins wait on each other
	// only while the file is read again.
	st, err := os.Stat(k.path)
	k.mu.Lock()
	defer k.mu.Unlock()
	if err != nil || !st.ModTime().Equal(k.mod) || st.Size() != k.size {
		if err := k.load(); err != nil {
			k.log.Error("authorized keys", "err", err.Error())
		} else {
			k.log.Info("authorized keys read again", "path", k.path, "keys", len(k.keys))
		}
	}
	entries, ok := k.keys[string(key.Marshal())]
	if !ok {
		return "not an authorized key"
	}
	why := ""
	for _, e := range entries {
		if why = e.allows(addr, now); why == "" {
			return ""
		}
	}
	return why
}
