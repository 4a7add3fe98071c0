package analysis

import (
	"regexp"
	"slices"
	"strings"

	"github.com/pprof-tui/pprof-tui/format"
)

// locView is what remains of each location after the options' line
// filters: a list of line indices (into Location.Lines, innermost first)
// and flags for the per-sample filters.
type locView struct {
	off   []int32 // location l's lines are lines[off[l]:off[l+1]]
	lines []int16
	flags []uint8
}

const (
	fFocus          uint8 = 1 << iota // matches focus (or focus unset)
	fIgnore                           // matches ignore
	fHidden                           // every line hidden by hide/show
	fShowFrom                         // matches show_from
	fPruneFrom                        // prune_from cuts beneath it
	fDropPrune                        // drop_frames removes it
	fDropPruneBelow                   // drop_frames cuts beneath it
)

// compiled holds an Options' regexp filters, compiled. The settings
// table says which settings they are and where each one goes
// (Setting.rx).
type compiled struct {
	focus, ignore, hide, show, showFrom, pruneFrom *regexp.Regexp
	tagShow, tagHide                               *regexp.Regexp
	// frames: some filter over frames is set; cuts: one of them removes
	// lines or cuts stacks (cutsFrames).
	frames, cuts bool
}

// compileOptions compiles opt's filters over frames.
func compileOptions(opt *Options) (*compiled, error) {
	var c compiled
	if err := c.compile(opt, flagsFrames, cutsFrames); err != nil {
		return nil, err
	}
	return &c, nil
}

// compile compiles into c opt's regexp filters of the given uses, in the
// settings table's order: the first bad one is the error.
func (c *compiled) compile(opt *Options, uses ...filterUse) error {
	t := table()
	for i := range t {
		s := &t[i]
		if s.rx == nil || !slices.Contains(uses, s.use) {
			continue
		}
		re, err := compileRegexp(s.Name, s.get(opt))
		if err != nil {
			return err
		}
		*s.rx(c) = re
		if re != nil {
			c.frames = c.frames || s.use == flagsFrames || s.use == cutsFrames
			c.cuts = c.cuts || s.use == cutsFrames
		}
	}
	return nil
}

// buildLocView applies, location by location and in pprof's order, the
// profile's drop_frames, then hide and show, show_from, prune_from and
// noinlines, recording what the sample filters need. With same non-nil
// (a view made with the same options but for focus and ignore), only
// focus and ignore are matched: the lines and other flags are same's.
// Two goroutines build the two halves of the locations.
func (e *Engine) buildLocView(c *compiled, noInlines bool, same *locView) *locView {
	p := e.p
	n := len(p.Locations)
	v := &locView{flags: make([]uint8, n)}
	if same != nil {
		v.off, v.lines = same.off, same.lines
	} else {
		v.off = make([]int32, n+1)
	}
	m := &viewMatchers{
		drop:  e.dropFrames(),
		focus: newFuncMatcher(p, c.focus), ignore: newFuncMatcher(p, c.ignore),
	}
	if same == nil {
		m.hide, m.show = newFuncMatcher(p, c.hide), newFuncMatcher(p, c.show)
		m.matchFrom(p, c)
	}
	size := len(p.Lines) // of the lines, so that the halves join in place
	if same != nil {
		size = 0
	}
	h := half(n, parallelLocations)
	if h < n {
		// The matchers' memos, written by one goroutine per function.
		m.matchMappings()
		inHalves(len(p.Functions), 0, func(_, lo, hi int) { m.matchFunctions(lo, hi) })
	}
	var lines [2][]int16
	inHalves(n, parallelLocations, func(part, lo, hi int) {
		lines[part] = e.viewRange(v, lo, hi, m, noInlines, same, make([]int16, 0, size>>part))
	})
	if same == nil {
		// The second half's offsets were from its own lines.
		base := int32(len(lines[0]))
		for li := h + 1; li <= n; li++ {
			v.off[li] += base
		}
		v.lines = append(lines[0], lines[1]...)
	}
	return v
}

// parallelLocations is the location count from which a location view,
// its node lists and inline edges, and a lines table's numbering (by
// frame slots) are made in two halves on two goroutines (a variable for
// the tests).
var parallelLocations = 1 << 15

// viewMatchers are a location view's name filters.
type viewMatchers struct {
	drop                      *dropFrames
	focus, ignore, hide, show *funcMatcher
	// show_from's answer per function and per mapping (pprof matches
	// function names and mapping files), prune_from's per function (on
	// the name cut at its first parenthesis); nil without them.
	showFrom, showFromMaps, pruneFrom []bool
}

