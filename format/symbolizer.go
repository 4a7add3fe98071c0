package format

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ianlancetaylor/demangle"
	"github.com/pprof-tui/pprof-tui/format/symbolize"
)

// symbolizer does Load's symbolization, as pprof does it: find each
// mapping's binary (locateBinaries, per source profile), then give the
// locations of the mappings that lack functions their frames (symbolize,
// on the merged profile), then demangle. Its warnings go to
// Options.Status, each once.
type symbolizer struct {
	opt       Options
	cache     *symbolize.Cache
	ownCache  bool
	mode      symbolizeMode
	said      map[string]bool
	noBinary  []string // base names of mappings whose binary was not found
	noBinSeen map[string]bool
}

type symbolizeMode struct {
	local, fast, force bool
	demangle           string // "" (pprof's default simplification), "none", "full", "templates"
}

func newSymbolizer(opt Options) *symbolizer {
	s := &symbolizer{opt: opt, cache: opt.Binaries, said: map[string]bool{}, noBinSeen: map[string]bool{}}
	if s.cache == nil {
		s.cache, s.ownCache = symbolize.NewCache(), true
	}
	s.mode = s.parseMode(opt.Symbolize)
	return s
}

func (s *symbolizer) close() {
	if s.ownCache {
		s.cache.Close()
	}
}

// say reports a warning once.
func (s *symbolizer) say(format string, args ...any) {
	msg := "symbolize: " + fmt.Sprintf(format, args...)
	if s.said[msg] || s.opt.Status == nil {
		return
	}
	s.said[msg] = true
	s.opt.Status(msg)
}

// parseMode reads pprof's -symbolize value. Like pprof, an unknown
// option is reported and ignored.
func (s *symbolizer) parseMode(v string) symbolizeMode {
	m := symbolizeMode{local: true}
	for _, o := range strings.Split(strings.ToLower(v), ":") {
		switch o {
		case "", "default", "demangle=default":
		case "none", "no":
			return symbolizeMode{demangle: "none"}
		case "local":
			m.local = true
		case "fastlocal":
			m.local, m.fast = true, true
		case "remote":
			m.local = false
			s.say("remote symbolization (symbolz) is not supported; addresses stay as they are")
		case "force":
			m.force = true
		case "demangle=none", "demangle=full", "demangle=templates":
			m.demangle = strings.TrimPrefix(o, "demangle=")
			m.force = true
		default:
			s.say("ignoring unrecognized symbolization option %q: expecting -symbolize=[local|fastlocal|remote|none][:force][:demangle=[none|full|templates|default]]", o)
		}
	}
	return m
}

// none reports -symbolize=none: the profile is left exactly as read.
func (m symbolizeMode) none() bool { return !m.local && !m.force && m.demangle == "none" }

// locateBinaries points mappings at their binaries as pprof does: a file
// in the $PPROF_BINARY_PATH directories named by build ID or file name
// (with .debug variants) replaces the mapping's file name when its build
// ID matches; the explicit binary replaces the first mapping's. A
// profile without mappings gets one covering all addresses when a binary
// is given, so that a non-PIE binary can symbolize it.
func (s *symbolizer) locateBinaries(p *Profile, binary string) {
	searchPath := s.opt.BinaryPath
	if searchPath == "" {
		if home, err := os.UserHomeDir(); err == nil {
			searchPath = filepath.Join(home, "pprof", "binaries")
		}
	}
	dirs := filepath.SplitList(searchPath)
	for i := range p.Mappings {
		m := &p.Mappings[i]
		if name := s.search(m, dirs); name != "" {
			m.File = name
		}
	}
	if binary == "" {
		return
	}
	if len(p.Mappings) == 0 {
		p.Mappings = append(p.Mappings, Mapping{ID: 1})
		for i := range p.Locations {
			p.Locations[i].Mapping = 0
		}
	}
	p.Mappings[0].File = binary
}

// search returns the first candidate file for m in dirs whose build ID
// matches, or "".
func (s *symbolizer) search(m *Mapping, dirs []string) string {
	var file, base, dir string
	if m.File != "" {
		file = strings.TrimPrefix(m.File, filepath.VolumeName(m.File))
		base = filepath.Base(m.File)
		dir = filepath.Dir(file)
	}
	for _, path := range dirs {
		if path == "" {
			continue
		}
		var names []string
		if m.BuildID != "" {
			names = append(names, filepath.Join(path, m.BuildID, base))
			if matches, err := filepath.Glob(filepath.Join(path, m.BuildID, "*")); err == nil {
				names = append(names, matches...)
			}
			names = append(names, filepath.Join(path, file, m.BuildID)) // perf's layout
			if len(m.BuildID) > 2 {
				names = append(names, filepath.Join(path, m.BuildID[:2], m.BuildID[2:]+".debug"))
			}
		}
		if m.File != "" {
			names = append(names,
				filepath.Join(path, base),
				filepath.Join(path, file),
				filepath.Join(path, file+".debug"),
				filepath.Join(path, dir, ".debug", base+".debug"),
				filepath.Join(path, "usr", "lib", "debug", dir, base+".debug"))
		}
		for _, name := range names {
			if st, err := os.Stat(name); err != nil || !st.Mode().IsRegular() {
				continue
			}
			b, err := s.cache.Open(name)
			if err != nil {
				continue
			}
			if id := b.BuildID(); m.BuildID != "" && id != m.BuildID {
				s.say("ignoring %s: build ID mismatch (the profile's %s, the file's %s)", name, m.BuildID, orNone(id))
				continue
			}
			return name
		}
	}
	return ""
}

