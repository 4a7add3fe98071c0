package views

import (
	"regexp"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// Common is what every component shares: the styles, the key map and
// what kind of profile is open. The root program makes one and hands it
// to each view.
type Common struct {
	Styles *Styles
	Keys   *KeyMap
	// Diff is set when a base profile was subtracted (-base or
	// -diff_base): values are signed deltas, and views colour them by
	// sign.
	Diff bool
	// Rate, when set and not zero for the options a view's data are
	// for, is the time its values are a change over (a live delta of a
	// cumulative profile): they print as a rate per second, which only
	// their display changes (sorting and percentages stay).
	Rate func(analysis.Options) time.Duration
	// SourceFiles, when set, is where the Source view reads files
	// (analysis.SourceFilesIn when served); nil: the file system.
	SourceFiles *analysis.SourceFiles
	// Sides, when set in a diff, gives the new and the base profile
	// apart, each with its engine, for the differential flame graph; it
	// may read them the first time (call it off the UI goroutine, having
	// taken it on the UI goroutine: the root replaces it).
	Sides func() (newE, baseE *analysis.Engine, err error)
	// Served is set when the explorer is served to others: a profile's
	// mappings name paths on the server, so no binary is opened for
	// them.
	Served bool
	// Steps orders the undoable steps of the root and of the views; nil
	// leaves backspace to a view that has a step of its own.
	Steps *Steps
	// asked holds what views asked of the root (Ask) while it handed
	// them a message.
	asked []tea.Msg
}

// Ask queues msg (a RecomputeMsg or SelectMsg) for the root, which
// handles it as soon as the view's Update returns, before any other
// message. Sent as a command's message it would arrive after whatever
// the program had queued meanwhile (a key, a test's probe), and until
// then the screen would show a state the request is about to change:
// the Top view sorted by cum over a partial table, a tree inverted with
// the old rows. Views ask on the UI goroutine (in Update or a method the
// root calls), never from a command.
func (c *Common) Ask(msg tea.Msg) { c.asked = append(c.asked, msg) }

// TakeAsked returns what Ask queued, and empties the queue.
func (c *Common) TakeAsked() []tea.Msg {
	a := c.asked
	c.asked = nil
	return a
}

// Steps orders the explorer's undoable steps, wherever they are kept: a
// change of the options on the root's history, a zoom or a pivot on a
// view's own trail. Each takes a stamp when it is taken, and backspace
// undoes the step with the newest stamp, so that zooming, then changing
// a setting, then pressing backspace twice undoes the setting first.
type Steps struct {
	n uint64
	// Options returns the stamp of the newest step on the root's history
	// (0: none); nil: none.
	Options func() uint64
}

// Take returns the stamp of a step being taken (0 without Steps).
func (s *Steps) Take() uint64 {
	if s == nil {
		return 0
	}
	s.n++
	return s.n
}

// Newest reports whether a view's step stamped v is newer than the
// root's newest, so that backspace is the view's.
func (s *Steps) Newest(v uint64) bool { return s == nil || s.Options == nil || v > s.Options() }

// View is one tab of the explorer. The root program routes keys and
// mouse events (with Y relative to the view's first line) to the focused
// view only, sizes every view, and runs the view's Query off the UI
// goroutine, showing its outcome on the UI goroutine.
type View interface {
	Title() string
	Init() tea.Cmd
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(width, height int)
	// ShortHelp is the view's part of the key hint line. The `?` help
	// lists every view's keys from KeyMap.ViewGroups instead, so that it
	// does not depend on which view is open.
	ShortHelp() []key.Binding

	// Query returns the computation of the view's data for opt, to run
	// in the background, and a key naming the view's own settings that
	// change its data (the tree's inversion), so the root knows when a
	// result is stale. sel is the shared selection (a function name, or
	// ""), for views whose data is about one function (peek, source);
	// those name it in state.
	Query(e *analysis.Engine, opt analysis.Options, sel string) (run Job, state string)
	// HasResult reports whether the view has data to show; Total is
	// then its percentage denominator.
	HasResult() bool
	Total() int64

	// Selection is the row under the cursor. The root shares a function
	// selection between the views: after every key or click it reads the
	// active view's, and it shows the same function when another view
	// takes over (Reveal).
	Selection() (Selection, bool)
	// Reveal moves the cursor to the function named name (a Selection's
	// Name), opening what hides it, if the view shows it; else nothing
	// changes.
	Reveal(name string)
	// SetSearch highlights the rows matching re (nil clears) and moves
	// to the first match at or after the cursor; NextMatch moves to the
	// next (dir > 0) or previous match. Both report whether a row matched.
	SetSearch(re *regexp.Regexp) bool
	NextMatch(dir int) bool
}

// Job computes a view's data off the UI goroutine. What it returns,
// show, puts the data in the view that made the job, typed as that view
// needs them, with the options they are for; the root calls it on the UI
// goroutine if the data are still wanted, and drops it otherwise.
type Job func() (show func(), err error)

// job is the Job of a view whose data of type T compute makes, and set
// puts in the view.
func job[T any](opt analysis.Options, compute func() (T, error), set func(T, analysis.Options)) Job {
	return func() (func(), error) {
		d, err := compute()
		if err != nil {
			return nil, err
		}
		return func() { set(d, opt) }, nil
	}
}

// SelectionKind says what a selected row stands for.
type SelectionKind int

const (
	SelFunction SelectionKind = iota // a node of the top table or tree
	SelTagKey                        // a label key
	SelTagValue                      // one value of a label key
)

// Selection is the thing a row stands for, so that the root can filter
// on it.
type Selection struct {
	Kind SelectionKind
	// Name is the function's name (or file, at files granularity), what
	// pprof's focus and ignore regexps are matched against, or the label
	// of a node without one (analysis.NodeSet.FuncName).
	Name       string
	Key, Value string
	// Numeric is set for a value of a numeric label.
	Numeric bool
}

// Filterable reports whether the filters (drill, focus, ignore, hide)
// can select s: a label, or a function with a name (no regexp matches
// an unnamed node's address, analysis.Unnamed).
func (s Selection) Filterable() bool {
	return s.Kind != SelFunction || s.Name != "" && !analysis.Unnamed(s.Name)
}

// RecomputeMsg asks the root to compute View's data again: a setting of
// the view's own changed what it needs (the tree's inversion; the Top
// view's order, over a partial table). Views send it through
// Common.Ask.
type RecomputeMsg struct{ View View }

// SelectMsg asks the root to make Name the shared selection, recomputing
// the views whose data is about it (peek's enter on a caller asks it,
// through Common.Ask).
type SelectMsg struct{ Name string }

// ViewMsg carries the outcome of a view's own background work (the
// flame graph's layout of a zoom) back to it: the root hands Msg to To's
// Update, whichever view is focused.
type ViewMsg struct {
	To  View
	Msg tea.Msg
}

// KeyClaimer is a view that gives some of the root's keys a meaning of
// its own while it is active: the flame graph's enter zooms instead of
// drilling. The root offers it every key first; a claimed key goes to
// the view's Update.
type KeyClaimer interface {
	Claims(msg tea.KeyMsg) bool
}

// onSides computes f on each of a diff's two profiles apart, as
// Common.Sides gives them (off the UI goroutine): the new profile's
// result, then the base's.
func onSides[T any](sides func() (newE, baseE *analysis.Engine, err error), f func(*analysis.Engine) (T, error)) (newV, baseV T, err error) {
	newE, baseE, err := sides()
	if err != nil {
		return newV, baseV, err
	}
	if newV, err = f(newE); err != nil {
		return newV, baseV, err
	}
	baseV, err = f(baseE)
	return newV, baseV, err
}

// aboutFunction is the function a view about one function (peek, source)
// shows: the shared selection, which Reveal sets before the view's data
// for it arrives (the root recomputes). Selection returns it, so filters
// act on it and the other views show it.
type aboutFunction struct{ name string }

func (a *aboutFunction) Selection() (Selection, bool) {
	if a.name == "" {
		return Selection{}, false
	}
	return Selection{Kind: SelFunction, Name: a.name}, true
}

// Reveal re-centres the view on name.
func (a *aboutFunction) Reveal(name string) {
	if name != "" {
		a.name = name
	}
}

// offer is b as the hint line shows it: only when on, that is when the
// key does something in the view's current state (bubbles' help skips a
// disabled binding; the copy leaves what the key does alone).
func offer(b key.Binding, on bool) key.Binding {
	b.SetEnabled(on)
	return b
}

// filterable reports whether the filter keys (drill, focus, ignore,
// hide) act on v's selection (Selection.Filterable).
func filterable(v interface{ Selection() (Selection, bool) }) bool {
	sel, ok := v.Selection()
	return ok && sel.Filterable()
}

// Pivoter is a view that pivots on a function: its callers and callees
// across all its call sites (S). It asks the root for the pivot's data
// (Common.Ask).
type Pivoter interface {
	Pivot(name string)
}

// pivotTrail is how a view draws the profile's call graph besides the
// options: inverted or not (b), pivoted on a function or not (S); and
// the ways it drew it before, for backspace to go back through: the
// Tree's and the Flame graph's. A pivot is a step of the trail, and so
// is whatever leaves one (b, another pivot): backspace returns to it.
type pivotTrail struct {
	inverted bool
	pivot    string
	back     []trailStep // the steps before, the latest last
	// zoomStamps are the Steps stamps of the flame graph's zooms in this
	// step, the latest last.
	zoomStamps []uint64
	steps      *Steps
}

// trailStep is a way the view drew the graph; zooms are, in the flame
// graph, its zooms (paths of names from a root, the one shown last)
// for finding them again in a new graph, and zoomStamps their stamps.
// stamp is the Steps stamp of leaving it.
type trailStep struct {
	inverted   bool
	pivot      string
	zooms      [][]string
	zoomStamps []uint64
	stamp      uint64
}

// push remembers the current step, with its zooms.
func (p *pivotTrail) push(zooms [][]string) {
	p.back = append(p.back, trailStep{p.inverted, p.pivot, zooms, p.zoomStamps, p.steps.Take()})
	p.zoomStamps = nil
}

// newestStep is the stamp of the trail's newest step: of the last of
// the zooms the view still has (zooms, at most as many as were taken: a
// new graph may not have them all), or of the last trail step; 0: none.
func (p *pivotTrail) newestStep(zooms int) uint64 {
	if n := min(zooms, len(p.zoomStamps)); n > 0 {
		return p.zoomStamps[n-1]
	}
	if n := len(p.back); n > 0 {
		return p.back[n-1].stamp
	}
	return 0
}

// backIsOurs reports whether backspace undoes a step of the trail (with
// zooms of the flame graph's) rather than the root's newest change.
func (p *pivotTrail) backIsOurs(zooms int) bool {
	if zooms == 0 && len(p.back) == 0 {
		return false
	}
	return p.steps.Newest(p.newestStep(zooms))
}

// pivotTo pivots on name, remembering the step before (a pivot, or the
// graph with its zooms); it reports whether the pivot changed.
func (p *pivotTrail) pivotTo(name string, zooms [][]string) bool {
	if name == "" || name == p.pivot {
		return false
	}
	p.push(zooms)
	p.pivot = name
	return true
}

// invert turns the graph over (b). In a pivot it leaves the pivot for
// the graph turned over from the one the pivot was entered from, and
// that is a step backspace undoes, as is any b after it; outside the
// trail b is undone by b.
func (p *pivotTrail) invert(zooms [][]string) {
	if p.pivot != "" || len(p.back) > 0 {
		p.push(zooms)
	}
	p.inverted, p.pivot = !p.inverted, ""
}

// stepBack goes back to the step before, returning its zooms; false
// when there is none.
func (p *pivotTrail) stepBack() ([][]string, bool) {
	n := len(p.back)
	if n == 0 {
		return nil, false
	}
	s := p.back[n-1]
	p.back = p.back[:n-1]
	p.inverted, p.pivot, p.zoomStamps = s.inverted, s.pivot, s.zoomStamps
	return s.zooms, true
}

// Pivoted returns the function pivoted on ("" for none) and how many
// pivots before it lead back. Exported for tui's tests.
func (p *pivotTrail) Pivoted() (string, int) {
	n := 0
	for _, s := range p.back {
		if s.pivot != "" {
			n++
		}
	}
	return p.pivot, n
}

// scope is Scoper's Scope for a view showing callees, the tree below the
// pivot (and callers, the tree above it, nil outside a pivot): the
// function's cum, what the callees' tree accounts for.
func (p *pivotTrail) scope(callees, callers *analysis.Tree) (int64, bool) {
	if p.pivot == "" || callees == nil || callers == nil {
		return 0, false
	}
	return rootsTotal(callees), true
}

// Scoper is a view that can show less than the filters keep: a pivot
// shows the stacks through one function. Scope is what it shows then,
// and false when it shows all the filters keep.
type Scoper interface {
	Scope() (int64, bool)
}
