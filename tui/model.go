package tui

import (
	"context"
	"regexp"
	"runtime/debug"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/views"
)

// Minimum usable window.
const minWidth, minHeight = 40, 10

type phase int

const (
	phasePicking  phase = iota // choosing a profile
	phaseLoading               // reading it
	phaseOpening               // computing the first view, still off the alt screen
	phaseEntering              // erasing the loading line before the alt screen
	phaseReady
)

type inputMode int

const (
	inputNone inputMode = iota
	inputCommand
	inputSearch
)

// Model is the root of the explorer: it owns the profile, the options
// and their history, and routes messages to the views.
type Model struct {
	ctx    context.Context
	cfg    Config
	c      *views.Common
	width  int
	height int
	phase  phase
	err    error // ends the program (loading failed)

	load   loader
	picker *picker

	source  string
	sources format.Sources // what was loaded, for :cmd and live refreshes
	gen     int            // the profile's generation: live refreshes replace it
	live    *live          // the refresh loop of -refresh; nil without it
	prof    *format.Profile
	engine  *analysis.Engine
	opts    analysis.Options   // the options the views show
	target  analysis.Options   // opts, or the newest requested change
	history []analysis.Options // earlier opts, for back

	views    []views.View
	active   int
	selected string // the function selected in every view (see syncSelection)
	jobs     jobs
	spin     spinner.Model
	spinning bool

	// streak numbers the current run of consecutive s presses (0: not in
	// one), which changes the options as one step of the history;
	// pushedStreak is the last run that saved a step (see inStreak).
	streak, streaks, pushedStreak int

	mode       inputMode
	input      textinput.Model
	search     *regexp.Regexp
	note       string // one-line message in the footer
	noteErr    bool
	click      views.DoubleClick // for the views that leave double clicks to the root
	showHelp   bool
	helpOffset int      // the help's scroll position
	helpText   []string // what :help shows in the help's place; nil: the keys
	helpCopy   string   // what y copies while helpText shows (:cmd)
	helpStep   bool     // helpText is a live snapshot: [ and ] step
	help       help.Model

	comp          completion // the command line's tab list
	cmdHistory    []string   // earlier command lines, oldest first
	cmdHistoryPos int        // the one ↑/↓ shows (len: the new line)
	labelKeys     []string   // the profile's label keys, for completion
	labelValues   map[string][]string
}

// NewModel returns the root model for cfg.
func NewModel(ctx context.Context, cfg Config) *Model {
	lv := newLive(cfg)
	if lv != nil && lv.cpu && cfg.Load.Seconds == 0 {
		// Live CPU profiles sample for the refresh interval, the first too.
		cfg.Load.Seconds = max(1, int(cfg.Refresh/time.Second))
	}
	r := newRenderer(cfg)
	c := &views.Common{Styles: views.NewStyles(r), Keys: views.DefaultKeyMap(),
		Diff: len(cfg.Sources.Base)+len(cfg.Sources.DiffBase) > 0}
	if cfg.Files != nil {
		c.SourceFiles = analysis.SourceFilesIn(cfg.SourceRoot)
	}
	opts := openingOptions(cfg)
	m := &Model{
		ctx: ctx, cfg: cfg, c: c, width: cfg.Width, height: cfg.Height,
		opts: opts, target: opts,
		views: newViews(c),
		jobs:  newJobs(),
	}
	st := c.Styles
	m.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(st.Prompt))
	m.input = textinput.New()
	m.input.Cursor.SetMode(cursor.CursorStatic)
	m.input.Cursor.Style = st.Selected
	m.input.PromptStyle = st.Prompt
	m.input.TextStyle = st.Plain
	m.input.PlaceholderStyle = st.Dim
	m.help = help.New()
	m.help.Styles.ShortKey = st.HelpKey
	m.help.Styles.ShortDesc = st.HelpDesc
	m.help.Styles.ShortSeparator = st.HelpSep
	m.help.Styles.Ellipsis = st.HelpSep
	m.load = newLoader(cfg, st)
	if len(cfg.Sources.Sources) == 0 {
		m.picker = newPicker(cfg.Files, cfg.Dir, c)
	} else {
		m.phase = phaseLoading
		m.source = sourceName(cfg.Sources)
		m.sources = cfg.Sources
		m.live = lv
		if lv != nil {
			c.Rate = m.rateOver
		}
	}
	m.resize()
	return m
}

