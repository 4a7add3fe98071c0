package tui

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/views"
)

// Live refresh (-refresh): the source is read again and again and the
// views recomputed with everything a person set kept (options, view,
// selection, search). A URL of a CPU profile is fetched back to back,
// each fetch sampling for the refresh interval, so no CPU time goes
// unobserved; other URLs are fetched once per interval; a file is read
// again when its size or modification time changes. A failure keeps the
// last good profile on screen and retries with backoff.
//
// The delta view (d) shows the change since the previous snapshot. For
// a cumulative sample type (counted since the program started: heap's
// alloc_ types, mutex and block contentions and delay) it is the
// default for a URL, and its values print as a rate per second
// (views.Common.Rate); for the others (inuse_, goroutines, CPU, whose
// snapshots each stand for a moment or a window of their own) it is the
// change over the interval, as -base of the previous snapshot shows it.

// maxBackoff bounds the wait between failed fetches.
const maxBackoff = 5 * time.Minute

// live is the refresh loop's state.
type live struct {
	every    time.Duration
	clock    int  // the live clock's generation (see liveTick)
	keep     int  // snapshots kept for the trend
	cpu      bool // the source is a CPU profile URL: fetched back to back
	url      bool // the source is a URL (cumulative profiles open on their delta)
	file     string
	paused   bool
	loading  bool
	began    time.Time // the current fetch's start
	updated  time.Time // the last good snapshot
	next     time.Time // when the next fetch starts
	err      error     // the last fetch's failure
	fails    int       // consecutive failures, for backoff
	fileSize int64
	fileMod  time.Time
	cancel   context.CancelFunc
	totals   []int64 // each snapshot's total of the shown sample type, oldest first
	// delta shows the change since the previous snapshot (d), as -base
	// of it: the default for cumulative profiles (liveStarted).
	delta      bool
	span       time.Duration   // the time the delta on screen is a change over (0: none on screen)
	cur, prev  *format.Profile // the last two snapshots as read
	prevAt     time.Time       // when prev was read
	sourceDiff bool            // the sources themselves are a diff (-base)
	seq        int             // of the snapshot being prepared (prepareSnapshot)
	shown      int             // of the snapshot last shown: seq while none is on its way
	// The trend: the flat value of the heaviest functions in each
	// snapshot's Top table (at most trendRows of them), oldest first, for
	// the Top view's trend column (t). It restarts when the options change.
	snaps    []snapshot
	snapGen  int // the generation last recorded
	step     int // the snapshot [ and ] show (-1: none)
	trendOn  bool
	trendFor analysis.Options
	// mark is the snapshot m marked: every snapshot after it is shown
	// as its change since it (-base of it), in place of the delta,
	// until m clears it.
	mark   *format.Profile
	markAt time.Time // when mark was read
}

// trendRows bounds the functions a snapshot keeps for the trend.
const trendRows = 300

// snapshot is what the loop keeps of each snapshot: its heaviest rows
// (Top's, compactly: no node table), for the trend column and for
// stepping back through the snapshots with [ and ].
type snapshot struct {
	at         time.Time
	per        time.Duration // its values are a change over per, shown as a rate (0: not)
	total      int64
	sampleUnit string
	rows       []analysis.Row    // heaviest flat first, at most trendRows
	nodes      *analysis.NodeSet // the rows' names
	flat       map[string]int64
}

// liveTickMsg is the live clock's tick; gen is the clock's generation
// (see liveTick), so that a tick of a clock since restarted is dropped.
type liveTickMsg struct{ gen int }

type liveLoadedMsg struct {
	p     *format.Profile
	total int64 // of the sample type shown, for the trend
	err   error
}

// snapshotMsg is a snapshot made ready for the views in the background:
// the profile they show (the latest, or its change since the previous
// one) and its engine.
type snapshotMsg struct {
	seq    int
	p      *format.Profile
	engine *analysis.Engine
	delta  bool          // p is a delta
	span   time.Duration // the time it is a change over (deltaSpan)
	// cur and base are a delta's two snapshots (Common.Sides).
	cur, base *format.Profile
	err       error
}

