package analysis

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The settings table: every pprof setting the engine, the reports and the
// explorer take, declared once. Options.Set, Validate and Filters, the
// command-line flags and -h, the explorer's `:` line with its completion
// and `:help`, the status bar and the table in docs/settings.md are all
// derived from it, so adding a setting is one entry here plus the code
// that honours it.

// Kind is what a setting's value is.
type Kind int

const (
	KindBool      Kind = iota // true or false; a bare name means true
	KindInt                   // an integer
	KindFloat                 // a number
	KindString                // free text: a unit, a path list, label keys
	KindRegexp                // a regular expression
	KindTagFilter             // pprof's tag filter: [KEY=]RE[,RE...] or [KEY=]LO:HI
	KindChoice                // one of Choices; each choice is also a boolean setting
)

// Values is what a setting's values are drawn from, which the explorer's
// `:` line completes from.
type Values int

const (
	ValuesFree        Values = iota // anything: numbers, paths; nothing to offer
	ValuesBool                      // true or false
	ValuesChoice                    // the setting's Choices
	ValuesSampleType                // the profile's sample types
	ValuesUnit                      // UnitNames
	ValuesFunction                  // the profile's function names, as regexps
	ValuesLabelFilter               // KEY=VALUE of the profile's labels
	ValuesLabelKey                  // one of the profile's label keys
	ValuesLabelKeys                 // the profile's label keys, comma-separated
)

// filterUse is what a filter setting is matched against, and so what
// depends on its value.
type filterUse int8

const (
	notFilter filterUse = iota
	// flagsFrames: a regexp over frames that selects samples (focus,
	// ignore); only the location view's flags depend on it, not which
	// lines of a location remain.
	flagsFrames
	// cutsFrames: a regexp over frames that removes lines or cuts
	// stacks; the location view's lines depend on it.
	cutsFrames
	selectsSamples // a tag filter over the samples' labels
	keysLabels     // a regexp over label keys, for reports that print labels
	foldsStacks    // a transform of the stacks that drops no sample (recursion)
)

// Groups of settings, in the order -h and :help list them.
const (
	GroupSample  = "Sample type and values"
	GroupNodes   = "Nodes, granularity and order"
	GroupFilters = "Filters"
	GroupLabels  = "Labels"
	GroupSource  = "Source files"
	GroupCompat  = "Accepted for pprof compatibility"
)

// SettingGroups lists the groups in the order usage text shows them.
func SettingGroups() []string {
	return []string{GroupSample, GroupNodes, GroupFilters, GroupLabels, GroupSource, GroupCompat}
}

// Setting describes one of pprof's settings.
type Setting struct {
	Name    string
	Kind    Kind
	Group   string
	Choices []string // KindChoice: the values, each also a boolean setting
	// Values is what the values are drawn from; when ValuesFree it
	// follows from Kind (a boolean, a choice, a function regexp or a
	// label filter) and, for a regexp over label keys, from its use.
	Values Values
	// Placeholder names the value in usage text ("NAME|N"); when empty
	// it follows from Kind.
	Placeholder string
	Help        string // one line, in our words
	More        string // what `:help NAME` adds (may be empty)
	// Filter marks the settings that select samples or frames: the status
	// bar lists them and `reset` clears them. Listed ones also appear in
	// pprof's "Active filters:" report header (prune_from does not).
	// Filter follows from use, which every filter has.
	Filter, Listed bool

	get func(*Options) string
	set func(*Options, string) error // the error names no setting; Set adds it
	// use is, for a filter, what it is matched against. A regexp filter
	// compiles into the field of compiled that rx returns, a tag filter
	// into that of tagFilters that tag returns.
	use filterUse
	rx  func(*compiled) **regexp.Regexp
	tag func(*tagFilters) *sampleFilter
}

// Value returns the setting's value in o, spelled as Set takes it.
func (s *Setting) Value(o Options) string { return s.get(&o) }

// Default returns the setting's default value.
func (s *Setting) Default() string { return s.Value(DefaultOptions()) }

// IsBool reports whether the setting may be given without a value.
func (s *Setting) IsBool() bool { return s.Kind == KindBool }

// ValueName is the placeholder usage text shows for the value.
func (s *Setting) ValueName() string {
	if s.Placeholder != "" {
		return s.Placeholder
	}
	switch s.Kind {
	case KindInt:
		return "N"
	case KindFloat:
		return "F"
	case KindRegexp:
		return "RE"
	case KindTagFilter:
		return "FILTER"
	case KindChoice:
		return strings.Join(s.Choices, "|")
	case KindString:
		return "TEXT"
	}
	return ""
}

