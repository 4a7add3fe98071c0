package views

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/analysis/report"
)

// Graph is pprof's call graph around the selected function, in the
// terminal: the function in the middle, its callers above and its
// callees below, as many hops each way as the height allows. Each node
// is a box with its name, flat and cum, coloured by cum; each box off
// the middle hangs from the edge that reached it, labelled with the
// edge's value (dashed for inlined calls, dotted where pprof's pruning
// dropped nodes between the two); the graph's other edges between boxes
// on screen are listed below them. The graph is -dot's, pruned as -dot
// prunes it for the current settings (nodecount 80 unless set). ↑ and
// ↓ re-centre on a caller or callee (the one ← and → aim at, else the
// heaviest).
type Graph struct {
	c *Common
	aboutFunction
	data  *graphResult
	value func(int64) string

	// aim is the direct neighbour ← and → point at: an index into
	// the layout's neighbours (callers, then callees), or -1.
	aim           int
	m             matchSet
	width, height int
	// laid is the last layout made, for its centre, size and graph: the
	// hint line, View and a key all ask for the same one.
	laid graphLaid
}

// graphLaid is a layout and what it was made for.
type graphLaid struct {
	c             int32
	width, height int
	g             *analysis.Graph
	lay           graphLayout
}

type graphResult struct {
	g   *analysis.Graph
	opt analysis.Options
}

// NewGraph makes the Graph view.
func NewGraph(c *Common) *Graph { return &Graph{c: c, aim: -1} }

func (v *Graph) Title() string { return "Graph" }
func (v *Graph) Init() tea.Cmd { return nil }

func (v *Graph) SetSize(w, h int) { v.width, v.height = w, h }

func (v *Graph) ShortHelp() []key.Binding {
	k := v.c.Keys
	var up, down, aim bool
	if c := v.center(); c >= 0 {
		lay := v.layout(c) // as View draws it and Update walks it
		up, down, aim = len(lay.levels[-1]) > 0, len(lay.levels[1]) > 0, len(lay.neighbours()) > 0
	}
	f := filterable(v)
	return []key.Binding{offer(withHelp(k.FrameParent, "caller"), up), offer(withHelp(k.FrameChild, "callee"), down), offer(withHelp(k.FramePrev, "aim"), aim), offer(k.Drill, f), offer(k.Focus, f)}
}

// GraphOptions are opt as the Graph view draws them: -dot's, whose
// nodecount is 80 unless one is set.
func GraphOptions(opt analysis.Options) analysis.Options {
	if opt.NodeCount == 0 {
		opt.NodeCount = 80
	}
	return opt
}

// Query computes the graph for opt; the selection only moves its
// centre, so the state is empty and a walk needs no recomputation.
func (v *Graph) Query(e *analysis.Engine, opt analysis.Options, _ string) (Job, string) {
	opt = GraphOptions(opt)
	return job(opt, func() (*graphResult, error) {
		g, err := e.Graph(opt, analysis.GraphNodes)
		if err != nil {
			return nil, err
		}
		return &graphResult{g: g, opt: opt}, nil
	}, v.setResult), ""
}

func (v *Graph) HasResult() bool { return v.data != nil }

// Total is the percentage denominator of the graph.
func (v *Graph) Total() int64 { return v.data.g.Total }

func (v *Graph) setResult(r *graphResult, opt analysis.Options) {
	v.data = r
	v.value = newQuantity(v.c, r.g.SampleType.Unit, opt).format
	v.aim = -1
	if v.center() < 0 && len(r.g.Nodes) > 0 && v.name == "" {
		// No selection yet: the heaviest node by cum.
		best := 0
		for i, n := range r.g.Nodes {
			if abs(n.Cum) > abs(r.g.Nodes[best].Cum) {
				best = i
			}
		}
		v.name = r.g.Names.FuncName(r.g.Nodes[best].Node)
	}
}

// Reveal re-centres the graph on name.
func (v *Graph) Reveal(name string) {
	if name != "" && name != v.name {
		v.name = name
		v.aim = -1
	}
}

