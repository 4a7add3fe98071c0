package tui

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/analysis/report"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/views"
)

// Comparing with a base chosen in the explorer: b in the picker marks
// one (picker.go), :base sets or clears it on the open profile. Either
// way the profile is read again with the base subtracted, exactly as
// -diff_base or -base on the command line (format.Load), and the views
// keep their settings, selection and place.

// withBase returns src with its base replaced by files, subtracted as
// -base (minus) or -diff_base.
func withBase(src format.Sources, files []string, minus bool) format.Sources {
	src.Base, src.DiffBase = nil, nil
	if minus {
		src.Base = files
	} else {
		src.DiffBase = files
	}
	if len(files) == 0 {
		src.Normalize = false
	}
	return src
}

func hasBase(src format.Sources) bool { return len(src.Base)+len(src.DiffBase) > 0 }

// apply sets the marked base, if any, on src.
func (b pickedBase) apply(src format.Sources) format.Sources {
	if b.path == "" {
		return src
	}
	return withBase(src, []string{b.path}, b.minus)
}

// sourceReader returns what reads sources in the background as the
// loader does (through Files when the explorer is served), holding
// nothing of the model the UI goroutine changes.
func (m *Model) sourceReader() func(context.Context, format.Sources) (*format.Profile, error) {
	files, opt := m.cfg.Files, m.cfg.Load
	opt.Binaries = m.load.bins
	opt.Status = func(string) {} // notes were shown on the first load
	opt.Progress = nil
	return func(ctx context.Context, src format.Sources) (*format.Profile, error) {
		return readSources(ctx, files, src, opt)
	}
}

// rebasedMsg is the open profile read again against a new base.
type rebasedMsg struct {
	gen    int // the generation it replaces
	src    format.Sources
	p      *format.Profile
	engine *analysis.Engine
	err    error
}

// :base [-base|-diff_base] [FILE]: FILE becomes the base, subtracted as
// -diff_base unless -base says so; no FILE clears the base.
func runBase(m *Model, args []string, _ bool) (tea.Cmd, error) {
	minus := false
	if len(args) > 0 && (args[0] == "-base" || args[0] == "-diff_base") {
		minus, args = args[0] == "-base", args[1:]
	}
	if len(args) > 1 {
		return nil, fmt.Errorf("base takes one file (quote a name with spaces)")
	}
	switch {
	case m.live != nil:
		return nil, fmt.Errorf("a live profile is compared with a snapshot of its own: m marks one")
	case len(m.sources.Sources) == 0:
		return nil, fmt.Errorf("the demo profile has no file to read again: open a file to compare it")
	case slices.Contains(m.sources.Sources, "-"):
		return nil, fmt.Errorf("the profile came on stdin and cannot be read again with a base")
	}
	var files []string
	if len(args) == 1 {
		files = []string{m.localName(args[0])}
	} else if !hasBase(m.sources) {
		m.setNote(views.Safe("no base to clear"), false)
		return nil, nil
	}
	src := withBase(m.sources, files, minus)
	m.setNote(views.Safe("reading "+sourceName(src).String()+"…"), false)
	ctx, gen, read := m.ctx, m.gen, m.sourceReader()
	return tea.Batch(m.startSpin(), guard(func() tea.Msg {
		p, err := read(ctx, src)
		if err != nil {
			return rebasedMsg{gen: gen, src: src, err: err}
		}
		return rebasedMsg{gen: gen, src: src, p: p, engine: analysis.NewEngine(p)}
	})), nil
}

// rebased puts the profile read against its new base under the views.
func (m *Model) rebased(msg rebasedMsg) tea.Cmd {
	if msg.gen != m.gen || m.engine == nil {
		return nil // the profile changed meanwhile (closed, reopened)
	}
	if msg.err != nil {
		m.setNote(views.Safe("base: "+msg.err.Error()), true)
		return nil
	}
	m.sources = msg.src
	m.source = sourceName(msg.src)
	m.c.Diff = hasBase(msg.src)
	m.prof, m.engine = msg.p, msg.engine
	m.gen++
	m.baseFacts = baseFacts{}
	m.setSides()
	if m.c.Diff {
		m.setNote(views.Safe("comparing "+m.source.String()), false)
	} else {
		m.setNote(views.Safe("base cleared"), false)
	}
	return m.ensure(m.views.active, false)
}

// baseDir is the directory a relative :base name is in: the picker's
// when the profile came from it (a path in Files when served), else the
// current directory ("").
func (m *Model) baseDir() string {
	if m.picker != nil && m.picked != "" {
		return m.picker.dir
	}
	return ""
}

// localName is a name typed on the command line as the loader opens it:
// in a served explorer a path in Files (no leading slash), else a path
// of the file system; relative to baseDir.
func (m *Model) localName(name string) string {
	if m.cfg.Files != nil {
		if !strings.HasPrefix(name, "/") {
			name = path.Join(m.baseDir(), name)
		}
		return path.Clean(strings.TrimPrefix(name, "/"))
	}
	if d := m.baseDir(); d != "" && !filepath.IsAbs(name) {
		return filepath.Join(d, name)
	}
	return name
}

