package tui

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/views"
)

func TestTagFilter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sel  views.Selection
		want string
		err  string
	}{
		{views.Selection{Kind: views.SelTagValue, Key: "worker", Value: "w1"}, "worker=^w1$", ""},
		{views.Selection{Kind: views.SelTagValue, Key: "endpoint", Value: "POST /api/{id}"}, `endpoint=^POST /api/\{id\}$`, ""},
		// pprof splits a tag filter's value at commas: they are escaped.
		{views.Selection{Kind: views.SelTagValue, Key: "k", Value: "a,b.c"}, `k=^a\x2cb\.c$`, ""},
		{views.Selection{Kind: views.SelTagValue, Key: "bytes", Value: "64B", Numeric: true}, "bytes=64B", ""},
		{views.Selection{Kind: views.SelTagValue, Key: "bytes", Value: "1.50kB", Numeric: true}, "", "rounded"},
		{views.Selection{Kind: views.SelTagKey, Key: "worker"}, "worker=.", ""},
		{views.Selection{Kind: views.SelTagKey, Key: "bytes", Numeric: true}, "", "numeric label"},
	} {
		got, err := tagFilter(tc.sel)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: error %v, want %q", tc.sel, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%+v: %q, %v; want %q", tc.sel, got, err, tc.want)
		}
	}
}

// TestTagFilterSelectsExactly checks against the engine that each value's
// filter keeps exactly that value's samples: the -tags report under
// tagfocus=key=^value$ shows that value alone, with its full total.
func TestTagFilterSelectsExactly(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"cpu_labels.pb.gz", "heap.pb.gz"} {
		p, err := format.Load(context.Background(), format.Sources{Sources: []string{testdata(file)}}, format.Options{})
		if err != nil {
			t.Fatal(err)
		}
		e := analysis.NewEngine(p)
		all, err := e.Tags(uiOptions())
		if err != nil {
			t.Fatal(err)
		}
		numeric := map[string]bool{}
		for _, l := range p.Samples.NumKinds {
			numeric[p.Strings[l.Key]] = true
		}
		for _, k := range all.Keys {
			for _, v := range k.Values {
				f, err := tagFilter(views.Selection{Kind: views.SelTagValue, Key: k.Key, Value: v.Value, Numeric: numeric[k.Key]})
				if err != nil {
					continue // a rounded numeric value
				}
				o := uiOptions()
				o.TagFocus = f
				r, err := e.Tags(o)
				if err != nil {
					t.Fatalf("%s %s: %v", file, f, err)
				}
				for _, rk := range r.Keys {
					if rk.Key != k.Key {
						continue
					}
					if len(rk.Values) != 1 || rk.Values[0].Value != v.Value || rk.Values[0].Total != v.Total {
						t.Errorf("%s tagfocus=%s: %+v, want only %s with %d", file, f, rk.Values, v.Value, v.Total)
					}
				}
			}
		}
	}
}

// TestURLSource loads from a net/http/pprof-like server (a spinner, no
// progress bar: the size is unknown).
func TestURLSource(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, testdata("heap.pb.gz"))
	}))
	defer srv.Close()
	url := srv.URL + "/debug/pprof/heap"
	h := start(t, testConfig(url))
	s := h.screen()
	if !strings.Contains(s, "main.allocMedium") || !regexp.MustCompile(`127\.0\.0\.1:\d+/debug/pprof/heap`).MatchString(s) {
		t.Errorf("URL source:\n%s", s)
	}
}

// TestCompletionByValues: each kind of setting value completes from
// what the settings table says it is drawn from.
func TestCompletionByValues(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	for _, tc := range []struct {
		word string
		want []string
	}{
		{"lines=", []string{"lines=false", "lines=true"}}, // a choice as a boolean
		{"mean=t", []string{"mean=true"}},
		{"granularity=fi", []string{"granularity=filefunctions", "granularity=files"}},
		{"sample_index=", []string{"sample_index=cpu", "sample_index=samples"}},
		{"unit=mi", []string{"unit=minimum"}},
		{"tagshow=", []string{"tagshow=algo", "tagshow=phase", "tagshow=worker"}},
		{"tagroot=algo,w", []string{"tagroot=algo,worker"}},
		{"tagfocus=w", []string{"tagfocus=worker="}},
		{"focus=main\\.fi", []string{"focus=main\\.fib", "focus=main\\.fillRandom"}},
		{"nodecount=", nil},
	} {
		var got []string
		h.do(func(m *Model) { got = m.line.completions(tc.word, m.prof) })
		if !slices.Equal(got, tc.want) {
			t.Errorf("completions(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}
