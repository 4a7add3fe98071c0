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
	// Recursion folds recursion in the stacks: "direct" merges runs of
	// one node (f→f→f is f), "all" also every call back into a node
	// already on the stack, with the frames between (f→g→f→h is f→h),
	// as the Firefox Profiler's two recursion transforms. "" leaves the
	// stacks as they are, as pprof.
	Recursion string
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
	// NoTrim is pprof's trim=false: NodeCount, NodeFraction and
	// EdgeFraction are not applied (see Trimmed).
	NoTrim bool
	// Sort is "flat" (default) or "cum".
	Sort                string
	RelativePercentages bool
	DropNegative        bool
	// DivideBy divides every printed value (pprof's divide_by; 0 means 1).
	DivideBy float64
	// ShowColumns keeps line columns apart at granularity=lines.
	ShowColumns bool
	// CallTree makes -dot's and -callgrind's graph a tree of calling
	// contexts; CompactLabels leaves the profile's facts out of -tree's
	// header. As pprof's call_tree and compact_labels.
	CallTree, CompactLabels bool
	// IntelSyntax and GNUSyntax choose the assembly syntax of
	// disassembly (Go's by default, as go tool pprof).
	IntelSyntax, GNUSyntax bool

	// SourcePath and TrimPath are pprof's source_path and trim_path: where
	// the source view and -list look for files (directories separated
	// by the OS list separator; "" is the current directory), and path
	// prefixes to cut from the profile's file names first (see
	// SourceFiles).
	SourcePath, TrimPath string
}

// DefaultOptions returns pprof's defaults.
func DefaultOptions() Options {
	return Options{Granularity: "functions", NodeFraction: 0.005, EdgeFraction: 0.001, Sort: "flat", Unit: "minimum"}
}

// Trimmed returns o as the engine applies it: under trim=false no node
// or edge is dropped, as pprof.
func (o Options) Trimmed() Options {
	if o.NoTrim {
		o.NodeCount, o.NodeFraction, o.EdgeFraction = 0, 0, 0
	}
	return o
}

// Ratio is what printed values are multiplied by (1/divide_by).
func (o Options) Ratio() float64 {
	if o.DivideBy == 0 {
		return 1
	}
	return 1 / o.DivideBy
}

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
	return labelKeyFilter(&opt)
}

// The values of Options.Recursion that fold.
const (
	RecursionAll    = "all"
	RecursionDirect = "direct"
)
