package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"
	"github.com/muesli/termenv"
	gossh "golang.org/x/crypto/ssh"

	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/tui"
)

// How a session ended, for its log line and its last words to the
// client.
type ending int32

const (
	endQuit     ending = iota // the user quit
	endGone                   // the client went away
	endIdle                   // no key for Config.Idle
	endShutdown               // the server stops
	endCrash                  // a bug in the explorer
)

func (e ending) String() string {
	return [...]string{"quit", "client gone", "idle", "shutdown", "crash"}[e]
}

// session is one SSH session running the explorer.
type session struct {
	id     int64
	key    string // the public key's SHA256 fingerprint
	cancel context.CancelFunc
	prog   atomic.Pointer[tea.Program]
	end    atomic.Int32 // the first reason given wins, by stop
	ended  atomic.Bool
	mu     sync.Mutex
	names  []string // the profiles opened
	mem    *memHold // the memory its profile is reckoned to take
}

// stop asks the program to quit (so the client's terminal is given
// back), for why; a program that does not answer is cut.
func (ss *session) stop(why ending) {
	if !ss.ended.CompareAndSwap(false, true) {
		return
	}
	ss.end.Store(int32(why))
	if p := ss.prog.Load(); p != nil {
		go p.Quit()
	}
	time.AfterFunc(2*time.Second, ss.cancel)
}

func (ss *session) why() ending {
	if !ss.ended.Load() {
		return endQuit
	}
	return ending(ss.end.Load())
}

// The largest window drawn: a client's claimed size must not make each
// frame as costly as it likes.
const maxWidth, maxHeight = 500, 200

