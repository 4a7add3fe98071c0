package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	gossh "golang.org/x/crypto/ssh"
)

// Config is the operator's choice of what to serve and the limits.
// Zero values take the defaults named beside them.
type Config struct {
	Dir string // the served directory
	// SourceRoot, a directory inside Dir, is where the Source view
	// looks for source files; none are read without it.
	SourceRoot     string
	HostKey        string // path of the host key, created when missing
	AuthorizedKeys string // path of the authorized_keys file

	MaxSessions       int           // sessions at once, in all (8)
	MaxSessionsPerKey int           // sessions at once per public key (4)
	MaxLoads          int           // profiles parsed at once (2); others wait
	MaxUnauth         int           // connections not yet authenticated (16)
	MaxConns          int           // authenticated connections (4 × MaxSessions)
	Handshake         time.Duration // to authenticate after connecting (10s)
	Idle              time.Duration // without a key press before a session ends (15m)
	MaxBytes          int64         // a profile's size, and its size decompressed (512 MiB)

	// Endpoints are NAME=URL entries of net/http/pprof servers whose
	// profiles sessions may fetch; EndpointSeconds is the CPU profile's
	// duration (10, at most 60) and EndpointTimeout bounds a fetch
	// beyond it (20s).
	Endpoints       []string
	EndpointSeconds int
	EndpointTimeout time.Duration

	Log io.Writer // one line per connection, authentication and session (stderr)

	// wrapRead, for tests, wraps each profile's reader.
	wrapRead func(io.Reader) io.Reader
}

func (c *Config) defaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.MaxSessions, 8)
	def(&c.MaxSessionsPerKey, 4)
	def(&c.MaxLoads, 2)
	def(&c.MaxUnauth, 16)
	def(&c.MaxConns, 4*c.MaxSessions)
	defd := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	defd(&c.Handshake, 10*time.Second)
	defd(&c.Idle, 15*time.Minute)
	defd(&c.EndpointTimeout, 20*time.Second)
	def(&c.EndpointSeconds, 10)
	c.EndpointSeconds = min(c.EndpointSeconds, 60)
	if c.MaxBytes <= 0 {
		c.MaxBytes = 512 << 20
	}
	if c.Log == nil {
		c.Log = os.Stderr
	}
}

// Server serves the explorer over SSH.
type Server struct {
	cfg   Config
	ssh   *ssh.Server
	files *rootFiles
	keys  *keyFile
	log   *log.Logger
	// sourceRoot is Config.SourceRoot, opened inside the served root.
	sourceRoot *os.Root

	mu       sync.Mutex
	closing  bool
	ln       net.Listener
	unauth   int
	conns    int // authenticated connections
	sessions map[*session]struct{}
	perKey   map[string]int
	running  sync.WaitGroup // session handlers
	nextID   atomic.Int64
}