// center is the index of the selected function's node, or -1.
func (v *Graph) center() int32 {
	if v.data == nil || v.name == "" {
		return -1
	}
	g := v.data.g
	for i, n := range g.Nodes {
		if g.Names.FuncName(n.Node) == v.name {
			return int32(i)
		}
	}
	return -1
}

// graphBox is a node drawn in a layout.
type graphBox struct {
	node  int32 // index into Graph.Nodes
	level int   // <0 callers, 0 the centre, >0 callees
	edge  int32 // the edge that reached it from the level nearer the centre, or -1
	x, y  int   // top left, y relative to the view
	w     int
}

// graphLayout places the centre, callers and callees: level by level
// outwards, each node once, at most perRow a level (more are counted in
// hidden).
type graphLayout struct {
	levels map[int][]graphBox
	hidden map[int]int
	up     int // caller levels shown
	down   int // callee levels shown
	boxW   int
	// extra are the edges between boxes shown that reached no box,
	// heaviest first: the footer, from line footY down, lists them.
	extra []int32
	footY int
}

const (
	graphBoxLines = 3 // a box: top border with the name, values, bottom border
	graphHeadLine = 1 // the summary line
)

// layout places the graph around centre c for the view's size: as
// many levels as fit, less one when the edges between the boxes that
// reached none would otherwise have no line left below them.
func (v *Graph) layout(c int32) graphLayout {
	if l := &v.laid; l.g != nil && l.g == v.data.g && l.c == c && l.width == v.width && l.height == v.height {
		return l.lay
	}
	// Each level beyond the centre takes a line for its edges and the
	// box's three.
	levels := max(0, (v.height-graphHeadLine-graphBoxLines)/(graphBoxLines+1))
	lay := v.layoutLevels(c, levels)
	if len(lay.extra) > 0 && lay.footY >= v.height && lay.up+lay.down > 1 {
		lay = v.layoutLevels(c, lay.up+lay.down-1)
	}
	v.laid = graphLaid{c: c, width: v.width, height: v.height, g: v.data.g, lay: lay}
	return lay
}

// layoutLevels places the centre and at most levels levels of callers
// and callees.
func (v *Graph) layoutLevels(c int32, levels int) graphLayout {
	g := v.data.g
	boxW := 34
	if v.width < 120 {
		boxW = 24
	}
	boxW = min(boxW, max(v.width, 8))
	perRow := max(1, (v.width+1)/(boxW+1))
	lay := graphLayout{levels: map[int][]graphBox{0: {{node: c, edge: -1, w: boxW}}}, hidden: map[int]int{}, boxW: boxW}
	placed := map[int32]bool{c: true}
	grow := func(dir int) bool {
		d := lay.up + 1
		if dir > 0 {
			d = lay.down + 1
		}
		prev := lay.levels[dir*(d-1)]
		var row []graphBox
		hidden := 0
		for _, b := range prev {
			n := &g.Nodes[b.node]
			ids := n.In
			if dir > 0 {
				ids = n.Out
			}
			for _, id := range ids {
				e := &g.Edges[id]
				other := e.From
				if dir > 0 {
					other = e.To
				}
				if placed[other] {
					continue
				}
				placed[other] = true
				if len(row) < perRow {
					row = append(row, graphBox{node: other, level: dir * d, edge: id, w: boxW})
				} else {
					hidden++
				}
			}
		}
		if len(row) == 0 {
			return false
		}
		lay.levels[dir*d], lay.hidden[dir*d] = row, hidden
		if dir > 0 {
			lay.down++
		} else {
			lay.up++
		}
		return true
	}
	// Alternately a level of callers and of callees, while they fit.
	upDone, downDone := false, false
	for lay.up+lay.down < levels && !(upDone && downDone) {
		if !upDone && (lay.up <= lay.down || downDone) {
			upDone = !grow(-1)
			continue
		}
		downDone = !grow(1)
	}
	// Positions: rows centred; callers above.
	y := graphHeadLine
	for l := -lay.up; l <= lay.down; l++ {
		row := lay.levels[l]
		if l > 0 {
			y++ // the edge line above a callee row
		}
		wid := len(row)*(boxW+1) - 1
		x := max(0, (v.width-wid)/2)
		for i := range row {
			row[i].x, row[i].y = x+i*(boxW+1), y
		}
		y += graphBoxLines
		if l < 0 {
			y++ // the edge line below a caller row
		}
	}
	lay.footY = y
	lay.extra = lay.otherEdges(g)
	return lay
}

