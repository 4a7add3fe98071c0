package analysis

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/pprof-tui/pprof-tui/format"
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
		for i := range want.Rows {
			g, w := got.Rows[i], want.Rows[i]
			g.Node, w.Node = 0, 0
			if g.Name != w.Name || g.Flat != w.Flat || g.Cum != w.Cum {
				t.Fatalf("%s %v: row %d %+v, want %+v", c.profile, c.set, i, g, w)
			}
		}
	}
}
