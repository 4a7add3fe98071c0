// Command pprof-tui is a terminal explorer for pprof and gperftools
// profiles. With a report flag (-top, -traces, -tags, -peek, -list,
// -folded, -proto) it prints that report like `go tool pprof` and exits; otherwise
// it opens the interactive explorer.
//
//	pprof-tui [flags] [BINARY] SOURCE...
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/muesli/termenv"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/analysis/report"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/tui"
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

// stringList is a repeatable string flag (-base, -diff_base).
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// optionFlag forwards a flag to analysis.Options.Set under pprof's name.
type optionFlag struct {
	opt    *analysis.Options
	name   string
	value  string
	isBool bool
	set    bool
}

func (f *optionFlag) String() string { return f.value }
func (f *optionFlag) Set(v string) error {
	f.value, f.set = v, true
	return nil
}
func (f *optionFlag) IsBoolFlag() bool { return f.isBool }

type cmdline struct {
	opt      analysis.Options
	optFlags []*optionFlag
	sources  format.Sources
	load     format.Options

	top, traces, tags, folded, proto, jsonOut, cum, flat bool
	peek, list, output, unit, symbolize, binary          string
	legacyIndex                                          map[string]*bool
}

func newFlagSet(c *cmdline) *flag.FlagSet {
	fs := flag.NewFlagSet("pprof-tui", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.opt = analysis.DefaultOptions()
	c.opt.NodeFraction = -1 // "unset": each report picks pprof's default
	for _, name := range []string{
		"sample_index", "focus", "ignore", "hide", "show", "show_from", "prune_from",
		"tagfocus", "tagignore", "tagshow", "taghide", "tagroot", "tagleaf", "granularity", "nodecount", "nodefraction", "edgefraction",
		"source_path", "trim_path",
	} {
		f := &optionFlag{opt: &c.opt, name: name}
		c.optFlags = append(c.optFlags, f)
		fs.Var(f, name, "pprof's -"+name)
	}
	for _, name := range []string{
		"mean", "noinlines", "relative_percentages", "drop_negative",
		"functions", "filefunctions", "files", "lines", "addresses",
	} {
		f := &optionFlag{opt: &c.opt, name: name, isBool: true}
		c.optFlags = append(c.optFlags, f)
		fs.Var(f, name, "pprof's -"+name)
	}
	c.legacyIndex = map[string]*bool{}
	for _, name := range []string{"inuse_space", "inuse_objects", "alloc_space", "alloc_objects", "total_delay", "contentions", "mean_delay"} {
		c.legacyIndex[name] = fs.Bool(name, false, "same as -sample_index="+name)
	}
	fs.BoolVar(&c.top, "top", false, "print the top table and exit")
	fs.BoolVar(&c.traces, "traces", false, "print every sample's stack and exit")
	fs.BoolVar(&c.tags, "tags", false, "print the label summary and exit")
	fs.BoolVar(&c.folded, "folded", false, "print collapsed stacks (flamegraph.pl input) and exit")
	fs.BoolVar(&c.proto, "proto", false, "write the filtered profile as gzipped profile.proto to -output")
	fs.BoolVar(&c.jsonOut, "json", false, "with -top: print JSON")
	fs.StringVar(&c.peek, "peek", "", "print callers and callees of functions matching the regexp and exit")
	fs.StringVar(&c.list, "list", "", "print the annotated source of functions matching the regexp and exit")
	fs.StringVar(&c.output, "output", "", "write the report to this file")
	fs.BoolVar(&c.cum, "cum", false, "sort by cumulative value")
	fs.BoolVar(&c.flat, "flat", false, "sort by flat value")
	fs.StringVar(&c.unit, "unit", "minimum", "unit for report values (ns, ms, s, B, MB, ...)")
	fs.StringVar(&c.symbolize, "symbolize", "", "symbolization: none, or pprof's options")
	fs.StringVar(&c.binary, "binary", "", "the profiled binary, for symbolization")
	fs.Var((*stringList)(&c.sources.Base), "base", "subtract this profile")
	fs.Var((*stringList)(&c.sources.DiffBase), "diff_base", "compare with this profile")
	fs.BoolVar(&c.sources.Normalize, "normalize", false, "scale the profile to the base's total first")
	fs.Int64Var(&c.load.MaxBytes, "max_bytes", format.DefaultMaxBytes, "maximum decompressed size of a profile")
	fs.IntVar(&c.load.Seconds, "seconds", 0, "sampling time for CPU profile URLs")
	fs.IntVar(&c.load.Timeout, "timeout", 0, "timeout in seconds for URL sources")
	return fs
}

// parseArgs parses pprof-style arguments; flags may follow the sources.
func parseArgs(args []string) (*cmdline, error) {
	c := &cmdline{}
	fs := newFlagSet(c)
	var positional []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, usageError("%v", err)
		}
		args = fs.Args()
		if len(args) > 0 {
			positional = append(positional, args[0])
			args = args[1:]
		}
	}
	for _, f := range c.optFlags {
		if !f.set {
			continue
		}
		v := f.value
		if err := c.opt.Set(f.name, v); err != nil {
			return nil, usageError("%v", err)
		}
	}
	for name, set := range c.legacyIndex {
		if *set {
			c.opt.SampleIndex = name
			if name == "mean_delay" {
				c.opt.SampleIndex, c.opt.Mean = "delay", true
			} else if name == "total_delay" {
				c.opt.SampleIndex = "delay"
			}
		}
	}
	if c.cum {
		c.opt.Sort = "cum"
	}
	c.opt.Unit = c.unit
	// pprof's argument order: an executable before the profiles.
	if len(positional) >= 2 && isExecutable(positional[0]) {
		c.binary, positional = positional[0], positional[1:]
	}
	c.sources.Sources = positional
	c.sources.Binary = c.binary
	c.load.Symbolize = c.symbolize
	c.load.NoInlines = c.opt.NoInlines
	c.load.BinaryPath = os.Getenv("PPROF_BINARY_PATH")
	return c, nil
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

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "pprof-tui:", err)
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseArgs(args)
	if err != nil {
		return err
	}
	reports := 0
	for _, b := range []bool{c.top, c.traces, c.tags, c.folded, c.proto, c.peek != "", c.list != ""} {
		if b {
			reports++
		}
	}
	if reports > 1 {
		return usageError("choose one report: -top, -traces, -tags, -peek, -list, -folded or -proto")
	}
	if c.jsonOut && !c.top {
		return usageError("-json goes with -top")
	}
	if reports == 0 {
		return explore(ctx, c, stdout, stderr)
	}
	if len(c.sources.Sources) == 0 {
		return usageError("usage: pprof-tui [flags] [BINARY] SOURCE...  (a report flag such as -top prints and exits)")
	}
	if c.proto && c.output == "" {
		return usageError("-proto needs -output=FILE")
	}
	c.load.Status = func(msg string) { fmt.Fprintln(stderr, msg) }
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
	err := tui.Run(ctx, cfg)
	var oe *analysis.OptionError
	if errors.As(err, &oe) {
		return &exitError{2, err} // a bad tag filter or sample type
	}
	return err
}

