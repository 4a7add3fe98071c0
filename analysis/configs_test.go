package analysis

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateConfigs = flag.Bool("update-configs", false, "rewrite testdata/configs/ours.json (then run its regen.sh)")

// explorerDefaults are the explorer's defaults, which a configuration's
// pprof defaults stand for when it is applied there.
func explorerDefaults() Options {
	o := DefaultOptions()
	o.NodeFraction = 0
	return o
}

func readConfigTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "configs", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// pprof-settings.json was written by go tool pprof -http (regen.sh):
// its configurations apply as pprof applies them, and writing it back
// gives pprof's own bytes.
func TestConfigFromPprof(t *testing.T) {
	data := readConfigTestdata(t, "pprof-settings.json")
	f, err := ParseConfigFile(data)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.Names(), []string{"hot", "by-cum"}; !slices.Equal(got, want) {
		t.Fatalf("names %q, want %q", got, want)
	}
	hot := explorerDefaults()
	hot.Focus, hot.Ignore, hot.Hide, hot.Granularity = `main\.(quicksort|hashBlock)`, "fmt|slices", "runtime", "lines"
	byCum := explorerDefaults()
	byCum.Sort, byCum.NoInlines, byCum.NoTrim, byCum.TagFocus = "cum", true, true, "worker=w1"
	byCum.NodeCount, byCum.NodeFraction = 20, 0.01
	start := explorerDefaults()
	start.SampleIndex, start.Focus, start.DivideBy = "samples", "old", 2 // not saved: kept, except focus
	for _, tc := range []struct {
		name string
		want Options
	}{{"hot", hot}, {"by-cum", byCum}} {
		got, err := f.Apply(tc.name, start, explorerDefaults())
		if err != nil {
			t.Fatal(err)
		}
		tc.want.SampleIndex, tc.want.DivideBy = "samples", 2
		if got != tc.want {
			t.Errorf("%s applied:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
		// Saving what was applied under the same name changes nothing:
		// the file is pprof's, byte for byte.
		if err := f.Save(tc.name, got, explorerDefaults()); err != nil {
			t.Fatal(err)
		}
		if out := f.Marshal(); !bytes.Equal(out, data) {
			t.Errorf("saving %s again wrote\n%s\nwant pprof's\n%s", tc.name, out, data)
		}
	}
	if _, err := f.Apply("nope", start, explorerDefaults()); err == nil || !strings.Contains(err.Error(), "hot, by-cum") {
		t.Errorf("unknown name: %v", err)
	}
}

// ourConfigs are the configurations ours.json adds to pprof's file.
func ourConfigs() []struct {
	name string
	opts Options
} {
	lines := explorerDefaults()
	lines.Focus, lines.Ignore, lines.Granularity = `^main\.work$`, "runtime", "lines"
	tags := explorerDefaults()
	tags.TagFocus, tags.Mean, tags.Sort, tags.RelativePercentages, tags.NoTrim = "worker=w2", true, "cum", true, true
	tags.SampleIndex = "cpu" // not saved
	return []struct {
		name string
		opts Options
	}{{"tui-lines", lines}, {"tui tags", tags}}
}

// ours.json is pprof's file with our configurations added; regen.sh
// shows it to pprof, whose Config menu (ours.menu.txt) lists every
// configuration, with the URL query pprof applies for it, which must be
// the query for what applying it here gives.
func TestConfigToPprof(t *testing.T) {
	f, err := ParseConfigFile(readConfigTestdata(t, "pprof-settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ourConfigs() {
		if err := f.Save(c.name, c.opts, explorerDefaults()); err != nil {
			t.Fatal(err)
		}
	}
	out := append(f.Marshal(), '\n')
	path := filepath.Join("testdata", "configs", "ours.json")
	if *updateConfigs {
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want := readConfigTestdata(t, "ours.json"); !bytes.Equal(out, want) {
		t.Fatalf("ours.json differs (go test ./analysis -run Config -update-configs, then regen.sh):\n%s", out)
	}
	for i, c := range ourConfigs() {
		got, err := f.Apply(c.name, explorerDefaults(), explorerDefaults())
		if err != nil {
			t.Fatal(err)
		}
		want := c.opts
		want.SampleIndex = ""
		if got != want {
			t.Errorf("config %d applied back:\n got %+v\nwant %+v", i, got, want)
		}
	}
	menu := strings.Split(strings.TrimSpace(string(readConfigTestdata(t, "ours.menu.txt"))), "\n")
	var names []string
	for _, line := range menu {
		name, query, _ := strings.Cut(line, "\t")
		names = append(names, name)
		o, err := f.Apply(name, explorerDefaults(), explorerDefaults())
		if err != nil {
			t.Fatal(err)
		}
		if got := PprofURLQuery(o, explorerDefaults()); got != query {
			t.Errorf("%s: our URL query %q, pprof's menu %q", name, got, query)
		}
	}
	if !slices.Equal(names, f.Names()) {
		t.Errorf("pprof's menu lists %q, the file has %q", names, f.Names())
	}
}

// What pprof-tui does not know is written back as it was: top-level
// keys, unknown fields, and the fields of a configuration it replaces
// that are not settings here.
func TestConfigKeepsUnknown(t *testing.T) {
	in := `{"configs":[{"name":"a","focus":"x","future_field":{"k":[1,2]},"normalize":true},` +
		`{"name":"b","nodecount":7,"zz":"keep"}],"theme":"dark"}`
	f, err := ParseConfigFile([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	o := explorerDefaults()
	o.Ignore = "y"
	if err := f.Save("a", o, explorerDefaults()); err != nil {
		t.Fatal(err)
	}
	if err := f.Save("c", o, explorerDefaults()); err != nil {
		t.Fatal(err)
	}
	out := string(f.Marshal())
	for _, want := range []string{`"future_field": {`, `"normalize": true`, `"zz": "keep"`, `"nodecount": 7`, `"theme": "dark"`} {
		if !strings.Contains(out, want) {
			t.Errorf("lost %s:\n%s", want, out)
		}
	}
	g, err := ParseConfigFile([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Names(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("names %q", got)
	}
	a, err := g.Apply("a", explorerDefaults(), explorerDefaults())
	if err != nil || a.Focus != "" || a.Ignore != "y" {
		t.Errorf("a applied: %+v, %v", a, err)
	}
	if err := g.Delete("b"); err != nil {
		t.Fatal(err)
	}
	if err := g.Delete("b"); err == nil {
		t.Error("deleting a missing configuration succeeded")
	}
	if strings.Contains(string(g.Marshal()), "zz") {
		t.Error("b is still there")
	}
}

func TestConfigBadInput(t *testing.T) {
	for _, in := range []string{`[]`, `{"configs":{}}`, `{"configs":[1]}`, `{"configs":[{"name":3}]}`, `{`, `{} {}`} {
		if _, err := ParseConfigFile([]byte(in)); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
	f, err := ParseConfigFile([]byte(`{"configs":[{"name":"bad","focus":"("},{"name":"t","trim":"yes"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"bad", "t"} {
		if _, err := f.Apply(name, explorerDefaults(), explorerDefaults()); err == nil {
			t.Errorf("%s applied", name)
		}
	}
	// A configuration written by hand with one field: the others are
	// their JSON zero values, as pprof reads them (trim=false,
	// edgefraction=0), and an
	// empty sort or unit is the default.
	f, err = ParseConfigFile([]byte(`{"configs":[{"name":"m","focus":"x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := explorerDefaults()
	want.Focus, want.NoTrim, want.EdgeFraction = "x", true, 0
	if o, err := f.Apply("m", explorerDefaults(), explorerDefaults()); err != nil || o != want {
		t.Errorf("a one-field configuration applies as\n%+v, want\n%+v (%v)", o, want, err)
	}
	if f, err := ParseConfigFile(nil); err != nil || len(f.Names()) != 0 {
		t.Errorf("empty file: %v", err)
	}
}

func TestConfigFileIO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pprof", "settings.json")
	f, err := ReadConfigFile(path)
	if err != nil || len(f.Names()) != 0 {
		t.Fatalf("missing file: %v", err)
	}
	if err := f.Save("x", explorerDefaults(), explorerDefaults()); err != nil {
		t.Fatal(err)
	}
	if err := WriteConfigFile(path, f); err != nil {
		t.Fatal(err)
	}
	g, err := ReadConfigFile(path)
	if err != nil || !slices.Equal(g.Names(), []string{"x"}) {
		t.Fatalf("read back: %v %v", g.Names(), err)
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("directory: %v %v", st.Mode(), err)
	}
}
