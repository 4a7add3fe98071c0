package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pickerNames returns the names the picker lists, in order.
func pickerNames(h *harness) []string {
	var names []string
	h.do(func(m *Model) {
		for _, i := range m.picker.shown {
			names = append(names, m.picker.entries[i].name)
		}
	})
	return names
}

// pickerCursor returns the name under the picker's cursor.
func pickerCursor(h *harness) string {
	var name string
	h.do(func(m *Model) { name = m.picker.entries[m.picker.shown[m.picker.cursor]].name })
	return name
}

func copyTo(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The picker lists profiles by content, whatever their names, walks
// into subdirectories and back, and filters by name.
func TestPickerByContent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyTo(t, testdata("cpu_labels.pb.gz"), filepath.Join(dir, "data.bin"))
	copyTo(t, filepath.Join("..", "testdata", "legacy", "cpubench.c"), filepath.Join(dir, "cpu_prof.c"))
	copyTo(t, filepath.Join("..", "testdata", "legacy", "cpubench"), filepath.Join(dir, "cpubench"))
	for _, f := range []string{"cppbench.contention", "cppbench.growth", "cppbench.thread", "java.contention"} {
		copyTo(t, filepath.Join("..", "testdata", "legacytext", f), filepath.Join(dir, "legacy", f))
	}
	copyTo(t, testdata("heap.pb.gz"), filepath.Join(dir, "legacy", "deeper", "heap.pb.gz"))
	cfg := testConfig()
	cfg.Dir = dir
	h := start(t, cfg)
	h.waitFor("the picker", func(m *Model) bool { return m.picker != nil })
	if got, want := strings.Join(pickerNames(h), " "), DemoName+" .. legacy data.bin"; got != want {
		t.Errorf("listed %q, want %q", got, want)
	}
	s := h.screen()
	for _, want := range []string{"profile.proto, gzip", "directory", "7.39kB", "just now"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q on the picker:\n%s", want, s)
		}
	}
	// Into legacy/ and back.
	h.keys("j", "j", "<enter>")
	got := strings.Join(pickerNames(h), " ")
	if want := DemoName + " .. deeper java.contention cppbench.thread cppbench.growth cppbench.contention"; !sameSet(got, want) {
		t.Errorf("in legacy/: %q, want %q", got, want)
	}
	if s := h.screen(); !strings.Contains(s, "legacy contention") || !strings.Contains(s, "legacy growth") || !strings.Contains(s, "legacy thread") {
		t.Errorf("legacy/ without the formats:\n%s", s)
	}
	h.keys("G")
	if c := pickerCursor(h); c == "deeper" || c == ".." {
		t.Errorf("G: cursor on %q", c)
	}
	h.keys("g", "j", "j", "<enter>") // deeper/
	if got := strings.Join(pickerNames(h), " "); got != DemoName+" .. heap.pb.gz" {
		t.Errorf("in deeper/: %q", got)
	}
	h.keys("<backspace>", "<backspace>")
	if c := pickerCursor(h); c != "legacy" {
		t.Errorf("back up twice: cursor on %q, want legacy", c)
	}
	// / filters by name; enter opens the first match.
	h.keys("/")
	h.typeText("data")
	if got := strings.Join(pickerNames(h), " "); got != "data.bin" {
		t.Errorf("filter data: %q", got)
	}
	h.keys("<enter>")
	h.waitReady()
	if s := h.screen(); !strings.Contains(s, "data.bin") || !strings.Contains(s, "main.fib") {
		t.Errorf("data.bin did not open:\n%s", s)
	}
}