// completeBase completes :base's argument: -base or -diff_base first,
// then a file or directory name, from the directory the word names
// under baseDir (the picker's, or the current one; in a served explorer
// the served one).
func (m *Model) completeBase(before []string, word string) []string {
	var out []string
	if len(before) == 0 {
		out = withPrefix([]string{"-base", "-diff_base"}, "", word)
	}
	if len(before) > 1 || len(before) == 1 && before[0] != "-base" && before[0] != "-diff_base" {
		return out
	}
	dir, prefix := "", word
	if i := strings.LastIndex(word, "/"); i >= 0 {
		dir, prefix = word[:i+1], word[i+1:]
	}
	var des []fs.DirEntry
	var err error
	if m.cfg.Files != nil {
		d := dir
		if !strings.HasPrefix(d, "/") {
			d = path.Join(m.baseDir(), d)
		}
		des, err = m.cfg.Files.ReadDir(path.Clean("./" + strings.TrimPrefix(d, "/")))
	} else {
		d := filepath.FromSlash(dir)
		if !filepath.IsAbs(d) {
			d = filepath.Join(cmp.Or(m.baseDir(), "."), d)
		}
		des, err = os.ReadDir(d)
	}
	if err != nil {
		return out
	}
	for _, de := range des {
		name := de.Name()
		if strings.HasPrefix(name, ".") && !strings.HasPrefix(prefix, ".") || !strings.HasPrefix(name, prefix) {
			continue
		}
		if de.IsDir() {
			name += "/"
		}
		out = append(out, dir+name)
	}
	slices.Sort(out)
	return out
}

// baseFacts is the base read on its own, for the info panel: its
// header facts.
type baseFacts struct {
	files []string
	p     *format.Profile
}

// baseInfo returns what the info panel says about the base of src:
// pprof's header for the base profile alone with the same settings,
// read the first time I asks (facts, kept, says what was read).
func baseInfo(ctx context.Context, read func(context.Context, format.Sources) (*format.Profile, error),
	src format.Sources, facts baseFacts, opts analysis.Options) (baseFacts, []string, error) {
	files := append(slices.Clone(src.Base), src.DiffBase...)
	if len(files) == 0 {
		return baseFacts{}, nil, nil
	}
	if facts.p == nil || !slices.Equal(facts.files, files) {
		p, err := read(ctx, format.Sources{Sources: files})
		if err != nil {
			return baseFacts{}, nil, err
		}
		facts = baseFacts{files: files, p: p}
	}
	top, err := analysis.NewEngine(facts.p).Top(opts)
	if err != nil {
		return facts, nil, err
	}
	return facts, report.Header(facts.p, top, opts), nil
}

// baseFlag names how src's base is subtracted, as pprof's flag.
func baseFlag(src format.Sources) string {
	if len(src.Base) > 0 {
		return "-base"
	}
	return "-diff_base"
}

// comparing is the status bar's short word on a base when the source's
// name does not fit (level 2: the base's name, 3: a sign), "" for none.
func (m *Model) comparing(level int) string {
	files := append(slices.Clone(m.sources.Base), m.sources.DiffBase...)
	if len(files) == 0 || m.live != nil {
		return ""
	}
	if level >= 3 {
		return "Δ"
	}
	return "Δ " + baseFlag(m.sources) + " " + fitLeft(views.SafeText(filepath.Base(files[0])), 20)
}

// sides reads a diff's two profiles apart, once, for views.Common.Sides
// (the differential flame graph), off the UI goroutine.
type sides struct {
	once        sync.Once
	read        func() (newP, baseP *format.Profile, err error)
	newE, baseE *analysis.Engine
	err         error
}

func (s *sides) get() (newE, baseE *analysis.Engine, err error) {
	s.once.Do(func() {
		n, b, err := s.read()
		if err != nil {
			s.err = fmt.Errorf("reading the profiles apart: %w", err)
			return
		}
		s.newE, s.baseE = analysis.NewEngine(n), analysis.NewEngine(b)
	})
	return s.newE, s.baseE, s.err
}

// setSides gives the views the open diff's two profiles apart: read
// again from the sources at first use (the loaded profile is their
// difference), as -diff_base and -base read them, normalized when
// -normalize asks. Without a base, or live (showSnapshot sets them),
// there are none.
func (m *Model) setSides() {
	m.c.Sides = nil
	if !hasBase(m.sources) || m.live != nil {
		return
	}
	ctx, read, src := m.ctx, m.sourceReader(), m.sources
	s := &sides{read: func() (*format.Profile, *format.Profile, error) {
		n, err := read(ctx, format.Sources{Sources: src.Sources, Binary: src.Binary})
		if err != nil {
			return nil, nil, err
		}
		b, err := read(ctx, format.Sources{Sources: append(slices.Clone(src.Base), src.DiffBase...), Binary: src.Binary})
		if err != nil {
			return nil, nil, fmt.Errorf("base: %w", err)
		}
		if src.Normalize {
			if err := format.Normalize(n, b); err != nil {
				return nil, nil, err
			}
		}
		return n, b, nil
	}}
	m.c.Sides = s.get
}

// snapshotSides gives the views a live diff's two snapshots (nil: not
// a diff of two snapshots).
func (m *Model) snapshotSides(newP, baseP *format.Profile) {
	m.c.Sides = nil
	if newP == nil || baseP == nil {
		return
	}
	s := &sides{read: func() (*format.Profile, *format.Profile, error) { return newP, baseP, nil }}
	m.c.Sides = s.get
}