// inStreak marks the sample-type change just requested as part of a
// cycle of s presses, which the history keeps as one step: the first
// that takes effect saves the options before the cycle, the others save
// nothing (result).
func (m *Model) inStreak() {
	if m.streak == 0 {
		m.streaks++
		m.streak = m.streaks
	}
	if req, ok := m.jobs.pending[m.jobs.seq]; ok && req.commit {
		req.streak = m.streak
		m.jobs.pending[m.jobs.seq] = req
	}
}

// openingOptions are the options a profile opens with: the flags'.
func openingOptions(cfg Config) analysis.Options {
	opts := cfg.Options
	if opts.Granularity == "" {
		opts = analysis.DefaultOptions()
		opts.NodeFraction = 0
	}
	if opts.NodeFraction < 0 {
		opts.NodeFraction = 0 // the explorer shows every node, unless asked
	}
	return opts
}

// newViews makes the views, empty (Top takes its order from the options
// of its first result).
func newViews(c *views.Common) []views.View {
	return []views.View{views.NewTop(c), views.NewTree(c), views.NewLabels(c), views.NewFlame(c), views.NewPeek(c), views.NewSource(c), views.NewDisasm(c), views.NewTraces(c)}
}

// closeProfile drops the open profile, with everything computed from
// it, and shows the picker again, on the file just closed. Results still
// on their way are dropped when they arrive (their sequence numbers are
// no longer pending).
func (m *Model) closeProfile() tea.Cmd {
	opts := openingOptions(m.cfg)
	seq, epoch := m.jobs.seq, m.jobs.epoch
	m.prof, m.engine = nil, nil
	m.views, m.active = newViews(m.c), 0
	m.jobs = newJobs()
	m.jobs.seq, m.jobs.epoch = seq, epoch+1
	m.opts, m.target, m.history = opts, opts, nil
	m.selected, m.search, m.mode, m.showHelp = "", nil, inputNone, false
	m.note, m.noteErr = "", false
	m.labelKeys, m.labelValues, m.helpText, m.comp = nil, nil, nil, completion{}
	m.sources = format.Sources{}
	m.phase = phasePicking
	m.picker.chdir(m.picker.dir, m.source)
	m.source = ""
	m.resize()
	return func() tea.Msg {
		debug.FreeOSMemory() // give the profile's memory back now
		return nil
	}
}

// Err is the error that ended the program, if any.
func (m *Model) Err() error { return m.err }

// Options returns the options the views show.
func (m *Model) Options() analysis.Options { return m.opts }

// ActiveView returns the focused view.
func (m *Model) ActiveView() views.View { return m.views[m.active] }

// ViewAt returns the view at index i (0 Top, 1 Tree, 2 Labels, 3 Flame
// graph, 4 Peek, 5 Source, 6 Disasm, 7 Traces).
func (m *Model) ViewAt(i int) views.View { return m.views[i] }

// History returns the depth of the back history.
func (m *Model) History() int { return len(m.history) }

func (m *Model) Init() tea.Cmd {
	if m.phase == phasePicking {
		return tea.EnterAltScreen
	}
	return tea.Batch(m.load.start(m.ctx, m.cfg.Sources, nil), m.startSpin())
}

func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.resize()
		return m, nil
	case tea.KeyMsg:
		cmd := m.handleKey(msg)
		return m, m.afterInput(cmd)
	case tea.MouseMsg:
		cmd := m.handleMouse(msg)
		return m, m.afterInput(cmd)
	case views.ViewMsg:
		return m, msg.To.Update(msg.Msg)
	case views.SelectMsg:
		m.selected = msg.Name
		for _, v := range m.views {
			v.Reveal(msg.Name)
		}
		return m, m.ensure(m.active, false)
	case progressMsg, spinner.TickMsg:
		return m, m.tick(msg)
	case pickedMsg:
		m.phase = phaseLoading
		m.source = msg.name
		m.sources = format.Sources{Sources: msg.sources}
		return m, tea.Batch(m.load.start(m.ctx, format.Sources{Sources: msg.sources}, msg.data), m.startSpin())
	case loadedMsg:
		return m, m.loaded(msg)
	case resultMsg:
		return m, m.result(msg)
	case completeTopMsg:
		if msg.req.epoch != m.jobs.epoch {
			return m, nil
		}
		return m, m.completeTop(msg.req)
	case topCompleteMsg:
		if msg.req.epoch != m.jobs.epoch {
			return m, nil
		}
		return m, m.topCompleted(msg)
	case prefetchedMsg:
		if msg.epoch == m.jobs.epoch {
			m.jobs.background = false
		}
		return m, nil
	case liveTickMsg:
		if m.live == nil {
			return m, nil
		}
		return m, m.onLiveTick(msg)
	case liveLoadedMsg:
		return m, m.liveLoaded(msg)
	case snapshotMsg:
		return m, m.showSnapshot(msg)
	case savedMsg:
		m.saved(msg)
		return m, nil
	case infoMsg:
		if m.phase == phaseReady {
			m.openHelp(m.infoLines(msg))
		}
		return m, nil
	case crashMsg:
		m.err = msg.err
		return m, tea.Quit
	case views.RecomputeMsg:
		for i, v := range m.views {
			if v == msg.View {
				return m, m.ensure(i, true)
			}
		}
		return m, nil
	case enterMsg:
		m.phase = phaseReady
		return m, tea.EnterAltScreen
	}
	return m, nil
}

