package analysis

import (
	"regexp"
	"strings"

	"github.com/pprof-tui/pprof-tui/format"
)

// funcMatcher memoises a regexp over function names and files.
type funcMatcher struct {
	re    *regexp.Regexp
	lits  []string // re's alternatives when all are plain text (literals)
	p     *format.Profile
	cache []int8 // per function: 0 unknown, 1 no, 2 yes
	maps  []int8 // per mapping
}

func newFuncMatcher(p *format.Profile, re *regexp.Regexp) *funcMatcher {
	if re == nil {
		return nil
	}
	return &funcMatcher{re: re, lits: literals(re), p: p, cache: make([]int8, len(p.Functions)), maps: make([]int8, len(p.Mappings))}
}

// literals returns the alternatives of re when it is plain text or an
// alternation of plain texts ("runtime|json"), which match a string
// exactly when one is in it: strings.Contains spares the regexp engine
// on the 100,000 function names of a large binary.
func literals(re *regexp.Regexp) []string {
	src := re.String()
	if strings.ContainsAny(src, `\.+*?()[]{}^$`) {
		return nil
	}
	return strings.Split(src, "|")
}

// matches reports whether re matches s.
func (m *funcMatcher) matches(s string) bool {
	if m.lits == nil {
		return m.re.MatchString(s)
	}
	for _, l := range m.lits {
		if strings.Contains(s, l) {
			return true
		}
	}
	return false
}

// fn reports whether function f's name or file matches (pprof's
// matchesName for one line).
func (m *funcMatcher) fn(f int32) bool {
	if m.cache[f] == 0 {
		fn := &m.p.Functions[f]
		m.cache[f] = 1
		if m.matches(fn.Name) || m.matches(fn.Filename) {
			m.cache[f] = 2
		}
	}
	return m.cache[f] == 2
}

func (m *funcMatcher) mapping(mi int32) bool {
	if mi < 0 {
		return false
	}
	if m.maps[mi] == 0 {
		m.maps[mi] = 1
		if m.matches(m.p.Mappings[mi].File) {
			m.maps[mi] = 2
		}
	}
	return m.maps[mi] == 2
}

// location reports pprof's Location.matchesName over the given lines.
func (m *funcMatcher) location(loc *format.Location, lines []int16) bool {
	ll := m.p.LinesOf(loc)
	for _, k := range lines {
		if f := ll[k].Function; f >= 0 && m.fn(f) {
			return true
		}
	}
	return m.mapping(loc.Mapping)
}
