package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/term"
	"github.com/muesli/termenv"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
)

// Config is everything a program needs. Input, output, size and colour
// profile are parameters (not taken from the process) so that one
// program per SSH session can be served later as it is.
type Config struct {
	// Sources to load; with none, the program opens on a picker of the
	// profile-like files in Dir and the embedded demo profile.
	Sources format.Sources
	Load    format.Options
	Dir     string
	// Options is the opening state (pprof's flags). A negative
	// NodeFraction means unset: the explorer shows every node.
	Options analysis.Options

	Input  io.Reader
	Output io.Writer
	// Width and Height are the terminal's size when known (0 otherwise;
	// a terminal reports its own).
	Width, Height int
	// ColorProfile is what the output can show: termenv.Ascii for no
	// colour (NO_COLOR, not a terminal).
	ColorProfile termenv.Profile
	// DarkBackground picks the dark or light colours; nil asks the
	// terminal.
	DarkBackground *bool
	// NoMouse leaves the mouse to the terminal (text selection).
	NoMouse bool
	// Refresh reads the source again every Refresh (live mode; 0: once),
	// keeping History snapshots' totals for the trend (0: 60).
	Refresh time.Duration
	History int

	// Files, when set, is the only place profiles are read from (see
	// Files); `serve` sets it, with NoSave and NoSignalHandler. Source
	// files are then read only under SourceRoot (none when it is nil).
	Files      Files
	SourceRoot *os.Root
	// NoSave makes :save refuse: a served explorer writes nothing on
	// the server (y still copies to the client's clipboard).
	NoSave bool
	// SettingsFile is pprof's settings.json, where :config keeps the
	// saved configurations (analysis.ConfigFilePath); empty keeps them
	// in memory for this program only (serve).
	SettingsFile string
	// NoSignalHandler leaves SIGINT and SIGTERM to the caller: one
	// process serves many programs and stops them itself.
	NoSignalHandler bool
}

// frameRate is how many times a second the screen may be redrawn.
const frameRate = 120

// NewProgram returns the program for cfg and its root model.
func NewProgram(ctx context.Context, cfg Config) (*tea.Program, *Model) {
	m := NewModel(ctx, cfg)
	// A changed screen is written at the next frame: at bubbletea's
	// default 60 frames a second a key waited up to 17 ms for its
	// screen; at 120, up to 8 ms. Unchanged frames write nothing.
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(frameRate)}
	if cfg.Input != nil {
		opts = append(opts, tea.WithInput(cfg.Input))
	}
	if cfg.Output != nil {
		opts = append(opts, tea.WithOutput(cfg.Output))
	}
	if !cfg.NoMouse {
		opts = append(opts, tea.WithMouseCellMotion())
	}
	if cfg.NoSignalHandler {
		opts = append(opts, tea.WithoutSignalHandler())
	}
	return tea.NewProgram(m, opts...), m
}

// Run runs the explorer until the user quits. Loading errors (missing
// file, bad format) end it before it takes over the screen, and are
// returned.
func Run(ctx context.Context, cfg Config) error {
	defer startCPUProfile()()
	p, m := NewProgram(ctx, cfg)
	return run(p, m)
}

// startCPUProfile profiles the explorer's CPU from its start (the load
// included) into the file $PPROF_TUI_CPUPROFILE names, if set, and
// returns what stops it: where the time a person waits for goes (the
// walk's -cpuprofile).
func startCPUProfile() (stop func()) {
	path := os.Getenv("PPROF_TUI_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pprof-tui: CPU profile: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "pprof-tui: CPU profile: %v\n", err)
		}
	}
}

func run(p *tea.Program, m *Model) error {
	// bubbletea restores the terminal on every way out, its own panics
	// included; this is the safety net should anything else leave it raw.
	in, ok := m.cfg.Input.(*os.File)
	if m.cfg.Input == nil {
		in, ok = os.Stdin, true
	}
	if ok && term.IsTerminal(in.Fd()) {
		if st, err := term.GetState(in.Fd()); err == nil {
			defer term.Restore(in.Fd(), st)
		}
	}
	_, err := p.Run()
	writeHeapProfile(m)
	switch {
	case errors.Is(err, tea.ErrProgramPanic):
		// bubbletea has restored the terminal and printed the stack.
		return ErrPanic
	case err != nil && !errors.Is(err, tea.ErrProgramKilled):
		return err
	}
	return m.Err()
}

// writeHeapProfile writes the heap's profile, with the explorer's data
// still held (m), to the file $PPROF_TUI_HEAPPROFILE names, if set: what
// the memory the explorer holds after a session is (the walk's
// -heapprofile).
func writeHeapProfile(m *Model) {
	path := os.Getenv("PPROF_TUI_HEAPPROFILE")
	if path == "" {
		return
	}
	runtime.GC()
	f, err := os.Create(path)
	if err == nil {
		err = pprof.WriteHeapProfile(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pprof-tui: heap profile: %v\n", err)
	}
	runtime.KeepAlive(m)
}

// ErrPanic is Run's error when the explorer crashed (a bug): the terminal
// was restored and the stack printed above.
var ErrPanic = errors.New("internal error: the explorer crashed (the stack is above); please report it")

// newRenderer makes the lipgloss renderer for cfg's output and colours.
func newRenderer(cfg Config) *lipgloss.Renderer {
	out := cfg.Output
	if out == nil {
		out = io.Discard
	}
	r := lipgloss.NewRenderer(out)
	r.SetColorProfile(cfg.ColorProfile)
	if cfg.DarkBackground != nil {
		r.SetHasDarkBackground(*cfg.DarkBackground)
	}
	return r
}