// New checks the configuration and reads the keys; Serve starts.
func New(cfg Config) (*Server, error) {
	cfg.defaults()
	st, err := os.Stat(cfg.Dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", cfg.Dir)
	}
	root, err := os.OpenRoot(cfg.Dir)
	if err != nil {
		return nil, err
	}
	var sourceRoot *os.Root
	if cfg.SourceRoot != "" {
		if sourceRoot, err = openInside(root, cfg.Dir, cfg.SourceRoot); err != nil {
			root.Close()
			return nil, err
		}
	}
	s := &Server{
		cfg:        cfg,
		sourceRoot: sourceRoot,
		files:      &rootFiles{root: root, maxBytes: cfg.MaxBytes, loads: make(chan struct{}, cfg.MaxLoads), wrap: cfg.wrapRead},
		log:        log.New(cfg.Log, "pprof-tui serve: ", log.LstdFlags),
		sessions:   map[*session]struct{}{},
		perKey:     map[string]int{},
	}
	if len(cfg.Endpoints) > 0 {
		live := &endpoints{seconds: cfg.EndpointSeconds, maxBytes: cfg.MaxBytes}
		for _, spec := range cfg.Endpoints {
			e, err := parseEndpoint(spec, time.Duration(cfg.EndpointSeconds)*time.Second+cfg.EndpointTimeout)
			if err != nil {
				root.Close()
				return nil, err
			}
			if _, _, dup := live.lookup(livePrefix + e.name + ":heap"); dup {
				root.Close()
				return nil, fmt.Errorf("endpoint %s named twice", e.name)
			}
			live.list = append(live.list, e)
			s.log.Printf("endpoint %s: %s (%v)", e.name, e.request("", 0), e.addrs)
		}
		s.files.live = live
	}
	s.keys = &keyFile{path: cfg.AuthorizedKeys, log: s.log}
	if err := s.keys.load(); err != nil {
		root.Close()
		return nil, err
	}
	signer, created, err := hostKey(cfg.HostKey)
	if err != nil {
		root.Close()
		return nil, err
	}
	if created {
		s.log.Printf("host key created: %s (%s)", cfg.HostKey, gossh.FingerprintSHA256(signer.PublicKey()))
	}
	// The host key goes in first: wish.NewServer would otherwise write a
	// new one to the current directory.
	srv, err := wish.NewServer(
		func(srv *ssh.Server) error { srv.AddHostKey(signer); return nil },
		wish.WithVersion("pprof-tui"),
		wish.WithPublicKeyAuth(s.publicKey),
	)
	if err != nil {
		root.Close()
		return nil, err
	}
	srv.Handler = s.handle
	srv.ConnCallback = s.connect
	srv.ServerConfigCallback = s.serverConfig
	srv.ConnectionFailedCallback = func(c net.Conn, err error) {
		if !errors.Is(err, io.EOF) {
			s.log.Printf("conn %s closed before authentication: %v", c.RemoteAddr(), err)
		}
	}
	srv.SessionRequestCallback = s.sessionRequest
	// Only sessions; no direct-tcpip (-L), no tcpip-forward (-R), no
	// subsystems (sftp); agent and X11 requests are refused by
	// filterRequests.
	srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": s.sessionChannel}
	srv.RequestHandlers = map[string]ssh.RequestHandler{}
	srv.SubsystemHandlers = map[string]ssh.SubsystemHandler{}
	srv.LocalPortForwardingCallback = nil
	srv.ReversePortForwardingCallback = nil
	// A safety net for connections where nothing moves at all (a
	// vanished client); the input-idle timeout ends sessions first.
	srv.IdleTimeout = cfg.Idle + time.Minute
	s.ssh = srv
	return s, nil
}

// Serve accepts connections on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ln.Close()
		return ssh.ErrServerClosed
	}
	s.ln = ln
	s.mu.Unlock()
	s.log.Printf("serving %s on %s", s.cfg.Dir, ln.Addr())
	err := s.ssh.Serve(ln)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return ssh.ErrServerClosed
	}
	return err
}

// Shutdown stops accepting connections, asks every session to end (the
// explorer gives its client's terminal back and says why), waits for
// them until ctx ends, then closes every connection.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	if s.ln != nil {
		s.ln.Close()
	}
	open := make([]*session, 0, len(s.sessions))
	for ss := range s.sessions {
		open = append(open, ss)
	}
	s.mu.Unlock()
	if len(open) > 0 {
		s.log.Printf("shutting down: ending %d sessions", len(open))
	}
	for _, ss := range open {
		ss.stop(endShutdown)
	}
	done := make(chan struct{})
	go func() {
		s.running.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
		for _, ss := range open {
			ss.cancel() // whatever still runs is cut
		}
	}
	s.ssh.Close()
	s.files.root.Close()
	if s.sourceRoot != nil {
		s.sourceRoot.Close()
	}
	return err
}

// openInside opens path, which must lie inside dir, through dir's root:
// the kernel's walk, not a string check, keeps it inside.
func openInside(root *os.Root, dir, path string) (*os.Root, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(absDir, abs)
	if err != nil {
		return nil, fmt.Errorf("source root %s: %w", path, err)
	}
	r, err := root.OpenRoot(filepath.ToSlash(rel))
	if err != nil {
		return nil, fmt.Errorf("source root %s must be a directory inside %s: %w", path, dir, err)
	}
	return r, nil
}

