// Command pprof-tui is a terminal explorer for pprof and gperftools
// profiles. With a report flag (-top and the others of reports.go) it
// prints that report like `go tool pprof` and exits; otherwise it opens
// the interactive explorer.
//
//	pprof-tui [flags] [BINARY] SOURCE...
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/muesli/termenv"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/tui"
	"github.com/pprof-tui/pprof-tui/views"
)

// exitError carries the process exit status: 1 for failures, 2 for
// usage errors (a bad flag value), as pprof.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func usageError(format string, args ...any) error {
	return &exitError{2, fmt.Errorf(format, args...)}
}

type cmdline struct {
	opt     analysis.Options
	sources format.Sources
	load    format.Options
	// set names the flags given, so that a report can tell an unset
	// -nodefraction (its own default) from one given.
	set    map[string]bool
	legacy map[string]*bool
	// given are the settings flags set, in order, applied again over a
	// -config.
	given  [][2]string
	config string

	// reports are the report flags given, in order (at most one may
	// remain: see run).
	reports                   []chosenReport
	jsonOut, version, help    bool
	refresh                   time.Duration
	history                   int
	output, symbolize, binary string
}

// parseArgs parses pprof-style arguments; flags may follow the sources.
func parseArgs(args []string) (*cmdline, error) {
	c := &cmdline{set: map[string]bool{}}
	fs := newFlagSet(c)
	var positional []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				c.help = true
				return c, nil
			}
			return nil, usageError("%s", flagError(fs, err))
		}
		args = fs.Args()
		if len(args) > 0 {
			positional = append(positional, args[0])
			args = args[1:]
		}
	}
	fs.Visit(func(f *flag.Flag) { c.set[f.Name] = true })
	if c.config != "" {
		if err := c.applyConfig(); err != nil {
			return nil, err
		}
	}
	for _, l := range legacySampleIndex {
		if *c.legacy[l.flag] {
			c.opt.SampleIndex = l.sampleIndex
			c.opt.Mean = c.opt.Mean || l.mean
		}
	}
	// pprof's argument order: an executable before the profiles.
	if len(positional) >= 2 && isExecutable(positional[0]) {
		c.binary, positional = positional[0], positional[1:]
	}
	c.sources.Sources = positional
	c.sources.Binary = c.binary
	c.load.Symbolize = c.symbolize
	spec, _, chosen := c.report()
	c.load.NoInlines = c.opt.NoInlines || chosen && spec.noInlines
	c.load.BinaryPath = os.Getenv("PPROF_BINARY_PATH")
	return c, nil
}

// applyConfig applies -config: the named configuration from pprof's
// settings.json over the defaults, then the settings given as flags
// again, so that they win wherever they stand on the line.
func (c *cmdline) applyConfig() error {
	path, err := analysis.ConfigFilePath()
	if err != nil {
		return &exitError{2, fmt.Errorf("-config: %w", err)}
	}
	f, err := analysis.ReadConfigFile(path)
	if err != nil {
		return &exitError{2, fmt.Errorf("-config: %w", err)}
	}
	def := analysis.DefaultOptions()
	opt, err := f.Apply(c.config, def, def)
	if err != nil {
		return &exitError{2, fmt.Errorf("-config: %w (in %s)", err, path)}
	}
	if opt.NodeFraction != def.NodeFraction {
		c.set["nodefraction"] = true // the configuration's, not the explorer's default
	}
	for _, g := range c.given {
		if err := opt.Set(g[0], g[1]); err != nil {
			return &exitError{2, err}
		}
	}
	c.opt = opt
	return nil
}

// flagError rewords the flag package's errors: an unknown flag gets the
// closest ones; a bad value names the flag once.
func flagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return fmt.Sprintf("unknown flag -%s; %s", name, suggestFlag(fs, name))
	}
	// "invalid value "x" for flag -focus: invalid regexp ..." → "focus: invalid regexp ..."
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		if _, after, ok := strings.Cut(rest, " for flag -"); ok {
			if name, why, ok := strings.Cut(after, ": "); ok {
				return name + ": " + why
			}
		}
	}
	if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok {
		if _, after, ok := strings.Cut(rest, " for -"); ok {
			if name, why, ok := strings.Cut(after, ": "); ok {
				return name + ": " + why
			}
		}
	}
	return msg
}

func isExecutable(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return false
	}
	return string(magic[:]) == "\x7fELF"
}

// spareProc gives the Go scheduler one processor more than the machine
// has cores, unless $GOMAXPROCS is set. The engine splits its work into
// one goroutine per core, and background work (the next sample type's
// table, completing a partial table) runs while a person moves
// around: with one P per core, the goroutine that handles a key waited
// for a compute goroutine to be preempted (10-40 ms on two cores); with
// a spare P the kernel runs it at once. It is set here, for the
// explorer only, because it is the whole process's setting: tui, a
// library serve also runs, leaves it alone.
func spareProc() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(runtime.NumCPU() + 1)
	}
}

