package tui

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/views"
)

// picker lists the profiles of a directory, recognised by their content
// (format.Sniff reads each file's first bytes), its subdirectories and
// the embedded demo profile, for `pprof-tui` run with no argument.
type picker struct {
	c       *views.Common
	files   Files  // what it lists: nil for the local file system (see Files)
	dir     string // the directory listed: absolute, or a path in files
	label   string // how files' top is named on screen
	entries []pickEntry
	shown   []int // the entries the filter keeps, in order
	// longest is the widest label among shown, plus one for a
	// directory's slash: the name column's width wants it every frame.
	longest int
	listErr error // reading dir failed
	// regular is how many files dir holds, of which the first maxFiles
	// (by name) were sniffed.
	regular, maxFiles int

	cursor, offset int // into shown
	filter         string
	filtering      bool // the filter line has the keys
	width, height  int
	err            error            // the last open failed
	now            func() time.Time // time.Now; tests fix it
	marked         pickedBase       // the profile marked as the base (b)
}

// pickedBase is the profile b marked: what opens next is shown against
// it, as -diff_base or (minus) -base.
type pickedBase struct {
	path, label string // "" for none
	minus       bool   // -base: subtract only; else -diff_base
}

type pickEntry struct {
	name  string
	label string // name, safe to draw (views.SafeText)
	path  string // "" for the demo
	kind  string // the format, "directory" or "demo"
	dir   bool
	size  int64
	mod   time.Time
}

type pickedMsg struct {
	name    string
	sources []string
	data    []byte
	base    pickedBase
}

// maxPickerFiles bounds the files of one directory the picker sniffs:
// each costs an open and a 4 KiB read. (A variable for the tests.)
var maxPickerFiles = 5000

func newPicker(files Files, dir string, c *views.Common) *picker {
	p := &picker{c: c, files: files, now: time.Now, label: dir, maxFiles: maxPickerFiles}
	if dir == "" || files != nil {
		dir = "."
	}
	p.chdir(dir, "")
	return p
}

// chdir lists dir, with the cursor on the entry named at (the directory
// just left, going up), else on the first.
func (p *picker) chdir(dir, at string) {
	if p.files != nil {
		dir = path.Clean(dir)
	} else if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	p.dir = dir
	p.entries, p.regular, p.listErr = p.listDir(dir)
	// Sanitised once per listing, not once per entry per frame.
	for i := range p.entries {
		e := &p.entries[i]
		e.label, e.kind = views.SafeText(e.name), views.SafeText(e.kind)
	}
	p.filter, p.filtering, p.err = "", false, nil
	p.refilter()
	for i, e := range p.shown {
		if p.entries[e].name == at {
			p.moveTo(i)
		}
	}
}

// listDir returns the demo, the parent and the subdirectories of dir by
// name, then its profiles newest first, and how many files it holds.
// Hidden files are left out.
func (p *picker) listDir(dir string) ([]pickEntry, int, error) {
	out := []pickEntry{{name: DemoName, kind: "demo", size: int64(len(demoProfile))}}
	if parent := p.parent(dir); parent != dir {
		out = append(out, pickEntry{name: "..", path: parent, kind: "directory", dir: true})
	}
	des, join, err := readDir(p.files, dir)
	var dirs, files []pickEntry
	regular := 0
	for _, de := range des {
		name := de.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		path := join(name)
		if k, ok := de.(kindEntry); ok {
			// Named by the Files it came from (a live endpoint): listed
			// as it is, not opened.
			info, _ := de.Info()
			e := pickEntry{name: name, path: path, kind: k.Kind()}
			if info != nil {
				e.mod = info.ModTime()
			}
			files = append(files, e)
			continue
		}
		info, err := p.stat(de, path) // through symlinks
		if err != nil {
			continue
		}
		e := pickEntry{name: name, path: path, size: info.Size(), mod: info.ModTime()}
		switch {
		case info.IsDir():
			e.kind, e.dir = "directory", true
			dirs = append(dirs, e)
		case info.Mode().IsRegular():
			regular++
			if regular > p.maxFiles {
				continue
			}
			if e.kind = p.sniff(path); e.kind != "" {
				files = append(files, e)
			}
		}
	}
	sort.Slice(files, func(i, j int) bool {
		if !files[i].mod.Equal(files[j].mod) {
			return files[i].mod.After(files[j].mod)
		}
		return files[i].name < files[j].name
	})
	return append(append(out, dirs...), files...), regular, err
}

