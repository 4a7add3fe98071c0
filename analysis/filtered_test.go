package analysis

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/internal/synth"
)

// TestFilteredProfile checks -proto's output: the filtered profile,
// written and read back, gives without filters the rows the original
// gives with them.
func TestFilteredProfile(t *testing.T) {
	for _, c := range []struct {
		profile string
		set     map[string]string
	}{
		{"go/cpu_labels.pb.gz", map[string]string{"focus": "quicksort"}},
		{"go/cpu_labels.pb.gz", map[string]string{"ignore": "runtime", "hide": "fmt"}},
		{"go/cpu_labels.pb.gz", map[string]string{"show_from": "runFib", "tagfocus": "worker=w0"}},
		{"go/cpu_labels.pb.gz", map[string]string{"prune_from": "runtime\\.", "noinlines": "true"}},
		{"go/heap.pb.gz", map[string]string{"tagfocus": "1kb:", "show": "main\\."}},
		{"synthetic/bigprof_10k.pb.gz", map[string]string{"focus": "Handle", "taghide": "span"}},
	} {
		e := engineFor(t, filepath.Join("../testdata", c.profile))
		opt := testOptions(t, c.set)
		want, err := e.Top(opt)
		if err != nil {
			t.Fatal(err)
		}
		fp, err := e.Filtered(opt)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := format.Write(&buf, fp); err != nil {
			t.Fatal(err)
		}
		back, err := format.Parse(&buf, format.Options{})
		if err != nil {
			t.Fatal(err)
		}
		plain := DefaultOptions()
		plain.NodeFraction = 0
		plain.NoInlines = opt.NoInlines
		got, err := NewEngine(back).Top(plain)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Rows) != len(want.Rows) {
			t.Fatalf("%s %v: %d rows, want %d", c.profile, c.set, len(got.Rows), len(want.Rows))
		}
		gn, wn := named(got), named(want)
		for i := range wn {
			g, w := gn[i], wn[i]
			if g.Name != w.Name || g.Flat != w.Flat || g.Cum != w.Cum {
				t.Fatalf("%s %v: row %d %+v, want %+v", c.profile, c.set, i, g, w)
			}
		}
	}
}

// TestFuncMatcherLiterals: a filter that is plain text, or plain texts
// joined by |, is matched with strings.Contains; over the names and
// files of a real profile and of the synthesized one it matches exactly
// what the regexp does, and an expression with any other syntax goes to
// the regexp.
func TestFuncMatcherLiterals(t *testing.T) {
	var subjects []string
	for _, e := range []*Engine{engineFor(t, "../testdata/go/cpu_labels.pb.gz"), synthEngine(t, synth.Distinct)} {
		for _, f := range e.p.Functions {
			subjects = append(subjects, f.Name, f.Filename)
		}
		for _, m := range e.p.Mappings {
			subjects = append(subjects, m.File)
		}
	}
	subjects = append(subjects, "", "|", "runtime|json")
	literal := 0
	for _, expr := range []string{"json", "runtime|json", "main|Handle", "fmt", "a|", "|", "Sprintf|go|runtime.mallocgc",
		"runtime.mallocgc", "^main", "json$", "(?i)JSON", `encoding\/json`, "[jk]son", "js.n", "x*"} {
		re := regexp.MustCompile(expr)
		m := &funcMatcher{re: re, lits: literals(re)}
		if m.lits != nil {
			literal++
		}
		if (m.lits != nil) == strings.ContainsAny(expr, `\.+*?()[]{}^$`) {
			t.Errorf("%q: literals %q", expr, m.lits)
		}
		for _, s := range subjects {
			if got, want := m.matches(s), re.MatchString(s); got != want {
				t.Fatalf("%q on %q: %v, the regexp says %v", expr, s, got, want)
			}
		}
	}
	if literal < 5 {
		t.Fatalf("%d expressions taken as literals", literal)
	}
}