// otherEdges are the graph's edges between two boxes of the layout that
// reached neither, in the graph's order (heaviest first).
func (lay *graphLayout) otherEdges(g *analysis.Graph) []int32 {
	shown := map[int32]bool{}
	drawn := map[int32]bool{}
	for _, row := range lay.levels {
		for _, b := range row {
			shown[b.node] = true
			if b.edge >= 0 {
				drawn[b.edge] = true
			}
		}
	}
	var out []int32
	for id, e := range g.Edges {
		if shown[e.From] && shown[e.To] && !drawn[int32(id)] {
			out = append(out, int32(id))
		}
	}
	return out
}

// at is the box of the edge's end that is on level l: its caller (from)
// or its callee.
func (lay *graphLayout) at(l int, e analysis.GraphEdge, callee bool) graphBox {
	n := e.From
	if callee {
		n = e.To
	}
	for _, b := range lay.levels[l] {
		if b.node == n {
			return b
		}
	}
	return graphBox{x: -1}
}

func sign(l int) int {
	switch {
	case l < 0:
		return -1
	case l > 0:
		return 1
	}
	return 0
}

// neighbours are the layout's direct callers and callees, in order.
func (lay *graphLayout) neighbours() []graphBox {
	return append(append([]graphBox(nil), lay.levels[-1]...), lay.levels[1]...)
}

func (v *Graph) Update(msg tea.Msg) tea.Cmd {
	if !v.HasResult() {
		return nil
	}
	c := v.center()
	if c < 0 {
		return nil
	}
	mm, click := msg.(tea.MouseMsg)
	km, press := msg.(tea.KeyMsg)
	if !press && !(click && mm.Button == tea.MouseButtonLeft && mm.Action == tea.MouseActionPress) {
		return nil
	}
	lay := v.layout(c) // as View draws it
	if click {
		for _, row := range lay.levels {
			for _, b := range row {
				if mm.X >= b.x && mm.X < b.x+b.w && mm.Y >= b.y && mm.Y < b.y+graphBoxLines && b.level != 0 {
					v.walk(b.node)
					return nil
				}
			}
		}
		return nil
	}
	nb := lay.neighbours()
	k := v.c.Keys
	switch {
	case key.Matches(km, k.FramePrev, k.FrameNext):
		if len(nb) == 0 {
			return nil
		}
		step := 1
		if key.Matches(km, k.FramePrev) {
			step = -1
		}
		switch {
		case v.aim < 0 && step > 0:
			v.aim = 0
		case v.aim < 0:
			v.aim = len(nb) - 1
		default:
			v.aim = (v.aim + step + len(nb)) % len(nb)
		}
	case key.Matches(km, k.FrameParent, k.FrameChild):
		dir := 1
		if key.Matches(km, k.FrameParent) {
			dir = -1
		}
		if v.aim >= 0 && v.aim < len(nb) && nb[v.aim].level == dir {
			v.walk(nb[v.aim].node)
		} else if row := lay.levels[dir]; len(row) > 0 {
			v.walk(row[0].node)
		}
	}
	return nil
}

// walk re-centres the graph on node n, making it the selection.
func (v *Graph) walk(n int32) {
	g := v.data.g
	name := g.Names.FuncName(g.Nodes[n].Node)
	v.name, v.aim = name, -1
	v.c.Ask(SelectMsg{Name: name})
}

