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
	named := testOptions(t, map[string]string{"sample_index": e.Profile().SampleTypes[e.Profile().DefaultSampleIndex()].Type})
	if r, err := e.Top(named); err != nil || r != first {
		t.Fatalf("the default sample type by name computed again (%v)", err)
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

// TestRecentLocs: a query that reuses a kept location view gives what a
// fresh engine gives, across filter changes that do and do not change
// the view.
func TestRecentLocs(t *testing.T) {
	p := engineFor(t, "../testdata/go/cpu_labels.pb.gz").Profile()
	shared := NewEngine(p)
	for _, set := range []map[string]string{
		nil, {"hide": "fmt"}, {"sample_index": "samples"}, {"hide": "fmt", "sample_index": "samples"},
		{"focus": "main"}, {"tagfocus": "worker=w1"}, nil, {"granularity": "lines"}, {"hide": "fmt"},
		{"focus": "main", "hide": "runtime"}, {"hide": "fmt", "tagfocus": "worker=w2"},
	} {
		opt := testOptions(t, set)
		opt.EdgeFraction = 0.0011 // past the recent Top results
		got, err := shared.Top(opt)
		if err != nil {
			t.Fatal(err)
		}
		want, err := NewEngine(p).Top(opt)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(named(got)) != fmt.Sprint(named(want)) {
			t.Errorf("%v: rows differ from a fresh engine's", set)
		}
	}
}
