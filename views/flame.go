package views

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
)

// Flame is the flame graph as pprof's web UI draws it: an icicle with a
// root frame on top as wide as the whole, and under every frame its
// callees, each as wide as its value. As in pprof, recursion is not
// folded (the graph is the exact trie of the stacks), a frame's self
// value is the gap at its left, so its callees sit right-aligned under
// it, and widths are the absolute values of the stacks, so that in a
// diff growth and shrinkage both take room.
//
// The layout is computed once per result, zoom and width, and only down
// to frames one cell wide: the siblings narrower than that (and what is
// under them) become one shaded run. So the frames are bounded by the
// width times the depth, whatever the size of the profile. Laying out
// groups the tree's nodes on first use, which on a million samples takes
// tens of milliseconds for a zoom into a heavy frame: the first layout is
// made off the UI goroutine with the tree, and so is each zoom's.
type Flame struct {
	c     *Common
	tree  *analysis.Tree
	value func(int64) string
	// mu serialises the layouts of tree, which group its nodes lazily:
	// one in the background (a zoom) and one on the UI goroutine (a
	// resize) must not run at once.
	mu *sync.Mutex
	// seq numbers the background layouts; pending is the newest one's
	// while it runs, 0 when none does.
	seq, pending int
	// shown is the state (Query's) of the result shown.
	shown string

	// pivotTrail is whether the graph is inverted (b: the roots are the
	// leaf functions, as wide as their flat, and under each frame its
	// callers) or the function it pivots on (S: its callers drawn
	// upwards above it, its callees below; callers is the pivot's tree
	// of callers, tree its callees'), and the steps before.
	pivotTrail
	callers *analysis.Tree
	// restore, when restoring, are the zooms of the step of the trail
	// gone back to, to find in the next result.
	restore   [][]string
	restoring bool
	// pivotFlat is the pivot's flat: the value of the stacks it ends.
	pivotFlat int64
	// e and opt are what the shown result was computed from. recent
	// are the graphs shown before, the latest last, each with its zoom:
	// going back to one (out of a pivot or to the pivot before, b twice,
	// R round to the same setting) shows it again at once while the
	// profile, the options and the state are the same.
	e      *analysis.Engine
	opt    analysis.Options
	recent []*flameResult

	// diff is the differential flame graph's state (flamediff.go): nil
	// unless a diff's two profiles are at hand; fromBase: w asked for
	// the base's widths.
	diff     *flameDiff
	fromBase bool

	lay     *flameLayout
	zoom    *analysis.TreeNode   // the frame filling the width; nil for the root
	history []*analysis.TreeNode // the earlier zooms, for zooming out
	cur     int                  // the frame under the cursor: an index into lay.frames
	offset  int                  // the first row on screen
	m       matchSet             // the matching frames: indices into lay.frames

	width, height int

	click DoubleClick
}

// NewFlame makes the Flame graph view.
func NewFlame(c *Common) *Flame { return &Flame{c: c, pivotTrail: pivotTrail{steps: c.Steps}} }

func (f *Flame) Title() string { return "Flame" }
func (f *Flame) Init() tea.Cmd { return nil }

func (f *Flame) SetSize(w, h int) {
	f.width, f.height = w, h
	if f.tree != nil && f.lay.width != w {
		f.relayout()
	}
	f.clampOffset()
}

func (f *Flame) ShortHelp() []key.Binding {
	k := f.c.Keys
	// enter and ⌫/esc are the view's only when Claims takes them.
	zoom, out := offer(k.Zoom, f.lay != nil), offer(k.ZoomOut, len(f.history) > 0 || len(f.back) > 0)
	if f.pivot != "" {
		zoom = withHelp(zoom, "pivot here")
	}
	if len(f.history) == 0 && len(f.back) > 0 {
		out = withHelp(out, "back")
	}
	// backspace undoes a change of the options made since (the root's
	// hint offers it): then only esc zooms out.
	ours := f.backIsOurs(len(f.history))
	if !ours {
		out.SetHelp("esc", out.Help().Desc)
	}
	_, selected := f.Selection()
	pivot, focus := offer(k.Pivot, selected), offer(k.Focus, filterable(f))
	if f.m.re != nil {
		// esc clears the search first (Claims): say so.
		out.SetHelp("⌫", out.Help().Desc)
		out.SetEnabled(out.Enabled() && ours)
		return []key.Binding{zoom, k.Clear, out, pivot, k.Invert, focus}
	}
	if f.diff != nil {
		return []key.Binding{zoom, out, k.Widths, pivot, k.Invert, focus}
	}
	return []key.Binding{zoom, out, pivot, k.Invert, k.Recursion, focus}
}

// flameResult is what Query's function computes: the tree, the zooms
// found again in it, and the first layout; for a pivot, the callers'
// tree too.
type flameResult struct {
	tree, callers *analysis.Tree
	pivotFlat     int64
	e             *analysis.Engine // what it was computed from
	opt           analysis.Options // in recent: what it was computed for
	mu            *sync.Mutex      // in recent: the lock of its tree's layouts
	state         string           // what Query's state was
	zoom          *analysis.TreeNode
	history       []*analysis.TreeNode
	lay           *flameLayout
	diff          *flameDiff
}