// Centre returns the name of the function the graph is centred on and
// the names of the boxes shown, callers' levels first: for tui's tests.
func (v *Graph) Centre() (string, []string) {
	c := v.center()
	if c < 0 {
		return v.name, nil
	}
	lay := v.layout(c)
	var names []string
	for l := -lay.up; l <= lay.down; l++ {
		for _, b := range lay.levels[l] {
			names = append(names, v.data.g.Names.Name(v.data.g.Nodes[b.node].Node))
		}
	}
	return v.name, names
}

func (v *Graph) SetSearch(re *regexp.Regexp) bool {
	v.m.re = re
	if re == nil || !v.HasResult() {
		return false
	}
	return v.NextMatch(1)
}

// NextMatch re-centres on the next node (in the graph's order) whose
// name matches the search.
func (v *Graph) NextMatch(dir int) bool {
	if v.m.re == nil || !v.HasResult() {
		return false
	}
	g := v.data.g
	n := len(g.Nodes)
	start := int(v.center())
	for k := 1; k <= n; k++ {
		i := ((start+dir*k)%n + n) % n
		if v.m.re.MatchString(g.Names.Name(g.Nodes[i].Node)) {
			v.name, v.aim = g.Names.FuncName(g.Nodes[i].Node), -1
			return true
		}
	}
	return false
}

func (v *Graph) View() string {
	st := v.c.Styles
	if v.data == nil {
		return fillLines([]string{st.Dim.Render("  computing…")}, v.height)
	}
	g := v.data.g
	c := v.center()
	if len(g.Nodes) == 0 {
		return fillLines([]string{st.Dim.Render("  no samples with the current options")}, v.height)
	}
	if c < 0 {
		return fillLines([]string{st.Dim.Render(ansi.Truncate(fmt.Sprintf("  %s is not among the graph's %d nodes (nodecount=%d, nodefraction=%g): raise nodecount or lower nodefraction",
			v.name, len(g.Nodes), v.data.opt.NodeCount, v.data.opt.NodeFraction), v.width, "…"))}, v.height)
	}
	lay := v.layout(c)
	cn := &g.Nodes[c]
	total := g.Total
	offScreen := func(l int) string {
		if n := lay.hidden[l]; n > 0 {
			return fmt.Sprintf(" (%d off screen)", n)
		}
		return ""
	}
	summary := funcSummary(g.Names.Name(cn.Node), v.width, v.value, cn.Flat, cn.Cum, total,
		plural(len(cn.In), "caller")+offScreen(-1), plural(len(cn.Out), "callee")+offScreen(1),
		fmt.Sprintf("graph of %d nodes", len(g.Nodes)))
	canvas := newCanvas(v.width, v.height)
	canvas.put(0, 0, st.Key.Render(ansi.Truncate(summary, v.width, "…")), ansi.StringWidth(summary))
	nb := lay.neighbours()
	aimed := int32(-1)
	if v.aim >= 0 && v.aim < len(nb) {
		aimed = nb[v.aim].node
	}
	for l := -lay.up; l <= lay.down; l++ {
		for _, b := range lay.levels[l] {
			v.drawBox(canvas, b, b.node == c, b.node == aimed)
			if b.edge >= 0 {
				ey := b.y - 1 // callees hang from the line above
				if l < 0 {
					ey = b.y + graphBoxLines // callers' edges go down
				}
				v.drawEdge(canvas, b, ey, lay.at(b.level-sign(b.level), v.data.g.Edges[b.edge], b.level < 0))
			}
		}
	}
	v.drawOtherEdges(canvas, &lay)
	return canvas.String()
}

// footItem is an edge the footer lists, w columns (cut to them) at
// column x of line y.
type footItem struct {
	id      int32
	x, y, w int
}

// graphFootMin is the fewest columns an edge is cut to on a line of
// its own.
const graphFootMin = 24

