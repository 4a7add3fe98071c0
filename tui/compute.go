package tui

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/views"
)

// Recomputation: every view's data is computed off the UI goroutine by a
// tea.Cmd that returns a resultMsg. Requests carry a sequence number; the
// newest request for a view supersedes the older ones, whose results are
// dropped when they arrive.

// request is one computation in flight.
type request struct {
	view viewID
	opts analysis.Options
	key  string // opts and the view's own state: what the data is for
	// commit makes opts the current options when the result arrives
	// (push: saving the old ones on the history); without it the
	// result only fills a view.
	commit, push bool
	// streak numbers the run of consecutive s presses the change is
	// one of (0: none): only the first of a run to take effect pushes
	// on the history.
	streak int
	// stamp orders a change that pushes among the views' steps
	// (views.Steps): taken when the key was pressed.
	stamp uint64
	// epoch is the jobs' epoch the request was made in (see jobs.epoch).
	epoch int
}

// enterMsg ends phaseEntering.
type enterMsg struct{}

type resultMsg struct {
	seq  int
	show func() // puts the data in the view that asked (views.Job)
	err  error
	took time.Duration
}

// jobs tracks the requests of each view.
type jobs struct {
	seq         int
	pending     map[int]request
	inflight    [numViews]int    // per view: the newest request's seq, 0 for none
	inflightKey [numViews]string // and what it is for
	have        [numViews]string // per view: what its data is for
	lastTook    time.Duration
	// background: a background job (a completion, a fold or a prefetch,
	// started by runBackground) is running; one at a time.
	background bool
	// foreground counts the computations a person waits for (submit's),
	// for background work to give way to.
	foreground *atomic.Int32
	// prefetchLater: the prefetch waits for the first table's completion.
	prefetchLater bool
	// folded is the optsKey whose stacks were folded in the background
	// (prepareFold); foldAsk the newest ask for it, waiting (foldLater).
	folded  string
	foldAsk *foldAsk
	// tally holds the counts of what filters keep (tally.go).
	tally [numTallies]tally
	// epoch numbers the open profile: closing it starts a new epoch.
	// Timers and background work outlive the profile they were started
	// for, and their messages name its views, keys and engine; those of
	// an older epoch are dropped, or they would index the new profile's
	// empty tables or complete its Top table with the old one's.
	epoch int
}

func newJobs() jobs {
	return jobs{pending: map[int]request{}, foreground: new(atomic.Int32)}
}

// idle reports whether a background job may start: nothing a person
// waits for is computing and no other background job runs.
func (j *jobs) idle() bool { return !j.busy() && !j.background }

// runBackground starts work as the one background job (completeTop,
// prepareFold, prefetch), without a spinner; giveWay reports whether a
// computation a person waits for is running, for work's walk to give
// way to. The message work returns must clear jobs.background.
func (m *Model) runBackground(work func(giveWay func() bool) tea.Msg) tea.Cmd {
	m.jobs.background = true
	fg := m.jobs.foreground
	return guard(func() tea.Msg { return work(func() bool { return fg.Load() > 0 }) })
}

func (j *jobs) busy() bool {
	for _, s := range j.inflight {
		if s != 0 {
			return true
		}
	}
	for _, t := range j.tally {
		if t.inflight != "" {
			return true
		}
	}
	return false
}

// dataKey names what a view's data is for: the profile's generation
// (live refreshes replace it), the options and the view's own state.
func (m *Model) dataKey(opts analysis.Options, state string) string {
	return m.optsKey(opts) + state
}

// optsKey is dataKey's part that all views share, for asking about
// several views at once without formatting the options for each.
func (m *Model) optsKey(opts analysis.Options) string {
	return m.memo(opts).key
}

// filters are the filters of the options the views show, as the status
// bar and the tallies ask for them on every frame and message.
func (m *Model) filters() []analysis.Filter {
	c := m.memo(m.opts)
	if !c.listed {
		c.filters, c.listed = m.opts.Filters(), true
	}
	return c.filters
}

// optsMemo is what is asked of one set of options on every frame and
// message, made once: formatting them takes longer than a frame's
// other work on the status bar (BenchmarkUIUpdate).
type optsMemo struct {
	gen     int
	opts    analysis.Options
	key     string // optsKey
	filters []analysis.Filter
	listed  bool // filters are made
}

// memo returns the memo for opts in the open profile's generation.
func (m *Model) memo(opts analysis.Options) *optsMemo {
	c := &m.optsMemo
	if c.key == "" || c.gen != m.gen || c.opts != opts {
		*c = optsMemo{gen: m.gen, opts: opts, key: fmt.Sprintf("%d|%#v|", m.gen, opts)}
	}
	return c
}