// state is what the graph's data is for besides the options: inverted
// or not, or the pivot (whichever graph it was entered from).
func (f *Flame) state() string {
	state := "flame"
	switch {
	case f.pivot != "":
		state = "flame pivot " + f.pivot
	case f.inverted:
		state = "inverted flame"
	}
	if d := f.flameDiffState(); d != "" {
		state += " " + d
	}
	return state
}

func (f *Flame) Query(e *analysis.Engine, opt analysis.Options, _ string) (Job, string) {
	state := f.state()
	width := f.width
	// The zooms outlive a new result (another sample type, a filter) as
	// paths of names, taken here on the UI goroutine.
	paths := f.zoomPaths()
	if f.restoring {
		paths = f.restore
	}
	if o := f.recall(e, opt, state); o != nil {
		// A graph shown before: its trees are grouped already, only the
		// layout is made again. It keeps the zooms it had when nothing
		// says which to show (b twice is the graph as it was).
		return job(opt, func() (*flameResult, error) {
			r := *o
			o.mu.Lock()
			defer o.mu.Unlock()
			if paths != nil && o.callers == nil {
				r.zoom, r.history = zoomsIn(o.tree, paths)
			}
			r.lay = f.layout(o.tree, o.callers, r.zoom, width)
			return &r, nil
		}, f.setResult), state
	}
	if f.pivot != "" {
		pivot := f.pivot
		return job(opt, func() (*flameResult, error) {
			r, err := pivotResult(e, opt, pivot, width)
			if r != nil {
				r.e, r.state = e, state
			}
			return r, err
		}, f.setResult), state
	}
	inverted := f.inverted
	sides, fromBase := f.c.Sides, f.fromBase
	if !f.c.Diff {
		sides = nil
	}
	return job(opt, func() (*flameResult, error) {
		tr, diff, err := flameTrees(e, opt, analysis.TreeOptions{Inverted: inverted}, sides, fromBase)
		if err != nil {
			return nil, err
		}
		r := &flameResult{e: e, tree: tr, diff: diff, state: state}
		r.zoom, r.history = zoomsIn(tr, paths)
		r.lay = layoutFlame(tr, r.zoom, width)
		return r, nil
	}, f.setResult), state
}

// zoomsIn finds zooms given as paths of names (zoomPaths) in tr: the
// zoom, the last of them, and the ones before it.
func zoomsIn(tr *analysis.Tree, paths [][]string) (zoom *analysis.TreeNode, history []*analysis.TreeNode) {
	for i, p := range paths {
		n := findPath(tr, p)
		if i == len(paths)-1 {
			zoom = n
		} else {
			history = append(history, n)
		}
	}
	return zoom, history
}

// zoomPaths is the zooms of the graph shown, the earlier ones first, as
// paths of names; nil in a pivot or until the graph asked for is shown.
func (f *Flame) zoomPaths() [][]string {
	if f.tree == nil || f.callers != nil || f.pivot != "" || f.tree.Inverted != f.inverted {
		return nil
	}
	var paths [][]string
	for _, z := range f.history {
		paths = append(paths, namePath(f.tree, z))
	}
	return append(paths, namePath(f.tree, f.zoom))
}

// pivotResult computes the pivot on name and lays it out.
func pivotResult(e *analysis.Engine, opt analysis.Options, name string, width int) (*flameResult, error) {
	p, err := e.Pivot(opt, name)
	if err != nil {
		return nil, err
	}
	return &flameResult{tree: p.Callees, callers: p.Callers, pivotFlat: p.Flat,
		lay: layoutPivot(p.Callers, p.Callees, width)}, nil
}

