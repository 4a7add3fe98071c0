package analysis

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pprof-tui/pprof-tui/format"
)

// Options are pprof's report options, with pprof's names and defaults.
type Options struct {
	// SampleIndex selects the value: a sample type name ("alloc_space")
	// or its index ("1"). "" means the profile's default_sample_type, else
	// the last type.
	SampleIndex string
	// Mean reports each value divided by the sample count (value 0).
	Mean bool

	Focus, Ignore, Hide, Show, ShowFrom, PruneFrom string
	TagFocus, TagIgnore, TagShow, TagHide          string
	// TagRoot and TagLeaf list label keys (comma-separated) whose values
	// become pseudo-frames above the root or below the leaf of each
	// sample's stack, as pprof's -tagroot/-tagleaf.
	TagRoot, TagLeaf string
	// Unit is pprof's -unit ("minimum" when empty). Reports format values
	// with it; it also names -tagroot/-tagleaf frames of numeric labels.
	Unit string

	// Granularity is functions (default), filefunctions, files, lines or
	// addresses.
	Granularity string
	NoInlines   bool

	// NodeCount limits the rows (<= 0: no limit); NodeFraction drops nodes
	// whose cum is below this fraction of the total (pprof's default 0.005).
	NodeCount    int
	NodeFraction float64
	// EdgeFraction hides call edges below this fraction of the total
	// (pprof's default 0.001); it decides the inline markers.
	EdgeFraction float64
	// Sort is "flat" (default) or "cum".
	Sort                string
	RelativePercentages bool
	DropNegative        bool

	// SourcePath and TrimPath are pprof's source_path and trim_path: where
	// the source view and -list look for files (directories separated
	// by the OS list separator; "" is the current directory), and path
	// prefixes to cut from the profile's file names first (see
	// SourceFiles).
	SourcePath, TrimPath string
}

// DefaultOptions returns pprof's defaults.
func DefaultOptions() Options {
	return Options{Granularity: "functions", NodeFraction: 0.005, EdgeFraction: 0.001, Sort: "flat"}
}

// Granularities lists the valid Granularity values.
var Granularities = []string{"functions", "filefunctions", "files", "lines", "addresses"}

// OptionError is a bad option value; it names the option, as pprof's flag.
type OptionError struct {
	Option string
	Err    error
}

