package analysis

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/pprof-tui/pprof-tui/format"
)

var writeTagFixtures = flag.Bool("write-tag-fixtures", false, "rewrite testdata/tags/*.pb.gz from tagFixtures (regen.sh does)")

// tagFixtures are small profiles for the label rules the real test
// profiles do not exercise. One line per sample:
//
//	values (one per type, comma-separated) | key=value ... | key=num[:unit] ...
var tagFixtures = []struct {
	file  string
	types []string
	spec  string
}{
	{"edge.pb.gz", []string{"samples/count", "cpu/nanoseconds", "space/bytes", "widgets/widgets"}, `
1,1000,100,1       | k=a          | x=2048:bytes t=1500:nanoseconds
2,2000,200,2       | k=b k=b2     | x=5:ms t=2500000:ns
3,3000,300,3       | k=c k=c      | x=7 t=5400000000000
4,4000,-450,4      | j=y          | request=2048 t=-7:s
5,5000,500,5       | j=z          | bytes=3000 request=4096 alignment=8
6,6000,600,-16     | k=d          | mem=3:KB mem=1536:KB
7,7000,700,7       | k=日本       | gcu=3000:gcu w=12345:widgets
8,8000,800,8       | k=é          | id=9007199254740993 id=-5
9,9000,900,9       |              | id=9007199254740992 dead=0 zero=0:bytes
10,10000,1000,10   | k=3          | k=3 k=4
11,11000,-1100,11  |              |
12,12000,1200,12   | k=a j=y      |
0,0,0,0            | k=zero-value |
`},
	{"diffbase.pb.gz", []string{"samples/count", "zeros/count"}, `
10,0 | pprof::base=true k=a |
-4,0 | k=a                  |
7,0  | k=b                  | n=5
`},
}

// buildTagFixture builds a one-function profile from a tagFixtures spec.
func buildTagFixture(types []string, spec string) (*format.Profile, error) {
	p := &format.Profile{
		Strings:   []string{""},
		Functions: []format.Function{{ID: 1, Name: "main.f"}},
		Locations: []format.Location{{ID: 1, Mapping: -1, Lines: format.LineSpan{N: 1}}},
		Lines:     []format.Line{{Function: 0}},
		Stacks:    format.Stacks{Off: []int32{0, 1}, Locs: []int32{0}},
		LabelSets: format.LabelSets{Off: []int32{0, 0}},
	}
	strIndex := map[string]int32{"": 0}
	str := func(s string) int32 {
		i, ok := strIndex[s]
		if !ok {
			i = int32(len(p.Strings))
			strIndex[s] = i
			p.Strings = append(p.Strings, s)
		}
		return i
	}
	for _, t := range types {
		typ, unit, _ := strings.Cut(t, "/")
		p.SampleTypes = append(p.SampleTypes, format.ValueType{Type: typ, Unit: unit})
	}
	s := &p.Samples
	s.Values = make([][]int64, len(types))
	s.NumOff = []uint32{0}
	sets := map[string]int32{"": 0}
	for _, line := range strings.Split(strings.TrimSpace(spec), "\n") {
		fields := strings.Split(line, "|")
		if len(fields) != 3 {
			return nil, errors.New("want 3 fields: " + line)
		}
		values := strings.Split(strings.TrimSpace(fields[0]), ",")
		if len(values) != len(types) {
			return nil, errors.New("want one value per type: " + line)
		}
		for t, v := range values {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, err
			}
			s.Values[t] = append(s.Values[t], n)
		}
		pairs := strings.Fields(fields[1])
		set, ok := sets[strings.Join(pairs, " ")]
		if !ok {
			for _, kv := range pairs {
				k, v, _ := strings.Cut(kv, "=")
				p.LabelSets.Pairs = append(p.LabelSets.Pairs, format.StrLabel{Key: str(k), Value: str(v)})
			}
			p.LabelSets.Off = append(p.LabelSets.Off, int32(len(p.LabelSets.Pairs)))
			set = int32(p.LabelSets.Len() - 1)
			sets[strings.Join(pairs, " ")] = set
		}
		s.Labels = append(s.Labels, set)
		for _, kv := range strings.Fields(fields[2]) {
			k, v, _ := strings.Cut(kv, "=")
			num, unit, _ := strings.Cut(v, ":")
			n, err := strconv.ParseInt(num, 10, 64)
			if err != nil {
				return nil, err
			}
			kind := format.NumKind{Key: str(k), Unit: str(unit)}
			j := slices.Index(s.NumKinds, kind)
			if j < 0 {
				j = len(s.NumKinds)
				s.NumKinds = append(s.NumKinds, kind)
			}
			s.NumKind = append(s.NumKind, uint16(j))
			s.NumValue = append(s.NumValue, n)
		}
		s.NumOff = append(s.NumOff, uint32(len(s.NumValue)))
		s.Stack = append(s.Stack, 0)
	}
	return p, nil
}

