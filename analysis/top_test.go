package analysis

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pprof-tui/pprof-tui/format"
)

// pprofTop is what `go tool pprof -top` printed: the oracle.
type pprofTop struct {
	total   int64
	shown   int64
	dropped int
	rows    []nameRow
}

// nameRow is a Row with its name, as pprof prints it.
type nameRow struct {
	Name      string
	Flat, Cum int64
	Inline    string
}

func named(t *Top) []nameRow {
	out := make([]nameRow, len(t.Rows))
	for i, r := range t.Rows {
		out[i] = nameRow{t.Nodes.Name(r.Node), r.Flat, r.Cum, r.Inline.String()}
	}
	return out
}

// parseValue reads a value printed with an explicit -unit ("750000000ns",
// "16B") or a plain count.
func parseValue(t *testing.T, s string) int64 {
	t.Helper()
	s = strings.TrimRight(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("bad value %q", s)
	}
	return v
}

func readPprofTop(t *testing.T, path string) *pprofTop {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var top pprofTop
	sc := bufio.NewScanner(f)
	inRows := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "Showing nodes accounting for "):
			// "Showing nodes accounting for X, P% of T total"
			rest := strings.TrimPrefix(line, "Showing nodes accounting for ")
			shown, rest, _ := strings.Cut(rest, ", ")
			_, tot, _ := strings.Cut(rest, " of ")
			top.shown = parseValue(t, shown)
			top.total = parseValue(t, strings.TrimSuffix(tot, " total"))
		case strings.HasPrefix(line, "Dropped ") && strings.Contains(line, " nodes "):
			top.dropped, _ = strconv.Atoi(strings.Fields(line)[1])
		case strings.HasPrefix(line, "      flat  flat%"):
			inRows = true
		case inRows:
			fields := strings.Fields(line)
			if len(fields) < 6 {
				t.Fatalf("%s: bad row %q", path, line)
			}
			// The name follows the five value columns and two spaces.
			pos := 0
			for k := 0; k < 5; k++ {
				pos += strings.Index(line[pos:], fields[k]) + len(fields[k])
			}
			name := line[pos+2:]
			row := nameRow{Flat: parseValue(t, fields[0]), Cum: parseValue(t, fields[3])}
			for _, m := range []string{"inline", "partial-inline"} {
				if strings.HasSuffix(name, " ("+m+")") {
					row.Inline = m
					name = strings.TrimSuffix(name, " ("+m+")")
				}
			}
			row.Name = name
			top.rows = append(top.rows, row)
		}
	}
	return &top
}

// applyFlags sets options from pprof command-line flags, as main does.
func applyFlags(t *testing.T, opt *Options, flags []string) {
	t.Helper()
	for _, f := range flags {
		name, value, hasValue := strings.Cut(strings.TrimLeft(f, "-"), "=")
		switch name {
		case "top", "base", "diff_base", "normalize":
			continue // bases are loaded by engineFor
		case "cum":
			opt.Sort = "cum"
			continue
		case "flat":
			opt.Sort = "flat"
			continue
		}
		if !hasValue {
			value = "true"
		}
		if err := opt.Set(name, value); err != nil {
			t.Fatalf("flag %s: %v", f, err)
		}
	}
}

var engines sync.Map // profile path (and bases) → *Engine

// engineFor loads a testdata profile; flags may add pprof's -base,
// -diff_base (paths relative to the profile's testdata directory) and
// -normalize.
func engineFor(t *testing.T, path string, flags ...string) *Engine {
	t.Helper()
	key := path + " " + strings.Join(flags, " ")
	if e, ok := engines.Load(key); ok {
		return e.(*Engine)
	}
	src := format.Sources{Sources: []string{path}}
	dir := filepath.Dir(filepath.Dir(path)) // testdata/
	for _, f := range flags {
		name, value, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		switch name {
		case "base":
			src.Base = append(src.Base, filepath.Join(dir, value))
		case "diff_base":
			src.DiffBase = append(src.DiffBase, filepath.Join(dir, value))
		case "normalize":
			src.Normalize = true
		}
	}
	p, err := format.Load(context.Background(), src, format.Options{Symbolize: "none"}) // as the goldens
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(p)
	engines.Store(key, e)
	return e
}