// sameSet reports whether two space-separated lists hold the same names.
func sameSet(a, b string) bool {
	as, bs := strings.Fields(a), strings.Fields(b)
	if len(as) != len(bs) {
		return false
	}
	seen := map[string]int{}
	for _, x := range as {
		seen[x]++
	}
	for _, x := range bs {
		seen[x]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

// Page keys move a page at a time in a long directory.
func TestPickerPages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile(testdata("cpu_labels.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		os.WriteFile(filepath.Join(dir, "p"+string(rune('a'+i/26))+string(rune('a'+i%26))+".pb.gz"), data, 0o644)
	}
	cfg := testConfig()
	cfg.Dir = dir
	cfg.Width, cfg.Height = 80, 24
	h := start(t, cfg)
	h.waitFor("the picker", func(m *Model) bool { return m.picker != nil })
	h.keys("<pgdown>")
	var cursor, offset int
	h.do(func(m *Model) { cursor, offset = m.picker.cursor, m.picker.offset })
	if cursor != 19 || offset != 0 {
		t.Errorf("pgdn: cursor %d, window from %d", cursor, offset)
	}
	h.keys("<pgdown>", "<pgdown>")
	h.do(func(m *Model) { cursor, offset = m.picker.cursor, m.picker.offset })
	if cursor != 57 || !strings.Contains(h.screen(), "▶") {
		t.Errorf("pgdn ×3: cursor %d, window from %d:\n%s", cursor, offset, h.screen())
	}
	h.keys("G")
	h.do(func(m *Model) { cursor = m.picker.cursor })
	if cursor != 61 {
		t.Errorf("G: cursor %d, want 61", cursor)
	}
	h.keys("<pgup>")
	h.do(func(m *Model) { cursor = m.picker.cursor })
	if cursor != 42 {
		t.Errorf("pgup: cursor %d, want 42", cursor)
	}
}

// P closes the profile and returns to the picker the explorer started
// from, on the file just closed; opening it again starts afresh.
func TestPickerReturn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyTo(t, testdata("cpu_labels.pb.gz"), filepath.Join(dir, "data.bin"))
	copyTo(t, testdata("heap.pb.gz"), filepath.Join(dir, "heap.pb.gz"))
	os.Chtimes(filepath.Join(dir, "data.bin"), time.Now().Add(-time.Hour), time.Now().Add(-time.Hour))
	cfg := testConfig()
	cfg.Dir = dir
	h := start(t, cfg)
	h.waitFor("the picker", func(m *Model) bool { return m.picker != nil })
	h.keys("G", "<enter>") // data.bin, the older
	h.waitReady()
	h.keys("2", "i") // ignore in the tree: a history step
	h.keys("P")
	var phase phase
	var gone bool
	h.do(func(m *Model) { phase, gone = m.phase, m.prof == nil && m.engine == nil && m.History() == 0 })
	if phase != phasePicking || !gone {
		t.Fatalf("P: phase %v, profile dropped %v:\n%s", phase, gone, h.screen())
	}
	if c := pickerCursor(h); c != "data.bin" {
		t.Errorf("P: picker cursor on %q, want data.bin", c)
	}
	h.keys("<enter>")
	h.waitReady()
	var active viewID
	var depth int
	h.do(func(m *Model) { active, depth = m.views.active, m.History() })
	if s := h.screen(); active != 0 || depth != 0 || !strings.Contains(s, "main.fib") || strings.Contains(s, "ignore=") {
		t.Errorf("reopened: view %d, history %d:\n%s", active, depth, s)
	}
	// Started on a file, P does nothing.
	h2 := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h2.keys("P")
	h2.do(func(m *Model) { phase = m.phase })
	if phase != phaseReady {
		t.Errorf("P without a picker: phase %v", phase)
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 5000: "5,000", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// A directory of more files than the picker looks into says so.
func TestPickerSaysWhenCapped(t *testing.T) {
	defer func(n int) { maxPickerFiles = n }(maxPickerFiles)
	maxPickerFiles = 20
	dir := t.TempDir()
	for i := range maxPickerFiles + 2 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := start(t, pickerConfig(dir))
	if s := h.screen(); !strings.Contains(s, "first 20 of 22 files") {
		t.Errorf("the picker does not say it looked at the first 20 files only:\n%s", s)
	}
	if err := os.Remove(filepath.Join(dir, "f00000")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "f00001")); err != nil {
		t.Fatal(err)
	}
	h.do(func(m *Model) { m.picker.chdir(dir, "") })
	if s := h.screen(); strings.Contains(s, "first") {
		t.Errorf("the picker says it is capped at 20 files of 20:\n%s", s)
	}
}
