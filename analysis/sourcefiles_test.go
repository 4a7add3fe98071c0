package analysis

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestTrimSourcePath(t *testing.T) {
	for _, c := range []struct{ path, trim, search, want string }{
		{"/tmp/profgen/goprof/main.go", "/tmp/profgen", "", "goprof/main.go"},
		{"/tmp/profgen/goprof/main.go", "/tmp/profgen/", "", "goprof/main.go"},
		{"/tmp/profgen/goprof/main.go", "/nope" + string(filepath.ListSeparator) + "/tmp", "", "profgen/goprof/main.go"},
		// Without trim_path, a source_path directory's base name in the
		// path marks where the checkout starts.
		{"/build/x/goprof/main.go", "", "/home/me/src/goprof", "main.go"},
		// With trim_path, that heuristic is off.
		{"/build/x/goprof/main.go", "/y", "/home/me/src/goprof", "/build/x/goprof/main.go"},
		{"/proc/self/cwd/./pkg/a.go", "", "", "pkg/a.go"},
		{"/proc/self/cwd/pkg/a.go", "", "", "pkg/a.go"},
		{"pkg/a.go", "", "", "pkg/a.go"},
	} {
		if got := TrimSourcePath(c.path, c.trim, c.search); got != c.want {
			t.Errorf("TrimSourcePath(%q, %q, %q) = %q, want %q", c.path, c.trim, c.search, got, c.want)
		}
	}
}

// TestSourceFilesFind: pprof's places first, then the profile's path,
// the current directory and the path's tails under source_path; a miss
// lists every path tried and keeps pprof's error text.
func TestSourceFilesFind(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("src/goprof/main.go", "package main\n\nfunc main() {}\n")
	write("cwd/goprof/other.go", "package main\n")
	write("cwd/main.go", "package wrong\n")
	write("abs/kept.go", "package kept\n")
	write("flat/cpubench.c", "int main() {}\n")
	files := NewSourceFiles()
	files.wd = func() (string, error) { return filepath.Join(dir, "cwd"), nil }

	opt := Options{SourcePath: src, TrimPath: "/tmp/profgen"}
	lines, found, err := files.Find("/tmp/profgen/goprof/main.go", opt)
	if err != nil || found != filepath.Join(src, "goprof/main.go") || len(lines) != 3 || lines[2] != "func main() {}" {
		t.Fatalf("trim_path+source_path: %q %q %v", found, lines, err)
	}
	// After source_path, where pprof gives up: the current directory.
	_, found, err = files.Find("/tmp/profgen/goprof/other.go", opt)
	if err != nil || found != filepath.Join(dir, "cwd/goprof/other.go") {
		t.Errorf("the current directory after source_path: %q %v", found, err)
	}
	// The profile's own path, when trim_path cut it to nothing found.
	kept := filepath.Join(dir, "abs/kept.go")
	if _, found, err = files.Find(kept, Options{TrimPath: dir}); err != nil || found != kept {
		t.Errorf("the profile's path: %q %v", found, err)
	}
	// The path's tails under source_path, down to the base name, when
	// pprof gives up on an absolute path (a C file built elsewhere).
	if _, found, err = files.Find("/home/ci/build/cpubench.c", Options{SourcePath: filepath.Join(dir, "flat")}); err != nil || found != filepath.Join(dir, "flat/cpubench.c") {
		t.Errorf("base name under source_path: %q %v", found, err)
	}
	if _, found, err = files.Find("/elsewhere/goprof/main.go", Options{SourcePath: src}); err != nil || found != filepath.Join(src, "goprof/main.go") {
		t.Errorf("a tail under source_path: %q %v", found, err)
	}
	// Never the base name alone in the default (current) directory.
	if _, found, err = files.Find("/tmp/profgen/goprof/main.go", Options{}); err == nil {
		t.Errorf("found %q by base name in the current directory", found)
	}

	// Misses: pprof's error text, and every path tried.
	_, _, err = files.Find("/tmp/profgen/goprof/none.go", opt)
	var se *SourceError
	if !errors.As(err, &se) {
		t.Fatalf("miss: %v", err)
	}
	if se.Error() != "could not find file goprof/none.go on path "+src {
		t.Errorf("miss: %q", se.Error())
	}
	for _, want := range []string{
		"/tmp/profgen/goprof/none.go",
		filepath.Join(src, "goprof/none.go"),
		filepath.Join(dir, "goprof/none.go"),
		filepath.Join(dir, "cwd/goprof/none.go"),
		filepath.Join(src, "none.go"),
	} {
		if !slices.Contains(se.Tried, want) {
			t.Errorf("tried %q, not %q", se.Tried, want)
		}
	}
	_, _, err = files.Find("/tmp/profgen/goprof/none.go", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "open /tmp/profgen/goprof/none.go: ") {
		t.Errorf("absolute miss: %v", err)
	}
}

// TestSourceFilesCache: a file is read once per lookup setting.
func TestSourceFilesCache(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.go")
	if err := os.WriteFile(p, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files := NewSourceFiles()
	if lines, _, err := files.Find(p, Options{}); err != nil || lines[0] != "one" {
		t.Fatal(lines, err)
	}
	if err := os.WriteFile(p, []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if lines, _, _ := files.Find(p, Options{}); lines[0] != "one" {
		t.Errorf("read again: %q", lines)
	}
}

// TestList: the listing of main.fib shows pprof's span of lines with the
// source text, from the copy of the generator under testdata/src.
func TestList(t *testing.T) {
	e := engineFor(t, filepath.Join("../testdata", "go/cpu_labels.pb.gz"))
	opt := DefaultOptions()
	opt.SourcePath, opt.TrimPath = "../testdata/src", "/tmp/profgen"
	lst, err := e.List(opt, regexp.MustCompile(`^main\.fib$`), NewSourceFiles())
	if err != nil {
		t.Fatal(err)
	}
	if len(lst.Listings) != 1 {
		t.Fatalf("%d listings", len(lst.Listings))
	}
	l := lst.Listings[0]
	if l.Err != nil || l.File != "goprof/main.go" || l.Path != "../testdata/src/goprof/main.go" {
		t.Fatalf("file %q read from %q: %v", l.File, l.Path, l.Err)
	}
	if l.StartLine != 50 || l.Rows[0].Line != 50 || l.Rows[len(l.Rows)-1].Line != 59 {
		t.Errorf("span: start %d, rows %d..%d", l.StartLine, l.Rows[0].Line, l.Rows[len(l.Rows)-1].Line)
	}
	if r := l.Rows[4]; r.Line != 54 || r.Flat != 230000000 || r.Cum != 750000000 || !strings.Contains(r.Text, "fib(n-1) + fib(n-2)") {
		t.Errorf("line 54: %+v", r)
	}
	// The header is Σ of the lines, pprof's; the function's own cum is
	// smaller for a recursive function.
	if l.Flat != 750000000 || l.Cum != 1270000000 || l.FuncCum != 750000000 {
		t.Errorf("flat %d cum %d function cum %d", l.Flat, l.Cum, l.FuncCum)
	}
}