// matchFrom answers show_from and prune_from once per function and
// mapping, rather than once per line of every location.
func (m *viewMatchers) matchFrom(p *format.Profile, c *compiled) {
	if c.showFrom == nil && c.pruneFrom == nil {
		return
	}
	if c.showFrom != nil {
		m.showFrom = make([]bool, len(p.Functions))
		m.showFromMaps = make([]bool, len(p.Mappings))
		for mi := range p.Mappings {
			m.showFromMaps[mi] = c.showFrom.MatchString(p.Mappings[mi].File)
		}
	}
	if c.pruneFrom != nil {
		m.pruneFrom = make([]bool, len(p.Functions))
	}
	inHalves(len(p.Functions), parallelLocations, func(_, lo, hi int) {
		for f := lo; f < hi; f++ {
			name := p.Functions[f].Name
			if m.showFrom != nil {
				m.showFrom[f] = c.showFrom.MatchString(name)
			}
			if m.pruneFrom != nil {
				m.pruneFrom[f] = name != "" && c.pruneFrom.MatchString(simplifyFunc(name))
			}
		}
	})
}

// matchFunctions memoises every matcher's answer for functions [lo, hi).
func (m *viewMatchers) matchFunctions(lo, hi int) {
	for _, fm := range []*funcMatcher{m.focus, m.ignore, m.hide, m.show} {
		if fm != nil {
			for f := lo; f < hi; f++ {
				fm.fn(int32(f))
			}
		}
	}
}

// matchMappings memoises every matcher's answer for every mapping.
func (m *viewMatchers) matchMappings() {
	for _, fm := range []*funcMatcher{m.focus, m.ignore, m.hide, m.show} {
		if fm != nil {
			for mi := range fm.maps {
				fm.mapping(int32(mi))
			}
		}
	}
}

// viewRange is buildLocView for locations [lo, hi): it sets their flags
// and, unless same, appends their lines to out and sets v.off[li+1] to
// their end in out.
func (e *Engine) viewRange(v *locView, lo, hi int, m *viewMatchers, noInlines bool, same *locView, out []int16) []int16 {
	p := e.p
	drop, focus, ignore, hide, show := m.drop, m.focus, m.ignore, m.hide, m.show
	var buf, tmp []int16
	for li := lo; li < hi; li++ {
		loc := &p.Locations[li]
		lines := p.LinesOf(loc)
		buf = buf[:0]
		for k := range lines {
			buf = append(buf, int16(k))
		}
		var fl uint8
		if drop != nil {
			if i := drop.cut[li]; i >= 0 {
				fl |= fDropPruneBelow
				if int(i) == len(buf)-1 {
					fl |= fDropPrune
				} else {
					buf = buf[i+1:]
				}
			}
		}
		if ignore != nil && ignore.location(loc, buf) {
			fl |= fIgnore
		} else if focus == nil || focus.location(loc, buf) {
			fl |= fFocus
		}
		if same != nil {
			v.flags[li] = fl | same.flags[li]&^(fFocus|fIgnore)
			continue
		}
		if hide != nil && hide.location(loc, buf) {
			tmp = tmp[:0]
			if !hide.mapping(loc.Mapping) {
				for _, k := range buf {
					if f := lines[k].Function; f >= 0 && hide.fn(f) {
						continue
					}
					tmp = append(tmp, k)
				}
			}
			buf = append(buf[:0], tmp...)
			if len(buf) == 0 {
				fl |= fHidden
			}
		}
		if show != nil {
			if !show.mapping(loc.Mapping) {
				tmp = tmp[:0]
				for _, k := range buf {
					if f := lines[k].Function; f >= 0 && !show.fn(f) {
						continue
					}
					tmp = append(tmp, k)
				}
				buf = append(buf[:0], tmp...)
			}
			if len(buf) == 0 {
				fl |= fHidden
			}
		}
		if m.showFrom != nil {
			if loc.Mapping >= 0 && m.showFromMaps[loc.Mapping] {
				fl |= fShowFrom
			} else {
				for i := len(buf) - 1; i >= 0; i-- {
					if f := lines[buf[i]].Function; f >= 0 && m.showFrom[f] {
						buf = buf[:i+1]
						fl |= fShowFrom
						break
					}
				}
			}
		}
		if m.pruneFrom != nil {
			for i, k := range buf {
				if f := lines[k].Function; f >= 0 && m.pruneFrom[f] {
					fl |= fPruneFrom
					buf = buf[i:]
					break
				}
			}
		}
		if noInlines && len(buf) > 1 {
			buf = buf[len(buf)-1:]
		}
		v.flags[li] = fl
		out = append(out, buf...)
		v.off[li+1] = int32(len(out))
	}
	return out
}