// writeReport prints the chosen report with pprof's defaults for it.
func writeReport(w io.Writer, c *cmdline, e *analysis.Engine) error {
	opt := c.opt
	p := e.Profile()
	switch {
	case c.top:
		if opt.NodeFraction < 0 {
			opt.NodeFraction = 0.005
		}
		top, err := e.Top(opt)
		if err != nil {
			return err
		}
		if c.jsonOut {
			return writeTopJSON(w, top)
		}
		return report.Top(w, p, top, opt, c.unit)
	case c.traces:
		opt.NodeFraction = 0
		tr, err := e.Traces(opt)
		if err != nil {
			return err
		}
		keyOK, err := analysis.LabelKeyFilter(opt)
		if err != nil {
			return err
		}
		return report.Traces(w, p, tr, opt, c.unit, keyOK)
	case c.peek != "":
		re, err := regexp.Compile(c.peek)
		if err != nil {
			return usageError("peek: invalid regexp %q: %v", c.peek, err)
		}
		// pprof does not trim the graph for -peek.
		opt.NodeFraction, opt.EdgeFraction, opt.NodeCount = 0, 0, 0
		pk, err := e.Peek(opt, re)
		if err != nil {
			return err
		}
		return report.Peek(w, p, pk, opt, c.unit)
	case c.list != "":
		re, err := regexp.Compile(c.list)
		if err != nil {
			return usageError("list: invalid regexp %q: %v", c.list, err)
		}
		lst, err := e.List(opt, re, analysis.NewSourceFiles(), true)
		if err != nil {
			return err
		}
		return report.List(w, lst, c.list, c.unit)
	case c.tags:
		r, err := e.Tags(opt)
		if err != nil {
			return err
		}
		return analysis.WriteTags(w, r)
	case c.proto:
		fp, err := e.Filtered(opt)
		if err != nil {
			return err
		}
		return format.Write(w, fp)
	case c.folded:
		stacks, err := e.Folded(opt)
		if err != nil {
			return err
		}
		for _, s := range stacks {
			if _, err := fmt.Fprintf(w, "%s %d\n", s.Frames, s.Value); err != nil {
				return err
			}
		}
		return nil
	}
	return usageError("this report is not built yet")
}

// topJSON is the -top -json document.
type topJSON struct {
	SampleType string       `json:"sample_type"`
	Unit       string       `json:"unit"`
	Total      int64        `json:"total"`
	Rows       []topJSONRow `json:"rows"`
}

type topJSONRow struct {
	Name   string `json:"name"`
	Flat   int64  `json:"flat"`
	Cum    int64  `json:"cum"`
	Inline string `json:"inline"`
}

func writeTopJSON(w io.Writer, top *analysis.Top) error {
	doc := topJSON{SampleType: top.SampleType.Type, Unit: top.SampleType.Unit, Total: top.Total, Rows: []topJSONRow{}}
	for _, r := range top.Rows {
		doc.Rows = append(doc.Rows, topJSONRow{r.Name, r.Flat, r.Cum, r.Inline})
	}
	enc := json.NewEncoder(w)
	return enc.Encode(doc)
}
