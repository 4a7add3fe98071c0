package tui

import (
	"fmt"
	"os"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/views"
)

// The README's key table and screen captures are generated: the table
// from the key map, the captures from the golden screens. These tests
// fail when the README is stale; -update rewrites it.

const readmePath = "../README.md"

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

func checkReadmeSection(t *testing.T, name, want string) {
	t.Helper()
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	before, body, after, ok := section(string(data), name)
	if !ok {
		t.Fatalf("README.md has no <!-- %s --> … <!-- /%s --> section", name, name)
	}
	if body == want {
		return
	}
	if updating() {
		if err := os.WriteFile(readmePath, []byte(before+want+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md section %s is stale (go test ./tui -update rewrites it):\n got:\n%s\nwant:\n%s", name, body, want)
}

func TestReadmeKeyTable(t *testing.T) {
	k := views.DefaultKeyMap()
	checkReadmeSection(t, "keys", markdownKeys(keyGroups(rootKeys(k), k)))
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

// TestReadmeTour captures each view at 80×24, as the README shows them.
func TestReadmeTour(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string
	}{
		{"tour-top", nil},
		{"tour-tree", []string{"2"}},
		{"tour-labels", []string{"3"}},
		{"tour-flame", []string{"4"}},
		{"tour-peek", []string{"/", "^main.partition$", "<enter>", "<esc>", "5"}},
		{"tour-source", []string{"/", "^main.partition$", "<enter>", "<esc>", "6"}},
		{"tour-disasm", []string{"/", "^matmul$", "<enter>", "<esc>", "7"}},
		{"tour-traces", []string{"/", "^main.partition$", "<enter>", "<esc>", "8"}},
		{"tour-diff", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sourceConfig("cpu_labels.pb.gz")
			if tc.name == "tour-disasm" {
				cfg = cpubenchConfig() // a profile with its binary
			}
			if tc.name == "tour-diff" {
				cfg.Sources.DiffBase = []string{testdata("cpu_labels_no_w0.pb.gz")}
			}
			cfg.Width, cfg.Height = 80, 24
			h := start(t, cfg)
			h.tm.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
			for _, k := range tc.keys {
				if len(k) > 1 && !strings.HasPrefix(k, "<") {
					h.typeText(k)
				} else {
					h.keys(k)
				}
			}
			screen := trimLines(h.screen())
			golden(t, tc.name, screen)
			checkReadmeSection(t, tc.name, "```text\n"+screen+"```\n")
		})
	}
}