// ensure requests view id's data for the target options unless it has
// it or awaits it. force recomputes even so.
func (m *Model) ensure(id viewID, force bool) tea.Cmd {
	if m.engine == nil {
		return nil
	}
	run, state := m.views.get(id).Query(m.engine, m.target, m.selected)
	k := m.dataKey(m.target, state)
	if !force && (m.jobs.have[id] == k || (m.jobs.inflight[id] != 0 && m.jobs.inflightKey[id] == k)) {
		return nil
	}
	req := request{view: id, opts: m.target, key: k}
	if old, ok := m.jobs.pending[m.jobs.inflight[id]]; ok && old.commit && old.opts == m.target {
		// A change on its way, superseded by the same options on newer
		// data (a live snapshot): it still takes effect when this lands,
		// or the options would silently stay the old ones.
		req.commit, req.push, req.streak, req.stamp = true, old.push, old.streak, old.stamp
	}
	return m.submit(req, run)
}

// change asks for new options: the active view is recomputed with them,
// and they become current when that succeeds. A failure (a bad regexp)
// changes nothing and shows the error.
func (m *Model) change(opts analysis.Options, push bool) tea.Cmd {
	if m.engine == nil {
		return nil
	}
	m.target = opts
	run, state := m.ActiveView().Query(m.engine, opts, m.selected)
	req := request{view: m.views.active, opts: opts, key: m.dataKey(opts, state), commit: true, push: push}
	if push {
		req.stamp = m.c.Steps.Take()
	}
	return m.submit(req, run)
}

func (m *Model) submit(req request, run views.Job) tea.Cmd {
	m.jobs.seq++
	seq := m.jobs.seq
	req.epoch = m.jobs.epoch
	m.jobs.pending[seq] = req
	m.jobs.inflight[req.view] = seq
	m.jobs.inflightKey[req.view] = req.key
	fg := m.jobs.foreground
	work := func() tea.Msg {
		fg.Add(1)
		defer fg.Add(-1)
		t0 := time.Now()
		show, err := run()
		return resultMsg{seq: seq, show: show, err: err, took: time.Since(t0)}
	}
	return tea.Batch(guard(work), m.startSpin())
}

func (m *Model) result(msg resultMsg) tea.Cmd {
	req, ok := m.jobs.pending[msg.seq]
	delete(m.jobs.pending, msg.seq)
	if !ok || m.jobs.inflight[req.view] != msg.seq {
		return nil // superseded
	}
	m.jobs.inflight[req.view] = 0
	m.jobs.lastTook = msg.took
	if msg.err != nil {
		if req.commit {
			m.optionState.failed()
		}
		if m.opening() {
			m.err = msg.err
			return tea.Quit
		}
		m.setNote(views.Safe(errorText(msg.err)), true)
		return nil
	}
	if req.commit {
		m.optionState.commit(req)
	}
	v := m.views.get(req.view)
	msg.show()
	var top *analysis.Top // the Top view's new table
	if req.view == viewTop {
		top = m.views.top.Table()
	}
	// A live delta's table too: for allocs, mutex and block the delta is
	// what is shown, so its trend is the rate's.
	if top != nil && !top.Partial() && m.live != nil && req.key == m.dataKey(req.opts, "") {
		m.live.recordTrend(top, req.opts, m.gen, m.rateOver(req.opts))
	}
	m.jobs.have[req.view] = req.key
	v.Reveal(m.selected)
	if req.view == m.views.active {
		m.syncSelection()
	}
	var cmds []tea.Cmd
	partial := false
	if top != nil && top.Partial() {
		partial = true
		cmds = append(cmds, completeLater(req))
	}
	cmds = append(cmds, m.foldLater(req))
	if m.opening() {
		// The first view: drawn now if the alt screen is taken (else
		// once it is, see enterMsg).
		if m.phase == phaseOpening {
			m.phase = phaseReady
		}
		// The next sample type's table waits for the first one's
		// completion, which tells the engine what makes tables fast.
		if partial {
			m.jobs.prefetchLater = true
		} else {
			cmds = append(cmds, m.prefetch(prefetchDelay))
		}
	}
	cmds = append(cmds, m.ensure(m.views.active, false))
	return tea.Batch(cmds...)
}

// completeDelay is how long a partial Top table is on screen before the
// explorer completes it, in the background: a few frames, so that the
// table is drawn first. The completion walks every stack node by node
// once, which tells the engine which stacks it may sum faster
// (analysis.Engine.TopFirst): every later table is complete at once.
const completeDelay = 3 * time.Second / frameRate

func completeLater(req request) tea.Cmd {
	return tea.Tick(completeDelay, func(time.Time) tea.Msg { return completeTopMsg{req} })
}

type completeTopMsg struct{ req request }

// completeTop asks, in the background and without a spinner, for the
// complete table of a partial one the Top view shows (the cum and inline
// markers of the rows past the first screen, analysis.Engine.TopFirst);
// its walk gives way to whatever a person asks for meanwhile. The table
// is swapped for the complete one if the view still shows that table
// then.
func (m *Model) completeTop(req request) tea.Cmd {
	if !m.shows(req) {
		return m.prefetchAfterFirst() // superseded
	}
	// One background job at a time: the first completion tells the
	// engine what makes the next tables fast.
	if !m.jobs.idle() {
		return completeLater(req)
	}
	e := m.engine
	return m.runBackground(func(giveWay func() bool) tea.Msg {
		// Whatever a person asks for meanwhile goes first: on ten
		// million stacks the completion's walk takes seconds.
		t, err := e.TopBackground(req.opts, giveWay)
		return topCompleteMsg{req: req, top: t, err: err}
	})
}