// resize hands each part its share of the window: a tab bar, the view,
// a status bar and a footer.
func (m *Model) resize() {
	h := max(0, m.height-3)
	for _, v := range m.views {
		v.SetSize(m.width, h)
	}
	if m.picker != nil {
		m.picker.setSize(m.width, m.height)
	}
	m.help.Width = m.width
	m.input.Width = max(1, m.width-4)
	m.load.setWidth(m.width)
}

func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := m.c.Keys
	if msg.String() == "ctrl+c" {
		return tea.Quit
	}
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && m.mode == inputNone {
		// Keys typed fast (or sent by a script) can arrive as one message:
		// take them one by one, so ":" then "focus=x" opens the command
		// line and types into it.
		var cmds []tea.Cmd
		for i, r := range msg.Runes {
			if m.mode != inputNone {
				rest := msg
				rest.Runes = msg.Runes[i:]
				cmds = append(cmds, m.handleKey(rest))
				break
			}
			one := msg
			one.Runes = []rune{r}
			cmds = append(cmds, m.handleKey(one))
		}
		return tea.Batch(cmds...)
	}
	switch m.phase {
	case phasePicking:
		return m.picker.update(msg)
	case phaseLoading, phaseOpening, phaseEntering:
		if key.Matches(msg, k.Quit) {
			return tea.Quit
		}
		return nil
	}
	if m.mode != inputNone {
		return m.inputKey(msg)
	}
	if kc, ok := m.ActiveView().(views.KeyClaimer); ok && !m.showHelp && kc.Claims(msg) {
		return m.ActiveView().Update(msg)
	}
	if m.showHelp {
		switch {
		case key.Matches(msg, k.Down):
			m.helpOffset++
		case key.Matches(msg, k.Up):
			m.helpOffset = max(0, m.helpOffset-1)
		case key.Matches(msg, k.PageDown):
			m.helpOffset += m.height / 2
		case key.Matches(msg, k.PageUp):
			m.helpOffset = max(0, m.helpOffset-m.height/2)
		case key.Matches(msg, k.Home):
			m.helpOffset = 0
		case key.Matches(msg, k.End):
			m.helpOffset = len(m.helpLines())
		case key.Matches(msg, k.Quit):
			return tea.Quit
		case key.Matches(msg, k.Command):
			m.showHelp = false
			return m.openInput(inputCommand, "")
		case m.helpStep && (key.Matches(msg, k.StepBack) || key.Matches(msg, k.StepForward)):
			m.stepSnapshot(map[bool]int{true: -1, false: 1}[key.Matches(msg, k.StepBack)])
			return nil
		case key.Matches(msg, k.Copy) && m.helpCopy != "":
			m.showHelp = false
			return m.copyText(m.helpCopy, "the command line")
		default:
			m.showHelp = false
		}
		m.helpOffset = max(0, min(m.helpOffset, len(m.helpLines())-(m.height-3)+1))
		return nil
	}
	m.note = ""
	if !key.Matches(msg, k.SampleType) {
		m.streak = 0 // a cycle of s presses ends
	}
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.openHelp(nil)
	case key.Matches(msg, k.Views):
		return m.switchView(int(msg.Runes[0] - '1'))
	case key.Matches(msg, k.NextView):
		return m.switchView((m.active + 1) % len(m.views))
	case key.Matches(msg, k.PrevView):
		return m.switchView((m.active + len(m.views) - 1) % len(m.views))
	case key.Matches(msg, k.Command):
		return m.openInput(inputCommand, "")
	case key.Matches(msg, k.Search):
		return m.openInput(inputSearch, "")
	case key.Matches(msg, k.NextMatch), key.Matches(msg, k.PrevMatch):
		if m.search == nil {
			m.setNote("no search: press / to search", false)
		} else if !m.ActiveView().NextMatch(map[bool]int{true: 1, false: -1}[key.Matches(msg, k.NextMatch)]) {
			m.setNote("no match for "+m.search.String(), true)
		}
	case key.Matches(msg, k.Clear):
		m.setSearch(nil)
	case key.Matches(msg, k.SampleType):
		cmd := m.nextSampleType()
		m.inStreak()
		return cmd
	case key.Matches(msg, k.Back):
		return m.back()
	case key.Matches(msg, k.Pause), key.Matches(msg, k.Refresh), key.Matches(msg, k.Delta), key.Matches(msg, k.Trend), key.Matches(msg, k.StepBack), key.Matches(msg, k.StepForward):
		if m.live == nil {
			m.setNote("live refresh is off: open a URL or file with -refresh=10s", false)
			return nil
		}
		if key.Matches(msg, k.Pause) {
			m.pauseLive()
			return nil
		}
		if key.Matches(msg, k.Delta) {
			return m.toggleDelta()
		}
		if key.Matches(msg, k.Trend) {
			m.toggleTrend()
			return nil
		}
		if key.Matches(msg, k.StepBack) || key.Matches(msg, k.StepForward) {
			m.stepSnapshot(map[bool]int{true: -1, false: 1}[key.Matches(msg, k.StepBack)])
			return nil
		}
		return m.refreshNow()
	case key.Matches(msg, k.Info):
		return m.showInfo()
	case key.Matches(msg, k.Copy):
		sel, ok := m.ActiveView().Selection()
		if !ok || sel.Name == "" {
			m.setNote("nothing selected to copy", false)
			return nil
		}
		return m.copyText(sel.Name, sel.Name)
	case key.Matches(msg, k.Drill):
		return m.filterSelected(filterDrill)
	case key.Matches(msg, k.Focus):
		return m.filterSelected(filterFocus)
	case key.Matches(msg, k.Ignore):
		return m.filterSelected(filterIgnore)
	case key.Matches(msg, k.Hide):
		return m.filterSelected(filterHide)
	case key.Matches(msg, k.Picker) && m.picker != nil:
		return m.closeProfile()
	default:
		return m.ActiveView().Update(msg)
	}
	return nil
}

