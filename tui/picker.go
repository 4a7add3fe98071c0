package tui

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/views"
)

// picker lists the profile-like files of a directory, and the embedded
// demo profile first, for `pprof-tui` run with no argument.
type picker struct {
	c             *views.Common
	files         Files // nil: the local file system
	dir           string
	entries       []pickEntry
	cursor        int
	width, height int
	err           error
}

type pickEntry struct {
	name string
	path string // "" for the demo
	size int64
}

type pickedMsg struct {
	name    string
	sources []string
	data    []byte
}

func newPicker(files Files, dir string, c *views.Common) *picker {
	p := &picker{c: c, files: files, dir: dir}
	p.entries = append(p.entries, pickEntry{name: DemoName, size: int64(len(demoProfile))})
	p.entries = append(p.entries, profileFiles(files, dir)...)
	return p
}

// readDir lists dir, or the top of files when it is set (its entries'
// paths are then names in files).
func readDir(files Files, dir string) (des []fs.DirEntry, join func(name string) string, err error) {
	if files != nil {
		des, err = files.ReadDir(".")
		return des, func(name string) string { return name }, err
	}
	if dir == "" {
		dir = "."
	}
	des, err = os.ReadDir(dir)
	return des, func(name string) string { return filepath.Join(dir, name) }, err
}

// profileFiles lists the files of dir whose names look like profiles,
// newest first.
func profileFiles(fsys Files, dir string) []pickEntry {
	des, join, err := readDir(fsys, dir)
	if err != nil {
		return nil
	}
	type file struct {
		pickEntry
		mod int64
	}
	var files []file
	for _, de := range des {
		if !de.Type().IsRegular() || !profileLike(de.Name()) {
			continue
		}
		info, err := de.Info()
		if err != nil {
			continue
		}
		files = append(files, file{pickEntry{de.Name(), join(de.Name()), info.Size()}, info.ModTime().UnixNano()})
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].mod != files[j].mod {
			return files[i].mod > files[j].mod
		}
		return files[i].name < files[j].name
	})
	out := make([]pickEntry, 0, len(files))
	for _, f := range files {
		out = append(out, f.pickEntry)
	}
	return out
}

func profileLike(name string) bool {
	n := strings.ToLower(name)
	for _, ext := range []string{".pb.gz", ".pb", ".pprof", ".prof", ".profile", ".folded", ".collapsed", ".heap", ".cpu"} {
		if strings.HasSuffix(n, ext) {
			return true
		}
	}
	for _, word := range []string{"pprof", "profile", "cpu", "heap", "allocs", "goroutine", "mutex", "block"} {
		if strings.Contains(n, word) && !strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, ".md") && !strings.HasSuffix(n, ".txt") {
			return true
		}
	}
	return false
}

func (p *picker) setSize(w, h int) { p.width, p.height = w, h }

func (p *picker) update(msg tea.KeyMsg) tea.Cmd {
	k := p.c.Keys
	switch {
	case key.Matches(msg, k.Quit), msg.String() == "esc":
		return tea.Quit
	case key.Matches(msg, k.Up):
		p.cursor = max(0, p.cursor-1)
	case key.Matches(msg, k.Down):
		p.cursor = min(len(p.entries)-1, p.cursor+1)
	case key.Matches(msg, k.Home):
		p.cursor = 0
	case key.Matches(msg, k.End):
		p.cursor = len(p.entries) - 1
	case key.Matches(msg, k.Drill):
		e := p.entries[p.cursor]
		p.err = nil
		if e.path == "" {
			return func() tea.Msg { return pickedMsg{name: "demo", data: demoProfile} }
		}
		return func() tea.Msg { return pickedMsg{name: e.name, sources: []string{e.path}} }
	}
	return nil
}

func (p *picker) view() string {
	st := p.c.Styles
	dir := p.dir
	if dir == "" {
		dir = "."
	}
	if abs, err := filepath.Abs(dir); err == nil && p.files == nil {
		dir = abs
	}
	lines := []string{
		st.Header.Render("pprof-tui") + st.Dim.Render(" — choose a profile (enter opens, q quits)"),
		st.Dim.Render(fmt.Sprintf("profile-like files in %s, and a demo:", dir)),
		"",
	}
	rows := max(1, p.height-6)
	from := 0
	if p.cursor >= rows {
		from = p.cursor - rows + 1
	}
	for i := from; i < len(p.entries) && i < from+rows; i++ {
		e := p.entries[i]
		text := fmt.Sprintf("  %-*s %10s", max(10, p.width-16), fitLeft(e.name, max(10, p.width-16)), analysis.ScaledLabel(e.size, "bytes", "minimum"))
		if i == p.cursor {
			text = st.Selected.Render(text)
		}
		lines = append(lines, text)
	}
	if len(p.entries) == 1 {
		lines = append(lines, "", st.Dim.Render("  (no profile-like files here: pass a file or URL, e.g. pprof-tui cpu.pb.gz)"))
	}
	if p.err != nil {
		lines = append(lines, "", st.Error.Render(oneLine(views.SafeText(p.err.Error()))))
	}
	return strings.Join(lines, "\n")
}

func fitLeft(s string, w int) string {
	r := []rune(s)
	if len(r) <= w {
		return s
	}
	return string(r[:w-1]) + "…"
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