func main() {
	tuneMemory()
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		printError(os.Stderr, err)
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}

// printError prints the error that ends the program. It names files and
// URLs, and a name can hold escape sequences: they are drawn as symbols.
func printError(w io.Writer, err error) {
	fmt.Fprintln(w, "pprof-tui:", views.SafeLines(err.Error()))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "serve" {
		return serveCommand(ctx, args[1:], stdout, stderr)
	}
	c, err := parseArgs(args)
	if err != nil {
		return err
	}
	if c.help {
		usage(stdout)
		return nil
	}
	if c.version {
		_, err := fmt.Fprintln(stdout, version())
		return err
	}
	if len(c.reports) > 1 {
		return usageError("choose one report: %s", reportChoice())
	}
	spec, _, chosen := c.report()
	if c.jsonOut && spec.name != "top" {
		return usageError("-json goes with -top")
	}
	if !chosen {
		return explore(ctx, c, stdout, stderr)
	}
	if c.refresh != 0 {
		return usageError("-refresh goes with the explorer, not with a report")
	}
	if len(c.sources.Sources) == 0 {
		return usageError("usage: pprof-tui [flags] [BINARY] SOURCE...  (a report flag such as -top prints and exits)")
	}
	if spec.needsOutput && c.output == "" {
		return usageError("-%s needs -output=FILE", spec.name)
	}
	c.load.Status = func(msg string) { fmt.Fprintln(stderr, views.SafeLines(msg)) }
	p, err := format.Load(ctx, c.sources, c.load)
	if err != nil {
		return err
	}
	out := stdout
	if c.output != "" {
		f, err := os.Create(c.output)
		if err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	defer bw.Flush()
	e := analysis.NewEngine(p)
	if err := writeReport(bw, c, e); err != nil {
		var oe *analysis.OptionError
		if errors.As(err, &oe) {
			return &exitError{2, err}
		}
		return err
	}
	return bw.Flush()
}

// explore runs the interactive explorer on the sources (a picker when
// there are none). What can be checked before the screen is taken over is
// checked here, so that a typo is one line on stderr.
func explore(ctx context.Context, c *cmdline, stdout, stderr io.Writer) error {
	if err := c.opt.Validate(); err != nil {
		return &exitError{2, err}
	}
	stdin := false
	for _, group := range [][]string{c.sources.Sources, c.sources.Base, c.sources.DiffBase} {
		for _, src := range group {
			if src == "-" {
				stdin = true
				continue
			}
			if strings.Contains(src, "://") {
				continue
			}
			st, err := os.Stat(src)
			if err != nil {
				return err
			}
			if st.IsDir() {
				return fmt.Errorf("%s is a directory, not a profile", src)
			}
		}
	}
	if f, ok := stdout.(*os.File); !ok || !isatty.IsTerminal(f.Fd()) {
		return usageError("the explorer needs a terminal and stdout is not one; use a report flag such as -top")
	}
	cfg := tui.Config{
		Sources: c.sources,
		Load:    c.load,
		Options: c.opt,
		Output:  stdout,
	}
	// :config shares pprof's settings.json; without a config directory
	// (no $HOME) its configurations last for the session.
	cfg.SettingsFile, _ = analysis.ConfigFilePath()
	if c.refresh != 0 {
		if len(c.sources.Sources) != 1 || c.sources.Sources[0] == "-" {
			return usageError("-refresh needs one URL or file source")
		}
		cfg.Refresh, cfg.History = c.refresh, c.history
	}
	if !c.set["nodefraction"] {
		cfg.Options.NodeFraction = -1 // the explorer's own default: every node
	}
	if stdin {
		// The profile comes on stdin: the keys come from the terminal.
		tty, err := os.Open("/dev/tty")
		if err != nil {
			return fmt.Errorf("reading the profile from stdin needs a terminal for the keys: %w", err)
		}
		defer tty.Close()
		cfg.Input = tty
	}
	out := termenv.NewOutput(stdout)
	cfg.ColorProfile = out.EnvColorProfile() // Ascii under NO_COLOR or when not a terminal
	if cfg.ColorProfile != termenv.Ascii {
		// Ask the terminal now: once the program reads the keys, the
		// answer would arrive as key presses.
		dark := out.HasDarkBackground()
		cfg.DarkBackground = &dark
	}
	spareProc()
	err := tui.Run(ctx, cfg)
	var oe *analysis.OptionError
	if errors.As(err, &oe) {
		return &exitError{2, err} // a bad tag filter or sample type
	}
	return err
}