type parityCase struct {
	name, profile string
	flags         []string
}

func readCases(t *testing.T, path string) []parityCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases []parityCase
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		cases = append(cases, parityCase{f[0], f[1], f[2:]})
	}
	return cases
}

// TestTopMatchesPprof compares every row of our top table with pprof's
// -top output for the same profile and flags (goldens from
// testdata/top/regen.sh).
func TestTopMatchesPprof(t *testing.T) {
	t.Parallel()
	for _, c := range readCases(t, "testdata/top/cases.txt") {
		t.Run(c.name, func(t *testing.T) {
			want := readPprofTop(t, filepath.Join("testdata/top", c.name+".txt"))
			opt := DefaultOptions()
			opt.NodeFraction, opt.NodeCount = 0, 1000000
			applyFlags(t, &opt, c.flags)
			top, err := engineFor(t, filepath.Join("../testdata", c.profile), c.flags...).Top(opt)
			if err != nil {
				t.Fatal(err)
			}
			if top.Total != want.total {
				t.Errorf("total %d, pprof says %d", top.Total, want.total)
			}
			if top.ShownTotal != want.shown {
				t.Errorf("shown total %d, pprof says %d", top.ShownTotal, want.shown)
			}
			if top.DroppedNodes != want.dropped {
				t.Errorf("dropped %d nodes, pprof says %d", top.DroppedNodes, want.dropped)
			}
			got := named(top)
			if slices.Contains(c.flags, "-files") {
				// Several nodes print as one file name; pprof orders such
				// ties differently from run to run, so compare as sets.
				got, want.rows = sortedRows(got), sortedRows(want.rows)
			}
			n := max(len(got), len(want.rows))
			bad := 0
			for i := 0; i < n && bad < 5; i++ {
				var row, exp nameRow
				if i < len(got) {
					row = got[i]
				}
				if i < len(want.rows) {
					exp = want.rows[i]
				}
				if row != exp {
					t.Errorf("row %d: got  %+v\n              pprof %+v", i, row, exp)
					bad++
				}
			}
			if len(top.Rows) != len(want.rows) {
				t.Errorf("%d rows, pprof has %d", len(top.Rows), len(want.rows))
			}
		})
	}
}

func sortedRows(rows []nameRow) []nameRow {
	out := slices.Clone(rows)
	slices.SortFunc(out, func(a, b nameRow) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		if a.Flat != b.Flat {
			return int(a.Flat - b.Flat)
		}
		if a.Cum != b.Cum {
			return int(a.Cum - b.Cum)
		}
		return strings.Compare(a.Inline, b.Inline)
	})
	return out
}