// newLive returns the loop for cfg, or nil without -refresh.
func newLive(cfg Config) *live {
	if cfg.Refresh <= 0 || len(cfg.Sources.Sources) != 1 {
		return nil
	}
	l := &live{every: cfg.Refresh, keep: cfg.History, step: -1}
	if l.keep <= 0 {
		l.keep = 60
	}
	src := cfg.Sources.Sources[0]
	if u, err := url.Parse(src); err == nil && strings.Contains(src, "://") {
		l.cpu = format.IsCPUEndpoint(u)
		l.url = true
	} else if src != "-" {
		l.file = src
		if st, err := os.Stat(src); err == nil {
			l.fileSize, l.fileMod = st.Size(), st.ModTime()
		}
	}
	return l
}

// tick is the loop's clock: a second (the status bar's clock), or
// until the next fetch is due when that is sooner, so that a refresh
// starts on time rather than on the next whole second.
//
// Each call starts a new clock and retires the one before it (its tick
// is dropped when it comes): a fetch that ends, or r, restarts the clock
// so that it runs to the new due time, not to the old clock's next
// second.
func (l *live) tick() tea.Cmd {
	d := time.Second
	if until := time.Until(l.next); until < d && !l.paused && !l.loading {
		d = max(until, time.Millisecond)
	}
	l.clock++
	gen := l.clock
	return tea.Tick(d, func(time.Time) tea.Msg { return liveTickMsg{gen} })
}

// start follows the first load, of p with opts (diff: a diff of the
// sources themselves): the clock starts.
func (l *live) start(p *format.Profile, diff bool, opts analysis.Options) tea.Cmd {
	l.updated = time.Now()
	l.cur, l.sourceDiff = p, diff
	l.next = l.updated.Add(l.every)
	if l.cpu {
		l.next = l.updated // back to back
	}
	// A service's cumulative profile (allocs, mutex, block; heap with
	// sample_index=alloc_space) says what happens now only by its
	// change. (A file a cron job rewrites may come from a new process
	// each time: its delta is no default.)
	l.delta = l.url && cumulative(p, opts)
	l.recordTotal(sampleTotal(p, opts.SampleIndex))
	return l.tick()
}

// onLiveTick redraws the status bar's clock and starts a fetch when due.
func (m *Model) onLiveTick(msg liveTickMsg) tea.Cmd {
	l := m.live
	if msg.gen != l.clock {
		return nil // a retired clock's
	}
	if !l.due(m.phase == phaseReady) {
		return l.tick()
	}
	return tea.Batch(m.fetch(), l.tick())
}

// due reports whether a fetch is due now (ready: the views are up).
func (l *live) due(ready bool) bool {
	if l.paused || l.loading || !ready {
		return false
	}
	due := !time.Now().Before(l.next)
	if l.file != "" && l.err == nil {
		due = false
		if st, err := os.Stat(l.file); err == nil && (st.Size() != l.fileSize || !st.ModTime().Equal(l.fileMod)) {
			l.fileSize, l.fileMod = st.Size(), st.ModTime()
			due = true
		}
	}
	return due
}

// fetch reads the source again in the background.
func (m *Model) fetch() tea.Cmd {
	l := m.live
	l.loading, l.began = true, time.Now()
	opt := m.cfg.Load // with Seconds set for a CPU URL (NewModel)
	opt.Binaries = m.load.bins
	opt.Status = func(string) {} // symbolization notes were shown on the first load
	ctx, cancel := context.WithCancel(m.ctx)
	l.cancel = cancel
	src, index := m.sources, m.opts.SampleIndex
	return guard(func() tea.Msg {
		defer cancel()
		p, err := accept(format.Load(ctx, src, opt))
		if err != nil {
			return liveLoadedMsg{err: err}
		}
		return liveLoadedMsg{p: p, total: sampleTotal(p, index)}
	})
}

