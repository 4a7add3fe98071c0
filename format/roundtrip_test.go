package format

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/internal/gotool"
)

// TestRoundTrip writes every corpus profile and reads it back: the result
// must equal what was read the first time, field for field.
func TestRoundTrip(t *testing.T) {
	for _, name := range protoCorpus {
		t.Run(name, func(t *testing.T) {
			p := parseFile(t, filepath.Join("..", "testdata", name))
			var buf bytes.Buffer
			if err := Write(&buf, p); err != nil {
				t.Fatal(err)
			}
			q, err := Parse(&buf, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p, q) {
				t.Fatal(diffProfiles(p, q))
			}
		})
	}
}

// diffProfiles names the first field where two profiles differ.
func diffProfiles(a, b *Profile) string {
	va, vb := reflect.ValueOf(*a), reflect.ValueOf(*b)
	for i := 0; i < va.NumField(); i++ {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			return "field " + va.Type().Field(i).Name + " differs after the round trip"
		}
	}
	return "profiles differ"
}

// TestPprofReadsOurOutput checks that go tool pprof reads what Write
// writes and sees the same samples (skipped without the go command).
func TestPprofReadsOurOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go tool pprof")
	}
	_, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	for _, name := range []string{"go/cpu_labels.pb.gz", "go/heap.pb.gz", "synthetic/bigprof_10k.pb.gz"} {
		p := parseFile(t, filepath.Join("..", "testdata", name))
		out := filepath.Join(t.TempDir(), "out.pb.gz")
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(f, p); err != nil {
			t.Fatal(err)
		}
		f.Close()
		cmd := gotool.Pprof("-raw", "-symbolize=none", out)
		cmd.Env = append(os.Environ(), "TZ=UTC")
		raw, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: go tool pprof cannot read our output: %v", name, err)
		}
		golden, err := os.ReadFile(filepath.Join("..", "testdata", "golden", name+".raw.txt"))
		if err != nil {
			t.Fatal(err)
		}
		// The samples section must be identical to pprof's reading of
		// the original.
		if got, want := section(string(raw), "Samples:", "Locations"), section(string(golden), "Samples:", "Locations"); got != want {
			t.Errorf("%s: pprof reads different samples from our output", name)
		}
	}
}

func section(s, from, to string) string {
	_, rest, _ := strings.Cut(s, from)
	body, _, _ := strings.Cut(rest, to)
	return body
}