// accessors pair a setting's get and set.
type accessors struct {
	get func(*Options) string
	set func(*Options, string) error
}

func text(field func(*Options) *string, check func(string) error) accessors {
	return accessors{
		get: func(o *Options) string { return *field(o) },
		set: func(o *Options, v string) error {
			if check != nil && v != "" {
				if err := check(v); err != nil {
					return err
				}
			}
			*field(o) = v
			return nil
		},
	}
}

func boolean(field func(*Options) *bool) accessors {
	return accessors{
		get: func(o *Options) string { return strconv.FormatBool(*field(o)) },
		set: func(o *Options, v string) error {
			b, err := parseBool(v)
			if err == nil {
				*field(o) = b
			}
			return err
		},
	}
}

func integer(field func(*Options) *int) accessors {
	return accessors{
		get: func(o *Options) string { return strconv.Itoa(*field(o)) },
		set: func(o *Options, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("%q is not an integer", v)
			}
			*field(o) = n
			return nil
		},
	}
}

func fraction(field func(*Options) *float64) accessors {
	return accessors{
		get: func(o *Options) string { return strconv.FormatFloat(*field(o), 'g', -1, 64) },
		set: func(o *Options, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f < 0 || f > 1 {
				return fmt.Errorf("%q is not a fraction between 0 and 1", v)
			}
			*field(o) = f
			return nil
		},
	}
}

func choice(field func(*Options) *string, choices ...string) accessors {
	return accessors{
		get: func(o *Options) string { return *field(o) },
		set: func(o *Options, v string) error {
			if !slices.Contains(choices, v) {
				return fmt.Errorf("%q is not one of %s", v, strings.Join(choices, ", "))
			}
			*field(o) = v
			return nil
		},
	}
}

func checkRegexp(v string) error {
	if _, err := compileRegexp("", v); err != nil {
		return err.(*OptionError).Err
	}
	return nil
}

func checkTagFilter(v string) error {
	if _, err := parseTagFilter("", v); err != nil {
		return err.(*OptionError).Err
	}
	return nil
}

func (a accessors) in(s Setting) Setting {
	s.get, s.set = a.get, a.set
	s.Filter = s.use != notFilter
	if s.Values == ValuesFree {
		s.Values = map[Kind]Values{KindBool: ValuesBool, KindChoice: ValuesChoice,
			KindRegexp: ValuesFunction, KindTagFilter: ValuesLabelFilter}[s.Kind]
		if s.use == keysLabels {
			s.Values = ValuesLabelKey // tagshow, taghide: regexps over keys, not functions
		}
	}
	return s
}

// table is the settings table, built once on first use. Callers outside
// the package get copies (Settings, LookupSetting), so none can change
// what another sees.
var table = sync.OnceValue(settingTable)