// readDir lists dir in files, or in the local file system when files is
// nil; join names an entry of it as the picker opens it.
func readDir(files Files, dir string) (des []fs.DirEntry, join func(name string) string, err error) {
	if files != nil {
		des, err = files.ReadDir(dir)
		return des, func(name string) string { return path.Join(dir, name) }, err
	}
	des, err = os.ReadDir(dir)
	return des, func(name string) string { return filepath.Join(dir, name) }, err
}

// parent is dir's parent (dir itself at the top).
func (p *picker) parent(dir string) string {
	if p.files != nil {
		return path.Dir(dir)
	}
	return filepath.Dir(dir)
}

func (p *picker) base(dir string) string {
	if p.files != nil {
		return path.Base(dir)
	}
	return filepath.Base(dir)
}

// stat describes entry de, named name, through a symlink.
func (p *picker) stat(de fs.DirEntry, name string) (fs.FileInfo, error) {
	if p.files == nil {
		return os.Stat(name)
	}
	// What Files lists, as listed; a symlink through Files, which opens
	// (and refuses) what it points at.
	info, err := de.Info()
	if err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return fs.Stat(p.files, name)
	}
	return info, err
}

// kindEntry is a Files directory entry that names its own kind (a live
// endpoint's profile): the picker lists it without opening it.
type kindEntry interface{ Kind() string }

// sniff names the format of the profile in file name ("" for none),
// from its first bytes. A file that Files will not open (too large to
// serve) is listed as such, so that opening it says why.
func (p *picker) sniff(name string) string {
	if p.files == nil {
		kind, _ := format.SniffFile(name)
		return kind
	}
	f, err := p.files.Open(name)
	if err != nil {
		return "not served"
	}
	defer f.Close()
	kind, _ := format.SniffReader(f)
	return kind
}

// refilter keeps the entries whose names contain the filter (any case),
// the cursor on the first.
func (p *picker) refilter() {
	p.shown, p.longest = p.shown[:0], 0
	f := strings.ToLower(p.filter)
	for i, e := range p.entries {
		if f == "" || strings.Contains(strings.ToLower(e.name), f) && e.name != ".." {
			p.shown = append(p.shown, i)
			p.longest = max(p.longest, ansi.StringWidth(e.label)+1)
		}
	}
	p.cursor, p.offset = 0, 0
}

func (p *picker) setSize(w, h int) {
	p.width, p.height = w, h
	p.moveTo(p.cursor)
}

// rows is the number of list lines on screen.
func (p *picker) rows() int { return max(1, p.height-4) }

func (p *picker) moveTo(i int) {
	p.cursor = max(0, min(i, len(p.shown)-1))
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if r := p.rows(); p.cursor >= p.offset+r {
		p.offset = p.cursor - r + 1
	}
}