func (m *Model) handleMouse(msg tea.MouseMsg) tea.Cmd {
	if m.phase != phaseReady || m.showHelp || m.mode != inputNone {
		return nil
	}
	if msg.Y == 0 {
		if msg.Button == tea.MouseButtonLeft && msg.Action == tea.MouseActionPress {
			if i := m.tabAt(msg.X); i >= 0 {
				return m.switchView(i)
			}
		}
		return nil
	}
	if msg.Y > m.height-3 {
		return nil
	}
	msg.Y--
	v := m.ActiveView()
	cmd := v.Update(msg)
	enter := tea.KeyMsg{Type: tea.KeyEnter}
	if kc, ok := v.(views.KeyClaimer); ok && kc.Claims(enter) {
		// The view gives enter its own meaning, and double clicks too
		// (the flame graph zooms, peek walks).
		return cmd
	}
	if msg.Button == tea.MouseButtonLeft && msg.Action == tea.MouseActionPress {
		// A double click (on one row: one line) is enter on what the
		// first click selected: drill.
		if m.click.Press(msg.Y) {
			return tea.Batch(cmd, m.handleKey(enter))
		}
	}
	return cmd
}

// switchView focuses view i, computing its data if it is stale.
func (m *Model) switchView(i int) tea.Cmd {
	if i < 0 || i >= len(m.views) || i == m.active {
		return nil
	}
	m.active = i
	v := m.ActiveView()
	v.SetSearch(m.search)
	v.Reveal(m.selected)
	return m.ensure(i, false)
}

// afterInput follows a key or click: the active view's selected
// function becomes the shared selection, and a view whose data is about
// it (peek, source) is brought up to date.
func (m *Model) afterInput(cmd tea.Cmd) tea.Cmd {
	if m.phase != phaseReady || m.engine == nil {
		return cmd
	}
	if m.syncSelection() {
		return tea.Batch(cmd, m.ensure(m.active, false))
	}
	return cmd
}

// syncSelection takes the active view's selected function as the shared
// selection, reporting whether it changed.
func (m *Model) syncSelection() bool {
	sel, ok := m.ActiveView().Selection()
	if !ok || sel.Kind != views.SelFunction || sel.Name == m.selected {
		return false
	}
	m.selected = sel.Name
	return true
}

// Selected returns the shared selection: the selected function's name.
func (m *Model) Selected() string { return m.selected }

func (m *Model) setNote(s string, isErr bool) {
	m.note, m.noteErr = views.SafeText(s), isErr // it may quote the profile
}

func (m *Model) setSearch(re *regexp.Regexp) {
	m.search = re
	m.ActiveView().SetSearch(re)
}
