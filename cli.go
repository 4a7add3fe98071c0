package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
)

// The command line is derived from three tables: analysis.Settings
// (pprof's settings, shared with the explorer's `:` line), reports
// (reports.go) and commandFlags below (what only the command line has:
// sources, symbolization, live refresh). Flag registration, -h and the
// tables of docs/settings.md and docs/reports.md come from them.

// Groups of command flags, as -h lists them.
const (
	groupReports   = "Reports (print and exit; at most one)"
	groupSources   = "Sources"
	groupSymbolize = "Symbolization"
	groupLive      = "Live (the explorer)"
	groupConfig    = "Saved configurations"
	groupProgram   = "This program"
)

// commandFlag is a flag that is not one of pprof's settings.
type commandFlag struct {
	group, name string
	placeholder string // "" for a boolean flag
	help        string
	value       flag.Value
}

// commandFlags lists the flags of c that are not settings, in -h's order:
// the reports (the reports table) first.
func commandFlags(c *cmdline) []commandFlag {
	var fs []commandFlag
	for _, r := range reports {
		fs = append(fs, commandFlag{groupReports, r.name, r.param, r.help, &reportFlag{c, r}})
	}
	return append(fs, []commandFlag{
		{groupReports, "json", "", "with -top: the rows as JSON, raw values", (*boolValue)(&c.jsonOut)},
		{groupReports, "output", "FILE", "write the report to FILE instead of stdout", (*stringValue)(&c.output)},

		{groupSources, "base", "FILE", "subtract this profile (repeatable)", (*stringList)(&c.sources.Base)},
		{groupSources, "diff_base", "FILE", "subtract this profile and take its total as 100%", (*stringList)(&c.sources.DiffBase)},
		{groupSources, "normalize", "", "scale the profile to the base's total first", (*boolValue)(&c.sources.Normalize)},
		{groupSources, "seconds", "N", "CPU profile duration for http(s):// sources", (*intValue)(&c.load.Seconds)},
		{groupSources, "timeout", "N", "give up on http(s):// sources after N seconds", (*intValue)(&c.load.Timeout)},
		{groupSources, "max_bytes", "N", "refuse a profile larger than N bytes decompressed, or perf script output of a perf.data larger than N; decoding holds at most 2N (default 4 GiB)", (*int64Value)(&c.load.MaxBytes)},

		{groupSymbolize, "symbolize", "MODE", "none, local (default), fastlocal, force, demangle=none|full|templates", (*stringValue)(&c.symbolize)},
		{groupSymbolize, "binary", "FILE", "the profiled binary (or give it before the profile)", (*stringValue)(&c.binary)},

		{groupLive, "refresh", "DURATION", "read the source again every DURATION, keeping the view: a CPU profile URL is fetched back to back for DURATION each; a file is read again when it changes", (*durationValue)(&c.refresh)},
		{groupLive, "history", "N", "snapshots whose totals the live trend keeps (default 60)", (*intValue)(&c.history)},

		{groupConfig, "config", "NAME", "apply the configuration NAME saved in pprof's settings.json (go tool pprof -http's Config menu, or the explorer's :config save); settings given as flags win", (*stringValue)(&c.config)},

		{groupProgram, "version", "", "print the version and exit", (*boolValue)(&c.version)},
		{groupProgram, "help", "", "print this help and exit (also -h)", (*boolValue)(&c.help)},
	}...)
}

// legacySampleIndex are pprof's shortcut flags for sample_index (and
// mean), as pprof's "Legacy convenience options".
var legacySampleIndex = []struct {
	flag, sampleIndex string
	mean              bool
}{
	{"inuse_space", "inuse_space", false}, {"inuse_objects", "inuse_objects", false},
	{"alloc_space", "alloc_space", false}, {"alloc_objects", "alloc_objects", false},
	{"total_delay", "delay", false}, {"contentions", "contentions", false},
	{"mean_delay", "delay", true},
}

// settingFlag sets a setting (or a choice of one) as its flag is parsed.
type settingFlag struct {
	opt    *analysis.Options
	name   string // the flag's name: a setting or one of its choices
	isBool bool
	given  *[][2]string // the settings given, name and value, in order
}