func (p *picker) update(msg tea.KeyMsg) tea.Cmd {
	k := p.c.Keys
	if p.filtering {
		switch msg.Type {
		case tea.KeyRunes, tea.KeySpace:
			p.filter += string(msg.Runes)
			p.refilter()
		case tea.KeyBackspace:
			if p.filter == "" {
				p.filtering = false
			} else {
				r := []rune(p.filter)
				p.filter = string(r[:len(r)-1])
				p.refilter()
			}
		case tea.KeyEsc:
			p.filter, p.filtering = "", false
			p.refilter()
		case tea.KeyUp:
			p.moveTo(p.cursor - 1)
		case tea.KeyDown:
			p.moveTo(p.cursor + 1)
		case tea.KeyEnter:
			p.filtering = false
			return p.open()
		}
		return nil
	}
	switch {
	case msg.Type == tea.KeyEsc && p.filter != "":
		p.filter = ""
		p.refilter()
	case key.Matches(msg, k.Quit), msg.Type == tea.KeyEsc:
		return tea.Quit
	case key.Matches(msg, k.Up):
		p.moveTo(p.cursor - 1)
	case key.Matches(msg, k.Down):
		p.moveTo(p.cursor + 1)
	case key.Matches(msg, k.PageUp):
		p.moveTo(p.cursor - max(1, p.rows()-1))
	case key.Matches(msg, k.PageDown):
		p.moveTo(p.cursor + max(1, p.rows()-1))
	case key.Matches(msg, k.Home):
		p.moveTo(0)
	case key.Matches(msg, k.End):
		p.moveTo(len(p.shown) - 1)
	case key.Matches(msg, k.Search):
		p.filtering = true
	case key.Matches(msg, k.Back):
		if parent := p.parent(p.dir); parent != p.dir {
			p.chdir(parent, p.base(p.dir))
		}
	case key.Matches(msg, k.Drill):
		return p.open()
	case key.Matches(msg, k.PickBase):
		p.markBase()
	}
	return nil
}

// markBase makes the profile under the cursor the base (-diff_base); b
// again on it makes it -base, and again unmarks it.
func (p *picker) markBase() {
	if len(p.shown) == 0 {
		return
	}
	e := p.entries[p.shown[p.cursor]]
	switch {
	case e.dir || e.path == "":
		p.err = fmt.Errorf("a base is a profile file: b on one marks it")
	case p.marked.path != e.path:
		p.marked = pickedBase{path: e.path, label: e.label}
	case !p.marked.minus:
		p.marked.minus = true
	default:
		p.marked = pickedBase{}
	}
}

// flag is how the base is subtracted, as pprof's flag names it.
func (b pickedBase) flag() string {
	if b.minus {
		return "-base"
	}
	return "-diff_base"
}

// open opens the entry under the cursor: a directory is listed, a
// profile loaded.
func (p *picker) open() tea.Cmd {
	if len(p.shown) == 0 {
		return nil
	}
	e := p.entries[p.shown[p.cursor]]
	p.err = nil
	switch {
	case e.dir:
		at := ""
		if e.name == ".." {
			at = p.base(p.dir)
		}
		p.chdir(e.path, at)
		return nil
	case e.path == "":
		return func() tea.Msg { return pickedMsg{name: "demo", data: demoProfile} }
	}
	base := p.marked
	return func() tea.Msg { return pickedMsg{name: e.name, sources: []string{e.path}, base: base} }
}

