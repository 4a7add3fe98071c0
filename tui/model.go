package tui

import (
	"context"
	"regexp"
	"runtime/debug"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
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
	phaseEntering              // erasing the loading line before the alt screen, the first view computing
	phaseOpening               // in the alt screen, the first view still computing
	phaseReady
)

// opening reports whether the first view is still computing.
func (m *Model) opening() bool { return m.phase == phaseEntering || m.phase == phaseOpening }

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

	openProfile
	live *live // the refresh loop of -refresh; nil without it
	optionState

	views    viewSet
	keys     []keyRow // the root's key bindings
	selected string   // the function selected in every view (see syncSelection)
	jobs     jobs
	spin     spin

	line   cmdline // the command and search line
	search *regexp.Regexp
	// announced is the filter a key set, to say what it keeps once
	// that is counted (tally.go).
	announced *announcement
	note      footNote
	click     views.DoubleClick // for the views that leave double clicks to the root
	help      helpPanel         // in the view's place: ?, :help, I, :cmd
	configs   configStore       // pprof's saved configurations (:config)
	// baseFacts is the base read on its own, for the info panel.
	baseFacts baseFacts
	optsMemo  optsMemo // optsKey and filters
}

// openProfile is what the explorer has open.
type openProfile struct {
	source  views.Text     // the status bar's name of what was loaded
	picked  string         // the name of the picker's entry loaded, as it is
	sources format.Sources // what was loaded, for :cmd and live refreshes
	gen     int            // the profile's generation: live refreshes replace it
	prof    *format.Profile
	engine  *analysis.Engine
}

// optionState is the options the views show and their history.
type optionState struct {
	opts    analysis.Options // the options the views show
	target  analysis.Options // opts, or the newest requested change
	history []earlier        // earlier opts, for back
	streak  streak           // a run of s presses, one step of history
}

// earlier is a step of the options' history: the options before a
// change, and the change's stamp.
type earlier struct {
	opts  analysis.Options
	stamp uint64
}

func newOptionState(opts analysis.Options) optionState {
	return optionState{opts: opts, target: opts}
}

// newest is the stamp of the history's newest step (views.Steps), 0 for
// none.
func (o *optionState) newest() uint64 {
	if n := len(o.history); n > 0 {
		return o.history[n-1].stamp
	}
	return 0
}

// commit makes the options a computation asked for (req.commit) current
// now that it succeeded, saving the ones before on the history when req
// says to push, except that a run of s presses saves only its first.
func (o *optionState) commit(req request) {
	if req.push && (req.streak == 0 || req.streak != o.streak.pushed) {
		o.history = append(o.history, earlier{o.opts, req.stamp})
	}
	if req.streak != 0 {
		o.streak.pushed = req.streak
	}
	o.opts = req.opts
}

// failed gives up the target after its computation failed.
func (o *optionState) failed() { o.target = o.opts }

// pop takes the newest options off the history, if any.
func (o *optionState) pop() (analysis.Options, bool) {
	if len(o.history) == 0 {
		return analysis.Options{}, false
	}
	prev := o.history[len(o.history)-1]
	o.history = o.history[:len(o.history)-1]
	return prev.opts, true
}

// inStreak counts an s press into the current run, starting one if
// none is on, and returns the run's number.
func (o *optionState) inStreak() int {
	if o.streak.cur == 0 {
		o.streak.n++
		o.streak.cur = o.streak.n
	}
	return o.streak.cur
}

// endStreak ends a run of s presses: the next starts a new one.
func (o *optionState) endStreak() { o.streak.cur = 0 }

// spin is the spinner of the status bar and the loading line; on: it
// turns.
type spin struct {
	spinner.Model
	on bool
}

// streak numbers the current run of consecutive s presses (cur; 0: not
// in one, n: the last run's number), which changes the options as one
// step of the history; pushed is the last run that saved a step (see
// inStreak).
type streak struct{ cur, n, pushed int }