// loaded takes a new snapshot, to be shown in place of shown: the views
// are recomputed from it with the same options; a failure keeps the last
// one.
func (l *live) loaded(msg liveLoadedMsg, shown *format.Profile) tea.Cmd {
	l.loading = false
	now := time.Now()
	err := msg.err
	if err == nil && !sameTypes(shown, msg.p) {
		err = fmt.Errorf("the source now serves %s, not %s: kept the last", typeName(msg.p), typeName(shown))
	}
	if err != nil {
		l.err = err
		l.fails++
		wait := l.every << min(l.fails-1, 10)
		l.next = now.Add(min(wait, maxBackoff))
		return l.tick()
	}
	l.err, l.fails = nil, 0
	// Once per interval from the start of one fetch to the next, whatever
	// the fetch took.
	l.next = l.began.Add(l.every)
	if l.cpu {
		l.next = now
	}
	l.prev, l.prevAt, l.cur = l.cur, l.updated, msg.p
	l.updated = now
	l.recordTotal(msg.total)
	// The clock restarts for the next fetch: a CPU profile's starts at
	// once (back to back, no CPU time unobserved), another's an interval
	// after this one began.
	return tea.Batch(l.prepare(), l.tick())
}

// prepare makes the profile the views will show from the latest
// snapshot, or its change since the previous one, and its engine, in the
// background: a delta merges two whole profiles.
func (l *live) prepare() tea.Cmd {
	l.seq++
	seq, cur, prev := l.seq, l.cur, l.prev
	prevAt := l.prevAt
	if !l.delta {
		prev = nil
	}
	if l.mark != nil {
		prev, prevAt = l.mark, l.markAt
	}
	var span time.Duration
	if prev != nil {
		span = deltaSpan(cur, prev, l.updated, prevAt)
	}
	return guard(func() tea.Msg {
		msg := snapshotMsg{seq: seq, p: cur, span: span}
		if prev != nil {
			if d, err := deltaProfile(cur, prev); err != nil {
				msg.err = fmt.Errorf("delta: %w", err)
			} else {
				msg.p, msg.delta = d, true
				msg.cur, msg.base = cur, prev
			}
		}
		msg.engine = analysis.NewEngine(msg.p)
		return msg
	})
}

// showSnapshot puts a prepared snapshot under the views, unless a newer
// one is on its way.
func (m *Model) showSnapshot(msg snapshotMsg) tea.Cmd {
	diff, ok := m.live.take(msg)
	if !ok {
		return nil
	}
	if msg.err != nil {
		m.setNote(views.Safe(msg.err.Error()), true)
	}
	m.c.Diff = diff
	m.prof, m.engine = msg.p, msg.engine
	if !m.live.sourceDiff {
		m.snapshotSides(msg.cur, msg.base)
	}
	m.gen++
	if m.views.active != viewTop { // Top too, for the trend and the snapshots [ ] step through
		return tea.Batch(m.ensure(m.views.active, false), m.ensure(viewTop, false))
	}
	return m.ensure(m.views.active, false)
}

// take marks a prepared snapshot shown, unless a newer one is on its
// way (ok false), reporting whether its values are a diff.
func (l *live) take(msg snapshotMsg) (diff, ok bool) {
	if msg.seq != l.seq {
		return false, false
	}
	l.shown = msg.seq
	l.span = 0
	if msg.delta {
		l.span = msg.span
	}
	return l.sourceDiff || msg.delta, true
}

// toggleMark marks the latest snapshot as the base every later one is
// shown against, or clears the mark, saying which.
func (l *live) toggleMark() (tea.Cmd, views.Text) {
	if l.mark != nil {
		l.mark = nil
		return l.prepare(), views.Safe("mark cleared: " + l.showing())
	}
	if l.cur == nil {
		return nil, views.Safe("no snapshot to mark yet")
	}
	l.mark, l.markAt = l.cur, l.updated
	return l.prepare(), views.Safe("marked the snapshot of " + l.markAt.Format("15:04:05") + ": every snapshot is shown as its change since it (m clears)")
}

// markLine describes the mark for the info panel: when it was read and
// its total of the sample type shown.
func (l *live) markLine(opts analysis.Options) views.Text {
	total := ""
	if i, err := analysis.SampleIndex(l.mark, opts.SampleIndex); err == nil {
		t := l.mark.Total(i)
		total = ", total " + views.Format(&views.Common{}, l.mark.SampleTypes[i].Unit, opts)(t)
	}
	return views.Textf("the snapshot of %s%s: every snapshot is shown as its change since it (m clears)", l.markAt.Format("15:04:05"), total)
}

// showing says what the views show without a mark.
func (l *live) showing() string {
	if l.delta {
		return "each snapshot's change since the one before"
	}
	return "the latest snapshot"
}