// namePath is the names of the nodes from a root down to n.
func namePath(tr *analysis.Tree, n *analysis.TreeNode) []string {
	var p []string
	for ; n != nil; n = n.Parent {
		p = append(p, tr.Nodes.Name(n.Node))
	}
	for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// findPath follows names down tr as far as they go.
func findPath(tr *analysis.Tree, names []string) *analysis.TreeNode {
	var n *analysis.TreeNode
	kids := tr.Roots()
	for _, name := range names {
		var next *analysis.TreeNode
		for _, k := range kids {
			if tr.Nodes.Name(k.Node) == name {
				next = k
				break
			}
		}
		if next == nil {
			break
		}
		n, kids = next, tr.Children(next)
	}
	return n
}

func (f *Flame) HasResult() bool { return f.tree != nil }

// Total is the percentage denominator of the data shown.
func (f *Flame) Total() int64 {
	if f.diff != nil {
		return f.diff.total
	}
	return f.tree.Total
}

// flameRecent is how many graphs recent keeps: the graph, its inverse,
// a recursion setting and a pivot, say. Each holds its trees (4 to 12
// bytes a stack each once released, a pivot two), so recent also keeps
// no more of them than the profile's stacks take (keptBytes).
const flameRecent = 4

// keptBytes is how much of the trees recent keeps for profile p's
// graphs: as much as p's stacks' locations, whatever the profile's size
// (keptPerLocation bytes a location; a variable for the tests).
func keptBytes(p *format.Profile) int64 { return keptPerLocation * int64(len(p.Stacks.Locs)) }

var keptPerLocation int64 = 4

// bytes is what keeping r costs: its trees' per-stack arrays.
func (r *flameResult) bytes() int64 {
	trees := []*analysis.Tree{r.tree, r.callers}
	if r.diff != nil {
		trees = append(trees, r.diff.other)
	}
	var n int64
	for _, t := range trees {
		if t != nil {
			n += t.Bytes()
		}
	}
	return n
}

// remember keeps the graph shown in recent, with its zoom.
func (f *Flame) remember() {
	if f.tree == nil || f.e == nil {
		return
	}
	f.recent = slices.DeleteFunc(f.recent, func(o *flameResult) bool {
		return o.e == f.e && o.opt == f.opt && o.state == f.shown
	})
	f.recent = append(f.recent, &flameResult{tree: f.tree, callers: f.callers, pivotFlat: f.pivotFlat,
		zoom: f.zoom, history: f.history, diff: f.diff, e: f.e, opt: f.opt, state: f.shown, mu: f.mu})
	// The graph leaves the screen: its trees let go of their cursors
	// (shown again, they group from their paths), unless a layout of
	// them still runs.
	if f.mu.TryLock() {
		for _, t := range []*analysis.Tree{f.tree, f.callers} {
			if t != nil {
				t.Release()
			}
		}
		f.mu.Unlock()
	}
	budget, kept := keptBytes(f.e.Profile()), int64(0)
	for _, o := range f.recent {
		kept += o.bytes()
	}
	for len(f.recent) > 0 && (len(f.recent) > flameRecent || kept > budget) {
		kept -= f.recent[0].bytes()
		f.recent = slices.Delete(f.recent, 0, 1)
	}
}

// recall returns the graph of recent for e, opt and state, or nil. The
// graphs of another engine (another profile: a refresh, a base, a file)
// are let go.
func (f *Flame) recall(e *analysis.Engine, opt analysis.Options, state string) *flameResult {
	f.recent = slices.DeleteFunc(f.recent, func(o *flameResult) bool { return o.e != e })
	for _, o := range f.recent {
		if o.opt == opt && o.state == state {
			return o
		}
	}
	return nil
}

func (f *Flame) setResult(r *flameResult, opt analysis.Options) {
	if r.e == f.e {
		f.remember()
	} else {
		f.recent = nil // another profile's graphs
	}
	f.tree, f.callers, f.zoom, f.history, f.lay, f.diff = r.tree, r.callers, r.zoom, r.history, r.lay, r.diff
	f.pivotFlat, f.e, f.opt, f.shown = r.pivotFlat, r.e, opt, r.state
	f.restore, f.restoring = nil, false
	f.mu, f.pending = &sync.Mutex{}, 0
	if r.mu != nil {
		f.mu = r.mu // the same tree: its layouts keep their lock
	}
	q, _ := treeQuantity(f.c, f.tree, opt)
	f.value = q.format
	f.click.Reset()
	// The cursor indexes the old layout's frames, maybe past the end of
	// this one's: relayout (the window was resized while the result was
	// computed) starts from this layout's top.
	f.cur = f.lay.top
	if f.lay.width != f.width {
		f.relayout()
	}
	f.cur = f.lay.top
	f.offset = 0
	f.scrollToZoom()
	// Highlight the matches without moving to one: the root reveals the
	// selected function next.
	f.findMatches()
}

// Zoomed returns the name of the frame filling the width ("" when not
// zoomed) and how many zooms out lead back to the root. Exported for
// tui's tests, which drive the whole program.
func (f *Flame) Zoomed() (string, int) {
	if f.zoom == nil {
		return "", len(f.history)
	}
	return f.tree.Nodes.Name(f.zoom.Node), len(f.history)
}

// cursorNode returns the node under the cursor, nil on the root.
func (f *Flame) cursorNode() *analysis.TreeNode {
	if f.lay == nil {
		return nil
	}
	return f.lay.frames[f.cur].n
}

// relayout lays the graph out again for the current zoom and width, on
// the UI goroutine (after a resize), keeping the cursor on its node.
func (f *Flame) relayout() {
	n := f.cursorNode()
	f.mu.Lock()
	lay := f.layout(f.tree, f.callers, f.zoom, f.width)
	f.mu.Unlock()
	f.setLayout(lay, n)
}

// layout lays out tr (and callers, in a pivot) at zoom and width.
func (f *Flame) layout(tr, callers *analysis.Tree, zoom *analysis.TreeNode, width int) *flameLayout {
	if callers != nil {
		return layoutPivot(callers, tr, width)
	}
	return layoutFlame(tr, zoom, width)
}

// setLayout shows lay, with the cursor on node n (or the nearest of its
// ancestors on screen).
func (f *Flame) setLayout(lay *flameLayout, n *analysis.TreeNode) {
	f.lay = lay
	f.cur = f.lay.locate(n)
	f.click.Reset()
	if f.m.re != nil {
		f.findMatches()
	}
	f.clampOffset()
}

// flameLaidOut is a background layout done.
type flameLaidOut struct {
	seq    int
	lay    *flameLayout
	cursor *analysis.TreeNode
}

// layoutCmd lays the graph out for the current zoom in the background;
// the cursor goes to node cursor when it is done.
func (f *Flame) layoutCmd(cursor *analysis.TreeNode) tea.Cmd {
	f.seq++
	f.pending = f.seq
	seq, tr, mu, zoom, width := f.seq, f.tree, f.mu, f.zoom, f.width
	return func() tea.Msg {
		mu.Lock()
		lay := layoutFlame(tr, zoom, width)
		mu.Unlock()
		return ViewMsg{To: f, Msg: flameLaidOut{seq, lay, cursor}}
	}
}

// Busy reports whether a zoom is being laid out. Exported for tui's
// tests, which wait for it before they read the screen.
// A graph inverted, pivoted or drawn from the other widths is busy
// until its new result is shown.
func (f *Flame) Busy() bool {
	return f.pending != 0 || f.tree != nil && f.shown != f.state()
}

// recompute asks the root for a new result (another pivot, inverted).
func (f *Flame) recompute() { f.c.Ask(RecomputeMsg{f}) }

// graphHeight is the number of rows on screen: the view less the detail
// line and, in a diff, the legend.
func (f *Flame) graphHeight() int {
	h := f.height - 1
	if f.c.Diff {
		h--
	}
	return max(0, h)
}

func (f *Flame) clampOffset() {
	if f.lay == nil {
		f.offset = 0
		return
	}
	f.offset = max(0, min(f.offset, f.lay.nrows()-f.graphHeight()))
}

// follow scrolls the cursor's row into view.
func (f *Flame) follow() {
	r, h := f.lay.rowOf(f.cur), f.graphHeight()
	if r < f.offset {
		f.offset = r
	}
	if h > 0 && r >= f.offset+h {
		f.offset = r - h + 1
	}
	f.clampOffset()
}

// scrollToZoom shows the zoomed frame near the top, under at most three
// of its ancestors; a pivot's function in the middle, between its
// callers and callees.
func (f *Flame) scrollToZoom() {
	f.offset = max(0, f.lay.top-3)
	if f.lay.pivot {
		f.offset = max(0, f.lay.rowOf(f.lay.top)-f.graphHeight()/2)
	}
	f.clampOffset()
	f.follow()
}

// Claims takes enter (zoom) whenever there is a graph, and backspace and
// esc (zoom out) while zoomed; otherwise they keep the root's meanings
// (back, clear the search). esc clears a search first, zoomed or not, as
// the footer says: only the next esc zooms out.
func (f *Flame) Claims(msg tea.KeyMsg) bool {
	k := f.c.Keys
	switch {
	case key.Matches(msg, k.Zoom):
		return f.lay != nil
	case key.Matches(msg, k.Clear) && f.m.re != nil:
		return false
	case key.Matches(msg, k.Back):
		// Unless a change of the options came after the view's last
		// step: backspace undoes that first.
		return f.backIsOurs(len(f.history))
	case key.Matches(msg, k.ZoomOut):
		return len(f.history) > 0 || len(f.back) > 0
	}
	return false
}

// Pivot pivots the graph on the function named name, remembering the
// graph or the pivot before for going back.
func (f *Flame) Pivot(name string) {
	if f.pivotTo(name, f.zoomPaths()) {
		f.restoring = false
		f.recompute()
	}
}

// stepOut goes back to the trail's step before: the pivot before, or
// the graph a pivot was entered from, with its zooms.
func (f *Flame) stepOut() {
	zooms, ok := f.stepBack()
	if !ok {
		return
	}
	f.restore, f.restoring = zooms, true
	f.recompute()
}

func (f *Flame) Update(msg tea.Msg) tea.Cmd {
	k := f.c.Keys
	if km, ok := msg.(tea.KeyMsg); ok && key.Matches(km, k.Invert) {
		f.invert(f.zoomPaths())
		f.restoring = false
		f.recompute()
		return nil
	}
	if f.lay == nil {
		return nil
	}
	switch msg := msg.(type) {
	case flameLaidOut:
		if msg.seq != f.pending {
			return nil // superseded, or made for an earlier result
		}
		f.pending = 0
		f.setLayout(msg.lay, msg.cursor)
		if f.lay.width != f.width {
			f.relayout()
		}
		f.scrollToZoom()
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, k.FramePrev):
			f.step(-1)
		case key.Matches(msg, k.FrameNext):
			f.step(1)
		case key.Matches(msg, k.FrameParent):
			if p := f.lay.above(f.cur); p >= 0 {
				f.cur = p
			}
		case key.Matches(msg, k.FrameChild):
			if c := f.lay.below(f.cur); c >= 0 {
				f.cur = c
			}
		case key.Matches(msg, k.Home):
			f.cur = f.lay.top
		case key.Matches(msg, k.End):
			// Down the heaviest path to its last real frame.
			for c := f.lay.below(f.cur); c >= 0 && f.lay.frames[c].kind != frameNarrow; c = f.lay.below(c) {
				f.cur = c
			}
		case key.Matches(msg, k.PageUp):
			f.scroll(-max(1, f.graphHeight()-1))
			return nil
		case key.Matches(msg, k.PageDown):
			f.scroll(max(1, f.graphHeight()-1))
			return nil
		case key.Matches(msg, k.Zoom) && f.pivot != "":
			if n := f.cursorNode(); n != nil {
				f.Pivot(f.tree.Nodes.FuncName(n.Node))
			}
			return nil
		case key.Matches(msg, k.Zoom):
			return f.zoomInto(f.cur)
		case key.Matches(msg, k.ZoomOut) && len(f.back) > 0 && (len(f.history) == 0 || f.shown != f.state()):
			// The zooms are the graph's left behind until the step's
			// graph comes: backspace undoes the step.
			f.stepOut()
			return nil
		case key.Matches(msg, k.ZoomOut):
			return f.zoomOut()
		case key.Matches(msg, k.Widths):
			f.toggleWidths()
			return nil
		default:
			return nil
		}
		f.follow()
	case tea.MouseMsg:
		switch {
		case msg.Button == tea.MouseButtonWheelUp:
			f.scroll(-3)
		case msg.Button == tea.MouseButtonWheelDown:
			f.scroll(3)
		case msg.Button == tea.MouseButtonLeft && msg.Action == tea.MouseActionPress:
			return f.clicked(msg.X, msg.Y)
		}
	}
	return nil
}