// footNote is the one-line message in the footer.
type footNote struct {
	text  views.Text
	isErr bool
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
		Diff: len(cfg.Sources.Base)+len(cfg.Sources.DiffBase) > 0, Steps: &views.Steps{}}
	if cfg.Files != nil {
		c.SourceFiles = analysis.SourceFilesIn(cfg.SourceRoot)
		c.Served = true
	}
	opts := openingOptions(cfg)
	m := &Model{
		ctx: ctx, cfg: cfg, c: c, width: cfg.Width, height: cfg.Height,
		optionState: newOptionState(opts),
		views:       newViewSet(c), keys: rootKeys(c.Keys),
		jobs: newJobs(),
	}
	c.Steps.Options = m.optionState.newest
	st := c.Styles
	m.spin.Model = spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(st.Prompt))
	m.line = newCmdline(st)
	m.line.args = m.completeArgs
	m.configs = configStore{path: cfg.SettingsFile}
	m.help = newHelpPanel(st, c.Keys, keyGroups(m.keys, c.Keys), hints(m.keys))
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
	n := m.optionState.inStreak()
	if req, ok := m.jobs.pending[m.jobs.seq]; ok && req.commit {
		req.streak = n
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

// closeProfile drops the open profile, with everything computed from
// it, and shows the picker again, on the file just closed. Results still
// on their way are dropped when they arrive (their sequence numbers are
// no longer pending).
func (m *Model) closeProfile() tea.Cmd {
	seq, epoch := m.jobs.seq, m.jobs.epoch
	m.picker.chdir(m.picker.dir, m.picked)
	// The generations go on counting, as the sequence numbers do, and the
	// epoch moves on: no late result or background message about the
	// closed profile passes for the next one's.
	m.openProfile = openProfile{gen: m.gen}
	m.views = newViewSet(m.c)
	m.jobs = newJobs()
	m.jobs.seq, m.jobs.epoch = seq, epoch+1
	m.optionState = newOptionState(openingOptions(m.cfg))
	m.selected, m.search = "", nil
	m.baseFacts = baseFacts{}
	m.c.Sides = nil
	m.help.reset()
	m.line.close()
	m.note = footNote{}
	m.phase = phasePicking
	m.resize()
	return func() tea.Msg {
		debug.FreeOSMemory() // give the profile's memory back now
		return nil
	}
}

// Err is the error that ended the program, if any.
func (m *Model) Err() error { return m.err }

// ActiveView returns the focused view.
func (m *Model) ActiveView() views.View { return m.views.focused() }

func (m *Model) Init() tea.Cmd {
	if m.phase == phasePicking {
		return tea.EnterAltScreen
	}
	return tea.Batch(m.load.start(m.ctx, m.cfg.Sources, nil), m.startSpin())
}

// Update handles msg. A panic in it ends the program as a crash in the
// background work does (a CrashError, printed once the terminal is
// restored), through bubbletea's ordinary quit: its own recovery ends
// the program without waiting for the input reader, and closes the
// terminal under it.
func (m *Model) Update(msg tea.Msg) (model tea.Model, cmd tea.Cmd) {
	if m.crashed() {
		return m, tea.Quit
	}
	defer func() {
		if r := recover(); r != nil {
			m.err = &CrashError{Value: r, Stack: debug.Stack()}
			model, cmd = m, tea.Quit
		}
	}()
	model, cmd = m.update(msg)
	for asked := m.c.TakeAsked(); len(asked) > 0; asked = m.c.TakeAsked() {
		for _, a := range asked {
			_, c := m.update(a)
			cmd = tea.Batch(cmd, c)
		}
	}
	if t := m.tallies(); t != nil {
		cmd = tea.Batch(cmd, t)
	}
	return model, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tallyMsg:
		m.tallied(msg)
		return m, nil
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.resize()
		if m.phase == phaseReady {
			// A view whose data depend on its width (Top side by side)
			// asks again.
			return m, m.ensure(m.views.active, false)
		}
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
		for _, v := range m.views.all {
			v.Reveal(msg.Name)
		}
		return m, m.ensure(m.views.active, false)
	case progressMsg, spinner.TickMsg:
		return m, m.tick(msg)
	case pickedMsg:
		m.phase = phaseLoading
		m.source, m.picked = views.Safe(msg.name), msg.name
		m.sources = format.Sources{Sources: msg.sources}
		if msg.data == nil { // the demo has no file to compare
			m.sources = msg.base.apply(m.sources)
		}
		if m.c.Diff = hasBase(m.sources); m.c.Diff {
			m.source = sourceName(m.sources)
		}
		return m, tea.Batch(m.load.start(m.ctx, m.sources, msg.data), m.startSpin())
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
	case foldMsg:
		return m, m.prepareFold()
	case backgroundDoneMsg:
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
		return m, m.live.loaded(msg, m.prof)
	case snapshotMsg:
		return m, m.showSnapshot(msg)
	case savedMsg:
		m.saved(msg)
		return m, nil
	case rebasedMsg:
		return m, m.rebased(msg)
	case infoMsg:
		if msg.gen == m.gen && msg.facts.p != nil {
			m.baseFacts = msg.facts
		}
		if m.phase == phaseReady {
			m.help.open(m.infoLines(msg))
		}
		return m, nil
	case crashMsg:
		m.err = msg.err
		return m, tea.Quit
	case views.RecomputeMsg:
		if id, ok := m.views.find(msg.View); ok {
			return m, m.ensure(id, true)
		}
		return m, nil
	case enterMsg:
		if m.phase == phaseEntering {
			m.phase = phaseOpening
			if m.ActiveView().HasResult() {
				m.phase = phaseReady
			}
		}
		return m, tea.EnterAltScreen
	}
	return m, nil
}

