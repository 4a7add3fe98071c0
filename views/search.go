package views

import (
	"regexp"
)

// matchSet is the rows matching the search.
type matchSet struct {
	re   *regexp.Regexp
	rows []int // ascending
}

// set recomputes the matches over n rows named by name.
func (m *matchSet) set(re *regexp.Regexp, n int, name func(i int) string) {
	m.re, m.rows = re, m.rows[:0]
	if re == nil {
		return
	}
	for i := 0; i < n; i++ {
		if re.MatchString(name(i)) {
			m.rows = append(m.rows, i)
		}
	}
}

// next returns the first match after from (dir > 0) or before it, wrapping
// around; with inclusive, from itself counts.
func (m *matchSet) next(from, dir int, inclusive bool) (int, bool) {
	if len(m.rows) == 0 {
		return 0, false
	}
	if dir > 0 {
		for _, r := range m.rows {
			if r > from || (inclusive && r == from) {
				return r, true
			}
		}
		return m.rows[0], true
	}
	for i := len(m.rows) - 1; i >= 0; i-- {
		if r := m.rows[i]; r < from || (inclusive && r == from) {
			return r, true
		}
	}
	return m.rows[len(m.rows)-1], true
}

// search sets the matches over n rows named by name and moves l's cursor
// to the first match at or after it, reporting whether there was one.
func (m *matchSet) search(l *list, re *regexp.Regexp, n int, name func(i int) string) bool {
	m.set(re, n, name)
	return m.step(l, 1, true)
}

// step moves l's cursor to the next match in direction dir.
func (m *matchSet) step(l *list, dir int, inclusive bool) bool {
	if i, ok := m.next(l.cursor, dir, inclusive); ok {
		l.moveTo(i)
		return true
	}
	return false
}
