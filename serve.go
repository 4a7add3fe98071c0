package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/pprof-tui/pprof-tui/serve"
)

const serveUsage = `usage: pprof-tui serve [flags] DIR

Serves the explorer over SSH: each session gets the picker of the
profiles in DIR and the explorer, in its own terminal. Public-key
authentication only; no shell, no forwarding; nothing outside DIR is
read, nothing is written and no program is run (perf.data is refused).

`

// serveCommand is `pprof-tui serve`: it runs until SIGINT or SIGTERM,
// then ends the sessions (their terminals given back) and exits 0.
func serveCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(stdout) // asked for: not an error
		}
	}
	var cfg serve.Config
	listen := fs.String("listen", "127.0.0.1:2222", "address to listen on (loopback unless you choose another)")
	fs.StringVar(&cfg.HostKey, "host_key", "", "host key file, created (ed25519, 0600) when missing (default $XDG_STATE_HOME/pprof-tui/host_ed25519)")
	fs.StringVar(&cfg.AuthorizedKeys, "authorized_keys", "", "public keys allowed in, one a line (default ~/.ssh/authorized_keys)")
	fs.IntVar(&cfg.MaxSessions, "max_sessions", 8, "sessions at once, in all")
	fs.IntVar(&cfg.MaxSessionsPerKey, "max_sessions_per_key", 4, "sessions at once per public key")
	fs.IntVar(&cfg.MaxLoads, "max_loads", 2, "profiles parsed at once; other sessions wait their turn")
	cfg.Startups = serve.DefaultStartups
	fs.Func("max_startups", "connections still authenticating, as OpenSSH's MaxStartups start:rate:full: from start on, a new one is dropped with probability rate% rising to 100% at full (default \"10:30:100\")", func(v string) error {
		st, err := serve.ParseStartups(v)
		cfg.Startups = st
		return err
	})
	fs.IntVar(&cfg.PerSource, "per_source_max_startups", 4, "connections still authenticating from one address")
	fs.IntVar(&cfg.MaxConns, "max_connections", 0, "authenticated connections at once (default 4 × -max_sessions)")
	fs.IntVar(&cfg.MaxConnsPerKey, "max_connections_per_key", 0, "authenticated connections at once per public key (default 2 × -max_sessions_per_key)")
	fs.Int64Var(&cfg.MaxMemory, "max_memory", serve.DefaultMaxMemory, "memory the sessions' profiles may take together, by estimate (3 × decoded size each); a load beyond it waits, then is refused")
	fs.DurationVar(&cfg.Handshake, "handshake", 10*time.Second, "time to authenticate before the connection is closed")
	fs.DurationVar(&cfg.Idle, "idle", 15*time.Minute, "a session without a key press for this long is closed")
	fs.StringVar(&cfg.SourceRoot, "source_root", "", "a directory inside DIR where the Source view finds source files (default: none are read)")
	fs.Int64Var(&cfg.MaxBytes, "max_bytes", 512<<20, "largest profile served, in bytes, on disk and decompressed")
	fs.Func("endpoint", "NAME=URL of a net/http/pprof server whose profiles sessions may fetch (repeatable)", func(v string) error {
		cfg.Endpoints = append(cfg.Endpoints, v)
		return nil
	})
	fs.IntVar(&cfg.EndpointSeconds, "endpoint_seconds", 10, "duration of an endpoint's CPU profile, at most 60")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), serveUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return &exitError{2, err}
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageError("serve takes one directory")
	}
	cfg.Dir = fs.Arg(0)
	cfg.Log = stderr
	if cfg.HostKey == "" {
		path, err := serve.DefaultHostKey()
		if err != nil {
			return err
		}
		cfg.HostKey = path
	}
	if cfg.AuthorizedKeys == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("no -authorized_keys and no home directory: %w", err)
		}
		cfg.AuthorizedKeys = filepath.Join(home, ".ssh", "authorized_keys")
	}
	srv, err := serve.New(cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	// bubbletea prints a crashed session's stack to stdout: that is the
	// server's log too.
	defer func(stdout *os.File) { os.Stdout = stdout }(os.Stdout)
	os.Stdout = os.Stderr
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	stop() // a second signal ends the process at once
	fmt.Fprintln(stderr, "pprof-tui serve: stopping")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		fmt.Fprintln(stderr, "pprof-tui serve: sessions cut after 5s:", err)
	}
	<-errc
	return nil
}