// resize hands each part its share of the window: a tab bar, the view,
// a status bar and a footer.
func (m *Model) resize() {
	h := max(0, m.height-3)
	for _, v := range m.views.all {
		v.SetSize(m.width, h)
	}
	if m.picker != nil {
		m.picker.setSize(m.width, m.height)
	}
	m.help.setSize(m.width, m.height-3)
	m.line.setSize(m.width, m.height)
	m.load.setWidth(m.width)
}

func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := m.c.Keys
	if msg.String() == "ctrl+c" {
		return tea.Quit
	}
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !m.line.isOpen() {
		// Keys typed fast (or sent by a script) can arrive as one message:
		// take them one by one, so ":" then "focus=x" opens the command
		// line and types into it.
		var cmds []tea.Cmd
		for i, r := range msg.Runes {
			if m.line.isOpen() {
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
	if m.line.isOpen() {
		return m.inputKey(msg)
	}
	if kc, ok := m.ActiveView().(views.KeyClaimer); ok && !m.help.shown && kc.Claims(msg) {
		return m.ActiveView().Update(msg)
	}
	if m.help.shown {
		return m.helpKey(msg)
	}
	m.note = footNote{}
	if !key.Matches(msg, k.SampleType) {
		m.optionState.endStreak()
	}
	if cmd, ok := m.runKey(msg); ok {
		return cmd
	}
	return m.ActiveView().Update(msg)
}

// helpKey passes a key to the help panel and does what it asks.
func (m *Model) helpKey(msg tea.KeyMsg) tea.Cmd {
	switch act, dir, text := m.help.update(msg); act {
	case helpQuit:
		return tea.Quit
	case helpCommand:
		return m.openInput(inputCommand, "")
	case helpStep:
		m.stepSnapshot(dir)
	case helpCopy:
		return m.copyText(text, "the command line")
	}
	return nil
}

func (m *Model) handleMouse(msg tea.MouseMsg) tea.Cmd {
	if m.phase != phaseReady || m.help.shown || m.line.isOpen() {
		return nil
	}
	if msg.Y == 0 {
		if msg.Button == tea.MouseButtonLeft && msg.Action == tea.MouseActionPress {
			if id, ok := m.tabAt(msg.X); ok {
				return m.switchView(id)
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

// switchView focuses view id, computing its data if it is stale.
func (m *Model) switchView(id viewID) tea.Cmd {
	if id < 0 || id >= numViews || id == m.views.active {
		return nil
	}
	m.views.active = id
	v := m.ActiveView()
	v.SetSearch(m.search)
	v.Reveal(m.selected)
	return m.ensure(id, false)
}

// afterInput follows a key or click: the active view's selected
// function becomes the shared selection, and a view whose data is about
// it (peek, source) is brought up to date.
func (m *Model) afterInput(cmd tea.Cmd) tea.Cmd {
	if m.phase != phaseReady || m.engine == nil {
		return cmd
	}
	if m.syncSelection() {
		return tea.Batch(cmd, m.ensure(m.views.active, false))
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

func (m *Model) setNote(t views.Text, isErr bool) {
	m.note = footNote{t, isErr}
}

func (m *Model) setSearch(re *regexp.Regexp) {
	m.search = re
	m.ActiveView().SetSearch(re)
}