// TestTagFixtures checks that the committed fixtures are what tagFixtures
// describe (or rewrites them with -write-tag-fixtures).
func TestTagFixtures(t *testing.T) {
	for _, fx := range tagFixtures {
		p, err := buildTagFixture(fx.types, fx.spec)
		if err != nil {
			t.Fatalf("%s: %v", fx.file, err)
		}
		var buf bytes.Buffer
		if err := format.Write(&buf, p); err != nil {
			t.Fatalf("%s: %v", fx.file, err)
		}
		path := filepath.Join("testdata/tags", fx.file)
		if *writeTagFixtures {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, buf.Bytes()) {
			t.Errorf("%s is stale: run testdata/tags/regen.sh", path)
		}
	}
}

var tagProfiles sync.Map // path → *format.Profile

func tagProfile(t *testing.T, path string) *format.Profile {
	t.Helper()
	if p, ok := tagProfiles.Load(path); ok {
		return p.(*format.Profile)
	}
	p, err := format.Open(context.Background(), path, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tagProfiles.Store(path, p)
	return p
}

type tagCase struct {
	name, profile string
	flags         map[string]string
}

func readTagCases(t *testing.T) []tagCase {
	t.Helper()
	data, err := os.ReadFile("testdata/tags/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	var cases []tagCase
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") {
			continue
		}
		c := tagCase{name: f[0], profile: f[1], flags: map[string]string{}}
		for _, fl := range f[2:] {
			name, value, _ := strings.Cut(strings.TrimPrefix(fl, "-"), "=")
			c.flags[name] = value
		}
		cases = append(cases, c)
	}
	return cases
}

// tagReport is what our code makes of one case: the -tags text and the
// per-sample-type totals of the samples kept.
func tagReport(t *testing.T, c tagCase) (text string, totals []int64) {
	t.Helper()
	p := tagProfile(t, filepath.Join("../testdata", c.profile))
	vi, err := SampleIndex(p, c.flags["sample_index"])
	if err != nil {
		t.Fatal(err)
	}
	units := numLabelUnits(p)
	focus, err := compileTagFilter(p, "tagfocus", c.flags["tagfocus"], units)
	if err != nil {
		t.Fatal(err)
	}
	ignore, err := compileTagFilter(p, "tagignore", c.flags["tagignore"], units)
	if err != nil {
		t.Fatal(err)
	}
	keep := tagFilterSamples(focus, ignore)
	keyOK, err := labelKeyFilter(&Options{TagShow: c.flags["tagshow"], TagHide: c.flags["taghide"]})
	if err != nil {
		t.Fatal(err)
	}
	var totalKeep sampleFilter
	if _, ok := c.flags["relative_percentages"]; ok {
		totalKeep = keep
	}
	var buf bytes.Buffer
	tags := Tags(p, vi, keep, keyOK, units)
	if err := formatTagsText(&buf, tags, p.SampleTypes[vi].Unit, tagsTotal(p, vi, totalKeep, NewEngine(p).baseSets())); err != nil {
		t.Fatal(err)
	}
	totals = make([]int64, len(p.SampleTypes))
	for i := range p.Samples.Len() {
		if keep == nil || keep(i) {
			for ti, col := range p.Samples.Values {
				totals[ti] += col[i]
			}
		}
	}
	return buf.String(), totals
}

// readTagTotals reads NAME.totals.txt: "type/unit sum" per sample type.
func readTagTotals(t *testing.T, path string) []int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var totals []int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			t.Fatalf("%s: bad line %q", path, sc.Text())
		}
		n, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		totals = append(totals, n)
	}
	return totals
}