// step moves to the previous (d < 0) or next frame on the cursor's row;
// a narrow run is a stop too, so that what it hides can be found (its
// detail line counts it, enter zooms into its parent).
func (f *Flame) step(d int) {
	r := f.lay.rowOf(f.cur)
	if i := f.cur + d; i >= f.lay.rows[r] && i < f.lay.rows[r+1] {
		f.cur = i
	}
}

// scroll moves the rows on screen by d, leaving the cursor where it is
// (the detail line still describes it; the next move brings it back).
func (f *Flame) scroll(d int) {
	f.offset += d
	f.clampOffset()
}

// zoomInto makes frame i fill the width, remembering the current zoom.
// The new layout comes from the background.
func (f *Flame) zoomInto(i int) tea.Cmd {
	if f.lay.frames[i].kind == frameNarrow {
		i = f.lay.frames[i].parent // widens what the run hides
	}
	n := f.lay.frames[i].n
	if n == nil || n == f.zoom {
		return nil
	}
	f.syncZoomStamps()
	f.zoomStamps = append(f.zoomStamps, f.steps.Take())
	f.history = append(f.history, f.zoom)
	f.zoom = n
	return f.layoutCmd(n)
}

// zoomOut goes back to the zoom before, keeping the cursor on its frame.
func (f *Flame) zoomOut() tea.Cmd {
	if len(f.history) == 0 {
		return nil
	}
	f.zoom = f.history[len(f.history)-1]
	f.history = f.history[:len(f.history)-1]
	f.syncZoomStamps()
	return f.layoutCmd(f.cursorNode())
}