// settingTable builds the table.
func settingTable() []Setting {
	regexpFilter := func(name string, field func(*Options) *string, use filterUse, rx func(*compiled) **regexp.Regexp, listed bool, help string) Setting {
		return text(field, checkRegexp).in(Setting{Name: name, Kind: KindRegexp, Group: GroupFilters,
			Listed: listed, Help: help, use: use, rx: rx})
	}
	tagFilter := func(name string, field func(*Options) *string, tag func(*tagFilters) *sampleFilter, help string) Setting {
		return text(field, checkTagFilter).in(Setting{Name: name, Kind: KindTagFilter, Group: GroupFilters,
			Listed: true, Help: help, use: selectsSamples, tag: tag,
			More: "KEY=RE keeps (or drops) samples whose label KEY has a value matching RE; " +
				"several REs are separated by commas; a bare RE matches any key's value. " +
				"KEY=LO:HI, KEY=LO:, KEY=:HI and KEY=V match numeric labels, with units (64kB:1MB)."})
	}
	return []Setting{
		text(func(o *Options) *string { return &o.SampleIndex }, nil).in(Setting{
			Name: "sample_index", Kind: KindString, Group: GroupSample, Placeholder: "NAME|N", Values: ValuesSampleType,
			Help: "sample type to report, by name or index (default: the profile's default)",
			More: "The explorer's s key cycles through the types; a type's name alone on the : line selects it too."}),
		boolean(func(o *Options) *bool { return &o.Mean }).in(Setting{
			Name: "mean", Kind: KindBool, Group: GroupSample,
			Help: "divide each value by its sample count (mean delay, mean size)"}),
		text(func(o *Options) *string { return &o.Unit }, checkUnit).in(Setting{
			Name: "unit", Kind: KindString, Group: GroupSample, Placeholder: "UNIT", Values: ValuesUnit,
			Help: "unit to print values in: minimum, auto, or a unit such as ms or MB",
			More: "In the reports, minimum (the default) picks one unit for a table from its smallest row and auto scales each value on its own; the explorer prints each value on its own under both, with three significant digits."}),
		accessors{
			get: func(o *Options) string {
				if o.DivideBy == 0 {
					return "1"
				}
				return strconv.FormatFloat(o.DivideBy, 'g', -1, 64)
			},
			set: func(o *Options, v string) error {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil || f == 0 {
					return fmt.Errorf("%q is not a non-zero number", v)
				}
				o.DivideBy = f
				return nil
			},
		}.in(Setting{Name: "divide_by", Kind: KindFloat, Group: GroupSample,
			Help: "divide every printed value by this number (percentages stay)"}),
		boolean(func(o *Options) *bool { return &o.RelativePercentages }).in(Setting{
			Name: "relative_percentages", Kind: KindBool, Group: GroupSample,
			Help: "percentages of the focused samples' total, not of the whole profile"}),
		boolean(func(o *Options) *bool { return &o.DropNegative }).in(Setting{
			Name: "drop_negative", Kind: KindBool, Group: GroupSample,
			Help: "drop nodes whose value is negative (in a diff)"}),

		choice(func(o *Options) *string { return &o.Granularity }, Granularities()...).in(Setting{
			Name: "granularity", Kind: KindChoice, Group: GroupNodes, Choices: Granularities(),
			Help: "what a node is: a function, a function per file, a file, a line or an address"}),
		boolean(func(o *Options) *bool { return &o.NoInlines }).in(Setting{
			Name: "noinlines", Kind: KindBool, Group: GroupNodes,
			Help: "attribute inlined functions to the function they were inlined into"}),
		boolean(func(o *Options) *bool { return &o.ShowColumns }).in(Setting{
			Name: "showcolumns", Kind: KindBool, Group: GroupNodes,
			Help: "with granularity=lines, tell columns apart and print them (file:line:col)"}),
		choice(func(o *Options) *string { return &o.Sort }, "flat", "cum").in(Setting{
			Name: "sort", Kind: KindChoice, Group: GroupNodes, Choices: []string{"flat", "cum"},
			Help: "order of the top table: by flat or by cum value",
			More: "The explorer's Top view also sorts by name with the o key."}),
		integer(func(o *Options) *int { return &o.NodeCount }).in(Setting{
			Name: "nodecount", Kind: KindInt, Group: GroupNodes,
			Help: "show at most N nodes (0: all; -tree and -dot: 80 unless given)"}),
		fraction(func(o *Options) *float64 { return &o.NodeFraction }).in(Setting{
			Name: "nodefraction", Kind: KindFloat, Group: GroupNodes,
			Help: "drop nodes whose cum is below this share of the total (the explorer: 0)"}),
		fraction(func(o *Options) *float64 { return &o.EdgeFraction }).in(Setting{
			Name: "edgefraction", Kind: KindFloat, Group: GroupNodes,
			Help: "ignore call edges below this share of the total (decides (inline) marks)"}),
		accessors{
			get: func(o *Options) string { return strconv.FormatBool(!o.NoTrim) },
			set: func(o *Options, v string) error {
				b, err := parseBool(v)
				if err == nil {
					o.NoTrim = !b
				}
				return err
			},
		}.in(Setting{Name: "trim", Kind: KindBool, Group: GroupNodes,
			Help: "apply nodecount, nodefraction and edgefraction (false: keep every node and edge)"}),

		regexpFilter("focus", func(o *Options) *string { return &o.Focus },
			flagsFrames, func(c *compiled) **regexp.Regexp { return &c.focus }, true,
			"keep only samples with a frame matching RE (function name or file)"),
		regexpFilter("ignore", func(o *Options) *string { return &o.Ignore },
			flagsFrames, func(c *compiled) **regexp.Regexp { return &c.ignore }, true,
			"drop samples with a frame matching RE"),
		regexpFilter("hide", func(o *Options) *string { return &o.Hide },
			cutsFrames, func(c *compiled) **regexp.Regexp { return &c.hide }, true,
			"remove frames matching RE from the stacks; their value goes to the caller"),
		regexpFilter("show", func(o *Options) *string { return &o.Show },
			cutsFrames, func(c *compiled) **regexp.Regexp { return &c.show }, true,
			"keep only frames matching RE in the stacks"),
		regexpFilter("show_from", func(o *Options) *string { return &o.ShowFrom },
			cutsFrames, func(c *compiled) **regexp.Regexp { return &c.showFrom }, true,
			"cut each stack above the outermost frame matching RE"),
		regexpFilter("prune_from", func(o *Options) *string { return &o.PruneFrom },
			cutsFrames, func(c *compiled) **regexp.Regexp { return &c.pruneFrom }, false,
			"cut each stack below the frames matching RE (callees dropped)"),
		tagFilter("tagfocus", func(o *Options) *string { return &o.TagFocus },
			func(f *tagFilters) *sampleFilter { return &f.focus },
			"keep only samples whose labels match the filter (KEY=RE or KEY=LO:HI)"),
		tagFilter("tagignore", func(o *Options) *string { return &o.TagIgnore },
			func(f *tagFilters) *sampleFilter { return &f.ignore },
			"drop samples whose labels match the filter"),
		accessors{
			get: func(o *Options) string { return o.Recursion },
			set: func(o *Options, v string) error {
				switch v {
				case "", "off", "false":
					o.Recursion = ""
				case RecursionAll, RecursionDirect:
					o.Recursion = v
				default:
					return fmt.Errorf("%q is not all, direct or off", v)
				}
				return nil
			},
		}.in(Setting{Name: "recursion", Kind: KindString, Group: GroupFilters, Placeholder: "all|direct|off",
			use:  foldsStacks,
			Help: "fold recursion in the stacks: all (f→g→f→h is f→h) or direct (f→f→f is f)",
			More: "The explorer's R key cycles all, direct and off. Folding changes the call trees, the flame graph " +
				"and its pivot, Peek, -traces, -peek and folded stacks; flat values stay, and Top's flat and cum are pprof's " +
				"either way. all cuts out every loop back to a function already on the stack, with the frames between " +
				"(f→g→f→h is f→h, the Firefox Profiler's collapse recursion); direct only merges a function calling itself."}),
		regexpFilter("tagshow", func(o *Options) *string { return &o.TagShow },
			keysLabels, func(c *compiled) **regexp.Regexp { return &c.tagShow }, true,
			"show only label keys matching RE (Labels, -tags, -traces)"),
		regexpFilter("taghide", func(o *Options) *string { return &o.TagHide },
			keysLabels, func(c *compiled) **regexp.Regexp { return &c.tagHide }, true,
			"hide label keys matching RE"),

		text(func(o *Options) *string { return &o.TagRoot }, nil).in(Setting{
			Name: "tagroot", Kind: KindString, Group: GroupLabels, Placeholder: "KEYS", Values: ValuesLabelKeys,
			Help: "label keys (comma-separated) whose values become frames above each stack's root"}),
		text(func(o *Options) *string { return &o.TagLeaf }, nil).in(Setting{
			Name: "tagleaf", Kind: KindString, Group: GroupLabels, Placeholder: "KEYS", Values: ValuesLabelKeys,
			Help: "label keys (comma-separated) whose values become frames below each stack's leaf"}),

		text(func(o *Options) *string { return &o.SourcePath }, nil).in(Setting{
			Name: "source_path", Kind: KindString, Group: GroupSource, Placeholder: "DIRS",
			Help: "directories to look for source files in, :-separated (default: the current one)"}),
		text(func(o *Options) *string { return &o.TrimPath }, nil).in(Setting{
			Name: "trim_path", Kind: KindString, Group: GroupSource, Placeholder: "PREFIXES",
			Help: "path prefixes to cut from the profile's file names, :-separated"}),

		boolean(func(o *Options) *bool { return &o.CallTree }).in(Setting{
			Name: "call_tree", Kind: KindBool, Group: GroupCompat,
			Help: "-dot and -callgrind draw a node per calling context (a tree), as pprof's call_tree"}),
		boolean(func(o *Options) *bool { return &o.CompactLabels }).in(Setting{
			Name: "compact_labels", Kind: KindBool, Group: GroupCompat,
			Help: "-tree leaves the profile's facts (file, type, time) out of its header, as pprof"}),
		boolean(func(o *Options) *bool { return &o.IntelSyntax }).in(Setting{
			Name: "intel_syntax", Kind: KindBool, Group: GroupSource,
			Help: "Intel assembly syntax for disassembly (-disasm, the Disassembly view), as objdump -M intel"}),
		boolean(func(o *Options) *bool { return &o.GNUSyntax }).in(Setting{
			Name: "gnu_syntax", Kind: KindBool, Group: GroupSource,
			Help: "GNU (AT&T) assembly syntax for disassembly, as objdump prints it; intel_syntax wins"}),
	}
}