func orNone(id string) string {
	if id == "" {
		return "none"
	}
	return id
}

// unsymbolizable reports mappings that have no binary to read: the
// kernel's ([vdso], [vsyscall], [heap]...), anonymous and device memory.
func unsymbolizable(file string) bool {
	base := filepath.Base(file)
	return strings.HasPrefix(base, "[") || strings.HasPrefix(base, "linux-vdso") ||
		strings.HasPrefix(file, "/dev/dri/") || file == "//anon" || file == "" ||
		strings.HasPrefix(file, "/memfd:")
}

// symbolize gives frames to the locations of every mapping that lacks
// functions (all of them with force), then demangles.
func (s *symbolizer) symbolize(p *Profile) {
	if s.mode.none() {
		return
	}
	if s.mode.local {
		s.symbolizeLocal(p)
	}
	if len(s.noBinary) > 0 {
		sort.Strings(s.noBinary)
		s.say("no binary for %s: their addresses stay unsymbolized; give the binary (pprof-tui BINARY PROFILE or -binary=PATH) or set PPROF_BINARY_PATH", strings.Join(s.noBinary, ", "))
	}
	demangleFunctions(p, s.mode.force, s.mode.demangle)
}

func (s *symbolizer) symbolizeLocal(p *Profile) {
	// The mappings that lack symbols; most profiles have none, and then
	// their locations (a million on a large profile) are not read.
	need := make([]bool, len(p.Mappings))
	for mi, m := range p.Mappings {
		need[mi] = s.mode.force || !(m.HasFunctions || m.HasFilenames || m.HasLineNumbers)
	}
	if !slices.Contains(need, true) {
		return
	}
	locs := make([][]int32, len(p.Mappings))
	for i, l := range p.Locations {
		if l.Mapping >= 0 && int(l.Mapping) < len(p.Mappings) && need[l.Mapping] {
			locs[l.Mapping] = append(locs[l.Mapping], int32(i))
		}
	}
	nextID := uint64(0)
	for _, f := range p.Functions {
		nextID = max(nextID, f.ID)
	}
	type fnKey struct {
		name, file string
		start      int64
	}
	var funcs map[fnKey]int32 // made for the first mapping symbolized
	function := func(fr symbolize.Frame) int32 {
		if s.opt.NoInlines {
			// go tool pprof's frames carry no start line, and pprof keys
			// unnamed nodes (-files) by it: one node per file, as there.
			fr.StartLine = 0
		}
		k := fnKey{fr.Func, fr.File, fr.StartLine}
		if i, ok := funcs[k]; ok {
			return i
		}
		nextID++
		i := int32(len(p.Functions))
		p.Functions = append(p.Functions, Function{ID: nextID, Name: fr.Func, SystemName: fr.Func, Filename: fr.File, StartLine: fr.StartLine})
		funcs[k] = i
		return i
	}
	symMode := symbolize.Mode{NoInlines: s.opt.NoInlines, SymbolsOnly: s.mode.fast}
	for mi := range p.Mappings {
		m := &p.Mappings[mi]
		if !need[mi] {
			continue // already symbolized
		}
		if len(locs[mi]) == 0 {
			continue // no location uses it
		}
		if m.File == "" {
			if mi == 0 {
				s.say("the main binary's file name is not in the profile: give the binary (pprof-tui BINARY PROFILE or -binary=PATH)")
			}
			continue
		}
		if unsymbolizable(m.File) {
			continue
		}
		if m.BuildID == "" {
			if u, err := url.Parse(m.File); err == nil && u.IsAbs() && strings.Contains(strings.ToLower(u.Scheme), "http") {
				continue // a source URL, not a binary
			}
		}
		bin, err := s.cache.Open(m.File)
		if err != nil {
			s.missing(m, err)
			continue
		}
		if id := bin.BuildID(); id != "" && m.BuildID != "" && id != m.BuildID {
			s.say("not using %s: build ID mismatch (the profile's %s, the file's %s)", m.File, m.BuildID, id)
			continue
		}
		stripped := !bin.HasSymbols()
		idx := make([]int32, 0, len(locs[mi]))
		addrs := make([]uint64, 0, len(locs[mi]))
		var mapErr error
		for _, li := range locs[mi] {
			a, err := bin.ObjAddr(m.Start, m.Limit, m.Offset, p.Locations[li].Address)
			if err != nil {
				mapErr = err
				continue
			}
			idx = append(idx, li)
			addrs = append(addrs, a)
		}
		if mapErr != nil {
			s.say("%v", mapErr)
		}
		if funcs == nil {
			funcs = make(map[fnKey]int32, len(addrs))
		}
		frames, err := bin.Symbolize(addrs, symMode)
		if err != nil {
			s.say("%v", err)
		}
		found := 0
		var lines []Line
		for j, fs := range frames {
			if len(fs) == 0 {
				continue
			}
			found++
			l := &p.Locations[idx[j]]
			lines = lines[:0]
			l.IsFolded = false
			for _, fr := range fs {
				if fr.Func != "" {
					m.HasFunctions = true
				}
				if fr.File != "" {
					m.HasFilenames = true
				}
				if fr.Line != 0 {
					m.HasLineNumbers = true
				}
				lines = append(lines, Line{Function: function(fr), Line: fr.Line})
			}
			l.Lines = p.AddLines(lines...)
			m.HasInlineFrames = true
		}
		if stripped {
			what := "none of its addresses were symbolized"
			if found > 0 {
				what = fmt.Sprintf("only its dynamic symbols named %d of %d addresses", found, len(addrs))
			}
			s.say("%s has no symbols (stripped binary: no symbol table, DWARF or Go pclntab): %s", m.File, what)
		}
	}
}