// footer places the edges between boxes shown that the drawing does not
// show (a second caller, a call across levels or back up them) below
// the boxes, heaviest first, packed into the lines left after the lead
// (footHead); each is its stroke, value, caller → callee;
// more is how many did not fit, which the last line counts. An edge
// too wide for a line of its own is cut.
func (v *Graph) footer(lay *graphLayout) (items []footItem, more int) {
	head := len(v.footHead())
	y, x := lay.footY, head
	for k, id := range lay.extra {
		rest := len(lay.extra) - k - 1 // after this one
		w := v.edgeWidth(id)
		for {
			if y >= v.height {
				return items, rest + 1
			}
			sep := 0
			if x > head {
				sep = graphFootSepW
			}
			// The last line keeps room for the count of the rest.
			room := v.width - x - sep
			if y == v.height-1 && rest > 0 {
				room -= ansi.StringWidth(fmt.Sprintf("%s%d more", graphFootSep, rest))
			}
			if w <= room || x == head && room >= graphFootMin {
				items = append(items, footItem{id: id, x: x + sep, y: y, w: min(w, room)})
				x += sep + min(w, room)
				break
			}
			if x == head {
				return items, rest + 1
			}
			y, x = y+1, head
		}
	}
	return items, 0
}

// graphFootSep separates the footer's edges on a line; graphFootSepW
// is its width in columns (its middle dot takes two bytes).
const (
	graphFootSep  = " · "
	graphFootSepW = 3
)

// footHead leads the footer's list, saying what it is: the edges
// between the boxes that no line draws; shorter on a narrow screen,
// where the lines under it are indented as far.
func (v *Graph) footHead() string {
	if v.width >= 120 {
		return "  also (edges not drawn): "
	}
	return "  not drawn: "
}

// drawOtherEdges draws the footer (see footer).
func (v *Graph) drawOtherEdges(cv *canvas, lay *graphLayout) {
	items, more := v.footer(lay)
	if len(items) == 0 && more == 0 {
		return
	}
	st := v.c.Styles
	head := v.footHead()
	cv.put(0, lay.footY, st.Dim.Render(head), len(head))
	x, y := len(head), lay.footY
	for i, it := range items {
		if i > 0 && it.y == items[i-1].y {
			cv.put(it.x-graphFootSepW, it.y, st.Dim.Render(graphFootSep), graphFootSepW)
		}
		stroke, label, style := v.edgeText(it.id)
		cv.put(it.x, it.y, style.Render(stroke)+st.Dim.Render(ansi.Truncate(" "+label, it.w-1, "…")), it.w)
		x, y = it.x+it.w, it.y
	}
	if more > 0 && y < v.height {
		text := fmt.Sprintf("%d more", more)
		if len(items) > 0 {
			text = graphFootSep + text
		}
		cv.put(x, y, st.Dim.Render(text), ansi.StringWidth(text))
	}
}

// edgeWidth is the columns edge id takes in the footer.
func (v *Graph) edgeWidth(id int32) int {
	stroke, label, _ := v.edgeText(id)
	return ansi.StringWidth(stroke + " " + label)
}

// edgeText is edge id as the footer lists it: its stroke (dashed for an
// inlined call, dotted for a residual edge), "value caller → callee"
// and the stroke's style.
func (v *Graph) edgeText(id int32) (stroke, label string, style lipgloss.Style) {
	e := &v.data.g.Edges[id]
	label = v.edgeValue(e) + " " + v.boxName(e.From) + " → " + v.boxName(e.To)
	return edgeStroke(e), label, v.edgeStyle(e)
}

// edgeValue is an edge's value as its label starts, "(inline)" after
// an inlined call's.
func (v *Graph) edgeValue(e *analysis.GraphEdge) string {
	if e.Inline {
		return v.value(e.Value()) + " (inline)"
	}
	return v.value(e.Value())
}

// edgeStroke is the line an edge is drawn with: dotted for a residual
// edge (pprof's dotted line over dropped nodes), dashed for an inlined
// call.
func edgeStroke(e *analysis.GraphEdge) string {
	switch {
	case e.Residual:
		return "┊"
	case e.Inline:
		return "╎"
	}
	return "│"
}