// connect admits a new connection if fewer than MaxUnauth are still
// authenticating, and closes it if it has not authenticated within
// the handshake deadline: a port scanner or ssh-keyscan cannot hold
// the slots.
func (s *Server) connect(ctx ssh.Context, c net.Conn) net.Conn {
	s.mu.Lock()
	if s.closing || s.unauth >= s.cfg.MaxUnauth {
		closing := s.closing
		s.mu.Unlock()
		if closing {
			s.log.Printf("conn %s refused: shutting down", c.RemoteAddr())
		} else {
			s.log.Printf("conn %s refused: %d connections are authenticating", c.RemoteAddr(), s.cfg.MaxUnauth)
		}
		return nil
	}
	s.unauth++
	s.mu.Unlock()
	s.log.Printf("conn %s open", c.RemoteAddr())
	lc := &limitedConn{Conn: c, srv: s}
	lc.timer = time.AfterFunc(time.Hour, func() {
		if lc.authenticated() {
			s.log.Printf("conn %s closed: not authenticated within %v", c.RemoteAddr(), s.cfg.Handshake)
			c.Close()
		}
	})
	lc.timer.Reset(s.cfg.Handshake) // now that lc.timer is set
	ctx.SetValue(connKey, lc)
	return lc
}

type ctxKey struct{ name string }

var connKey = &ctxKey{"conn"}

// limitedConn holds an unauthenticated slot until authentication
// succeeds or the connection closes, then an authenticated one until it
// closes.
type limitedConn struct {
	net.Conn
	srv      *Server
	once     sync.Once
	timer    *time.Timer
	counted  atomic.Bool // holds an authenticated slot
	closed   sync.Once
	channels atomic.Int32 // session channels open
}

// authenticate takes an authenticated slot, if one is free, and frees
// the unauthenticated one.
func (c *limitedConn) authenticate() error {
	c.srv.mu.Lock()
	if c.srv.conns >= c.srv.cfg.MaxConns {
		c.srv.mu.Unlock()
		return fmt.Errorf("%d connections are open", c.srv.cfg.MaxConns)
	}
	c.srv.conns++
	c.counted.Store(true)
	c.srv.mu.Unlock()
	c.authenticated()
	return nil
}

// authenticated frees the slot; it reports whether it was the one to.
func (c *limitedConn) authenticated() bool {
	freed := false
	c.once.Do(func() {
		freed = true
		c.timer.Stop()
		c.srv.mu.Lock()
		c.srv.unauth--
		c.srv.mu.Unlock()
	})
	return freed
}

func (c *limitedConn) Close() error {
	c.authenticated()
	c.closed.Do(func() {
		if c.counted.Load() {
			c.srv.mu.Lock()
			c.srv.conns--
			c.srv.mu.Unlock()
		}
	})
	return c.Conn.Close()
}

// serverConfig is x/crypto's configuration for one connection: three
// tries, and the slot freed only once a key's signature is verified (a
// client may ask whether a public key would do without holding it).
func (s *Server) serverConfig(ctx ssh.Context) *gossh.ServerConfig {
	lc, _ := ctx.Value(connKey).(*limitedConn)
	return &gossh.ServerConfig{
		MaxAuthTries: 3,
		VerifiedPublicKeyCallback: func(conn gossh.ConnMetadata, key gossh.PublicKey, perms *gossh.Permissions, algo string) (*gossh.Permissions, error) {
			if lc != nil {
				if err := lc.authenticate(); err != nil {
					s.log.Printf("auth %s user %q key %s refused: %v", conn.RemoteAddr(), conn.User(), gossh.FingerprintSHA256(key), err)
					return nil, err
				}
			}
			s.log.Printf("auth %s user %q key %s accepted", conn.RemoteAddr(), conn.User(), gossh.FingerprintSHA256(key))
			return perms, nil
		},
		AuthLogCallback: func(conn gossh.ConnMetadata, method string, err error) {
			if method != "none" && method != "publickey" {
				s.log.Printf("auth %s user %q method %s refused: public keys only", conn.RemoteAddr(), conn.User(), method)
			}
		},
	}
}