func (f *settingFlag) String() string { return "" }
func (f *settingFlag) Set(v string) error {
	if err := f.opt.Set(f.name, v); err != nil {
		// flag prefixes the flag's name; keep only what is wrong.
		if oe, ok := errors.AsType[*analysis.OptionError](err); ok {
			return oe.Err
		}
		return err
	}
	*f.given = append(*f.given, [2]string{f.name, v})
	return nil
}
func (f *settingFlag) IsBoolFlag() bool { return f.isBool }

func newFlagSet(c *cmdline) *flag.FlagSet {
	fs := flag.NewFlagSet("pprof-tui", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are returned; -h prints usage itself
	c.opt = analysis.DefaultOptions()
	c.load.MaxBytes = format.DefaultMaxBytes
	for _, s := range analysis.Settings() {
		fs.Var(&settingFlag{opt: &c.opt, name: s.Name, isBool: s.IsBool(), given: &c.given}, s.Name, s.Help)
		for _, ch := range s.Choices {
			fs.Var(&settingFlag{opt: &c.opt, name: ch, isBool: true, given: &c.given}, ch, "same as -"+s.Name+"="+ch)
		}
	}
	c.legacy = map[string]*bool{}
	for _, l := range legacySampleIndex {
		c.legacy[l.flag] = fs.Bool(l.flag, false, "same as -sample_index="+l.flag)
	}
	for _, f := range commandFlags(c) {
		fs.Var(f.value, f.name, f.help)
	}
	fs.Var((*boolValue)(&c.help), "h", "print this help and exit")
	return fs
}

// usage writes -h: the synopsis, then every flag by group, in at most
// 80 columns.
func usage(w io.Writer) {
	var c cmdline
	fmt.Fprint(w, `usage: pprof-tui [flags] [BINARY] SOURCE...

Opens the explorer on the profiles; with a report flag, prints that report
as go tool pprof does and exits. Without a SOURCE the explorer opens a
picker of the profiles in the current directory. A SOURCE is a file
(profile.proto, gzipped or not; gperftools or legacy text profiles; perf
script output or perf.data; V8 .cpuprofile; folded stacks), - for stdin,
or an http(s):// net/http/pprof URL. Several are merged. Flags take
pprof's names and may follow the sources. In the explorer, : sets the
same settings (:help lists them).

pprof-tui serve [flags] DIR serves the explorer on DIR's profiles over
SSH (pprof-tui serve -h lists its flags).
`)
	group := func(title string) { fmt.Fprintf(w, "\n%s:\n", title) }
	flags := commandFlags(&c)
	printGroup := func(g string) {
		group(g)
		for _, f := range flags {
			if f.group == g {
				writeFlag(w, f.name, f.placeholder, f.help)
			}
		}
	}
	printGroup(groupReports)
	settings := analysis.Settings()
	for _, g := range analysis.SettingGroups() {
		group(g)
		for _, s := range settings {
			if s.Group != g {
				continue
			}
			help := s.Help
			if d := s.Default(); d != "" && d != "false" && d != "0" {
				help += " (default " + d + ")"
			}
			if len(s.Choices) > 0 {
				help += "; also -" + strings.Join(s.Choices, ", -")
			}
			ph := s.ValueName()
			if s.IsBool() {
				ph = ""
			}
			writeFlag(w, s.Name, ph, help)
		}
		if g == analysis.GroupSample {
			names := make([]string, len(legacySampleIndex))
			for i, l := range legacySampleIndex {
				names[i] = "-" + l.flag
			}
			writeFlag(w, strings.Join(names, " "), "", "pprof's shortcuts for -sample_index=NAME (-mean_delay adds -mean)")
		}
	}
	printGroup(groupSources)
	printGroup(groupSymbolize)
	printGroup(groupLive)
	printGroup(groupConfig)
	printGroup(groupProgram)
	fmt.Fprint(w, `
Environment:
  PPROF_BINARY_PATH  directories to find binaries in for symbolization,
                     :-separated (default $HOME/pprof/binaries)
  NO_COLOR           draw the explorer without colour
`)
}

// writeFlag writes one flag: its spelling padded to a column, then its
// help, wrapped to 80 columns.
func writeFlag(w io.Writer, name, placeholder, help string) {
	const col, width = 24, 80
	spec := "  -" + name
	if strings.Contains(name, " ") { // a list of flags, already spelled
		spec = "  " + name
	}
	if placeholder != "" {
		spec += "=" + placeholder
	}
	var lines []string
	for _, word := range strings.Fields(help) {
		if n := len(lines); n > 0 && len(lines[n-1])+1+len(word) <= width-col {
			lines[n-1] += " " + word
		} else {
			lines = append(lines, word)
		}
	}
	if len(spec) > width {
		// A list of flags: wrap it too, under the first.
		fields := strings.Fields(spec)
		spec = " "
		for _, f := range fields {
			if len(spec)+1+len(f) > width {
				fmt.Fprintln(w, spec)
				spec = " "
			}
			spec += " " + f
		}
	}
	if len(spec) >= col {
		fmt.Fprintln(w, spec)
		spec = ""
	}
	for i, l := range lines {
		if i > 0 {
			spec = ""
		}
		fmt.Fprintf(w, "%-*s%s\n", col, spec, l)
	}
}

// version is -version: the module version and the VCS revision the
// binary was built from.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "pprof-tui (no build information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, when string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	out := "pprof-tui " + v
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if modified {
			rev += "+modified"
		}
		out += " (" + strings.TrimSpace(rev+" "+when) + ")"
	}
	return out + " " + bi.GoVersion
}

