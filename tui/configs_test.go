package tui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// pprofSettings copies the settings.json go tool pprof -http wrote
// (analysis/testdata/configs) into a temporary directory.
func pprofSettings(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "analysis", "testdata", "configs", "pprof-settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "pprof", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfigVerb: :config applies a configuration pprof saved, with tab
// completing its name; :config save adds ours to pprof's file, keeping
// pprof's; :config delete removes it; :cmd gives pprof's web UI query.
func TestConfigVerb(t *testing.T) {
	t.Parallel()
	path := pprofSettings(t)
	cfg := testConfig(testdata("cpu_labels.pb.gz"))
	cfg.SettingsFile = path
	h := start(t, cfg)

	h.completes("config h", "config hot")
	h.keys("<enter>")
	o := h.options()
	if o.Focus != `main\.(quicksort|hashBlock)` || o.Ignore != "fmt|slices" || o.Hide != "runtime" || o.Granularity != "lines" {
		t.Fatalf("after :config hot: %+v", o)
	}
	if o.NodeFraction != 0 || o.NodeCount != 0 {
		t.Errorf("pprof's defaults in the file did not become the explorer's: %+v", o)
	}
	if s := h.screen(); !strings.Contains(s, "applied configuration hot") || !strings.Contains(s, "main.xorshift /tmp/profgen/goprof/main.go:95") {
		t.Errorf("screen after :config hot:\n%s", s)
	}

	h.command("sort=cum tagfocus=worker=w2")
	h.command(`config save "my view"`)
	f, err := analysis.ReadConfigFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Names(); !slices.Equal(got, []string{"hot", "by-cum", "my view"}) {
		t.Fatalf("names after save: %q", got)
	}
	want := h.options()
	got, err := f.Apply("my view", explorerDefaults(), explorerDefaults())
	if err != nil || got != want {
		t.Errorf("my view applies as\n%+v, want\n%+v (%v)", got, want, err)
	}

	h.command("config by-cum")
	if o := h.options(); o.Sort != "cum" || !o.NoInlines || !o.NoTrim || o.Focus != "" || o.NodeCount != 20 {
		t.Errorf("after :config by-cum: %+v", o)
	}
	h.command("cmd")
	if s := h.screen(); !strings.Contains(s, "/ui/top?n=20&nf=0.01&noinlines=t&sort=cum&tf=worker%3Dw1&trim=f") {
		t.Errorf(":cmd lacks the web UI query:\n%s", s)
	}
	h.keys("x")

	h.completes("config delete m", `config delete "my view"`)
	h.keys("<enter>")
	if f, _ := analysis.ReadConfigFile(path); !slices.Equal(f.Names(), []string{"hot", "by-cum"}) {
		t.Errorf("names after delete: %q", f.Names())
	}
	h.command("config nope")
	if s := h.screen(); !strings.Contains(s, `no saved configuration "nope" (saved: hot, by-cum)`) {
		t.Errorf("no error for an unknown name:\n%s", s)
	}
	h.keys("<esc>")
	h.command("config")
	if s := h.screen(); !strings.Contains(s, "Saved configurations") || !strings.Contains(s, "focus=main\\.(quicksort|hashBlock) ignore=fmt|slices hide=runtime granularity=lines") {
		t.Errorf(":config alone:\n%s", s)
	}
}

// TestConfigInMemory: without a settings file (serve) the configurations
// live in the program and nothing is read or written under the config
// directory.
func TestConfigInMemory(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HOME", dir)
	h := start(t, testConfig(testdata("cpu_labels.pb.gz")))
	h.command("focus=fib")
	h.command("config save f")
	h.command("reset")
	h.command("config f")
	if o := h.options(); o.Focus != "fib" {
		t.Errorf("focus %q after :config f", o.Focus)
	}
	if s := h.screen(); !strings.Contains(s, "applied configuration f") {
		t.Errorf("screen:\n%s", s)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the config directory holds %d entries", len(entries))
	}
}