// missing records a mapping whose binary could not be opened.
func (s *symbolizer) missing(m *Mapping, err error) {
	name := filepath.Base(m.File)
	if m.BuildID != "" {
		name += " (build ID " + m.BuildID + ")"
	}
	if !errors.Is(err, fs.ErrNotExist) {
		s.say("cannot read %s: %v", m.File, err)
		return
	}
	if !s.noBinSeen[name] {
		s.noBinSeen[name] = true
		s.noBinary = append(s.noBinary, name)
	}
}

// demangleFunctions demangles C++ (and Rust) names as pprof does after
// symbolizing: with mode "" (pprof's default) names lose parameters and
// template arguments; "templates" keeps templates; "full" keeps all;
// "none" keeps the names as they are. Names that are already demangled
// get the same simplification; force first undoes earlier demangling.
func demangleFunctions(p *Profile, force bool, mode string) {
	if force {
		for i := range p.Functions {
			f := &p.Functions[i]
			if f.Name != "" && f.SystemName != "" {
				f.Name = f.SystemName
			}
		}
	}
	var opts []demangle.Option
	switch mode {
	case "":
		opts = []demangle.Option{demangle.NoParams, demangle.NoEnclosingParams, demangle.NoTemplateParams}
	case "templates":
		opts = []demangle.Option{demangle.NoParams, demangle.NoEnclosingParams}
	case "full":
		opts = []demangle.Option{demangle.NoClones}
	default:
		return
	}
	for i := range p.Functions {
		demangleFunction(&p.Functions[i], opts)
	}
}

func demangleFunction(f *Function, opts []demangle.Option) {
	if f.Name != "" && f.SystemName != f.Name {
		return // already demangled
	}
	if d := demangle.Filter(f.SystemName, opts...); d != f.SystemName {
		f.Name = d
		return
	}
	// macOS prefixes symbols with an underscore.
	if rest, ok := strings.CutPrefix(f.SystemName, "_"); ok {
		if d := demangle.Filter(rest, opts...); d != rest {
			f.Name = d
			return
		}
	}
	name := f.SystemName
	if looksDemangled(name) {
		for _, o := range opts {
			switch o {
			case demangle.NoParams:
				name = dropNested(name, '(', ')')
			case demangle.NoTemplateParams:
				name = dropNested(name, '<', '>')
			}
		}
	}
	f.Name = name
}

// looksDemangled guesses that a name is demangled C++, so that pprof's
// simplification applies: Java's "Class.<init>" and Go's
// "pkg.(*T[...]).M" are not.
func looksDemangled(name string) bool {
	if strings.Contains(name, ".<") || strings.Contains(name, "]).") {
		return false
	}
	return strings.ContainsAny(name, "<>[]") || strings.Contains(name, "::")
}

// dropNested removes every outermost open...close group from name, as
// pprof's simplification does: at an unbalanced close it stops and keeps
// the rest; an unclosed group is kept.
func dropNested(name string, open, close byte) string {
	b := make([]byte, 0, len(name))
	depth, start := 0, 0
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == open:
			if depth == 0 {
				start = i
			}
			depth++
		case c == close:
			depth--
			if depth < 0 {
				return string(append(b, name[i:]...))
			}
		case depth == 0:
			b = append(b, c)
		}
	}
	if depth > 0 {
		b = append(b, name[start:]...)
	}
	return string(b)
}