// suggestFlag names the flags closest to an unknown one.
func suggestFlag(fs *flag.FlagSet, name string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) {
		if len(f.Name) > 1 {
			names = append(names, f.Name)
		}
	})
	close := analysis.ClosestNames(name, names)
	if len(close) == 0 {
		return "pprof-tui -h lists the flags"
	}
	return "did you mean -" + strings.Join(close, " or -") + "?"
}

// flag.Value implementations over plain fields, so commandFlags can list
// every flag with its destination.
type (
	boolValue     bool
	stringValue   string
	intValue      int
	int64Value    int64
	stringList    []string
	durationValue time.Duration
)

func (d *durationValue) String() string { return time.Duration(*d).String() }
func (d *durationValue) Set(v string) error {
	x, err := time.ParseDuration(v)
	if err == nil && x < time.Second {
		err = fmt.Errorf("%s is shorter than a second", v)
	}
	*d = durationValue(x)
	return err
}

func (b *boolValue) String() string { return strconv.FormatBool(bool(*b)) }
func (b *boolValue) Set(v string) error {
	x, err := strconv.ParseBool(v)
	*b = boolValue(x)
	return err
}
func (b *boolValue) IsBoolFlag() bool { return true }

func (s *stringValue) String() string     { return string(*s) }
func (s *stringValue) Set(v string) error { *s = stringValue(v); return nil }

func (n *intValue) String() string { return strconv.Itoa(int(*n)) }
func (n *intValue) Set(v string) error {
	x, err := strconv.Atoi(v)
	*n = intValue(x)
	return err
}

func (n *int64Value) String() string { return strconv.FormatInt(int64(*n), 10) }
func (n *int64Value) Set(v string) error {
	x, err := strconv.ParseInt(v, 10, 64)
	*n = int64Value(x)
	return err
}

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// settingsMarkdown is the table of settings in docs/settings.md, generated
// from the settings table (a test keeps the copy there in step).
func settingsMarkdown() string {
	var b strings.Builder
	b.WriteString("| setting | value | default | what it does |\n| --- | --- | --- | --- |\n")
	for _, g := range analysis.SettingGroups() {
		for _, s := range analysis.Settings() {
			if s.Group != g {
				continue
			}
			value := "`" + s.ValueName() + "`"
			if s.IsBool() {
				value = "bool"
			}
			def := s.Default()
			if def == "" {
				def = "–"
			} else {
				def = "`" + def + "`"
			}
			help := s.Help
			if len(s.Choices) > 0 {
				help += "; each choice is a flag too (`-" + strings.Join(s.Choices, "`, `-") + "`)"
			}
			if s.Filter {
				help += "; a filter"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", s.Name, strings.ReplaceAll(value, "|", `\|`), def, strings.ReplaceAll(help, "|", `\|`))
		}
	}
	return b.String()
}
