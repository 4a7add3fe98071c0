package analysis

import (
	"fmt"
	"testing"
)

// TestRecentTops: Top keeps its last results, most recently used last.
func TestRecentTops(t *testing.T) {
	e := engineFor(t, "../testdata/go/cpu_labels.pb.gz")
	e = NewEngine(e.Profile()) // a cache of its own
	top := func(focus string) *Top {
		r, err := e.Top(testOptions(t, map[string]string{"focus": focus}))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := top("")
	if top("") != first {
		t.Fatal("the same options computed again")
	}
	for i := range recentTops - 1 {
		top(fmt.Sprintf("f%d", i))
	}
	if top("") != first { // and now the most recent
		t.Fatal("evicted before its time")
	}
	for i := range recentTops - 1 {
		top(fmt.Sprintf("g%d", i))
	}
	top("h")
	if top("") == first {
		t.Fatal("kept more than recentTops results")
	}
}