// edgeStyle colours an edge by its share of the total, as boxes are.
func (v *Graph) edgeStyle(e *analysis.GraphEdge) lipgloss.Style {
	if v.c.Diff {
		return v.c.Styles.DiffText(e.Value(), v.data.g.Total)
	}
	return v.c.Styles.Heat(pct(e.Value(), v.data.g.Total))
}

// DrawnEdges are the edges the view shows around its centre: those that
// reached a box, then those its footer lists, and how many more the
// footer only counts: for tui's tests.
func (v *Graph) DrawnEdges() (reached, listed []int32, more int) {
	c := v.center()
	if c < 0 {
		return nil, nil, 0
	}
	lay := v.layout(c)
	for l := -lay.up; l <= lay.down; l++ {
		for _, b := range lay.levels[l] {
			if b.edge >= 0 {
				reached = append(reached, b.edge)
			}
		}
	}
	items, more := v.footer(&lay)
	for _, it := range items {
		listed = append(listed, it.id)
	}
	return reached, listed, more
}

// GraphFootLabel is an edge as the Graph view's footer lists it: for
// tui's tests.
func (v *Graph) GraphFootLabel(id int32) string {
	_, label, _ := v.edgeText(id)
	return label
}

// drawBox draws node b: its name in the top border, flat and cum
// inside, coloured by its cum's share of the total (as pprof's boxes
// are shaded), the centre bold and the aimed neighbour as the cursor.
func (v *Graph) drawBox(cv *canvas, b graphBox, centre, aimed bool) {
	st := v.c.Styles
	g := v.data.g
	n := &g.Nodes[b.node]
	inner := b.w - 2
	style := st.Heat(pct(n.Cum, g.Total))
	if v.c.Diff {
		style = st.DiffText(n.Cum, g.Total)
	}
	if centre {
		style = style.Bold(true)
	}
	name := fitName(v.boxName(b.node), inner-2)
	nameStyle := style
	if aimed {
		nameStyle = st.Selected
	}
	top := style.Render("┌ ") + highlight(name, v.m.re, nameStyle, st.Match) + style.Render(" "+strings.Repeat("─", max(0, inner-2-ansi.StringWidth(name)))+"┐")
	if centre {
		top = style.Render("┏ ") + highlight(name, v.m.re, nameStyle, st.Match) + style.Render(" "+strings.Repeat("━", max(0, inner-2-ansi.StringWidth(name)))+"┓")
	}
	vals := v.boxValues(n, inner)
	sideL, sideR, bottom := "│", "│", "└"+strings.Repeat("─", inner)+"┘"
	if centre {
		sideL, sideR, bottom = "┃", "┃", "┗"+strings.Repeat("━", inner)+"┛"
	}
	cv.put(b.x, b.y, top, b.w)
	cv.put(b.x, b.y+1, style.Render(sideL)+PadRight(vals, inner)+style.Render(sideR), b.w)
	cv.put(b.x, b.y+2, style.Render(bottom), b.w)
}

// boxName is node i's name as its box shows it: the function without
// its package path, as pprof's boxes.
func (v *Graph) boxName(i int32) string {
	g := v.data.g
	n := g.Nodes[i].Node
	info := g.Names.Info(n)
	full := g.Names.Name(n)
	if info.Name != "" {
		full = strings.Replace(full, info.Name, report.ShortName(info.Name), 1)
	}
	return full
}

// boxValues is a node's flat and cum as they fit in w columns.
func (v *Graph) boxValues(n *analysis.GraphNode, w int) string {
	total := v.data.g.Total
	for _, s := range []string{
		fmt.Sprintf(" %s of %s (%s)", v.value(n.Flat), v.value(n.Cum), strings.TrimSpace(share(n.Cum, total))),
		fmt.Sprintf(" %s of %s", v.value(n.Flat), v.value(n.Cum)),
		" " + v.value(n.Cum),
	} {
		if ansi.StringWidth(s) <= w {
			return s
		}
	}
	return ansi.Truncate(" "+v.value(n.Cum), w, "…")
}