// testOptions returns pprof's defaults without node trimming, with the
// given settings applied.
func testOptions(t *testing.T, set map[string]string) Options {
	t.Helper()
	opt := DefaultOptions()
	opt.NodeFraction = 0
	for k, v := range set {
		if err := opt.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	return opt
}

// must takes a call's value and error, as must(e.Top(opt))(t): the
// value, the test failing at once when err is set.
func must[T any](v T, err error) func(t *testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// TestBaseTop: in a -diff_base profile, BaseTop gives the base profile's
// own top, and base + delta gives the new profile's, function by
// function.
func TestBaseTop(t *testing.T) {
	for _, tc := range []struct{ newer, older string }{
		{"notes/goroutine2.pb.gz", "notes/goroutine1.pb.gz"},
		{"go/cpu_labels.pb.gz", "go/cpu_labels_no_w0.pb.gz"},
	} {
		opt := DefaultOptions()
		opt.NodeFraction = 0
		diff := engineFor(t, "../testdata/"+tc.newer, "-diff_base="+tc.older)
		delta, err := diff.Top(opt)
		if err != nil {
			t.Fatal(err)
		}
		base, err := diff.BaseTop(opt)
		if err != nil || base == nil {
			t.Fatalf("%s: BaseTop: %v, %v", tc.newer, base, err)
		}
		byName := func(tp *Top) map[string][2]int64 {
			m := map[string][2]int64{}
			for _, r := range tp.Rows {
				m[tp.Nodes.Name(r.Node)] = [2]int64{r.Flat, r.Cum}
			}
			return m
		}
		wantBase, err := engineFor(t, "../testdata/"+tc.older).Top(opt)
		if err != nil {
			t.Fatal(err)
		}
		wantNew, err := engineFor(t, "../testdata/"+tc.newer).Top(opt)
		if err != nil {
			t.Fatal(err)
		}
		gotBase, d, nw := byName(base), byName(delta), byName(wantNew)
		for name, w := range byName(wantBase) {
			if gotBase[name] != w {
				t.Errorf("%s: base %s = %v, the base profile says %v", tc.newer, name, gotBase[name], w)
			}
		}
		if len(gotBase) != len(byName(wantBase)) {
			t.Errorf("%s: %d base rows, want %d", tc.newer, len(gotBase), len(byName(wantBase)))
		}
		for name, w := range nw {
			b, dd := gotBase[name], d[name]
			if b[0]+dd[0] != w[0] || b[1]+dd[1] != w[1] {
				t.Errorf("%s: %s base %v + delta %v != new %v", tc.newer, name, b, dd, w)
			}
		}
		if none, _ := engineFor(t, "../testdata/"+tc.newer, "-base="+tc.older).BaseTop(opt); none != nil {
			t.Errorf("%s: BaseTop with -base should be nil", tc.newer)
		}
	}
}

// TestTopFromKeptAggregate: a Top that differs from the last one only in
// edge fraction or sort is made from the kept aggregate; it equals the
// table computed from scratch, markers and order included.
func TestTopFromKeptAggregate(t *testing.T) {
	for _, profile := range []string{"go/cpu_labels.pb.gz", "synthetic/bigprof_10k.pb.gz", "pprof/large.cpu"} {
		p := engineFor(t, filepath.Join("../testdata", profile)).p
		kept := NewEngine(p) // its own caches
		base := testOptions(t, map[string]string{"nodefraction": "0"})
		if _, err := kept.Top(base); err != nil {
			t.Fatal(err)
		}
		if kept.recentAggregate(aggregateKey(kept.topKey(base))) == nil {
			t.Fatalf("%s: no aggregate kept", profile)
		}
		for _, set := range []map[string]string{
			{"nodefraction": "0", "edgefraction": "0"},
			{"nodefraction": "0", "edgefraction": "0.2"},
			{"nodefraction": "0", "cum": "true"},
			{"nodefraction": "0", "edgefraction": "0.05", "cum": "true"},
		} {
			opt := testOptions(t, set)
			got := must(kept.Top(opt))(t)
			want := must(NewEngine(p).Top(opt))(t)
			if !slices.Equal(named(got), named(want)) || got.Total != want.Total {
				t.Errorf("%s %v: the table from the kept aggregate differs from a new one", profile, set)
			}
		}
	}
}

// TestTopOnce: askers of one table at once share one computation.
func TestTopOnce(t *testing.T) {
	e := NewEngine(engineFor(t, filepath.Join("../testdata", "pprof/large.cpu")).p)
	opt := testOptions(t, nil)
	tops := make([]*Top, 8)
	var wg sync.WaitGroup
	for i := range tops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			top, err := e.Top(opt)
			if err != nil {
				t.Error(err)
			}
			tops[i] = top
		}()
	}
	wg.Wait()
	for i, top := range tops {
		if top == nil || top != tops[0] {
			t.Fatalf("asker %d got another table than the first", i)
		}
	}
}