// TestTagsMatchPprof compares, for every case in testdata/tags/cases.txt,
// our -tags text with pprof's byte for byte, and the totals of the
// samples our tag filters keep with those of the samples pprof keeps.
func TestTagsMatchPprof(t *testing.T) {
	for _, c := range readTagCases(t) {
		t.Run(c.name, func(t *testing.T) {
			text, totals := tagReport(t, c)
			want, err := os.ReadFile(filepath.Join("testdata/tags", c.name+".tags.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if text != string(want) {
				t.Errorf("-tags differs from pprof\n--- ours\n%s--- pprof\n%s", text, want)
			}
			wantTotals := readTagTotals(t, filepath.Join("testdata/tags", c.name+".totals.txt"))
			if len(wantTotals) != len(totals) {
				t.Fatalf("%d sample types, pprof has %d", len(totals), len(wantTotals))
			}
			for i := range totals {
				if totals[i] != wantTotals[i] {
					t.Errorf("kept samples' %s total %d, pprof %d", tagProfile(t, filepath.Join("../testdata", c.profile)).SampleTypes[i].Type, totals[i], wantTotals[i])
				}
			}
		})
	}
}

// TestTagFilterErrors: the values pprof rejects (errors.golden, from
// regen.sh, records how) are errors naming the option.
func TestTagFilterErrors(t *testing.T) {
	data, err := os.ReadFile("testdata/tags/errors.golden")
	if err != nil {
		t.Fatal(err)
	}
	p := tagProfile(t, "../testdata/go/heap.pb.gz")
	units := numLabelUnits(p)
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		// "option value<TAB>pprof: exit status and first line of stderr"
		arg, pprofSays, _ := strings.Cut(line, "\t")
		option, value, _ := strings.Cut(arg, " ")
		if !strings.HasPrefix(pprofSays, "exit ") || strings.HasPrefix(pprofSays, "exit 0") {
			t.Errorf("%s=%s: pprof accepted it (%s)", option, value, pprofSays)
		}
		var err error
		switch option {
		case "tagfocus", "tagignore":
			_, err = compileTagFilter(p, option, value, units)
		case "tagshow":
			_, err = labelKeyFilter(&Options{TagShow: value})
		case "taghide":
			_, err = labelKeyFilter(&Options{TagHide: value})
		default:
			t.Fatalf("unknown option %q", option)
		}
		var oe *OptionError
		switch {
		case err == nil:
			t.Errorf("%s=%s: no error; pprof: %s", option, value, pprofSays)
		case !errors.As(err, &oe) || oe.Option != option || !strings.HasPrefix(err.Error(), option+": "):
			t.Errorf("%s=%s: error %q does not name the option", option, value, err)
		default:
			t.Logf("%s=%s: %v", option, value, err)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no error cases")
	}
}

func TestTagFilterNil(t *testing.T) {
	p := tagProfile(t, "../testdata/go/cpu_labels.pb.gz")
	f, err := compileTagFilter(p, "tagfocus", "", numLabelUnits(p))
	if f != nil || err != nil {
		t.Errorf(`compileTagFilter("") = %v, %v; want nil, nil`, f != nil, err)
	}
	if tagFilterSamples(nil, nil) != nil {
		t.Error("tagFilterSamples(nil, nil) != nil")
	}
	k, err := labelKeyFilter(&Options{})
	if k != nil || err != nil {
		t.Errorf(`labelKeyFilter(no key filter) = %v, %v; want nil, nil`, k != nil, err)
	}
}

// TestNumLabelUnits pins the units pprof's -tags shows for the fixtures'
// keys: first explicit unit wins, request/alignment default to bytes,
// other keys to themselves, and a 0 without unit is no label at all.
func TestNumLabelUnits(t *testing.T) {
	tests := []struct {
		profile string
		want    map[string]string
	}{
		{"go/heap.pb.gz", map[string]string{"bytes": "bytes"}},
		{"synthetic/bigprof_10k.pb.gz", map[string]string{"request_bytes": "bytes", "span_id": "span_id"}},
		{"go/cpu_labels.pb.gz", map[string]string{}},
		{"../analysis/testdata/tags/edge.pb.gz", map[string]string{
			"x": "bytes", "t": "nanoseconds", "request": "bytes", "alignment": "bytes", "bytes": "bytes",
			"mem": "KB", "gcu": "gcu", "w": "widgets", "id": "id", "zero": "bytes", "k": "k",
		}},
	}
	for _, tt := range tests {
		got := numLabelUnits(tagProfile(t, filepath.Join("../testdata", tt.profile)))
		if len(got) != len(tt.want) {
			t.Errorf("%s: units %v, want %v", tt.profile, got, tt.want)
			continue
		}
		for k, u := range tt.want {
			if got[k] != u {
				t.Errorf("%s: unit of %q is %q, want %q", tt.profile, k, got[k], u)
			}
		}
	}
}

// TestNumLabelUnitsFirstLabel checks that a key's unit is its first
// label's, whatever the order of its kinds (key and unit pairs).
func TestNumLabelUnitsFirstLabel(t *testing.T) {
	p := &format.Profile{Strings: []string{"", "x", "kilobytes", "bytes", "y"}}
	p.Samples.NumKinds = []format.NumKind{{Key: 1, Unit: 2}, {Key: 1, Unit: 3}, {Key: 4, Unit: 0}, {Key: 4, Unit: 2}}
	p.Samples.NumKind = []uint16{2, 1, 0, 3, 1}
	p.Samples.NumValue = make([]int64, 5)
	p.Samples.NumOff = []uint32{0, 5}
	got := numLabelUnits(p)
	if want := map[string]string{"x": "bytes", "y": "kilobytes"}; !maps.Equal(got, want) {
		t.Errorf("units %v, want %v", got, want)
	}
}

// TestTagValueLabels pins numeric label values as `go tool pprof -tags`
// prints them (each row was checked against pprof's output).
func TestTagValueLabels(t *testing.T) {
	tests := []struct {
		v    int64
		unit string
		want string
	}{
		{0, "bytes", "0"},
		{1536, "bytes", "1.50kB"},
		{1048575, "b", "1024kB"},
		{-2048, "b", "-2kB"},
		{3, "KB", "3kB"},
		{3, "kbs", "3kB"},
		{3, "bs", "3"},
		{3, "KiB", "3"},
		{1125899906842624, "pb", "1125899906842624PB"},
		{1500, "nanoseconds", "1.50us"},
		{3, "nss", "3ns"},
		{3, "ss", "3"},
		{3, "μs", "3"},
		{3540, "s", "3540s"},
		{86400, "secs", "24hrs"},
		{3, "hours", "3hrs"},
		{3, "minute", "3"},
		{3000, "gcu", "3k*GCU"},
		{3000000000000000000, "GCUs", "3000P*GCU"},
		{9007199254740993, "span_id", "9007199254740992"},
		{12345, "requests", "12345"},
	}
	for _, tt := range tests {
		if got := ScaledLabel(tt.v, tt.unit, "minimum"); got != tt.want {
			t.Errorf("ScaledLabel(%d, %q, minimum) = %q, want %q", tt.v, tt.unit, got, tt.want)
		}
	}
}

func BenchmarkTags(b *testing.B) {
	p, err := format.Open(context.Background(), "../testdata/synthetic/bigprof_10k.pb.gz", format.Options{})
	if err != nil {
		b.Fatal(err)
	}
	units := numLabelUnits(p)
	focus, err := compileTagFilter(p, "tagfocus", "request_bytes=1kb:", units)
	if err != nil {
		b.Fatal(err)
	}
	ignore, err := compileTagFilter(p, "tagignore", "service=frontend,checkout", units)
	if err != nil {
		b.Fatal(err)
	}
	keep := tagFilterSamples(focus, ignore)
	b.ReportAllocs()
	for b.Loop() {
		Tags(p, 1, keep, nil, units)
	}
}

// TestNumTagValues compares the numeric labels' values (sorted by number,
// summed where neighbours print alike, in halves when long) with sums in
// a map of numbers, then one of printed values, over values that print
// alike in many ways: scaled bytes and times, float64 rounding of large
// numbers, zero and negative values, a key with two units.
func TestNumTagValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := &format.Profile{Strings: []string{"", "bytes", "span_id", "ms", "kilobytes", "delay", "nanoseconds"}}
	p.Samples.NumKinds = []format.NumKind{{Key: 1, Unit: 1}, {Key: 2}, {Key: 1, Unit: 4}, {Key: 5, Unit: 6}}
	p.LabelSets.Off = []int32{0, 0}
	const n = 5000
	values := make([]int64, n)
	p.Samples.NumOff = []uint32{0}
	for i := range n {
		values[i] = rng.Int64N(100) - 10
		for k := range 1 + rng.IntN(3) {
			var v int64
			switch kind := (i + k) % 4; kind {
			case 0, 2:
				v = rng.Int64N(1 << uint(1+rng.IntN(40)))
			case 1:
				v = rng.Int64() >> uint(rng.IntN(60))
				if rng.IntN(50) == 0 {
					v = math.MinInt64
				}
			case 3:
				v = rng.Int64N(3e9) - 1e9
			}
			p.Samples.NumKind = append(p.Samples.NumKind, uint16((i+k)%4))
			p.Samples.NumValue = append(p.Samples.NumValue, v)
		}
		p.Samples.NumOff = append(p.Samples.NumOff, uint32(len(p.Samples.NumValue)))
	}
	p.Samples.Values = [][]int64{values}
	p.Samples.Labels = make([]int32, n)
	p.Samples.Stack = make([]int32, n)
	units := numLabelUnits(p)
	for _, keep := range []sampleFilter{func(i int) bool { return i%7 != 3 }, nil} {
		checkNumTagValues(t, p, keep, units)
	}
}