// dropFrames is the profile's own drop_frames/keep_frames, as pprof's
// Profile.Prune applies them when it reads a profile.
type dropFrames struct {
	cut []int16 // per location: the outermost line matching, or -1
}

func (e *Engine) dropFrames() *dropFrames {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.drop != nil || e.p.DropFrames == "" {
		return e.drop
	}
	p := e.p
	dropRx, err := regexp.Compile("^(" + p.DropFrames + ")$")
	if err != nil {
		return nil // format validated it; unreachable
	}
	var keepRx *regexp.Regexp
	if p.KeepFrames != "" {
		keepRx, _ = regexp.Compile("^(" + p.KeepFrames + ")$")
	}
	prune := make([]int8, len(p.Functions))
	d := &dropFrames{cut: make([]int16, len(p.Locations))}
	for li := range p.Locations {
		lines := p.LinesOf(&p.Locations[li])
		d.cut[li] = -1
		for i := len(lines) - 1; i >= 0; i-- {
			f := lines[i].Function
			if f < 0 || p.Functions[f].Name == "" {
				continue
			}
			if prune[f] == 0 {
				name := simplifyFunc(p.Functions[f].Name)
				prune[f] = 1
				if dropRx.MatchString(name) && (keepRx == nil || !keepRx.MatchString(name)) {
					prune[f] = 2
				}
			}
			if prune[f] == 2 {
				d.cut[li] = int16(i)
				break
			}
		}
	}
	e.drop = d
	return d
}

// simplifyFunc strips a C++ argument list from a function name, keeping
// the parenthesised names that are part of it, as pprof does before
// matching drop_frames and prune_from.
func simplifyFunc(f string) string {
	name := strings.TrimPrefix(f, ".")
	for i := 0; i < len(name); i++ {
		if name[i] != '(' && name[i] != 'o' {
			continue
		}
		rest := name[i:]
		if strings.HasPrefix(rest, "(anonymous namespace)") {
			i += len("(anonymous namespace)") - 1
			continue
		}
		if strings.HasPrefix(rest, "operator()") {
			i += len("operator()") - 1
			continue
		}
		if name[i] == '(' {
			return name[:i]
		}
	}
	return name
}

// stackRange applies the per-sample filters to stack locs (leaf first):
// drop_frames pruning, focus/ignore, hidden locations, show_from and
// prune_from. It returns the part of the stack that remains, as [lo, hi)
// over locs with hidden locations still to be skipped, and ok=false when
// the sample is filtered out.
func (v *locView) stackRange(locs []int32, c *compiled, anyHidden, nameFilters, dropping bool) (lo, hi int, ok bool) {
	lo, hi = 0, len(locs)
	if dropping {
		foundUser := false
		for i := len(locs) - 1; i >= 0; i-- {
			fl := v.flags[locs[i]]
			if fl&(fDropPrune|fDropPruneBelow) == 0 {
				foundUser = true
				continue
			}
			if !foundUser {
				continue
			}
			if fl&fDropPrune != 0 {
				lo = i + 1
			} else {
				lo = i
			}
			break
		}
	}
	if nameFilters {
		if c.focus == nil && c.ignore == nil {
			// Every location is focused and none ignored (hide or show
			// alone): no need to read their flags.
			if lo == hi {
				return 0, 0, false
			}
		} else {
			focused := false
			for _, l := range locs[lo:hi] {
				fl := v.flags[l]
				if fl&fIgnore != 0 {
					return 0, 0, false
				}
				if fl&fFocus != 0 {
					focused = true
				}
			}
			if !focused {
				return 0, 0, false
			}
		}
		if anyHidden {
			visible := false
			for _, l := range locs[lo:hi] {
				if v.flags[l]&fHidden == 0 {
					visible = true
					break
				}
			}
			if !visible {
				return 0, 0, false
			}
		}
	}
	if c.showFrom != nil {
		found := false
		for i := hi - 1; i >= lo; i-- {
			fl := v.flags[locs[i]]
			if fl&fShowFrom != 0 && fl&fHidden == 0 {
				hi, found = i+1, true
				break
			}
		}
		if !found {
			return 0, 0, false
		}
	}
	if c.pruneFrom != nil {
		// The leaf-most match keeps itself and its callers.
		for i := lo; i < hi; i++ {
			fl := v.flags[locs[i]]
			if fl&fPruneFrom != 0 && fl&fHidden == 0 {
				lo = i
				break
			}
		}
	}
	return lo, hi, true
}
