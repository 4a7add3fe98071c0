package views

import (
	"fmt"
	"slices"
	"testing"
)

// TestFollowKeepsLine: after new rows, the cursor stays on its row's
// name; with keepLine on its screen line, as far as the ends allow,
// unless it was on the first row; without, on the first screen when it
// fits there.
func TestFollowKeepsLine(t *testing.T) {
	names := func(n int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprint("f", i)
		}
		return s
	}
	tests := []struct {
		name                string
		cursor, offset      int // before: on old[cursor]
		moveTo              int // that name's new index
		keepLine            bool
		wantCursor, wantOff int
	}{
		{"rank falls, first screen kept", 3, 0, 6, true, 6, 3},
		{"rank falls, first screen shown", 3, 0, 6, false, 6, 0},
		{"rank rises past the top: clamped", 3, 0, 1, true, 1, 0},
		{"scrolled, rank rises", 12, 5, 10, true, 10, 3},
		{"scrolled, rank rises, no keepLine", 12, 5, 10, false, 10, 3},
		{"rank falls past the end: clamped", 12, 7, 19, true, 19, 12},
		{"on the first row: the top stays in sight", 0, 0, 2, true, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := names(20)
			l := list{n: 20, height: 8, cursor: tt.cursor, offset: tt.offset}
			now := slices.Clone(old)
			name := now[tt.cursor]
			now = slices.Delete(now, tt.cursor, tt.cursor+1)
			now = slices.Insert(now, tt.moveTo, name)
			l.follow(old, tt.cursor, func(s string) int { return slices.Index(now, s) }, tt.keepLine)
			if l.cursor != tt.moveTo || now[l.cursor] != name || l.cursor != tt.wantCursor || l.offset != tt.wantOff {
				t.Errorf("cursor %d, offset %d; want %d, %d", l.cursor, l.offset, tt.wantCursor, tt.wantOff)
			}
		})
	}
}