// checkNumTagValues is TestNumTagValues with the samples keep passes.
func checkNumTagValues(t *testing.T, p *format.Profile, keep sampleFilter, units map[string]string) {
	values := p.Samples.Values[0]
	want := map[string]map[string]int64{}
	for i := range p.Samples.Len() {
		if keep != nil && !keep(i) {
			continue
		}
		for j := int(p.Samples.NumOff[i]); j < int(p.Samples.NumOff[i+1]); j++ {
			l := p.Samples.NumLabel(j)
			key := p.Strings[l.Key]
			if want[key] == nil {
				want[key] = map[string]int64{}
			}
			want[key][ScaledLabel(l.Value, units[key], "minimum")] += values[i]
		}
	}
	atTagSplits(func(split string) {
		got := numTagValues(p, 0, keep, nil, units)
		if len(got) != len(want) {
			t.Fatalf("%s: %d keys, want %d", split, len(got), len(want))
		}
		for key, m := range want {
			if len(got[key]) != len(m) {
				t.Errorf("%s: key %s: %d values, want %d", split, key, len(got[key]), len(m))
			}
			for _, tv := range got[key] {
				if m[tv.Value] != tv.Total {
					t.Errorf("%s: %s=%s: %d, want %d", split, key, tv.Value, tv.Total, m[tv.Value])
				}
			}
		}
	})
}

