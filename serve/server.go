package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
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
	MaxConns          int           // authenticated connections (4 × MaxSessions)
	MaxConnsPerKey    int           // authenticated connections per public key (2 × MaxSessionsPerKey)
	Handshake         time.Duration // to authenticate after connecting (10s)
	Idle              time.Duration // without a key press before a session ends (15m)
	MaxBytes          int64         // a profile's size, and its size decompressed (512 MiB)

	// Startups limits the connections not yet authenticated, as
	// OpenSSH's MaxStartups (10:30:100); PerSource those from one
	// address, as its PerSourceMaxStartups (4).
	Startups  Startups
	PerSource int

	// MaxMemory is what the profiles the sessions hold may take
	// together, by estimate (2 GiB); a load that would go beyond it
	// waits up to MemoryWait (30s) for other sessions to free some,
	// then is refused.
	MaxMemory  int64
	MemoryWait time.Duration

	// Endpoints are NAME=URL entries of net/http/pprof servers whose
	// profiles sessions may fetch; EndpointSeconds is the CPU profile's
	// duration (10, at most 60) and EndpointTimeout bounds a fetch
	// beyond it (20s).
	Endpoints       []string
	EndpointSeconds int
	EndpointTimeout time.Duration

	// Log gets one line per connection, authentication and session, as
	// slog's key=value text: every value a client chose is quoted, so
	// none can forge a line (stderr).
	Log io.Writer

	// wrapRead, for tests, wraps each profile's reader.
	wrapRead func(io.Reader) io.Reader
	// random, for tests, replaces the early drop's coin.
	random func() float64
}

func (c *Config) defaults() {
	def(&c.MaxSessions, 8)
	def(&c.MaxSessionsPerKey, 4)
	def(&c.MaxLoads, 2)
	def(&c.MaxConns, 4*c.MaxSessions)
	def(&c.MaxConnsPerKey, 2*c.MaxSessionsPerKey)
	def(&c.PerSource, 4)
	if c.Startups == (Startups{}) {
		c.Startups = DefaultStartups
	}
	if c.random == nil {
		c.random = rand.Float64
	}
	def(&c.Handshake, 10*time.Second)
	def(&c.Idle, 15*time.Minute)
	def(&c.EndpointTimeout, 20*time.Second)
	def(&c.EndpointSeconds, 10)
	c.EndpointSeconds = min(c.EndpointSeconds, 60)
	def(&c.MaxBytes, 512<<20)
	def(&c.MaxMemory, DefaultMaxMemory)
	def(&c.MemoryWait, 30*time.Second)
	if c.Log == nil {
		c.Log = os.Stderr
	}
}

