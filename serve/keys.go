package serve

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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
// without disabling the keys after it. Options (from=, command=, …)
// are not honoured: the file only says who may open the explorer.
func authorizedKeys(path string) (keys map[string]bool, bad []int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("authorized keys: %w", err)
	}
	keys = map[string]bool{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		k, _, _, _, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			bad = append(bad, i+1)
			continue
		}
		if _, isCert := k.(*gossh.Certificate); isCert {
			bad = append(bad, i+1)
			continue
		}
		keys[string(k.Marshal())] = true
	}
	if len(keys) == 0 {
		return nil, bad, fmt.Errorf("authorized keys: no key in %s: nobody could log in", path)
	}
	return keys, bad, nil
}