// syncZoomStamps gives the zooms the view has one stamp each: a new
// graph may have fewer of them than were taken (its zooms are found
// again by their paths), and a zoom stamped 0 is older than any change.
func (f *Flame) syncZoomStamps() {
	n := len(f.history)
	if len(f.zoomStamps) > n {
		f.zoomStamps = f.zoomStamps[:n]
	}
	for len(f.zoomStamps) < n {
		f.zoomStamps = append(f.zoomStamps, 0)
	}
}

// clicked selects the frame at column x of line y (of the view); a
// second click on it soon after zooms into it.
func (f *Flame) clicked(x, y int) tea.Cmd {
	i := f.frameAt(x, y)
	if i < 0 {
		return nil
	}
	if f.lay.frames[i].kind == frameNarrow {
		i = f.lay.frames[i].parent
	}
	if f.click.Press(i) {
		if f.pivot != "" {
			if n := f.lay.frames[i].n; n != nil {
				f.Pivot(f.tree.Nodes.FuncName(n.Node))
			}
			return nil
		}
		return f.zoomInto(i)
	}
	f.cur = i
	return nil
}

// frameAt returns the frame at column x of line y of the view, or -1.
func (f *Flame) frameAt(x, y int) int {
	r := f.offset + y - (f.height - f.graphHeight())
	if y < f.height-f.graphHeight() || r >= f.lay.nrows() {
		return -1
	}
	for i := f.lay.rows[r]; i < f.lay.rows[r+1]; i++ {
		if fr := &f.lay.frames[i]; x >= fr.x0 && x < fr.x1 {
			return i
		}
	}
	return -1
}

func (f *Flame) Selection() (Selection, bool) {
	n := f.cursorNode()
	if n == nil {
		return Selection{}, false
	}
	return Selection{Kind: SelFunction, Name: f.tree.Nodes.FuncName(n.Node)}, true
}