// atTagSplits runs f with the Labels report's two halves from their
// usual count of values (or samples) and from 8, f's argument naming
// which for its messages. It changes parallelTagValues: its callers do
// not run in parallel.
func atTagSplits(f func(split string)) {
	defer func(old int) { parallelTagValues = old }(parallelTagValues)
	for _, n := range []int{parallelTagValues, 8} {
		parallelTagValues = n
		f(fmt.Sprintf("parallelTagValues %d", n))
	}
}

// TestSortTagValues compares the radix sort by |total| and name (names
// keyed by their first eight bytes, compared whole where those are
// equal) with a comparison of whole names, over names that share
// prefixes of every length up to and past eight bytes, whole and in two
// halves.
func TestSortTagValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	atTagSplits(func(split string) {
		var values []TagValue
		for range 3000 {
			name := strings.Repeat("a", rng.IntN(12)) + string(rune('a'+rng.IntN(3)))
			if rng.IntN(3) == 0 {
				name += "\x00" + strconv.Itoa(rng.IntN(5))
			}
			values = append(values, TagValue{name, rng.Int64N(7) - 3})
		}
		want := slices.Clone(values)
		slices.SortStableFunc(want, func(a, b TagValue) int {
			if a, b := abs64(a.Total), abs64(b.Total); a != b {
				return cmp.Compare(b, a)
			}
			return strings.Compare(a.Value, b.Value)
		})
		sortTagValues(values)
		for i := range values {
			if abs64(values[i].Total) != abs64(want[i].Total) || values[i].Value != want[i].Value {
				t.Fatalf("%s: row %d: %q %d, want %q %d", split, i, values[i].Value, values[i].Total, want[i].Value, want[i].Total)
			}
		}
	})
}