// drawEdge draws the edge that reached b on line y: a stroke and the
// edge's value, dashed for an inlined call and dotted for a residual
// edge (pprof's dotted line over dropped nodes).
//
// other is the box at the edge's other end; when it is not straight
// above or below, the label names it. A label too long for the box's
// width is cut with "…": the name as the boxes cut theirs (fitName), or
// to "…" alone where a few of its letters would be all that is left;
// where not even the value fits, the value.
func (v *Graph) drawEdge(cv *canvas, b graphBox, y int, other graphBox) {
	st := v.c.Styles
	e := &v.data.g.Edges[b.edge]
	stroke := edgeStroke(e)
	room := b.w - 2 - ansi.StringWidth(stroke) // the label's columns
	label := " " + v.edgeValue(e)
	if name, arrow := v.edgeOther(b, other); name != "" {
		label += arrow
		if left := room - ansi.StringWidth(label); left >= minEdgeName || ansi.StringWidth(name) <= left {
			label += fitName(name, left)
		} else {
			label += "…"
		}
	}
	label = ansi.Truncate(label, room, "…")
	cv.put(b.x+2, y, v.edgeStyle(e).Render(stroke)+st.Dim.Render(label), ansi.StringWidth(stroke+label))
}

// minEdgeName is the fewest columns an edge label's name is cut to:
// "…" and five letters of it.
const minEdgeName = 6

// edgeOther is the name drawEdge labels the edge that reached b with,
// and the arrow before it: the box at its other end when that is not
// straight above or below b; else "".
func (v *Graph) edgeOther(b, other graphBox) (name, arrow string) {
	if other.x == b.x || other.level == 0 {
		return "", ""
	}
	if b.level < 0 {
		return v.boxName(other.node), " → "
	}
	return v.boxName(other.node), " ← "
}

// canvas is a screen of lines on which styled pieces are put at a
// column: each line keeps its pieces in order and pads between them.
type canvas struct {
	w, h  int
	lines [][]piece
}

type piece struct {
	x, w int
	s    string
}

func newCanvas(w, h int) *canvas { return &canvas{w: w, h: h, lines: make([][]piece, h)} }

// put places styled text s, w columns wide, at column x of line y;
// pieces must not overlap and arrive left to right on a line, or are
// dropped.
func (cv *canvas) put(x, y int, s string, w int) {
	if y < 0 || y >= cv.h || x < 0 || x >= cv.w {
		return
	}
	if x+w > cv.w {
		s, w = ansi.Truncate(s, cv.w-x, ""), cv.w-x
	}
	line := cv.lines[y]
	if n := len(line); n > 0 && line[n-1].x+line[n-1].w > x {
		return
	}
	cv.lines[y] = append(line, piece{x, w, s})
}

func (cv *canvas) String() string {
	out := make([]string, cv.h)
	for y, line := range cv.lines {
		var b strings.Builder
		at := 0
		for _, p := range line {
			b.WriteString(strings.Repeat(" ", p.x-at))
			b.WriteString(p.s)
			at = p.x + p.w
		}
		b.WriteString(strings.Repeat(" ", max(0, cv.w-at)))
		out[y] = b.String()
	}
	return strings.Join(out, "\n")
}

// Data returns the graph shown, for tui's tests (nil before the first).
func (v *Graph) Data() *analysis.Graph {
	if v.data == nil {
		return nil
	}
	return v.data.g
}

// GraphEdgeLabel is an edge's value as -dot labels it (with " (inline)"
// for an inlined call), in the graph's unit: for tui's tests.
func GraphEdgeLabel(g *analysis.Graph, e analysis.GraphEdge) string {
	top := &analysis.Top{SampleType: g.SampleType, Total: g.Total}
	for _, n := range g.Nodes {
		top.Rows = append(top.Rows, analysis.Row{Flat: n.Flat, Cum: n.Cum})
	}
	label := analysis.DefaultOptions().ValueFormat(top, g.SampleType.Unit)(e.Value())
	if e.Inline {
		label += " (inline)"
	}
	return label
}