// handle runs one session: the explorer on the session's PTY.
func (s *Server) handle(sess ssh.Session) {
	start := time.Now()
	addr, user := sess.RemoteAddr().String(), sess.User()
	fp := "none"
	if k := sess.PublicKey(); k != nil {
		fp = gossh.FingerprintSHA256(k)
	}
	pty, winch, ok := sess.Pty()
	if !ok {
		s.log.Info("session refused", "addr", addr, "user", user, "key", fp, "why", "no terminal")
		fmt.Fprint(sess.Stderr(), "pprof-tui serve opens the explorer in a terminal: ssh -t\r\n")
		sess.Exit(1)
		return
	}
	ctx, cancel := context.WithCancel(sess.Context())
	defer cancel()
	ss := &session{id: s.nextID.Add(1), key: fp, cancel: cancel, mem: &memHold{b: s.mem}}
	if err := s.admit(ss); err != nil {
		s.log.Info("session refused", "addr", addr, "user", user, "key", fp, "why", err.Error())
		fmt.Fprintf(sess.Stderr(), "pprof-tui serve: %s\r\n", err)
		sess.Exit(1)
		return
	}
	defer s.leave(ss)
	defer ss.mem.releaseAll() // after the program, which held the profile, has ended
	profile, dark := colours(sess.Environ())
	s.log.Info("session started", "session", ss.id, "addr", addr, "user", user, "key", fp,
		"term", pty.Term, "size", fmt.Sprintf("%dx%d", pty.Window.Width, pty.Window.Height), "colours", profileName(profile))
	code := 0
	defer func() {
		if r := recover(); r != nil { // a bug of this package's own
			s.log.Error("session crashed", "session", ss.id, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			ss.stop(endCrash)
			code = 1
		}
		ss.mu.Lock()
		names := opened(ss.names)
		ss.mu.Unlock()
		s.log.Info("session ended", "session", ss.id, "addr", addr, "user", user, "key", fp,
			"why", ss.why().String(), "after", time.Since(start).Round(time.Second).String(), "opened", names)
		sess.Exit(code)
	}()

	in := &input{r: sess, gone: func() { ss.stop(endGone) }}
	in.last.Store(time.Now().UnixNano())
	cfg := tui.Config{
		Dir:             filepath.Base(s.cfg.Dir),
		Files:           &sessionFiles{rootFiles: s.files, ss: ss},
		SourceRoot:      s.sourceRoot,
		NoSave:          true,
		NoSignalHandler: true,
		Load:            format.Options{MaxBytes: s.cfg.MaxBytes, Symbolize: "none"},
		Input:           in,
		Output:          sess,
		Width:           min(pty.Window.Width, maxWidth),
		Height:          min(pty.Window.Height, maxHeight),
		ColorProfile:    profile,
		DarkBackground:  &dark,
	}
	p, m := tui.NewProgram(ctx, cfg)
	ss.prog.Store(p)
	if ss.ended.Load() { // shutdown came first
		go p.Quit()
	}
	go func() {
		for w := range winch {
			p.Send(tea.WindowSizeMsg{Width: min(w.Width, maxWidth), Height: min(w.Height, maxHeight)})
		}
	}()
	go s.watchIdle(ctx, ss, in)

	_, err := p.Run()
	var crash *tui.CrashError
	switch {
	case errors.Is(err, tea.ErrProgramPanic):
		ss.stop(endCrash) // bubbletea printed the stack to the server's log
	case errors.As(m.Err(), &crash):
		ss.stop(endCrash)
		s.log.Error("session crashed", "session", ss.id, "err", crash.Error())
	}
	cancel() // ends the load, if one runs
	switch ss.why() {
	case endIdle:
		fmt.Fprintf(sess, "pprof-tui serve: no key pressed for %v; the session is closed\r\n", s.cfg.Idle)
	case endShutdown:
		fmt.Fprint(sess, "pprof-tui serve: the server is shutting down\r\n")
	case endCrash:
		fmt.Fprint(sess.Stderr(), "pprof-tui serve: the explorer crashed (a bug, logged on the server); the session is closed\r\n")
		code = 1
	}
}

// watchIdle ends the session once no input came for Config.Idle. The
// SSH server's own idle timer cannot do it: the explorer's output
// resets it, and closing the connection would leave the client's
// terminal in the alternate screen.
func (s *Server) watchIdle(ctx context.Context, ss *session, in *input) {
	tick := time.NewTicker(min(s.cfg.Idle/4, time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if time.Since(time.Unix(0, in.last.Load())) >= s.cfg.Idle {
				ss.stop(endIdle)
				return
			}
		}
	}
}

// input is the session's keys: it notes when the last came, and when
// the client stops sending (the channel closed).
type input struct {
	r    io.Reader
	last atomic.Int64
	gone func()
}

func (in *input) Read(b []byte) (int, error) {
	n, err := in.r.Read(b)
	if n > 0 {
		in.last.Store(time.Now().UnixNano())
	}
	if err != nil {
		in.gone()
	}
	return n, err
}

// sessionFiles is the served directory as one session sees it: its
// loads end with it, and what it opened is logged.
type sessionFiles struct {
	*rootFiles
	ss *session
}

func (f *sessionFiles) Load(ctx context.Context, name string, opt format.Options) (*format.Profile, error) {
	f.ss.mu.Lock()
	f.ss.names = append(f.ss.names, name)
	f.ss.mu.Unlock()
	return f.rootFiles.load(ctx, name, opt, f.ss.mem)
}

// colours is the session's colour profile from its environment, as a
// local terminal's would be: NO_COLOR, COLORTERM and TERM (OpenSSH
// sends TERM; the others when the client's SendEnv names them). The
// background is dark unless COLORFGBG says light: it is never asked of
// the terminal, as a terminal that does not answer would hold the
// session until its first key, and swallow that key.
func colours(env []string) (termenv.Profile, bool) {
	get := func(k string) string {
		v := ""
		for _, kv := range env {
			if name, val, ok := strings.Cut(kv, "="); ok && name == k {
				v = val // the last one wins, as in a shell
			}
		}
		return v
	}
	dark := true
	if fgbg := get("COLORFGBG"); fgbg != "" {
		parts := strings.Split(fgbg, ";")
		if bg, err := strconv.Atoi(parts[len(parts)-1]); err == nil {
			dark = bg < 7 || bg == 8
		}
	}
	term := strings.ToLower(get("TERM"))
	colorterm := strings.ToLower(get("COLORTERM"))
	switch {
	case get("NO_COLOR") != "", term == "", term == "dumb":
		return termenv.Ascii, dark
	case colorterm == "truecolor" || colorterm == "24bit",
		strings.Contains(term, "truecolor"), strings.Contains(term, "direct"):
		return termenv.TrueColor, dark
	case strings.Contains(term, "256color"):
		return termenv.ANSI256, dark
	}
	return termenv.ANSI, dark
}

func profileName(p termenv.Profile) string {
	switch p {
	case termenv.TrueColor:
		return "truecolor"
	case termenv.ANSI256:
		return "256 colours"
	case termenv.ANSI:
		return "16 colours"
	}
	return "no colour"
}
