package views

import (
	"regexp"
	"slices"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// Matcher is a view that counts its search's matches, for the root to
// say "3/17" as a search is typed and stepped through, and "no match".
type Matcher interface {
	// Matches returns how many rows match the search (at least n when
	// more: the count stopped), and the rank from 1 of the one under
	// the cursor (0: the cursor is on none; -1: on one past the count).
	Matches() (cur, n int, more bool)
}

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

// count is Matches for a view whose cursor is at row cursor.
func (m *matchSet) count(cursor int) (cur, n int, more bool) {
	if i, ok := slices.BinarySearch(m.rows, cursor); ok {
		cur = i + 1
	}
	return cur, len(m.rows), false
}

func (t *Top) Matches() (int, int, bool)    { return t.m.count(t.l.cursor) }
func (v *Labels) Matches() (int, int, bool) { return v.m.count(v.l.cursor) }
func (p *Peek) Matches() (int, int, bool)   { return p.m.count(p.l.cursor) }
func (s *Source) Matches() (int, int, bool) { return s.m.count(s.l.cursor) }
func (v *Disasm) Matches() (int, int, bool) { return v.m.count(v.l.cursor) }
func (t *Traces) Matches() (int, int, bool) { return t.m.count(t.l.cursor) }
func (f *Flame) Matches() (int, int, bool)  { return f.m.count(f.cur) }

// treeMatches are a call tree's nodes that match a search, in row order
// (preorder, heaviest child first), closed ones too, as n finds them:
// at most searchBudget nodes are looked at.
type treeMatches struct {
	re    *regexp.Regexp
	tree  *analysis.Tree
	nodes []*analysis.TreeNode
	more  bool
}

// Matches counts the tree's matches, open or not, once per search and
// tree.
func (t *Tree) Matches() (int, int, bool) {
	if t.tree == nil || t.m.re == nil || len(t.tree.Roots()) == 0 {
		return 0, 0, false
	}
	c := &t.counted
	if c.re != t.m.re || c.tree != t.tree {
		*c = treeMatches{re: t.m.re, tree: t.tree}
		n := t.tree.Roots()[0]
		for visited := 0; n != nil; visited++ {
			if visited == searchBudget {
				c.more = true
				break
			}
			if c.re.MatchString(t.tree.Nodes.Name(n.Node)) {
				c.nodes = append(c.nodes, n)
			}
			n = t.preorderNext(n)
		}
	}
	cur := 0
	if len(t.rows) > 0 {
		n := t.rows[t.l.cursor].n
		if i := slices.Index(c.nodes, n); i >= 0 {
			cur = i + 1
		} else if c.more && c.re.MatchString(t.tree.Nodes.Name(n.Node)) {
			cur = -1 // a match past those counted
		}
	}
	return cur, len(c.nodes), c.more
}
