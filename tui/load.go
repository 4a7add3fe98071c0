package tui

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/bubbles/progress"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/format/symbolize"
	"github.com/pprof-tui/pprof-tui/views"
)

// demoProfile is a real Go CPU profile with labels (a copy of
// testdata/go/cpu_labels.pb.gz), so that the explorer run with no
// argument on a fresh clone shows something real.
//
//go:embed demo/cpu_labels.pb.gz
var demoProfile []byte

// DemoName is how the picker and status bar name the demo profile.
const DemoName = "demo: cpu_labels.pb.gz (embedded)"

// loader reads the profile in the background and reports progress: a
// bar of the compressed bytes read of the file's size, or a spinner
// when the size is unknown (URLs, stdin).
type loader struct {
	cfg   Config
	st    *views.Styles
	ch    chan int64
	read  int64
	total int64
	bar   progress.Model
	began time.Time
	bins  *symbolize.Cache        // binaries read for symbolization, kept from one load to the next
	last  *atomic.Pointer[string] // the load's latest status message, shown while it runs
}

type progressMsg struct{ read int64 }

type loadedMsg struct {
	p     *format.Profile
	err   error
	took  time.Duration
	notes []string // the load's status messages (symbolization warnings)
}

func newLoader(cfg Config, st *views.Styles) loader {
	return loader{cfg: cfg, st: st, bar: progress.New(
		progress.WithSolidFill(st.ProgressColor()),
		progress.WithColorProfile(cfg.ColorProfile),
		progress.WithoutPercentage(),
	)}
}

func (l *loader) setWidth(w int) {
	l.bar.Width = max(10, min(50, w-40))
}

// start loads the sources, or data when it is not nil (the demo).
func (l *loader) start(ctx context.Context, src format.Sources, data []byte) tea.Cmd {
	l.read, l.total, l.began = 0, 0, time.Now()
	if data != nil {
		l.total = int64(len(data))
	} else if len(src.Sources) > 0 {
		stat := os.Stat
		if l.cfg.Files != nil {
			stat = func(name string) (fs.FileInfo, error) { return fs.Stat(l.cfg.Files, name) }
		}
		if st, err := stat(src.Sources[0]); err == nil && st.Mode().IsRegular() {
			l.total = st.Size()
		}
	}
	ch := make(chan int64, 1)
	l.ch = ch
	opt := l.cfg.Load
	if opt.Binaries == nil {
		if l.bins == nil {
			l.bins = symbolize.NewCache()
		}
		opt.Binaries = l.bins
	}
	// Printed now, status messages would garble the screen: they are
	// shown in the footer when the profile is loaded.
	var mu sync.Mutex
	var notes []string
	last := new(atomic.Pointer[string])
	l.last = last
	opt.Status = func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		notes = append(notes, msg)
		last.Store(&msg)
	}
	opt.Progress = func(n int64) {
		select {
		case ch <- n:
		default: // the UI is behind; it gets a later figure
		}
	}
	load := func() tea.Msg {
		defer close(ch)
		t0 := time.Now()
		var p *format.Profile
		var err error
		if data != nil {
			p, err = accept(format.Parse(bytes.NewReader(data), opt))
		} else {
			p, err = readSources(ctx, l.cfg.Files, src, opt)
		}
		mu.Lock()
		defer mu.Unlock()
		return loadedMsg{p: p, err: err, took: time.Since(t0), notes: notes}
	}
	return tea.Batch(guard(load), l.wait())
}

func (l *loader) wait() tea.Cmd {
	ch := l.ch
	return func() tea.Msg {
		n, ok := <-ch
		if !ok {
			return nil
		}
		return progressMsg{n}
	}
}

func (l *loader) view(name views.Text, spin spinner.Model) string {
	st := l.st
	if l.total > 0 {
		f := float64(l.read) / float64(l.total)
		return fmt.Sprintf("%s %s %s %3.0f%% %s of %s", st.Prompt.Render("Loading"), name, l.bar.ViewAs(min(f, 1)),
			100*min(f, 1), analysis.ScaledLabel(l.read, "bytes", "minimum"), analysis.ScaledLabel(l.total, "bytes", "minimum"))
	}
	read := ""
	if l.read > 0 {
		read = " (" + analysis.ScaledLabel(l.read, "bytes", "minimum") + " read)"
	} else if msg := l.last.Load(); msg != nil {
		read = " " + st.Dim.Render("("+views.SafeText(*msg)+")") // waiting for a turn (serve)
	}
	return fmt.Sprintf("%s %s %s%s", spin.View(), st.Prompt.Render("Loading"), name, read)
}

func (m *Model) loaded(msg loadedMsg) tea.Cmd {
	if msg.err != nil {
		if m.picker != nil {
			m.phase = phasePicking
			m.picker.err = msg.err
			return nil
		}
		m.err = msg.err
		return tea.Quit
	}
	m.prof = msg.p
	m.engine = analysis.NewEngine(msg.p)
	m.setSides()
	if len(msg.notes) > 0 {
		m.setNote(views.Safe(strings.Join(msg.notes, "; ")), false)
	}
	// The loading line is erased (a frame drawing nothing) while the
	// first view computes, then the alt screen is taken: the first view
	// is drawn as soon as it is computed.
	m.phase = phaseEntering
	enter := tea.Tick(2*time.Second/frameRate, func(time.Time) tea.Msg { return enterMsg{} })
	if m.live != nil {
		return tea.Batch(m.ensure(m.views.active, false), enter, m.live.start(m.prof, m.c.Diff, m.opts))
	}
	return tea.Batch(m.ensure(m.views.active, false), enter)
}

func (m *Model) startSpin() tea.Cmd {
	if m.spin.on {
		return nil
	}
	m.spin.on = true
	return m.spin.Tick
}

// tick advances the load progress and the spinner.
func (m *Model) tick(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case progressMsg:
		m.load.read = msg.read
		return m.load.wait()
	case spinner.TickMsg:
		if m.phase == phaseLoading || m.jobs.busy() {
			var cmd tea.Cmd
			m.spin.Model, cmd = m.spin.Update(msg)
			return cmd
		}
		m.spin.on = false
	}
	return nil
}

// sourceName names the sources for the status bar.
func sourceName(s format.Sources) views.Text {
	names := make([]string, len(s.Sources))
	for i, src := range s.Sources {
		if strings.Contains(src, "://") {
			names[i] = src
		} else {
			names[i] = filepath.Base(src)
		}
	}
	name := strings.Join(names, "+")
	for _, b := range s.DiffBase {
		name += " −diff_base " + filepath.Base(b)
	}
	for _, b := range s.Base {
		name += " −base " + filepath.Base(b)
	}
	return views.Safe(name)
}
