package tui

import (
	"testing"

	"github.com/pprof-tui/pprof-tui/views"
)

// TestRootKeysDistinct: no key does two things in the root's table, so
// the order of its rows changes nothing, and the hint line's places are
// each filled once.
func TestRootKeysDistinct(t *testing.T) {
	rows := rootKeys(views.DefaultKeyMap())
	seen := map[string]string{}
	for _, r := range rows {
		if r.do == nil {
			continue
		}
		for _, k := range r.key.Keys() {
			if prev, ok := seen[k]; ok {
				t.Errorf("%q is both %q and %q", k, prev, r.key.Help().Desc)
			}
			seen[k] = r.key.Help().Desc
		}
	}
	places := map[int]bool{}
	for _, r := range rows {
		if r.hint > 0 && places[r.hint] {
			t.Errorf("hint place %d taken twice", r.hint)
		}
		places[r.hint] = true
	}
	for i, b := range hints(rows) {
		if len(b.Keys()) == 0 {
			t.Errorf("hint place %d is empty", i+1)
		}
	}
}
