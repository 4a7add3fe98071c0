package views

import (
	"regexp"
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// TestTracesStacks: the stacks are -traces' samples grouped by stack and
// labels, heaviest first, their values summing to the samples' values;
// the selection keeps the stacks through it, and the settings apply
// (tagfocus, lines).
func TestTracesStacks(t *testing.T) {
	e := testEngine(t, "cpu_labels.pb.gz")
	for _, tc := range []struct {
		name string
		set  func(*analysis.Options)
		sel  string
	}{
		{"all", nil, ""},
		{"fib", nil, "main.fib"},
		{"tagfocus", func(o *analysis.Options) { o.TagFocus = "worker=w1" }, ""},
		{"lines", func(o *analysis.Options) { o.Granularity = "lines" }, "main.partition"},
		{"focus", func(o *analysis.Options) { o.Focus = "runSort" }, "main.quicksort"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := analysis.DefaultOptions()
			if tc.set != nil {
				tc.set(&opt)
			}
			tv := NewTraces(testCommon())
			tv.SetSize(100, 30)
			load(t, tv, e, opt, tc.sel)
			tr, err := e.Traces(opt)
			if err != nil {
				t.Fatal(err)
			}
			var want, got int64
			samples := 0
			for _, x := range tr.Traces {
				through := tc.sel == ""
				for _, f := range x.Frames {
					through = through || tr.Nodes.Info(f.Node).Name == tc.sel
				}
				if through {
					want += x.Value
					samples++
				}
			}
			n := 0
			for k, s := range tv.data.stacks {
				got += s.Value
				n += s.Samples
				if k > 0 && s.Value > tv.data.stacks[k-1].Value {
					t.Errorf("stack %d heavier than the one before", k)
				}
				if tc.name == "tagfocus" && !strings.Contains(strings.Join(s.Labels, " "), "worker:w1") {
					t.Errorf("stack %d labels %q", k, s.Labels)
				}
			}
			if got != want || n != samples || samples == 0 {
				t.Errorf("stacks hold %d in %d samples, want %d in %d", got, n, want, samples)
			}
		})
	}
}

// TestTracesSearch: / matches frames by name and stack heads by labels.
func TestTracesSearch(t *testing.T) {
	tv := NewTraces(testCommon())
	tv.SetSize(100, 30)
	load(t, tv, testEngine(t, "cpu_labels.pb.gz"), analysis.DefaultOptions(), "")
	if !tv.SetSearch(regexp.MustCompile(`phase:recurse`)) {
		t.Fatal("no head matched a label")
	}
	if _, f, _ := tv.Cursor(); f != -1 {
		t.Errorf("label match: cursor on frame %d", f)
	}
	if !tv.SetSearch(regexp.MustCompile(`^main\.hashBlock$`)) {
		t.Fatal("no frame matched")
	}
	if _, f, name := tv.Cursor(); f < 0 || name != "main.hashBlock" {
		t.Errorf("frame match: cursor on %d %q", f, name)
	}
	tv.NextMatch(1)
	if _, _, name := tv.Cursor(); name != "main.hashBlock" {
		t.Errorf("next match on %q", name)
	}
}
