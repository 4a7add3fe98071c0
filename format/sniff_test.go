package format

import (
	"os"
	"path/filepath"
	"testing"
)

// Sniff tells profiles from other files by their first bytes, as Parse
// does, whatever their names.
func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		path, want string
	}{
		{"../testdata/go/cpu_labels.pb.gz", "profile.proto, gzip"},
		{"../testdata/go/heap.pb.gz", "profile.proto, gzip"},
		{"../testdata/legacy/cpu.prof", "gperftools CPU"},
		{"../testdata/legacy/cpubench", ""},    // the binary
		{"../testdata/src/goprof/main.go", ""}, // source
		{"../README.md", ""},
		{"../testdata/legacytext/cppbench.contention", "legacy contention"},
		{"../testdata/legacytext/cppbench.growth", "legacy growth"},
		{"../testdata/legacytext/cppbench.thread", "legacy thread"},
		{"../testdata/legacytext/java.contention", "legacy contention"},
		{"../testdata/legacy/cpu.prof", "gperftools CPU"},
		{"../testdata/producers/perf/perfwork.script.gz", "perf script, gzip"},
		{"../testdata/producers/v8/work.cpuprofile", "V8 .cpuprofile"},
	} {
		got, err := SniffFile(tc.path)
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
	// A profile under any name is one; a file that only starts like one
	// (a PNG's first byte passes Parse's check) is not.
	dir := t.TempDir()
	data, err := os.ReadFile("../testdata/go/cpu_labels.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{
		"data.bin":   data,
		"cpu_prof.c": []byte("#include <stdio.h>\nint main(void) { return 0; }\n"),
		"notes.txt":  []byte("not a profile"),
		"image.png":  {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'},
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		got, _ := SniffFile(path)
		if want := map[bool]string{true: "profile.proto, gzip", false: ""}[name == "data.bin"]; got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	// Every profile Parse reads in the fuzz corpus seeds sniffs as one.
	for _, f := range []string{"../testdata/go/block.pb.gz", "../testdata/go/goroutine.pb.gz", "../testdata/go/mutex.pb.gz"} {
		if got, _ := SniffFile(f); got == "" {
			t.Errorf("%s: not recognised", f)
		}
	}
}

// Every file under testdata that Parse reads, Sniff recognises.
func TestSniffAgreesWithParse(t *testing.T) {
	err := filepath.WalkDir("../testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		if info, err := d.Info(); err != nil || info.Size() > 8<<20 {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, perr := Parse(f, Options{})
		got, err := SniffFile(path)
		if err != nil {
			return err
		}
		if perr == nil && got == "" {
			t.Errorf("%s: Parse reads it, Sniff does not recognise it", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