// toggleDelta switches between the latest snapshot and its change; the
// note says when there is no change to show yet.
func (l *live) toggleDelta() (tea.Cmd, views.Text) {
	l.delta = !l.delta
	if l.mark != nil {
		return nil, views.Safe("the mark is shown (m clears it); then " + l.showing())
	}
	if l.delta && l.prev == nil {
		return nil, views.Safe("delta: shown from the next snapshot on")
	}
	return l.prepare(), views.Text{}
}

// deltaSpan is the time between two snapshots, which their delta's
// rate is per. It is the profiles' TimeNanos apart when both have one
// and they increase: runtime/pprof stamps a profile when it starts
// writing it, so that is when the server read its counters (for heap
// and allocs, as of the last GC before). The times the snapshots were
// read add what varies from one fetch to the next (the request's
// latency, the transfer, decoding and symbolization; for the first,
// the first computation too), so they are only the fallback.
func deltaSpan(cur, prev *format.Profile, curAt, prevAt time.Time) time.Duration {
	if prev.TimeNanos > 0 && cur.TimeNanos > prev.TimeNanos {
		return time.Duration(cur.TimeNanos - prev.TimeNanos)
	}
	return curAt.Sub(prevAt)
}

// cumulative reports whether the sample type opt shows in p counts since
// the program started (heap's alloc_ types, mutex and block contentions
// and delay), so that only its change between snapshots says what
// happens now.
func cumulative(p *format.Profile, opt analysis.Options) bool {
	i, err := analysis.SampleIndex(p, opt.SampleIndex)
	if err != nil {
		return false
	}
	t := p.SampleTypes[i].Type
	return strings.HasPrefix(t, "alloc_") || t == "contentions" || t == "delay"
}

// rateOver is views.Common.Rate: the time the values shown for opt are a
// change over, when they print as a rate per second (the delta of a
// cumulative sample type), else 0. A mean of a delta (-mean: delay per
// contention) is no rate.
func (m *Model) rateOver(opt analysis.Options) time.Duration { return m.live.rate(m.prof, opt) }

// rate is rateOver for p, the profile shown (0 without a live loop).
func (l *live) rate(p *format.Profile, opt analysis.Options) time.Duration {
	if l == nil || l.span <= 0 || opt.Mean || !cumulative(p, opt) {
		return 0
	}
	return l.span
}

// deltaProfile is cur minus prev, as -base=prev would give it.
func deltaProfile(cur, prev *format.Profile) (*format.Profile, error) {
	neg := *prev
	neg.Samples.Values = make([][]int64, len(prev.Samples.Values))
	for t, col := range prev.Samples.Values {
		neg.Samples.Values[t] = make([]int64, len(col))
		for i, v := range col {
			neg.Samples.Values[t][i] = -v
		}
	}
	return format.Merge([]*format.Profile{cur, &neg})
}

// recordTotal keeps a snapshot's total for the trend.
func (l *live) recordTotal(total int64) {
	l.totals = append(l.totals, total)
	if len(l.totals) > l.keep {
		l.totals = slices.Delete(l.totals, 0, len(l.totals)-l.keep)
	}
}

// sampleTotal is p's total of the sample type index names (0 when the
// profile has no such type).
func sampleTotal(p *format.Profile, index string) int64 {
	i, err := analysis.SampleIndex(p, index)
	if err != nil {
		return 0
	}
	return p.Total(i)
}

// pause stops or resumes the refreshes, saying which.
func (l *live) pause() views.Text {
	l.paused = !l.paused
	if l.paused {
		if l.cancel != nil && l.loading {
			l.cancel()
		}
		return views.Safe("live refresh paused (p resumes)")
	}
	l.next = time.Now()
	return views.Safe("live refresh resumed")
}

// refreshNow fetches at once.
func (m *Model) refreshNow() tea.Cmd {
	if note, fetch := m.live.refresh(); !fetch {
		if !note.IsEmpty() {
			m.setNote(note, false)
		}
		return nil
	}
	return m.fetch()
}

// refresh makes the next fetch due now, reporting whether the caller
// is to start it (a file is read on the next tick), or why not.
func (l *live) refresh() (note views.Text, fetch bool) {
	if l.loading {
		return views.Safe("a fetch is under way"), false
	}
	l.paused = false
	if l.file != "" {
		l.fileSize = -1 // read it again though it did not change
		return views.Text{}, false
	}
	l.next = time.Now()
	return views.Text{}, true
}