// Reveal selects the widest frame on screen of the function named name
// (the shallowest of equals), unless the cursor is on one already.
func (f *Flame) Reveal(name string) {
	if f.lay == nil || name == "" {
		return
	}
	if sel, ok := f.Selection(); ok && sel.Name == name {
		return
	}
	best := -1
	for i := range f.lay.frames {
		fr := &f.lay.frames[i]
		if fr.n == nil || f.tree.Nodes.FuncName(fr.n.Node) != name {
			continue
		}
		if best < 0 || fr.x1-fr.x0 > f.lay.frames[best].x1-f.lay.frames[best].x0 {
			best = i
		}
	}
	if best >= 0 {
		f.cur = best
		f.follow()
	}
}

// findMatches collects the frames whose name matches the search, row by
// row, left to right.
func (f *Flame) findMatches() {
	f.m.rows = f.m.rows[:0]
	if f.m.re == nil || f.lay == nil {
		return
	}
	for i := range f.lay.frames {
		if n := f.lay.frames[i].n; n != nil && f.m.re.MatchString(f.tree.Nodes.Name(n.Node)) {
			f.m.rows = append(f.m.rows, i)
		}
	}
}

func (f *Flame) SetSearch(re *regexp.Regexp) bool {
	f.m.re = re
	if f.lay == nil {
		return false
	}
	f.findMatches()
	return f.toMatch(1, true)
}

func (f *Flame) NextMatch(dir int) bool {
	if f.lay == nil {
		return false
	}
	return f.toMatch(dir, false)
}

func (f *Flame) toMatch(dir int, inclusive bool) bool {
	i, ok := f.m.next(f.cur, dir, inclusive)
	if ok {
		f.cur = i
		f.follow()
	}
	return ok
}

// matched reports whether frame i matches the search.
func (f *Flame) matched(i int) bool {
	k := sort.SearchInts(f.m.rows, i)
	return k < len(f.m.rows) && f.m.rows[k] == i
}

func (f *Flame) View() string {
	st := f.c.Styles
	if f.tree == nil {
		return fillLines([]string{st.Dim.Render("  computing…")}, f.height)
	}
	lines := []string{f.detail()}
	if f.c.Diff {
		lines = append(lines, st.DiffLegend(f.width))
	}
	if f.lay.empty() {
		msg := "  no samples match the current options"
		if f.pivot != "" {
			msg = "  no samples go through " + f.pivot
		}
		lines = append(lines, st.Dim.Render(SafeText(msg)))
		return fillLines(lines, f.height)
	}
	var b strings.Builder
	for r := f.offset; r < min(f.lay.nrows(), f.offset+f.graphHeight()); r++ {
		b.Reset()
		x := 0
		for i := f.lay.rows[r]; i < f.lay.rows[r+1]; i++ {
			fr := &f.lay.frames[i]
			if fr.x0 > x {
				b.WriteString(strings.Repeat(" ", fr.x0-x))
			}
			b.WriteString(f.frameStyle(i).Render(f.label(i)))
			x = fr.x1
		}
		lines = append(lines, b.String())
	}
	return fillLines(lines, f.height)
}

// label is frame i's text, exactly as wide as the frame: an edge (the
// cursor mark on the cursor's frame), then the name, shortened to fit,
// and its share of the total when there is room.
func (f *Flame) label(i int) string {
	fr := &f.lay.frames[i]
	w := fr.x1 - fr.x0
	edge := "▏"
	if i == f.cur {
		edge = "▶"
	}
	if fr.kind == frameNarrow {
		if i == f.cur {
			return edge + strings.Repeat("░", w-1)
		}
		return strings.Repeat("░", w)
	}
	if w == 1 {
		return edge
	}
	var name, share string
	if fr.n == nil {
		name = "root"
		if f.tree.Inverted {
			name = "root · inverted: callers below"
		}
		share = f.signed(f.lay.sum)
	} else {
		name = f.tree.Nodes.Name(fr.n.Node)
		share = flameShare(fr.n.Total, f.tree.Total)
		if f.c.Diff {
			share = f.signed(fr.n.Total) // a share hides the sign
		}
	}
	if f.diff != nil {
		before, after := f.beforeAfter(fr.n)
		share = f.signed(after - before)
	}
	if w-1 < minLabel {
		return PadRight(edge, w)
	}
	body := fitFrameName(name, w-1)
	if ansi.StringWidth(body)+1+len(share) <= w-1 {
		body += " " + share
	}
	return PadRight(edge+body, w)
}

// signed formats a value, with a "+" for growth in a diff.
func (f *Flame) signed(v int64) string {
	if f.c.Diff && v > 0 {
		return "+" + f.value(v)
	}
	return f.value(v)
}

// minLabel is the narrowest name worth showing in a frame: below it a
// cut name ("…rt") says nothing and only clutters the graph.
const minLabel = 4

// flameShare is pprof's percentage of total, without its padding.
func flameShare(v, total int64) string {
	return strings.TrimLeft(analysis.Percentage(v, total), " ")
}