// Settings returns the settings table, in -h's order. The slice is a copy.
func Settings() []Setting {
	out := slices.Clone(table())
	for i := range out {
		out[i].Choices = slices.Clone(out[i].Choices)
	}
	return out
}

// LookupSetting finds a setting by name, or by one of its choices
// ("lines" finds granularity).
func LookupSetting(name string) (Setting, bool) {
	s := lookup(name)
	if s == nil {
		return Setting{}, false
	}
	c := *s
	c.Choices = slices.Clone(s.Choices)
	return c, true
}

// lookup is LookupSetting within the package: the table's own entry.
func lookup(name string) *Setting {
	t := table()
	for i := range t {
		if t[i].Name == name || slices.Contains(t[i].Choices, name) {
			return &t[i]
		}
	}
	return nil
}

// SettingNames lists every name Set accepts: the settings and their
// choices.
func SettingNames() []string {
	var names []string
	for _, s := range table() {
		names = append(names, s.Name)
		names = append(names, s.Choices...)
	}
	return names
}

// Granularities lists the valid Granularity values. The slice is a copy.
func Granularities() []string {
	return []string{"functions", "filefunctions", "files", "lines", "addresses"}
}

// Set sets one setting by its pprof name, as the command line and the
// explorer's `:` line spell it. A choice is a boolean setting of its own
// ("lines" or "lines=true" is granularity=lines; "cum=false" goes back
// to the default order).
func (o *Options) Set(name, value string) error {
	s := lookup(name)
	if s == nil {
		return optErr(name, "unknown setting%s", didYouMean(name))
	}
	if s.Name != name { // a choice used as a boolean
		b, err := parseBool(value)
		if err != nil {
			return optErr(name, "%v", err)
		}
		switch {
		case b:
			value = name
		case s.Value(*o) == name:
			value = s.Default()
		default:
			return nil
		}
	}
	if err := s.set(o, value); err != nil {
		return optErr(s.Name, "%v", err)
	}
	return nil
}