// publicKey accepts the keys of the authorized_keys file.
func (s *Server) publicKey(ctx ssh.Context, key ssh.PublicKey) bool {
	if s.keys.authorized(key) {
		return true
	}
	s.log.Printf("auth %s user %q key %s refused: not an authorized key", ctx.RemoteAddr(), ctx.User(), gossh.FingerprintSHA256(key))
	return false
}

// sessionRequest lets a session start the shell (the explorer) and
// nothing else: no exec, no subsystem.
func (s *Server) sessionRequest(sess ssh.Session, req string) bool {
	if req == "shell" {
		return true
	}
	what := req
	if req == "exec" {
		what = fmt.Sprintf("exec %q", sess.RawCommand())
	} else if req == "subsystem" {
		what = fmt.Sprintf("subsystem %q", sess.Subsystem())
	}
	s.log.Printf("session %s user %q refused %s: the explorer only", sess.RemoteAddr(), sess.User(), what)
	return false
}

// sessionChannel is the session channel handler, with agent and X11
// forwarding requests refused before the library sees them (it would
// accept an agent request), and environment variables kept to the few
// that pick colours, a few times each (the library keeps every one).
// At most maxChannels session channels are open on one connection at
// once (each costs buffers, shell or not).
func (s *Server) sessionChannel(srv *ssh.Server, conn *gossh.ServerConn, ch gossh.NewChannel, ctx ssh.Context) {
	if lc, ok := ctx.Value(connKey).(*limitedConn); ok {
		if lc.channels.Add(1) > maxChannels {
			lc.channels.Add(-1)
			s.log.Printf("session %s user %q refused: %d sessions open on this connection", conn.RemoteAddr(), conn.User(), maxChannels)
			ch.Reject(gossh.ResourceShortage, "too many sessions on this connection")
			return
		}
		defer lc.channels.Add(-1)
	}
	ssh.DefaultSessionHandler(srv, conn, filteredChannel{ch}, ctx) // returns when the channel closes
}

const maxChannels = 4

type filteredChannel struct{ gossh.NewChannel }

// colourEnv are the environment variables a session may set: those that
// choose its colours (see colours).
var colourEnv = map[string]bool{"TERM": true, "COLORTERM": true, "NO_COLOR": true, "COLORFGBG": true}

func (f filteredChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := f.NewChannel.Accept()
	if err != nil {
		return ch, reqs, err
	}
	out := make(chan *gossh.Request)
	go func() {
		defer close(out)
		envs := 0
		for r := range reqs {
			refuse := false
			switch r.Type {
			case "auth-agent-req@openssh.com", "x11-req":
				refuse = true
			case "env":
				var kv struct{ Key, Value string }
				err := gossh.Unmarshal(r.Payload, &kv)
				refuse = err != nil || !colourEnv[kv.Key] || len(kv.Value) > 64 || envs >= 16
				envs++
			}
			if refuse {
				if r.WantReply {
					r.Reply(false, nil)
				}
				continue
			}
			out <- r
		}
	}()
	return ch, out, nil
}

// admit takes a session slot for key, or says why not.
func (s *Server) admit(ss *session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closing:
		return errors.New("the server is shutting down")
	case len(s.sessions) >= s.cfg.MaxSessions:
		return fmt.Errorf("the server has its %d sessions open; try again later", s.cfg.MaxSessions)
	case s.perKey[ss.key] >= s.cfg.MaxSessionsPerKey:
		return fmt.Errorf("your key has %d sessions open, the most it may", s.cfg.MaxSessionsPerKey)
	}
	s.sessions[ss] = struct{}{}
	s.perKey[ss.key]++
	s.running.Add(1)
	return nil
}

func (s *Server) leave(ss *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, ss)
	if s.perKey[ss.key]--; s.perKey[ss.key] <= 0 {
		delete(s.perKey, ss.key)
	}
	s.running.Done()
}

// Sessions reports the open sessions (for tests and the log).
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// Loads reports the profiles being parsed now.
func (s *Server) Loads() int { return len(s.files.loads) }

// opened names the profiles a session opened, for its log line.
func opened(names []string) string {
	if len(names) == 0 {
		return "nothing"
	}
	names = append([]string(nil), names...)
	sort.Strings(names)
	for i, n := range names {
		names[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(names, ", ")
}
