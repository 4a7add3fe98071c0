package views

import (
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// fibSource is the Source view of main.fib in cpu_labels.pb.gz, w×h,
// with the source looked for under sourcePath with trimPath cut off.
func fibSource(t *testing.T, w, h int, sourcePath, trimPath string) *Source {
	t.Helper()
	opt := analysis.DefaultOptions()
	opt.SourcePath, opt.TrimPath = sourcePath, trimPath
	s := NewSource(testCommon())
	s.SetSize(w, h)
	load(t, s, testEngine(t, "cpu_labels.pb.gz"), opt, "main.fib")
	return s
}

// TestSourceView: the gutter shows each line's flat and cum ("." for
// none), the cursor starts on the hottest line, e returns to it.
func TestSourceView(t *testing.T) {
	s := fibSource(t, 100, 30, "../testdata/src", "/tmp/profgen")
	screen := s.View()
	for _, want := range []string{
		"main.fib in goprof/main.go  (../testdata/src/goprof/main.go)",
		"     750ms      1.27s (flat, cum) 44.72% of total",
		"     300ms      300ms     50  func fib(n int) uint64 {",
		"         .          .     51      if n < 2 {",
		"▶    230ms      750ms     54      return fib(n-1) + fib(n-2)",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("no %q in\n%s", want, screen)
		}
	}
	if r, ok := s.HotLine(); !ok || r.Line != 54 {
		t.Errorf("cursor on %+v, want line 54", r)
	}
	s.Update(keyPress("up"))
	s.Update(keyPress("up"))
	s.Update(keyPress("e"))
	if r, _ := s.HotLine(); r.Line != 54 {
		t.Errorf("e: cursor on line %d", r.Line)
	}
	if sel, _ := s.Selection(); sel.Name != "main.fib" {
		t.Errorf("selection %q", sel.Name)
	}
}

// TestSourceMissing: a file not found says where the lookup looked and
// still lists the lines with samples.
func TestSourceMissing(t *testing.T) {
	s := fibSource(t, 100, 30, "../testdata/nowhere", "")
	screen := s.View()
	for _, want := range []string{
		"open /tmp/profgen/goprof/main.go: no such file or directory",
		"looked in",
		"  /tmp/profgen/goprof/main.go",
		"../testdata/nowhere/main.go",
		"230ms      750ms     54  (source not found)",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("no %q in\n%s", want, screen)
		}
	}
}

// TestSourceScroll: → and ← move long lines sideways, a "…" marking the
// cut on the left, never past the end of the widest line.
func TestSourceScroll(t *testing.T) {
	s := fibSource(t, 50, 30, "../testdata/src", "/tmp/profgen") // 20 columns of text
	line54 := func() string {
		for _, l := range strings.Split(s.View(), "\n") {
			if strings.Contains(l, "    54  ") {
				return l[strings.Index(l, "    54  ")+8:]
			}
		}
		t.Fatalf("no line 54 in\n%s", s.View())
		return ""
	}
	if got := line54(); got != "    return fib(n-1)…" {
		t.Errorf("unscrolled: %q", got)
	}
	s.Update(keyPress("right"))
	if got := line54(); got != "…n fib(n-1) + fib(n…" {
		t.Errorf("scrolled by 8: %q", got)
	}
	for range 50 {
		s.Update(keyPress("l"))
	}
	if s.left != s.textMax-s.textWidth() {
		t.Errorf("scrolled to %d, want the widest line's end at %d", s.left, s.textMax-s.textWidth())
	}
	for range 50 {
		s.Update(keyPress("h"))
	}
	if got := line54(); got != "    return fib(n-1)…" {
		t.Errorf("scrolled back: %q", got)
	}
}