type topCompleteMsg struct {
	req request
	top *analysis.Top
	err error
}

func (m *Model) topCompleted(msg topCompleteMsg) tea.Cmd {
	m.jobs.background = false
	cmd := m.prefetchAfterFirst()
	if msg.err != nil || !m.shows(msg.req) {
		return cmd // superseded (or failed, as the first table could not)
	}
	if msg.req.view == viewTop {
		m.views.top.Complete(msg.top)
		if m.live != nil && msg.req.key == m.dataKey(msg.req.opts, "") {
			m.live.recordTrend(msg.top, msg.req.opts, m.gen, m.rateOver(msg.req.opts))
		}
	}
	return cmd
}

// shows reports whether req's view still shows req's data, with nothing
// newer on the way.
func (m *Model) shows(req request) bool {
	return m.jobs.have[req.view] == req.key && m.jobs.inflight[req.view] == 0
}

// foldLater asks, a few frames after a call tree or flame graph without
// folded recursion is drawn, for its stacks folded under recursion=all
// (analysis.Engine.FoldBackground), which R asks for first: the key then
// lays out the folded graph without reading every stack again. One tick
// waits at a time, for the newest ask; a busy explorer postpones it.
func (m *Model) foldLater(req request) tea.Cmd {
	if req.opts.Recursion != "" || req.view != viewFlame && req.view != viewTree {
		return nil
	}
	ask := &foldAsk{req: req, engine: m.engine}
	waiting := m.jobs.foldAsk != nil
	m.jobs.foldAsk = ask
	if waiting {
		return nil
	}
	return tea.Tick(completeDelay, func(time.Time) tea.Msg { return foldMsg{} })
}

// foldAsk is the newest ask for a background fold: the result's request
// and the engine it was computed on.
type foldAsk struct {
	req    request
	engine *analysis.Engine
}

// foldMsg ends foldLater's wait.
type foldMsg struct{}

// prepareFold folds the stacks of the newest ask's options in the
// background, without a spinner, one background job at a time; its walk
// gives way to whatever a person asks for meanwhile. A live source's
// engine changes at each snapshot: nothing is prepared.
func (m *Model) prepareFold() tea.Cmd {
	ask := m.jobs.foldAsk
	m.jobs.foldAsk = nil
	if ask == nil {
		return nil
	}
	key := m.optsKey(ask.req.opts)
	if m.live != nil || ask.req.epoch != m.jobs.epoch || ask.engine != m.engine || ask.req.opts != m.opts || m.jobs.folded == key {
		return nil // superseded, or done
	}
	if !m.jobs.idle() {
		return m.foldLater(ask.req)
	}
	m.jobs.folded = key
	e, epoch := m.engine, m.jobs.epoch
	return m.runBackground(func(giveWay func() bool) tea.Msg {
		_ = e.FoldBackground(ask.req.opts, giveWay) // an error shows when R asks
		return backgroundDoneMsg{epoch}
	})
}

// prefetchDelay lets the first screen be drawn before prefetch starts.
const prefetchDelay = 150 * time.Millisecond

// prefetch computes, in the background once the first screen is up, the
// Top table of the next sample type, which s asks for: the engine keeps
// it, so the key redraws at once instead of walking every stack again
// (0.15-0.25 s on a million distinct stacks). The result itself is
// dropped. A live source's engine changes at each snapshot: no prefetch.
func (m *Model) prefetch(delay time.Duration) tea.Cmd {
	types := m.prof.SampleTypes
	if len(types) < 2 || m.live != nil {
		return nil
	}
	i, err := analysis.SampleIndex(m.prof, m.target.SampleIndex)
	if err != nil {
		return nil
	}
	next := m.target
	next.SampleIndex = types[(i+1)%len(types)].Type
	run, _ := m.views.get(viewTop).Query(m.engine, next, m.selected)
	epoch := m.jobs.epoch
	return m.runBackground(func(func() bool) tea.Msg {
		time.Sleep(delay)
		run() // an error shows when s asks for it
		return backgroundDoneMsg{epoch}
	})
}

// prefetchAfterFirst starts the prefetch that waited for the first
// table's completion (or for its being superseded), if one did.
func (m *Model) prefetchAfterFirst() tea.Cmd {
	if !m.jobs.prefetchLater {
		return nil
	}
	m.jobs.prefetchLater = false
	return m.prefetch(0)
}

// backgroundDoneMsg ends a prefetch or a fold: another background job
// may start (on ten million samples a prefetch and a completion side by
// side took 2.7 s for an s pressed right after the first screen, one
// alone half that).
type backgroundDoneMsg struct{ epoch int }

// errorText is an error as one line for the footer.
func errorText(err error) string {
	var oe *analysis.OptionError
	if errors.As(err, &oe) {
		return oe.Error() + " (nothing changed)"
	}
	return err.Error()
}