func (e *OptionError) Error() string { return e.Option + ": " + e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

func optErr(option string, format string, args ...any) error {
	return &OptionError{Option: option, Err: fmt.Errorf(format, args...)}
}

// SampleIndex resolves Options.SampleIndex against p.
func SampleIndex(p *format.Profile, sel string) (int, error) {
	if len(p.SampleTypes) == 0 {
		return 0, optErr("sample_index", "the profile has no sample types")
	}
	if sel == "" {
		return p.DefaultSampleIndex(), nil
	}
	if n, err := strconv.Atoi(sel); err == nil {
		if n < 0 || n >= len(p.SampleTypes) {
			return 0, optErr("sample_index", "%d is out of range [0..%d]", n, len(p.SampleTypes)-1)
		}
		return n, nil
	}
	// As pprof: "inuse_space" also selects a legacy profile's "space".
	noInuse := strings.TrimPrefix(sel, "inuse_")
	for i, st := range p.SampleTypes {
		if st.Type == sel || st.Type == noInuse {
			return i, nil
		}
	}
	var names []string
	for _, st := range p.SampleTypes {
		names = append(names, st.Type)
	}
	return 0, optErr("sample_index", "sample type %q not found; the profile has %s", sel, strings.Join(names, ", "))
}

func compileRegexp(option, expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, optErr(option, "invalid regexp %q: %v", expr, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return re, nil
}

func validGranularity(g string) bool {
	for _, x := range Granularities {
		if g == x {
			return true
		}
	}
	return false
}

// Settings lists the option names Set accepts, as pprof spells them.
var Settings = []string{
	"sample_index", "mean", "focus", "ignore", "hide", "show", "show_from", "prune_from",
	"tagfocus", "tagignore", "tagshow", "taghide", "tagroot", "tagleaf", "unit", "granularity", "noinlines",
	"nodecount", "nodefraction", "edgefraction", "sort", "relative_percentages", "drop_negative",
	"source_path", "trim_path",
}

// Set sets one option by its pprof name, as the command line and the
// interactive `:` prompt spell it ("focus", "granularity", ...). The
// granularity names are accepted as boolean options too ("lines=true").
func (o *Options) Set(name, value string) error {
	str := map[string]*string{
		"sample_index": &o.SampleIndex, "focus": &o.Focus, "ignore": &o.Ignore, "hide": &o.Hide,
		"show": &o.Show, "show_from": &o.ShowFrom, "prune_from": &o.PruneFrom,
		"tagfocus": &o.TagFocus, "tagignore": &o.TagIgnore, "tagshow": &o.TagShow, "taghide": &o.TagHide,
		"tagroot": &o.TagRoot, "tagleaf": &o.TagLeaf, "unit": &o.Unit,
		"source_path": &o.SourcePath, "trim_path": &o.TrimPath,
	}
	if p, ok := str[name]; ok {
		*p = value
		return nil
	}
	boolean := map[string]*bool{
		"mean": &o.Mean, "noinlines": &o.NoInlines, "relative_percentages": &o.RelativePercentages,
		"drop_negative": &o.DropNegative,
	}
	if p, ok := boolean[name]; ok {
		b, err := parseBool(value)
		if err != nil {
			return optErr(name, "%v", err)
		}
		*p = b
		return nil
	}
	switch name {
	case "granularity":
		if !validGranularity(value) {
			return optErr(name, "%q is not one of %s", value, strings.Join(Granularities, ", "))
		}
		o.Granularity = value
	case "functions", "filefunctions", "files", "lines", "addresses":
		b, err := parseBool(value)
		if err != nil {
			return optErr(name, "%v", err)
		}
		if b {
			o.Granularity = name
		} else if o.Granularity == name {
			o.Granularity = "functions"
		}
	case "nodecount":
		n, err := strconv.Atoi(value)
		if err != nil {
			return optErr(name, "%q is not an integer", value)
		}
		o.NodeCount = n
	case "nodefraction", "edgefraction":
		f, err := strconv.ParseFloat(value, 64)
		if err != nil || f < 0 || f > 1 {
			return optErr(name, "%q is not a fraction between 0 and 1", value)
		}
		if name == "nodefraction" {
			o.NodeFraction = f
		} else {
			o.EdgeFraction = f
		}
	case "sort":
		if value != "flat" && value != "cum" {
			return optErr(name, "%q is not flat or cum", value)
		}
		o.Sort = value
	default:
		return optErr(name, "unknown option")
	}
	return nil
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "", "true", "t", "yes", "y", "1", "on":
		return true, nil
	case "false", "f", "no", "n", "0", "off":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean", s)
}

// LabelKeyFilter compiles tagshow and taghide into a predicate over
// label keys (nil when both are empty), for reports that print labels.
func LabelKeyFilter(opt Options) (func(key string) bool, error) {
	if opt.TagShow == "" && opt.TagHide == "" {
		return nil, nil
	}
	return labelKeyFilter(opt.TagShow, opt.TagHide)
}

// Validate checks what can be checked without a profile: the regexps,
// the granularity and the sort order. The interactive explorer calls it
// before it takes over the screen; the tag filters and the sample type
// are checked against the profile when a report is computed.
func (o Options) Validate() error {
	if _, err := compileOptions(&o); err != nil {
		return err
	}
	if _, err := labelKeyFilter(o.TagShow, o.TagHide); err != nil {
		return err
	}
	if o.Granularity != "" && !validGranularity(o.Granularity) {
		return optErr("granularity", "%q is not one of %s", o.Granularity, strings.Join(Granularities, ", "))
	}
	if o.Sort != "" && o.Sort != "flat" && o.Sort != "cum" {
		return optErr("sort", "%q is not flat or cum", o.Sort)
	}
	return nil
}