func (p *picker) view() string {
	st := p.c.Styles
	nprof, ndir := 0, 0
	for _, e := range p.entries {
		switch {
		case e.dir && e.name != "..":
			ndir++
		case !e.dir && e.path != "":
			nprof++
		}
	}
	lines := []string{
		st.Header.Render("pprof-tui") + st.Dim.Render(" — choose a profile"),
		st.Dim.Render(fitLeft(fmt.Sprintf("%s: %d %s, %d %s", views.SafeText(p.where()), nprof, plural(nprof, "profile"), ndir, plural(ndir, "directory")), p.width)),
	}
	// One line says what is going on: the filter being typed, an error,
	// the filter kept, or that there is nothing to open here.
	switch {
	case p.filtering:
		lines = append(lines, st.Prompt.Render("/")+views.SafeText(p.filter)+st.Selected.Render(" "))
	case p.err != nil:
		lines = append(lines, st.Error.Render(fitLeft(oneLine(views.SafeText(p.err.Error())), p.width)))
	case p.listErr != nil:
		lines = append(lines, st.Error.Render(fitLeft(oneLine(views.SafeText(p.listErr.Error())), p.width)))
	case p.filter != "" && len(p.shown) == 0:
		lines = append(lines, st.Dim.Render(fitLeft("nothing matches "+views.SafeText(p.filter)+" (esc clears)", p.width)))
	case p.filter != "":
		lines = append(lines, st.Dim.Render(fitLeft("filter: "+views.SafeText(p.filter)+" (esc clears)", p.width)))
	case p.marked.path != "":
		again := map[bool]string{false: "-base", true: "none"}[p.marked.minus]
		lines = append(lines, st.Prompt.Render(fitLeft("base "+p.marked.flag()+" "+p.marked.label+" · b on it again: "+again+" · open a profile to compare", p.width)))
	case p.regular > p.maxFiles:
		// Not silently: a profile may be among the files not looked at.
		lines = append(lines, st.Dim.Render(fitLeft(fmt.Sprintf("profiles among the first %s of %s files, by name", thousands(p.maxFiles), thousands(p.regular)), p.width)))
	case nprof == 0:
		lines = append(lines, st.Dim.Render(fitLeft("no profiles in this directory: enter one, or pass a file or URL (pprof-tui cpu.pb.gz)", p.width)))
	default:
		lines = append(lines, "")
	}
	// name, type, size, age; narrow windows lose the type, then the age.
	typeW, sizeW, ageW := 22, 9, 9
	if p.width < 70 {
		typeW = 0
	}
	if p.width < 50 {
		ageW = 0
	}
	// The name column is as wide as the longest name needs, if it can.
	nameW := max(10, min(max(p.longest, 30), p.width-2-typeW-sizeW-ageW-3))
	end := min(len(p.shown), p.offset+p.rows())
	for i := p.offset; i < end; i++ {
		e := p.entries[p.shown[i]]
		name := e.label
		size, age := analysis.ScaledLabel(e.size, "bytes", "minimum"), ""
		if e.dir {
			name += "/"
			size = ""
		}
		if !e.mod.IsZero() {
			age = ageLabel(p.now().Sub(e.mod))
		}
		var b strings.Builder
		b.WriteString("  " + views.PadRight(fitLeft(name, nameW), nameW))
		kind := e.kind
		if p.marked.path != "" && e.path == p.marked.path {
			kind = "base (" + p.marked.flag() + ")"
		}
		if typeW > 0 {
			b.WriteString(" " + views.PadRight(fitLeft(kind, typeW), typeW))
		}
		b.WriteString(" " + fmt.Sprintf("%*s", sizeW, size))
		if ageW > 0 {
			b.WriteString(" " + fmt.Sprintf("%*s", ageW, age))
		}
		text := b.String()
		if i == p.cursor {
			text = st.Selected.Render("▶" + text[1:])
		}
		lines = append(lines, text)
	}
	for len(lines) < p.height-1 {
		lines = append(lines, "")
	}
	hint := "enter open • b base • ⌫ parent directory • / filter • ↑↓ g G pgup pgdn move • q quit"
	if p.filtering {
		hint = "type to filter by name • enter opens the first match • ↑↓ move • esc clears"
	}
	lines = append(lines, st.Dim.Render(fitLeft(hint, p.width)))
	return strings.Join(lines, "\n")
}

// ageLabel is how long ago a file changed, in one unit.
func ageLabel(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	case d < 60*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	}
	return fmt.Sprintf("%dmo ago", int(d/(30*24*time.Hour)))
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	if strings.HasSuffix(s, "y") {
		return s[:len(s)-1] + "ies"
	}
	return s + "s"
}

// fitLeft cuts s to w columns (not runes: a wide name would wrap the
// row).
func fitLeft(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}

// thousands writes n with thousands separators: 5,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// where names the directory listed on screen: a served directory by its
// name and the path within it, never the server's path.
func (p *picker) where() string {
	if p.files == nil {
		return p.dir
	}
	if p.dir == "." {
		return p.label
	}
	return p.label + "/" + p.dir
}