// def gives a limit left zero, or set below zero, its default.
func def[T int | int64 | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// Server serves the explorer over SSH.
type Server struct {
	cfg   Config
	ssh   *ssh.Server
	files *rootFiles
	keys  *keyFile
	log   *slog.Logger
	mem   *budget
	// sourceRoot is Config.SourceRoot, opened inside the served root.
	sourceRoot *os.Root

	mu       sync.Mutex
	closing  bool
	ln       net.Listener
	unauth   int
	perAddr  map[string]int // unauthenticated connections by source address
	conns    int            // authenticated connections
	keyConns map[string]int // authenticated connections by key
	sessions map[*session]struct{}
	perKey   map[string]int
	running  sync.WaitGroup // session handlers
	nextID   atomic.Int64
}

// New checks the configuration and reads the keys; Serve starts.
func New(cfg Config) (*Server, error) {
	cfg.defaults()
	if err := cfg.Startups.check(); err != nil {
		return nil, err
	}
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
	mem := &budget{total: cfg.MaxMemory, wait: cfg.MemoryWait, changed: make(chan struct{})}
	s := &Server{
		cfg:        cfg,
		sourceRoot: sourceRoot,
		files:      &rootFiles{root: root, maxBytes: cfg.MaxBytes, loads: make(chan struct{}, cfg.MaxLoads), wrap: cfg.wrapRead, mem: mem},
		log:        slog.New(slog.NewTextHandler(cfg.Log, nil)),
		mem:        mem,
		perAddr:    map[string]int{},
		keyConns:   map[string]int{},
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
			s.log.Info("endpoint", "name", e.name, "url", e.request("", 0), "addrs", fmt.Sprint(e.addrs))
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
		s.log.Info("host key created", "path", cfg.HostKey, "fingerprint", gossh.FingerprintSHA256(signer.PublicKey()))
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
		// err holds what the client sent: its disconnect message, the
		// algorithms it offered. The text handler quotes it.
		if !errors.Is(err, io.EOF) {
			s.log.Info("conn closed before authentication", "addr", c.RemoteAddr().String(), "err", err.Error())
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
	s.log.Info("serving", "dir", s.cfg.Dir, "addr", ln.Addr().String(), "max_memory", s.cfg.MaxMemory,
		"max_startups", s.cfg.Startups.String(), "per_source_max_startups", s.cfg.PerSource)
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
		s.log.Info("shutting down", "sessions", len(open))
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

// connect admits a new connection unless too many are authenticating
// (see admitUnauth), and closes it if it has not authenticated within
// the handshake deadline: a port scanner or ssh-keyscan cannot hold
// the slots.
func (s *Server) connect(ctx ssh.Context, c net.Conn) net.Conn {
	addr := c.RemoteAddr().String()
	src := sourceOf(c.RemoteAddr())
	if why := s.admitUnauth(src); why != "" {
		s.log.Info("conn refused", "addr", addr, "why", why)
		return nil
	}
	s.log.Info("conn open", "addr", addr)
	lc := &limitedConn{Conn: c, srv: s, src: src}
	lc.timer = time.AfterFunc(time.Hour, func() {
		if lc.authenticated() {
			s.log.Info("conn closed", "addr", addr, "why", fmt.Sprintf("not authenticated within %v", s.cfg.Handshake))
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
	src      string // source address, for Config.PerSource
	key      string // the key's fingerprint, once authenticated
	once     sync.Once
	timer    *time.Timer
	counted  atomic.Bool // holds an authenticated slot
	closed   sync.Once
	channels atomic.Int32 // session channels open
}

// authenticate takes an authenticated slot for key, if one is free in
// all and for the key (so that one key cannot hold every slot, with
// connections that open no session), and frees the unauthenticated
// one.
func (c *limitedConn) authenticate(key string) error {
	c.srv.mu.Lock()
	switch {
	case c.counted.Load(): // a second key on one connection: still one slot
	case c.srv.conns >= c.srv.cfg.MaxConns:
		c.srv.mu.Unlock()
		return fmt.Errorf("%d connections are open", c.srv.cfg.MaxConns)
	case c.srv.keyConns[key] >= c.srv.cfg.MaxConnsPerKey:
		c.srv.mu.Unlock()
		return fmt.Errorf("this key has %d connections open, the most it may", c.srv.cfg.MaxConnsPerKey)
	default:
		c.srv.conns++
		c.srv.keyConns[key]++
		c.key = key
		c.counted.Store(true)
	}
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
		if c.srv.perAddr[c.src]--; c.srv.perAddr[c.src] <= 0 {
			delete(c.srv.perAddr, c.src)
		}
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
			if c.srv.keyConns[c.key]--; c.srv.keyConns[c.key] <= 0 {
				delete(c.srv.keyConns, c.key)
			}
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
			fp := gossh.FingerprintSHA256(key)
			if lc != nil {
				if err := lc.authenticate(fp); err != nil {
					s.log.Info("auth refused", "addr", conn.RemoteAddr().String(), "user", conn.User(), "key", fp, "why", err.Error())
					return nil, err
				}
			}
			s.log.Info("auth accepted", "addr", conn.RemoteAddr().String(), "user", conn.User(), "key", fp)
			return perms, nil
		},
		AuthLogCallback: func(conn gossh.ConnMetadata, method string, err error) {
			if method != "none" && method != "publickey" {
				s.log.Info("auth refused", "addr", conn.RemoteAddr().String(), "user", conn.User(), "method", method, "why", "public keys only")
			}
		},
	}
}

// publicKey accepts the keys of the authorized_keys file whose options
// let this address in now.
func (s *Server) publicKey(ctx ssh.Context, key ssh.PublicKey) bool {
	why := s.keys.authorized(key, ctx.RemoteAddr(), time.Now())
	if why == "" {
		return true
	}
	s.log.Info("auth refused", "addr", ctx.RemoteAddr().String(), "user", ctx.User(), "key", gossh.FingerprintSHA256(key), "why", why)
	return false
}

// sessionRequest lets a session start the shell (the explorer) and
// nothing else: no exec, no subsystem.
func (s *Server) sessionRequest(sess ssh.Session, req string) bool {
	if req == "shell" {
		return true
	}
	args := []any{"addr", sess.RemoteAddr().String(), "user", sess.User(), "request", req}
	if req == "exec" {
		args = append(args, "command", sess.RawCommand())
	} else if req == "subsystem" {
		args = append(args, "subsystem", sess.Subsystem())
	}
	s.log.Info("session request refused", append(args, "why", "the explorer only")...)
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
			s.log.Info("session refused", "addr", conn.RemoteAddr().String(), "user", conn.User(),
				"why", fmt.Sprintf("%d sessions open on this connection", maxChannels))
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

// opened names the profiles a session opened, for its log line. A
// client can type a name, so one holding the list's separator or a
// quote is quoted itself: slog quotes the whole value, which keeps it
// on its line but would not keep "a, b" one name.
func opened(names []string) string {
	if len(names) == 0 {
		return "nothing"
	}
	names = append([]string(nil), names...)
	sort.Strings(names)
	for i, n := range names {
		if q := strconv.Quote(n); strings.ContainsAny(n, `,"`) || q[1:len(q)-1] != n {
			names[i] = q
		}
	}
	return strings.Join(names, ", ")
}