// frameStyle is frame i's colour: the cursor's, a search match's, or by
// kind; a function's frame is coloured by its package, or in a diff by
// its change.
func (f *Flame) frameStyle(i int) lipgloss.Style {
	st := f.c.Styles
	fr := &f.lay.frames[i]
	switch {
	case i == f.cur:
		return st.FlameCursor
	case fr.kind == frameNarrow:
		return st.FlameNarrow
	case f.m.re != nil && f.matched(i):
		return st.FlameMatch
	case f.onPivotRow(i):
		return st.FlameRoot // the function pivoted on
	case i < f.lay.top && !f.lay.pivot:
		return st.FlameAncestor
	case fr.kind == frameRoot:
		return st.FlameRoot
	case f.diff != nil:
		return f.diffStyle(fr.n)
	case f.c.Diff:
		return st.DiffBox(fr.n.Total, f.tree.Total)
	}
	return st.Flame(flamePackage(f.tree.Nodes.FuncName(fr.n.Node)))
}

// detail describes the frame under the cursor: its name, self and total
// with their shares; and the zoom, when zoomed. In a narrow window the
// zoom, then self, then the shares give way to the name.
func (f *Flame) detail() string {
	st := f.c.Styles
	fr := &f.lay.frames[f.cur]
	total := f.tree.Total
	name := "root"
	self, sum := int64(0), f.lay.sum
	if fr.n != nil {
		name = f.tree.Nodes.Name(fr.n.Node)
		self, sum = fr.n.Self, fr.n.Total
		if f.lay.pivot && fr.n.Depth == 0 && !f.callerFrame(f.cur) {
			self = f.pivotFlat // the function's own row: its flat, pprof's
		}
	}
	// The key back: esc when backspace undoes a change of the options
	// made since.
	back := "⌫"
	if !f.backIsOurs(len(f.history)) {
		back = "esc"
	}
	// zoom says where the graph is; short, in a narrow window, says it
	// still, as the numbers give way; named, in a pivot with the cursor
	// off the function's row, names the function too (after a re-pivot
	// along a chain of single calls the rows read the same), tried first.
	var zoom, short string
	var named [2]string
	switch {
	case f.pending != 0:
		zoom, short = "zooming…", "zooming…"
	case f.pivot != "" && f.shown != f.state():
		// Not the pivot's graph yet: the one before, until it comes.
		zoom, short = "pivoting…", "pivoting…"
	case f.pivot != "":
		zoom, short = "pivot: callers ↑ callees ↓ · "+back+" back", "pivot · "+back+" back"
		if !f.onPivotRow(f.cur) {
			on := "pivot on " + fitFrameName(f.pivot, 40)
			named = [2]string{on + ": callers ↑ callees ↓ · " + back + " back", on + " · " + back + " back"}
		}
	case len(f.history) > 0:
		zoom, short = "zoomed ×"+strconv.Itoa(len(f.history))+" · "+back+" out", "×"+strconv.Itoa(len(f.history))
	case len(f.back) > 0 && f.back[len(f.back)-1].pivot != "":
		zoom, short = back+" back to the pivot", back+" back"
	case len(f.back) > 0:
		zoom, short = back+" back", back+" back"
	}
	inverted := ""
	if f.tree.Inverted && f.pivot == "" {
		// Said here too: the root row that says it scrolls away on deep
		// graphs.
		inverted = "inverted"
	}
	zoom, short = notes(inverted, zoom), notes(inverted, short)
	named[0], named[1] = notes(named[0]), notes(named[1])
	withShare := func(v int64) string { return f.signed(v) + " (" + flameShare(v, total) + ")" }
	variants := [][2]string{
		{"flat " + withShare(self) + "  cum " + withShare(sum), zoom},
		{"flat " + withShare(self) + "  cum " + withShare(sum), short},
		{"cum " + withShare(sum), short},
		{"cum " + f.signed(sum), short},
		{"cum " + f.signed(sum), ""},
	}
	if f.callerFrame(f.cur) {
		// A frame of callers: its value is the stacks through this chain
		// of calls; its self, the stacks that start at it, is no flat.
		what, via := "cum", " via this path"
		if fr.n != nil && fr.n.Depth == 0 {
			what, via = "flat", "" // an inverted graph's root: the function's flat
		}
		variants = [][2]string{
			{what + " " + withShare(sum) + via, zoom},
			{what + " " + withShare(sum) + via, short},
			{what + " " + withShare(sum), short},
			{what + " " + f.signed(sum), short},
			{what + " " + f.signed(sum), ""},
		}
	}
	switch {
	case fr.kind == frameNarrow:
		// fr.w is the run's width: Σ|value| of what it hides.
		name = "░ " + strconv.Itoa(fr.hidden) + " more, each narrower than a cell"
		if p := f.lay.frames[fr.parent].n; p != nil {
			what := " more callees of "
			if f.callerFrame(f.cur) {
				what = " more callers of "
			}
			name = "░ " + strconv.Itoa(fr.hidden) + what + f.tree.Nodes.Name(p.Node) + " (each narrower than a cell)"
		}
		v := fr.w
		// Zooming widens the run's parent; one that already fills the
		// width (the root's many callers) cannot widen them.
		hint := "  enter zooms in"
		if p := f.lay.frames[fr.parent].n; p == nil || p == f.zoom || f.lay.pivot {
			hint = "  the Tree view lists them"
		}
		variants = [][2]string{
			{"together " + f.value(v) + " (" + flameShare(v, total) + ")", hint},
			{"together " + f.value(v) + " (" + flameShare(v, total) + ")", ""},
			{"together " + f.value(v), ""},
		}
	case f.diff != nil:
		nums := f.diffDetail(fr.n)
		variants = [][2]string{{nums[0], zoom + f.widthsNote()}, {nums[0], f.widthsNote()}, {nums[0], ""}, {nums[1], ""}, {nums[2], ""}, {nums[3], ""}}
	case fr.n == nil:
		variants = [][2]string{{"cum " + withShare(sum), zoom}, {"cum " + withShare(sum), ""}, {"cum " + f.signed(sum), ""}}
	case named[0] != "":
		variants = append([][2]string{{variants[0][0], named[0]}, {variants[0][0], named[1]}}, variants...)
	}
	want := min(ansi.StringWidth(name), 16)
	var nums, right string
	nameW := 0
	for _, v := range variants {
		nums, right = v[0], v[1]
		if nameW = f.width - 4 - ansi.StringWidth(nums) - ansi.StringWidth(right); nameW >= want {
			break
		}
	}
	shown := fitFrameName(name, max(1, nameW))
	if fr.kind == frameNarrow {
		shown = ansi.Truncate(name, max(1, nameW), "…") // the count first
	}
	line := st.Header.Render("▶ "+shown) + "  " + nums + st.Dim.Render(right)
	return ansi.Truncate(line, f.width, "…")
}

