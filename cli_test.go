package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pprof-tui/pprof-tui/analysis"
)

var update = flag.Bool("update", false, "rewrite testdata/usage.txt and the settings table in docs/settings.md")

// TestFlagsMatchSettings walks the settings table against the flag set:
// every setting and every choice is a flag; every flag is a setting, a
// choice, a legacy sample type or a command flag, and -h names it.
func TestFlagsMatchSettings(t *testing.T) {
	var c cmdline
	fs := newFlagSet(&c)
	known := map[string]string{"h": "help"}
	for _, s := range analysis.Settings() {
		known[s.Name] = "setting"
		for _, ch := range s.Choices {
			known[ch] = "choice"
		}
	}
	for _, l := range legacySampleIndex {
		known[l.flag] = "legacy"
	}
	for _, f := range commandFlags(&c) {
		if known[f.name] != "" {
			t.Errorf("-%s is both a command flag and a %s", f.name, known[f.name])
		}
		known[f.name] = "command"
	}
	var help bytes.Buffer
	usage(&help)
	fs.VisitAll(func(f *flag.Flag) {
		if known[f.Name] == "" {
			t.Errorf("flag -%s is in no table", f.Name)
		}
		if f.Name != "h" && !strings.Contains(help.String(), "-"+f.Name) {
			t.Errorf("-h does not mention -%s", f.Name)
		}
		delete(known, f.Name)
	})
	for name := range known {
		t.Errorf("-%s is in a table but not a flag", name)
	}
}

// TestSettingFlags: each setting given as a flag reaches the options as
// the same setting given on the explorer's : line would (Options.Set).
func TestSettingFlags(t *testing.T) {
	for _, s := range analysis.Settings() {
		value := map[analysis.Kind]string{
			analysis.KindBool: "true", analysis.KindInt: "7", analysis.KindFloat: "0.25",
			analysis.KindString: "ms", analysis.KindRegexp: "main", analysis.KindTagFilter: "worker=w1",
		}[s.Kind]
		if s.Kind == analysis.KindChoice {
			value = s.Choices[len(s.Choices)-1]
		}
		switch s.Name {
		case "trim":
			value = "false"
		case "recursion":
			value = "direct"
		}
		c, err := parseArgs([]string{"-" + s.Name + "=" + value, "x.pb.gz"})
		if err != nil {
			t.Errorf("-%s=%s: %v", s.Name, value, err)
			continue
		}
		want := analysis.DefaultOptions()
		if err := want.Set(s.Name, value); err != nil {
			t.Fatalf("Set(%s, %s): %v", s.Name, value, err)
		}
		if c.opt != want {
			t.Errorf("-%s=%s gave %+v, want %+v", s.Name, value, c.opt, want)
		}
		if got := s.Value(c.opt); got == s.Default() {
			t.Errorf("-%s=%s left the default %q", s.Name, value, got)
		}
	}
	// A choice is a boolean flag; the legacy flags set sample_index.
	c, err := parseArgs([]string{"-lines", "-cum", "-mean_delay", "x.pb.gz"})
	if err != nil {
		t.Fatal(err)
	}
	if c.opt.Granularity != "lines" || c.opt.Sort != "cum" || c.opt.SampleIndex != "delay" || !c.opt.Mean {
		t.Errorf("got %+v", c.opt)
	}
}

func TestUsage(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help"} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), []string{arg}, &stdout, &stderr); err != nil {
			t.Fatalf("%s: %v", arg, err)
		}
		got := stdout.String()
		for i, l := range strings.Split(got, "\n") {
			if n := utf8.RuneCountInString(l); n > 80 {
				t.Errorf("%s: line %d is %d columns: %q", arg, i+1, n, l)
			}
		}
		if *update {
			if err := os.WriteFile("testdata/usage.txt", []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile("testdata/usage.txt")
		if err != nil {
			t.Fatalf("%v (go test . -update writes it)", err)
		}
		if got != string(want) {
			t.Errorf("%s differs from testdata/usage.txt (go test . -update rewrites it):\n%s", arg, got)
		}
	}
}

func TestVersion(t *testing.T) {
	out := runCLI(t, "-version")
	if !strings.HasPrefix(out, "pprof-tui ") || !strings.Contains(out, "go1.") || strings.Count(out, "\n") != 1 {
		t.Errorf("-version printed %q", out)
	}
}

// TestDocsTables keeps the tables docs/ generates from the code's tables
// in step with them.
func TestDocsTables(t *testing.T) {
	for _, c := range []struct{ path, name, want string }{
		{"docs/settings.md", "settings", settingsMarkdown()},
		{"docs/reports.md", "reports", reportsMarkdown()},
	} {
		data, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		doc := string(data)
		open, close := "<!-- "+c.name+" -->\n", "<!-- /"+c.name+" -->"
		i, j := strings.Index(doc, open), strings.Index(doc, close)
		if i < 0 || j < i {
			t.Errorf("%s has no %s … %s section", c.path, strings.TrimSpace(open), close)
			continue
		}
		if doc[i+len(open):j] == c.want {
			continue
		}
		if *update {
			if err := os.WriteFile(c.path, []byte(doc[:i+len(open)]+c.want+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s's %s table is stale (go test . -update rewrites it)", c.path, c.name)
	}
}