// liveStatus is the status bar's live segment, shortened by level as the
// status bar is (0 full): from 2 on without the trend and when the last
// snapshot came, from 3 on without the delta's interval, so that the
// total still fits a narrow window.
func (m *Model) liveStatus(level int) views.Text { return m.live.status(level, m.rateOver(m.opts)) }

// status is liveStatus, per being the time the values shown are a rate
// over (rateOver).
func (l *live) status(level int, per time.Duration) views.Text {
	now := time.Now()
	ago := func(t time.Time) string { return now.Sub(t).Truncate(time.Second).String() }
	in := func(t time.Time) string { return max(0, t.Sub(now)).Round(time.Second).String() }
	s := "live " + sparkline(l.totals, 12)
	short := level >= 2
	if short {
		s = "live"
	}
	if l.mark != nil && level >= 3 {
		s += " · Δ mark"
	} else if l.mark != nil {
		s += " · Δ since mark " + l.markAt.Format("15:04:05")
		if per > 0 {
			s += " /s"
		}
	} else if per > 0 && level >= 3 {
		s += " · Δ/s"
	} else if per > 0 {
		s += fmt.Sprintf(" · Δ/s over %.1fs", per.Seconds())
	} else if l.delta && l.prev != nil && level >= 3 {
		s += " · Δ"
	} else if l.delta && l.prev != nil {
		span := l.span
		if span == 0 { // on its way
			span = l.updated.Sub(l.prevAt)
		}
		s += fmt.Sprintf(" · Δ over %s", span.Round(time.Second))
	}
	switch {
	case l.paused:
		return views.Safe(s + " · paused (p)")
	case l.loading && l.cpu:
		return views.Safe(s + fmt.Sprintf(" · fetching… %d/%ds", int(now.Sub(l.began).Seconds()), int(l.every.Seconds())))
	case l.loading:
		return views.Safe(s + " · fetching…")
	case l.err != nil:
		return views.Safe(s + " · retry in " + in(l.next) + " · " + l.err.Error())
	case l.file != "" && short:
		return views.Safe(s + " · on change")
	case l.file != "":
		return views.Safe(s + " · updated " + ago(l.updated) + " ago · on change")
	case short:
		return views.Safe(s + " · next in " + in(l.next))
	}
	return views.Safe(s + " · updated " + ago(l.updated) + " ago · next in " + in(l.next))
}

// sparkline draws the last n values as block glyphs.
func sparkline(vs []int64, n int) string {
	if len(vs) > n {
		vs = vs[len(vs)-n:]
	}
	if len(vs) < 2 {
		return ""
	}
	lo, hi := vs[0], vs[0]
	for _, v := range vs {
		lo, hi = min(lo, v), max(hi, v)
	}
	const bars = "▁▂▃▄▅▆▇█"
	runes := []rune(bars)
	var b strings.Builder
	for _, v := range vs {
		k := len(runes) - 1 // a steady value: a full bar
		if hi == lo && v == 0 {
			k = 0 // steadily nothing: not a full bar (a function with no flat of its own)
		}
		if hi > lo {
			k = int(float64(v-lo) / float64(hi-lo) * float64(len(runes)-1))
		}
		b.WriteRune(runes[k])
	}
	return b.String()
}

func sameTypes(a, b *format.Profile) bool {
	return slices.Equal(a.SampleTypes, b.SampleTypes)
}

// typeName names a profile by its default sample type.
func typeName(p *format.Profile) string {
	if len(p.SampleTypes) == 0 {
		return "no samples"
	}
	return p.SampleTypes[p.DefaultSampleIndex()].Type
}

