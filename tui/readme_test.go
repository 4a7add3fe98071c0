package tui

import (
	"fmt"
	"os"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/views"
)

// The key table and the screen captures in the README and
// docs/explorer.md are generated: the table from the key map, the
// captures from the golden screens. These tests fail when a document is
// stale; -update rewrites it.

const (
	readmePath   = "../README.md"
	explorerPath = "../docs/explorer.md"
)

// section returns the text between <!-- NAME --> and <!-- /NAME --> in doc.
func section(doc, name string) (before, body, after string, ok bool) {
	open, close := "<!-- "+name+" -->\n", "<!-- /"+name+" -->"
	i := strings.Index(doc, open)
	j := strings.Index(doc, close)
	if i < 0 || j < i {
		return "", "", "", false
	}
	return doc[:i+len(open)], doc[i+len(open) : j], doc[j:], true
}

// checkDocSection fails when the section NAME of the document at path is
// not want (or rewrites it under -update).
func checkDocSection(t *testing.T, path, name, want string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, body, after, ok := section(string(data), name)
	if !ok {
		t.Fatalf("%s has no <!-- %s --> … <!-- /%s --> section", path, name, name)
	}
	if body == want {
		return
	}
	if updating() {
		if err := os.WriteFile(path, []byte(before+want+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s section %s is stale (go test ./tui -update rewrites it):\n got:\n%s\nwant:\n%s", path, name, body, want)
}

// TestDocsKeyTable keeps docs/explorer.md's key table in step with the
// root's key table and the views' groups.
func TestDocsKeyTable(t *testing.T) {
	t.Parallel()
	k := views.DefaultKeyMap()
	checkDocSection(t, explorerPath, "keys", markdownKeys(keyGroups(rootKeys(k), k)))
}

// markdownKeys renders every binding as a Markdown table.
func markdownKeys(groups []views.KeyGroup) string {
	var b strings.Builder
	b.WriteString("| key | where | what |\n| --- | --- | --- |\n")
	for _, g := range groups {
		for _, kb := range g.Bindings {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", kb.Help().Key, g.Title, kb.Help().Desc)
		}
	}
	return b.String()
}

// TestDocsTour captures each view at 80×24, as docs/explorer.md shows
// them; the README shows the Top view's.
func TestDocsTour(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		keys []string
	}{
		{"tour-top", nil},
		{"tour-tree", []string{"2", "R", "R"}},
		{"tour-labels", []string{"3"}},
		{"tour-flame", []string{"4"}},
		{"tour-peek", []string{"/", "^main.partition$", "<enter>", "<esc>", "5"}},
		{"tour-source", []string{"/", "^main.partition$", "<enter>", "<esc>", "6"}},
		{"tour-disasm", []string{"/", "^matmul$", "<enter>", "<esc>", "7"}},
		{"tour-traces", []string{"/", "^main.partition$", "<enter>", "<esc>", "8"}},
		{"tour-pivot", []string{"/", "^main.parseSum$", "<enter>", "<esc>", "R", "4", "S"}},
		{"tour-graph", []string{"/", "^main.quicksort$", "<enter>", "<esc>", "9"}},
		{"tour-diff", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sourceConfig("cpu_labels.pb.gz")
			if tc.name == "tour-disasm" {
				cfg = cpubenchConfig() // a profile with its binary
			}
			if tc.name == "tour-pivot" {
				cfg = testConfig(testdata("recursive.pb.gz"))
			}
			if tc.name == "tour-diff" {
				cfg.Sources.DiffBase = []string{testdata("cpu_labels_no_w0.pb.gz")}
			}
			cfg.Width, cfg.Height = 80, 24
			h := start(t, cfg)
			h.tm.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
			for _, k := range tc.keys {
				switch {
				case k == "S":
					h.pivotFlame()
				case len(k) > 1 && !strings.HasPrefix(k, "<"):
					h.typeText(k)
				default:
					h.keys(k)
				}
			}
			screen := trimLines(h.screen())
			golden(t, tc.name, screen)
			capture := "```text\n" + screen + "```\n"
			checkDocSection(t, explorerPath, tc.name, capture)
			if tc.name == "tour-top" {
				checkDocSection(t, readmePath, tc.name, capture)
			}
		})
	}
}