// notes joins the top line's notes after its numbers, the empty ones
// left out, and sets them off from the numbers: "" when all are empty.
func notes(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" · ")
		}
		b.WriteString(p)
	}
	if b.Len() == 0 {
		return ""
	}
	return "  " + b.String()
}

// onPivotRow reports whether frame i is on a pivot's row of the function
// pivoted on.
func (f *Flame) onPivotRow(i int) bool {
	return f.lay.pivot && i >= f.lay.top && f.lay.rowOf(i) == f.lay.rowOf(f.lay.top)
}

// callerFrame reports whether frame i is in a graph of callers: the
// inverted graph, or the upper half of a pivot.
func (f *Flame) callerFrame(i int) bool {
	if f.lay.pivot {
		return i < f.lay.top
	}
	return f.tree.Inverted && f.lay.frames[i].kind != frameRoot
}

// fitFrameName cuts a frame's name to w columns, as pprof's flame graph
// picks the longest of ever shorter names that fits: the whole name,
// then with generic type arguments elided ("slices.sort[…]"), then
// without the package path's directories ("analysis.(*Tree).group"),
// then without its leading dotted parts ("(*Tree).group", "group"); the
// last is cut as fitName cuts (keeping the end). A name with a location
// (lines granularity) goes to fitName as it is.
func fitFrameName(name string, w int) string {
	if ansi.StringWidth(name) <= w || strings.IndexByte(name, ' ') >= 0 {
		return fitName(name, w)
	}
	name = elideTypeArgs(name)
	if ansi.StringWidth(name) <= w {
		return name
	}
	if j := strings.LastIndexByte(name, '/'); j >= 0 {
		name = name[j+1:]
		if ansi.StringWidth(name) <= w {
			return name
		}
	}
	for {
		i := strings.IndexByte(name, '.')
		if i < 0 || i == len(name)-1 {
			break
		}
		name = name[i+1:]
		if ansi.StringWidth(name) <= w {
			return name
		}
	}
	return fitName(name, w)
}

// elideTypeArgs shortens the type arguments of a generic Go function
// to "…": "slices.sort[go.shape.string]" is "slices.sort[…]".
func elideTypeArgs(name string) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '[':
			if depth == 0 {
				b.WriteString("[…")
			}
			depth++
		case c == ']' && depth > 0:
			depth--
			if depth == 0 {
				b.WriteByte(']')
			}
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// flamePackage is what a frame is coloured by: the package of a Go
// function ("github.com/x/y" of "github.com/x/y.(*T).M"), the namespace
// of a C++ one ("std" of "std::vector<int>::push_back"), else the whole
// name (a file, a mapping).
func flamePackage(name string) string {
	if strings.HasPrefix(name, "[") {
		return name // [libc.so.6]
	}
	if i := strings.IndexAny(name, "([<"); i > 0 {
		name = name[:i]
	}
	slash := strings.LastIndexByte(name, '/')
	rest := name[slash+1:]
	if i := strings.Index(rest, "::"); i > 0 {
		return name[:slash+1+i]
	}
	if i := strings.IndexByte(rest, '.'); i > 0 {
		return name[:slash+1+i]
	}
	return name
}

// Scope is, in a pivot, its function's cum: what the graph shows.
func (f *Flame) Scope() (int64, bool) { return f.scope(f.tree, f.callers) }