// recordTrend keeps a snapshot's Top table for the trend column: once per
// generation, restarting when the options change.
// gen is the profile's generation, per what its values are a rate over.
func (l *live) recordTrend(top *analysis.Top, opts analysis.Options, gen int, per time.Duration) {
	if l == nil || top == nil || l.snapGen == gen+1 {
		return
	}
	if opts != l.trendFor {
		l.snaps, l.trendFor = nil, opts
	}
	l.snapGen = gen + 1
	rows := slices.Clone(top.Rows)
	slices.SortFunc(rows, func(a, b analysis.Row) int { return cmpAbs(b.Flat, a.Flat) })
	rows = slices.Clip(rows[:min(len(rows), trendRows)])
	snap := snapshot{at: l.updated, per: per, total: top.Total, sampleUnit: top.SampleType.Unit, rows: rows, nodes: top.Nodes,
		flat: make(map[string]int64, len(rows))}
	for _, r := range rows {
		snap.flat[top.Nodes.Name(r.Node)] = r.Flat
	}
	l.snaps = append(l.snaps, snap)
	if len(l.snaps) > l.keep {
		l.snaps = slices.Delete(l.snaps, 0, len(l.snaps)-l.keep)
	}
}

func cmpAbs(a, b int64) int {
	a, b = max(a, -a), max(b, -b)
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// toggleTrend shows or hides the Top view's trend column.
func (m *Model) toggleTrend() {
	column, note := m.live.toggleTrend()
	m.views.top.SetTrend(column)
	if !note.IsEmpty() {
		m.setNote(note, false)
	}
}

// toggleTrend turns the trend on or off, returning the Top view's trend
// column (nil: none) and a note while it has too little to show.
func (l *live) toggleTrend() (column func(name string) string, note views.Text) {
	l.trendOn = !l.trendOn
	if !l.trendOn {
		return nil, views.Text{}
	}
	column = func(name string) string {
		vs := make([]int64, len(l.snaps))
		for i, s := range l.snaps {
			vs[i] = s.flat[name]
		}
		if line := sparkline(vs, trendWidth); line != "" {
			return line
		}
		return "·"
	}
	if len(l.snaps) < 2 {
		note = views.Safe("the trend column fills as snapshots arrive")
	}
	return column, note
}

// trendWidth is how many snapshots the trend column shows.
const trendWidth = 12

// stepSnapshot shows the snapshot before (dir -1) or after the one shown
// (or the latest's predecessor, to start), pausing the refreshes; past
// the latest it closes.
func (m *Model) stepSnapshot(dir int) {
	i, note := m.live.stepTo(dir, m.help.shown)
	switch {
	case !note.IsEmpty():
		m.setNote(note, false)
	case i < 0:
		m.help.close()
	default:
		m.help.openStep(m.live.snapshotLines(i, m.c.Styles, m.opts))
	}
}

// stepTo moves the snapshot shown (showing: one is) by dir, returning
// the one to show, or -1 to show none (past the latest, or with the note
// saying why not).
func (l *live) stepTo(dir int, showing bool) (int, views.Text) {
	if len(l.snaps) == 0 {
		return -1, views.Safe("no snapshot kept yet")
	}
	if !showing || l.step < 0 {
		l.step = len(l.snaps) - 1 // the latest: what the views show
		if dir > 0 {
			return -1, views.Safe("already on the latest snapshot ([ steps back)")
		}
	}
	l.step += dir
	if l.step < 0 {
		l.step = 0
	}
	if l.step >= len(l.snaps) {
		l.step = -1
		return -1, views.Text{}
	}
	l.paused = true
	return l.step, views.Text{}
}

// snapshotLines renders snapshot i, in the units opts asks for: when it
// was taken, its total, and its heaviest functions.
func (l *live) snapshotLines(i int, st *views.Styles, opts analysis.Options) []string {
	s := l.snaps[i]
	c := views.Common{Rate: func(analysis.Options) time.Duration { return s.per }}
	value := views.Format(&c, s.sampleUnit, opts)
	lines := []string{
		st.HelpTitle.Render(fmt.Sprintf("Snapshot %d of %d", i+1, len(l.snaps))) +
			st.HelpDesc.Render(fmt.Sprintf("  taken %s (%s ago) · total %s · paused; [ ] step, p resumes",
				s.at.Format("15:04:05"), time.Since(s.at).Truncate(time.Second), value(s.total))),
		st.Header.Render(fmt.Sprintf("%10s %7s %10s %7s  %s", "flat", "flat%", "cum", "cum%", "name")),
	}
	for _, r := range s.rows {
		lines = append(lines, fmt.Sprintf("%10s %7s %10s %7s  %s", value(r.Flat), analysis.Percentage(r.Flat, s.total),
			value(r.Cum), analysis.Percentage(r.Cum, s.total), s.nodes.Name(r.Node)))
	}
	return lines
}