// didYouMean names the settings closest to name, for an error.
func didYouMean(name string) string {
	close := ClosestNames(name, SettingNames())
	if len(close) == 0 {
		return " (:help lists them)"
	}
	return "; did you mean " + strings.Join(close, " or ") + "?"
}

// ClosestNames returns up to three of names that name is likely a typo
// of: within two edits, or containing it.
func ClosestNames(name string, names []string) []string {
	var close []string
	for _, n := range names {
		if editDistance(name, n) <= 2 || (len(name) >= 3 && strings.Contains(n, name)) {
			close = append(close, n)
		}
	}
	if len(close) > 3 {
		close = close[:3]
	}
	return close
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Filter is one active filter, as the status bar and pprof's report
// header print it.
type Filter struct {
	Name, Value string
	// Listed: pprof lists it under "Active filters:".
	Listed bool
	// Folds: it only folds the stacks (recursion), keeping every sample
	// and its value: what the filters keep is the total still.
	Folds bool
}

func (f Filter) String() string { return f.Name + "=" + f.Value }

// ShapesStacks reports whether the setting changes the frames of the
// stacks (hide, show, show_from, prune_from, recursion) rather than, or
// besides, which samples are kept: it may change every view while
// keeping the whole total.
func (s Setting) ShapesStacks() bool { return s.use == cutsFrames || s.use == foldsStacks }

// Filters lists the filters set in o, in the table's order (pprof's).
func (o Options) Filters() []Filter {
	var out []Filter
	for _, s := range table() {
		if v := s.Value(o); s.Filter && v != "" {
			out = append(out, Filter{s.Name, v, s.Listed, s.use == foldsStacks})
		}
	}
	return out
}

// ClearFilters returns o without its filters.
func (o Options) ClearFilters() Options {
	for _, s := range table() {
		if s.Filter {
			s.set(&o, "")
		}
	}
	return o
}

// Validate checks what can be checked without a profile: every
// setting's value, as Set would check it. The tag filters' numeric units
// and the sample type are checked against the profile when a report is
// computed.
func (o Options) Validate() error {
	t := table()
	for i := range t {
		if err := o.checkSetting(&t[i]); err != nil {
			return err
		}
	}
	return nil
}

// check validates the named settings' values in o, as Set would.
func (o Options) check(names ...string) error {
	for _, name := range names {
		if err := o.checkSetting(lookup(name)); err != nil {
			return err
		}
	}
	return nil
}

// checkSetting validates s's value in o (empty is unset).
func (o Options) checkSetting(s *Setting) error {
	if v := s.Value(o); v != "" {
		if err := s.set(&o, v); err != nil {
			return optErr(s.Name, "%v", err)
		}
	}
	return nil
}
