package views

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// list is the cursor and scroll state every view keeps over its rows.
// Rendering uses only rows offset..offset+height.
type list struct {
	cursor, offset int
	n              int // rows
	height         int // visible rows
	// back is set when the cursor last moved up: the direction of travel
	// a filter that removes the selected row continues in (follow).
	back bool
}

func (l *list) setLen(n int) {
	l.n = n
	l.clamp()
}

// fit gives the list the rows a view of h lines has below its head
// lines of headings, and keeps the cursor on screen.
func (l *list) fit(h, head int) {
	l.height = max(0, h-head)
	l.clamp()
}

func (l *list) clamp() {
	if l.cursor >= l.n {
		l.cursor = l.n - 1
	}
	if l.cursor < 0 {
		l.cursor = 0
	}
	if l.height <= 0 {
		l.offset = l.cursor
		return
	}
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+l.height {
		l.offset = l.cursor - l.height + 1
	}
	if max := l.n - l.height; l.offset > max {
		l.offset = max
	}
	if l.offset < 0 {
		l.offset = 0
	}
}

func (l *list) move(d int) {
	if d != 0 {
		l.back = d < 0
	}
	l.cursor += d
	l.clamp()
}

func (l *list) moveTo(i int) {
	if i != l.cursor {
		l.back = i < l.cursor
	}
	l.cursor = i
	l.clamp()
}

// follow puts the cursor back on the selected function after the rows
// changed under it (a new result, another order). old names the rows as
// they were, with the cursor on old[cur]; index finds a name among the
// new rows (-1 when it is gone). The selected function keeps the cursor
// when it survives; else the cursor goes to the nearest survivor within
// a screen of it, first in the direction of travel; else to the first
// row. Never to the same row index, which is another function now.
//
// With keepLine (the same table over new numbers: a live refresh) the
// cursor keeps its screen line, as far as the rows above and below it
// allow, so the row a person watches does not jump when its rank
// changes; but a cursor on the first row, where it opens, watches the
// top, which stays in sight (a function that becomes the heaviest is
// not hidden above it). Otherwise (new options: a filter, another
// sort) the window keeps the cursor's screen line unless the cursor
// fits on the first screen, which then shows (the heaviest rows stay
// in sight).
func (l *list) follow(old []string, cur int, index func(name string) int, keepLine bool) {
	line := l.cursor - l.offset
	keepLine = keepLine && cur > 0
	next := 0
	if cur >= 0 && cur < len(old) {
		next = index(old[cur])
		if next < 0 {
			next = nearest(old, cur, max(1, l.height), l.back, index)
		}
	}
	l.cursor = max(0, next)
	l.offset = 0
	if l.height > 0 && (keepLine || l.cursor >= l.height) {
		l.keepLine(line)
	}
	l.clamp()
}

// keepLine scrolls the window so the cursor is on screen line line (0
// the first row), or as near it as the ends of the rows allow.
func (l *list) keepLine(line int) {
	l.offset = l.cursor - max(0, min(line, l.height-1))
	l.clamp()
}

// nearest is the new index of the first of old's rows around cur, up to
// reach rows away, that index finds: downwards first, or upwards when
// back. It is 0 when none is.
func nearest(old []string, cur, reach int, back bool, index func(string) int) int {
	dirs := [2]int{1, -1}
	if back {
		dirs = [2]int{-1, 1}
	}
	for _, d := range dirs {
		for k := 1; k <= reach; k++ {
			j := cur + d*k
			if j < 0 || j >= len(old) {
				break
			}
			if i := index(old[j]); i >= 0 {
				return i
			}
		}
	}
	return 0
}

// scroll moves the window by d rows, dragging the cursor along when it
// would leave it (as a mouse wheel does).
func (l *list) scroll(d int) {
	l.offset += d
	if max := l.n - l.height; l.offset > max {
		l.offset = max
	}
	if l.offset < 0 {
		l.offset = 0
	}
	if l.cursor < l.offset {
		l.cursor = l.offset
	}
	if l.height > 0 && l.cursor >= l.offset+l.height {
		l.cursor = l.offset + l.height - 1
	}
	l.clamp()
}

// navigate applies the moving keys and the mouse to l; first is the
// screen row (within the view) of the first list row. It reports
// whether msg was one of them.
func (l *list) navigate(k *KeyMap, msg tea.Msg, first int) bool {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, k.Up):
			l.move(-1)
		case key.Matches(msg, k.Down):
			l.move(1)
		case key.Matches(msg, k.PageUp):
			l.move(-max(1, l.height-1))
		case key.Matches(msg, k.PageDown):
			l.move(max(1, l.height-1))
		case key.Matches(msg, k.Home):
			l.moveTo(0)
		case key.Matches(msg, k.End):
			l.moveTo(l.n - 1)
		default:
			return false
		}
		return true
	case tea.MouseMsg:
		switch {
		case msg.Button == tea.MouseButtonWheelUp:
			l.scroll(-3)
		case msg.Button == tea.MouseButtonWheelDown:
			l.scroll(3)
		case msg.Button == tea.MouseButtonLeft && msg.Action == tea.MouseActionPress:
			if i := l.offset + msg.Y - first; msg.Y >= first && i < l.n && i < l.offset+l.height {
				l.moveTo(i)
			}
		default:
			return false
		}
		return true
	}
	return false
}

// visible returns the range of rows on screen.
func (l *list) visible() (from, to int) {
	return l.offset, min(l.n, l.offset+max(0, l.height))
}
