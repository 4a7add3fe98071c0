package format

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// rawDump is what `go tool pprof -raw` prints about a profile: the
// reference our decoder is checked against (goldens in testdata/golden,
// made by testdata/regen.sh).
type rawDump struct {
	types     []string // "type/unit"
	samples   []rawSample
	locations map[uint64]rawLocation
}

type rawSample struct {
	values []int64
	locs   []uint64
	labels []string // "key:[v v]" groups, as printed
}

type rawLocation struct {
	addr  uint64
	funcs []string // innermost first
}

func openGolden(t testing.TB, path string) io.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		if _, err2 := os.Stat(path + ".gz"); err2 == nil {
			f, err = os.Open(path + ".gz")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			zr, err := gzip.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			return zr
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func readRawDump(t testing.TB, path string) *rawDump {
	t.Helper()
	d := &rawDump{locations: map[uint64]rawLocation{}}
	sc := bufio.NewScanner(openGolden(t, path))
	sc.Buffer(nil, 1<<20)
	section := ""
	var lastLoc uint64
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "Samples:" || line == "Locations" || line == "Mappings":
			section = line
			continue
		case section == "Samples:" && d.types == nil:
			d.types = strings.Fields(line)
			continue
		}
		switch section {
		case "Samples:":
			vals, locs, ok := strings.Cut(line, ":")
			if ok && !strings.Contains(line, ":[") {
				var s rawSample
				for _, f := range strings.Fields(vals) {
					v, err := strconv.ParseInt(f, 10, 64)
					if err != nil {
						t.Fatalf("%s: bad sample line %q", path, line)
					}
					s.values = append(s.values, v)
				}
				for _, f := range strings.Fields(locs) {
					id, _ := strconv.ParseUint(f, 10, 64)
					s.locs = append(s.locs, id)
				}
				d.samples = append(d.samples, s)
			} else if len(d.samples) > 0 {
				last := &d.samples[len(d.samples)-1]
				last.labels = append(last.labels, splitLabelGroups(strings.TrimSpace(line))...)
			}
		case "Locations":
			// "     1: 0x4b7eaf M=1 fmt.(*pp).printArg /path:719:0 s=682"
			// with inlined callers on following lines, indented further.
			f := strings.Fields(line)
			if len(f) >= 2 && strings.HasSuffix(f[0], ":") && strings.HasPrefix(f[1], "0x") {
				id, _ := strconv.ParseUint(strings.TrimSuffix(f[0], ":"), 10, 64)
				addr, _ := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 64)
				loc := rawLocation{addr: addr}
				if len(f) >= 4 && strings.HasPrefix(f[2], "M=") {
					loc.funcs = append(loc.funcs, f[3])
				}
				d.locations[id] = loc
				lastLoc = id
			} else if len(f) >= 1 && lastLoc != 0 {
				loc := d.locations[lastLoc]
				loc.funcs = append(loc.funcs, f[0])
				d.locations[lastLoc] = loc
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return d
}

// splitLabelGroups splits `a:[x y] b:[z]` into its groups.
func splitLabelGroups(s string) []string {
	var out []string
	for s != "" {
		end := strings.Index(s, "]")
		if end < 0 {
			return append(out, s)
		}
		out = append(out, s[:end+1])
		s = strings.TrimSpace(s[end+1:])
	}
	return out
}

// labelGroups renders sample i's labels as pprof -raw does: keys sorted,
// values in file order, string labels then numeric ones.
func labelGroups(p *Profile, i int) []string {
	strs := map[string][]string{}
	for _, kv := range p.LabelSets.At(p.Samples.Labels[i]) {
		k := p.Strings[kv.Key]
		strs[k] = append(strs[k], p.Strings[kv.Value])
	}
	nums := map[string][]string{}
	for _, nl := range p.Samples.NumLabels(i) {
		k := p.Strings[nl.Key]
		v := strconv.FormatInt(nl.Value, 10)
		if u := p.Strings[nl.Unit]; u != "" {
			v += " " + u
		}
		nums[k] = append(nums[k], v)
	}
	var out []string
	for _, m := range []map[string][]string{strs, nums} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, fmt.Sprintf("%s:[%s]", k, strings.Join(m[k], " ")))
		}
	}
	return out
}

func parseFile(t testing.TB, path string) *Profile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := Parse(f, Options{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p
}

// protoCorpus lists the profile.proto files in testdata with a -raw golden.
var protoCorpus = []string{
	"go/block.pb.gz", "go/cpu_labels.pb.gz", "go/goroutine.pb.gz", "go/heap.pb.gz", "go/mutex.pb.gz",
	"notes/benchmark.cpu.pb.gz", "notes/block-net.pb.gz", "notes/goroutine.pb.gz", "notes/pprof.samples.cpu.001.pb.gz",
	"pprof/cppbench.cpu_no_samples_type", "pprof/go.nomappings.crash", "pprof/large.cpu", "pprof/sample.cpu",
	"synthetic/bigprof_10k.pb.gz",
}

// TestProtoMatchesPprofRaw decodes every profile.proto of the corpus and
// compares it, sample by sample, with pprof's own reading of it.
func TestProtoMatchesPprofRaw(t *testing.T) {
	for _, name := range protoCorpus {
		t.Run(name, func(t *testing.T) {
			p := parseFile(t, filepath.Join("..", "testdata", name))
			want := readRawDump(t, filepath.Join("..", "testdata", "golden", name+".raw.txt"))
			var types []string
			for _, st := range p.SampleTypes {
				t := st.Type + "/" + st.Unit
				if st.Type == p.DefaultSampleType {
					t += "[dflt]"
				}
				types = append(types, t)
			}
			if !slices.Equal(types, want.types) {
				t.Fatalf("sample types %v, pprof says %v", types, want.types)
			}
			if p.Samples.Len() != len(want.samples) {
				t.Fatalf("%d samples, pprof says %d", p.Samples.Len(), len(want.samples))
			}
			for i, ws := range want.samples {
				for ti := range p.SampleTypes {
					if got := p.Samples.Values[ti][i]; got != ws.values[ti] {
						t.Fatalf("sample %d value %d = %d, pprof says %d", i, ti, got, ws.values[ti])
					}
				}
				stack := p.Stacks.At(p.Samples.Stack[i])
				var ids []uint64
				for _, l := range stack {
					ids = append(ids, p.Locations[l].ID)
				}
				if !slices.Equal(ids, ws.locs) {
					t.Fatalf("sample %d stack %v, pprof says %v", i, ids, ws.locs)
				}
				if got := labelGroups(p, i); !slices.Equal(got, ws.labels) {
					t.Fatalf("sample %d labels %q, pprof says %q", i, got, ws.labels)
				}
			}
			for _, loc := range p.Locations {
				wl, ok := want.locations[loc.ID]
				if !ok {
					continue // pprof -raw lists only locations that samples use
				}
				if loc.Address != wl.addr {
					t.Fatalf("location %d address %#x, pprof says %#x", loc.ID, loc.Address, wl.addr)
				}
				var names []string
				for _, ln := range p.LinesOf(&loc) {
					if ln.Function >= 0 {
						names = append(names, p.Functions[ln.Function].Name)
					}
				}
				// pprof prints a name only up to its first space.
				for j := range names {
					names[j], _, _ = strings.Cut(names[j], " ")
				}
				if len(names) != len(wl.funcs) || (len(names) > 0 && !slices.Equal(names, wl.funcs)) {
					t.Fatalf("location %d functions %q, pprof says %q", loc.ID, names, wl.funcs)
				}
			}
		})
	}
}
