package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
)

// graphTop is a table of g's nodes, for choosing the unit values print
// in as pprof chooses it from the graph's nodes.
func graphTop(g *analysis.Graph) *analysis.Top {
	t := &analysis.Top{SampleType: g.SampleType, Total: g.Total}
	for _, n := range g.Nodes {
		t.Rows = append(t.Rows, analysis.Row{Node: n.Node, Flat: n.Flat, Cum: n.Cum})
	}
	return t
}

// graphLabels are the lines pprof prints above a graph report: the
// profile's facts (always with full, unless compact_labels), the active
// filters, what the nodes account for and what was dropped.
func graphLabels(p *format.Profile, g *analysis.Graph, opt analysis.Options, value func(int64) string, droppedEdges int, full bool) []string {
	var lines []string
	if full || !opt.CompactLabels {
		lines = header(p, sampleTypeName(g.SampleType, opt), g.SampleType.Unit, g.Total, value)
	}
	lines = append(lines, activeFilters(opt)...)
	var shown int64
	for _, n := range g.Nodes {
		shown += n.Flat
	}
	total := g.Total
	lines = append(lines, fmt.Sprintf("Showing nodes accounting for %s, %s of %s total",
		value(shown), strings.TrimSpace(analysis.Percentage(shown, total)), value(total)))
	if total != 0 {
		if n := g.DroppedNodes; n > 0 {
			lines = append(lines, fmt.Sprintf("Dropped %d %s (cum <= %s)", n, plural(n, "node"), value(abs64(int64(float64(total)*opt.NodeFraction)))))
		}
		if n := droppedEdges; n > 0 {
			lines = append(lines, fmt.Sprintf("Dropped %d %s (freq <= %s)", n, plural(n, "edge"), value(abs64(int64(float64(total)*opt.EdgeFraction)))))
		}
		if n := len(g.Nodes); n > 0 && n < g.OrigCount {
			lines = append(lines, fmt.Sprintf("Showing top %d nodes out of %d", n, g.OrigCount))
		}
	}
	if full {
		lines = append(lines, "\nSee https://git.io/JfYMW for how to read the graph")
	}
	return lines
}

// Tree writes g as `go tool pprof -tree` prints it: each node with its
// callers above and its callees below.
func Tree(w io.Writer, p *format.Profile, g *analysis.Graph, opt analysis.Options) error {
	value := opt.ValueFormat(graphTop(g), g.SampleType.Unit)
	bw := bufio.NewWriter(w)
	bw.WriteString(strings.Join(graphLabels(p, g, opt, value, 0, false), "\n"))
	bw.WriteString("\n" + peekSeparator + "\n" + peekLegend + "\n")
	edge := func(e *analysis.GraphEdge, other int32, cum int64) {
		var inline string
		if e.Inline {
			inline = " (inline)"
		}
		fmt.Fprintf(bw, "%50s %s |   %s%s\n", value(e.Weight), analysis.Percentage(e.Weight, cum), g.Names.Name(g.Nodes[other].Node), inline)
	}
	var sum int64
	for _, n := range g.Nodes {
		bw.WriteString(peekSeparator + "\n")
		for _, id := range n.In {
			e := &g.Edges[id]
			edge(e, e.From, n.Cum)
		}
		sum += n.Flat
		fmt.Fprintf(bw, "%10s %s %s %10s %s                | %s\n",
			value(n.Flat), analysis.Percentage(n.Flat, g.Total), analysis.Percentage(sum, g.Total),
			value(n.Cum), analysis.Percentage(n.Cum, g.Total), g.Names.Name(n.Node))
		for _, id := range n.Out {
			e := &g.Edges[id]
			edge(e, e.To, n.Cum)
		}
	}
	if len(g.Nodes) > 0 {
		bw.WriteString(peekSeparator + "\n")
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing tree: %w", err)
	}
	return nil
}

// Dot writes g as `go tool pprof -dot` writes it: a Graphviz graph with
// a legend, a box per node (sized by flat, coloured by cum), its label
// tags as nodelets, and an arrow per edge.
func Dot(w io.Writer, p *format.Profile, g *analysis.Graph, opt analysis.Options) error {
	value := opt.ValueFormat(graphTop(g), g.SampleType.Unit)
	bw := bufio.NewWriter(w)
	title := "unnamed"
	var tooltipTitle string
	if len(p.Mappings) > 0 && p.Mappings[0].File != "" {
		title = filepath.Base(p.Mappings[0].File)
		tooltipTitle = title
	}
	fmt.Fprintln(bw, `digraph "`+title+`" {`)
	fmt.Fprintln(bw, `node [style=filled fillcolor="#f8f8f8"]`)
	labels := graphLabels(p, g, opt, value, g.DroppedEdges, true)
	escaped := make([]string, len(labels))
	for i, l := range labels {
		escaped[i] = escapeForDot(l)
	}
	fmt.Fprintf(bw, `subgraph cluster_L { "%s" [shape=box fontsize=16`, escaped[0])
	fmt.Fprintf(bw, ` label="%s\l"`, strings.Join(escaped, `\l`))
	if tooltipTitle != "" {
		fmt.Fprintf(bw, ` tooltip="%s"`, tooltipTitle)
	}
	fmt.Fprintf(bw, "] }\n")
	if len(g.Nodes) > 0 {
		total := g.Total
		maxFlat := 0.0
		for _, n := range g.Nodes {
			maxFlat = max(maxFlat, float64(abs64(n.Flat)))
		}
		hasNodelets := make([]bool, len(g.Nodes))
		for i := range g.Nodes {
			n := &g.Nodes[i]
			dotNode(bw, g, n, i+1, maxFlat, value)
			hasNodelets[i] = dotNodelets(bw, n, i+1, len(n.Out) > 0, value)
		}
		for _, e := range g.Edges {
			dotEdge(bw, g, &e, hasNodelets[e.From], total, value)
		}
	}
	fmt.Fprintln(bw, "}")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing dot: %w", err)
	}
	return nil
}

func dotNode(w io.Writer, g *analysis.Graph, n *analysis.GraphNode, id int, maxFlat float64, value func(int64) string) {
	info := g.Names.Info(n.Node)
	flat, cum := n.Flat, n.Cum
	label := multilineName(info)
	flatValue := value(flat)
	if flat != 0 {
		label += fmt.Sprintf(`%s (%s)`, flatValue, strings.TrimSpace(analysis.Percentage(flat, g.Total)))
	} else {
		label += "0"
	}
	cumValue := flatValue
	if cum != flat {
		if flat != 0 {
			label += `\n`
		} else {
			label += " "
		}
		cumValue = value(cum)
		label += fmt.Sprintf(`of %s (%s)`, cumValue, strings.TrimSpace(analysis.Percentage(cum, g.Total)))
	}
	fontSize := 8
	if maxFlat != 0 && flat != 0 && float64(abs64(flat)) <= maxFlat {
		fontSize += int(math.Ceil(16 * math.Sqrt(float64(abs64(flat))/maxFlat)))
	}
	score := float64(cum) / float64(abs64(g.Total))
	fmt.Fprintf(w, "N%d [%s]\n", id, fmt.Sprintf(`label="%s" id="node%d" fontsize=%d shape=box tooltip="%s (%s)" color="%s" fillcolor="%s"`,
		label, id, fontSize, escapeForDot(g.Names.Name(n.Node)), cumValue, DotColor(score, false), DotColor(score, true)))
}

// dotNodelets writes a node's label tags as pprof does: its four
// heaviest label sets (flat ones for a node with callees, else cum),
// each with its numeric labels grouped into at most four ranges, and
// the numeric labels of its samples without labels. It reports whether
// it wrote any.
func dotNodelets(w io.Writer, n *analysis.GraphNode, id int, flatTags bool, value func(int64) string) bool {
	var b strings.Builder
	ts := append([]analysis.GraphTag(nil), n.LabelTags...)
	sortTags(ts, flatTags)
	if len(ts) > analysis.MaxNodelets {
		ts = ts[:analysis.MaxNodelets]
	}
	for i, t := range ts {
		v := t.CumValue()
		if flatTags {
			v = t.FlatValue()
		}
		if v == 0 {
			continue
		}
		weight := value(v)
		fmt.Fprintf(&b, `N%d_%d [label = "%s" id="N%d_%d" fontsize=8 shape=box3d tooltip="%s"]`+"\n", id, i, t.Name, id, i, weight)
		fmt.Fprintf(&b, `N%d -> N%d_%d [label=" %s" weight=100 tooltip="%s" labeltooltip="%s"]`+"\n", id, id, i, weight, weight, weight)
		if nts := n.NumericTags[t.Name]; nts != nil {
			numericNodelets(&b, nts, flatTags, fmt.Sprintf(`N%d_%d`, id, i), value)
		}
	}
	if nts := n.NumericTags[""]; nts != nil {
		numericNodelets(&b, nts, flatTags, fmt.Sprintf(`N%d`, id), value)
	}
	io.WriteString(w, b.String())
	return b.Len() > 0
}

func numericNodelets(b *strings.Builder, nts []analysis.GraphTag, flatTags bool, source string, value func(int64) string) {
	for j, t := range collapsedTags(nts, analysis.MaxNodelets, flatTags) {
		v, attr := t.CumValue(), ` style="dotted"`
		if flatTags || t.FlatValue() == t.CumValue() {
			v, attr = t.FlatValue(), ""
		}
		if v != 0 {
			weight := value(v)
			fmt.Fprintf(b, `N%s_%d [label = "%s" id="N%s_%d" fontsize=8 shape=box3d tooltip="%s"]`+"\n", source, j, t.Name, source, j, weight)
			fmt.Fprintf(b, `%s -> N%s_%d [label=" %s" weight=100 tooltip="%s" labeltooltip="%s"%s]`+"\n", source, source, j, weight, weight, weight, attr)
		}
	}
}

// sortTags orders tags as pprof's SortTags: by cum (unless flat), flat,
// then name.
func sortTags(ts []analysis.GraphTag, flat bool) {
	sort.Slice(ts, func(i, j int) bool {
		a, b := &ts[i], &ts[j]
		if !flat && a.Cum != b.Cum {
			return abs64(a.Cum) > abs64(b.Cum)
		}
		if a.Flat != b.Flat {
			return abs64(a.Flat) > abs64(b.Flat)
		}
		return a.Name < b.Name
	})
}

// collapsedTags groups numeric tags into count ranges around the count
// heaviest, as pprof.
func collapsedTags(ts []analysis.GraphTag, count int, flat bool) []analysis.GraphTag {
	ts = append([]analysis.GraphTag(nil), ts...)
	sortTags(ts, flat)
	if len(ts) <= count {
		return ts
	}
	groups := make([][]analysis.GraphTag, count)
	for i, t := range ts[:count] {
		groups[i] = []analysis.GraphTag{t}
	}
	for _, t := range ts[count:] {
		g, d := 0, tagDistance(t, groups[0][0])
		for i := 1; i < count; i++ {
			if nd := tagDistance(t, groups[i][0]); nd < d {
				g, d = i, nd
			}
		}
		groups[g] = append(groups[g], t)
	}
	var out []analysis.GraphTag
	for _, g := range groups {
		l, f, c := tagGroupLabel(g)
		out = append(out, analysis.GraphTag{Name: l, Flat: f, Cum: c})
	}
	sortTags(out, flat)
	return out
}

func tagDistance(t, u analysis.GraphTag) float64 {
	v, _ := analysis.ScaleValue(u.Value, u.Unit, t.Unit)
	if v < float64(t.Value) {
		return float64(t.Value) - v
	}
	return v - float64(t.Value)
}

func tagGroupLabel(g []analysis.GraphTag) (label string, flat, cum int64) {
	if len(g) == 1 {
		t := g[0]
		return analysis.Label(t.Value, t.Unit), t.FlatValue(), t.CumValue()
	}
	lo, hi := g[0], g[0]
	df, f := lo.FlatDiv, lo.Flat
	dc, c := lo.CumDiv, lo.Cum
	for _, t := range g[1:] {
		if v, _ := analysis.ScaleValue(t.Value, t.Unit, lo.Unit); int64(v) < lo.Value {
			lo = t
		}
		if v, _ := analysis.ScaleValue(t.Value, t.Unit, hi.Unit); int64(v) > hi.Value {
			hi = t
		}
		f += t.Flat
		df += t.FlatDiv
		c += t.Cum
		dc += t.CumDiv
	}
	if df != 0 {
		f /= df
	}
	if dc != 0 {
		c /= dc
	}
	return analysis.Label(lo.Value, lo.Unit) + ".." + analysis.Label(hi.Value, hi.Unit), f, c
}

func dotEdge(w io.Writer, g *analysis.Graph, e *analysis.GraphEdge, hasNodelets bool, total int64, value func(int64) string) {
	var inline string
	if e.Inline {
		inline = `\n (inline)`
	}
	v := e.Value()
	wv := value(v)
	attr := fmt.Sprintf(`label=" %s%s"`, wv, inline)
	if total != 0 {
		if weight := 1 + int(min(abs64(v*100/total), 100)); weight > 1 {
			attr = fmt.Sprintf(`%s weight=%d`, attr, weight)
		}
		if width := 1 + int(min(abs64(v*5/total), 5)); width > 1 {
			attr = fmt.Sprintf(`%s penwidth=%d`, attr, width)
		}
		attr = fmt.Sprintf(`%s color="%s"`, attr, DotColor(float64(v)/float64(abs64(total)), false))
	}
	arrow := "->"
	if e.Residual {
		arrow = "..."
	}
	from, to := g.Nodes[e.From].Node, g.Nodes[e.To].Node
	tooltip := fmt.Sprintf(`"%s %s %s (%s)"`, escapeForDot(g.Names.Name(from)), arrow, escapeForDot(g.Names.Name(to)), wv)
	attr = fmt.Sprintf(`%s tooltip=%s labeltooltip=%s`, attr, tooltip, tooltip)
	if e.Residual {
		attr += ` style="dotted"`
	}
	if hasNodelets {
		attr += " minlen=2"
	}
	fmt.Fprintf(w, "N%d -> N%d [%s]\n", e.From+1, e.To+1, attr)
}

// DotColor is pprof's colour for a share of the total in [-1, 1]: grey
// near 0, red towards 1, green towards -1; light for a background.
func DotColor(score float64, background bool) string {
	const shift = 0.7
	saturation, value := 1.0, 0.7
	if background {
		saturation, value = 0.1, 0.93
	}
	score = math.Max(-1.0, math.Min(1.0, score))
	if math.Abs(score) < 0.2 {
		saturation *= math.Abs(score) / 0.2
	}
	if score > 0.0 {
		score = math.Pow(score, 1.0-shift)
	}
	if score < 0.0 {
		score = -math.Pow(-score, 1.0-shift)
	}
	var r, g, b float64
	if score < 0.0 {
		g = value
		r = value * (1 + saturation*score)
	} else {
		r = value
		g = value * (1 - saturation*score)
	}
	b = value * (1 - saturation)
	return fmt.Sprintf("#%02x%02x%02x", uint8(r*255.0), uint8(g*255.0), uint8(b*255.0))
}

// multilineName is a node's name as -dot labels it: the function name
// shortened, a line per part.
func multilineName(info analysis.NodeInfo) string {
	name := escapeForDot(ShortName(info.Name))
	name = strings.ReplaceAll(name, "::", `\n`)
	name = strings.ReplaceAll(name, "[...]", "[…]")
	name = strings.ReplaceAll(name, ".", `\n`)
	info.Name = name
	if info.File != "" {
		info.File = filepath.Base(info.File)
	}
	return strings.Join(nameComponents(&info), `\n`) + `\n`
}

// nameComponents are the parts of a node's printable name.
func nameComponents(i *analysis.NodeInfo) []string {
	var name []string
	if i.Address != 0 {
		name = append(name, fmt.Sprintf("%016x", i.Address))
	}
	if i.Name != "" {
		name = append(name, i.Name)
	}
	switch {
	case i.Line != 0:
		s := fmt.Sprintf("%s:%d", i.File, i.Line)
		if i.Column != 0 {
			s += fmt.Sprintf(":%d", i.Column)
		}
		name = append(name, s)
	case i.File != "":
		name = append(name, i.File)
	case i.Name != "":
	case i.Objfile != "":
		name = append(name, "["+filepath.Base(i.Objfile)+"]")
	default:
		name = append(name, "<unknown>")
	}
	return name
}

var (
	javaName     = regexp.MustCompile(`^(?:[a-z]\w*\.)*([A-Z][\w\$]*\.(?:<init>|[a-z][\w\$]*(?:\$\d+)?))(?:(?:\()|$)`)
	goName       = regexp.MustCompile(`^(?:[\w\-\.]+\/)+([^.]+\..+)`)
	goVersion    = regexp.MustCompile(`^(.*?)/v(?:[2-9]|[1-9][0-9]+)([./].*)$`)
	cppName      = regexp.MustCompile(`^(?:[_a-zA-Z]\w*::)+(_*[A-Z]\w*::~?[_a-zA-Z]\w*(?:<.*>)?)`)
	cppAnonymous = regexp.MustCompile(`^\(anonymous namespace\)::`)
)

// ShortName is a function name without its package path (Go), package
// (Java) or namespaces (C++), as pprof shortens names in graphs.
func ShortName(f string) string {
	f = cppAnonymous.ReplaceAllString(f, "")
	f = goVersion.ReplaceAllString(f, `${1}${2}`)
	for _, re := range []*regexp.Regexp{goName, javaName, cppName} {
		if m := re.FindStringSubmatch(f); len(m) >= 2 {
			return strings.Join(m[1:], "")
		}
	}
	return f
}

// escapeForDot escapes quotes and backslashes, and makes newlines
// Graphviz's left-justified line breaks.
func escapeForDot(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`), "\n", `\l`)
}

// Callgrind writes g (made at the addresses granularity, untrimmed) in
// the callgrind format, as `go tool pprof -callgrind`, for KCachegrind.
func Callgrind(w io.Writer, g *analysis.Graph, opt analysis.Options) error {
	sampleUnit := g.SampleType.Unit
	unit := analysis.CallgrindUnit(graphTop(g), sampleUnit, opt)
	scale := func(v int64) int64 {
		x, _ := analysis.ScaleValue(v, sampleUnit, unit)
		return int64(x)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "positions: instr line")
	fmt.Fprintln(bw, "events:", sampleTypeName(g.SampleType, opt)+"("+unit+")")
	infos := make([]analysis.NodeInfo, len(g.Nodes))
	for i, n := range g.Nodes {
		infos[i] = g.Names.Info(n.Node)
		infos[i].Objfile = n.Objfile
	}
	names := disambiguatedNames(g, infos)
	objfiles, files, fns := map[string]int{}, map[string]int{}, map[string]int{}
	var prev *analysis.NodeInfo
	for i, n := range g.Nodes {
		info := &infos[i]
		if prev == nil || info.Objfile != prev.Objfile || info.File != prev.File || info.Name != prev.Name {
			fmt.Fprintln(bw)
			fmt.Fprintln(bw, "ob="+callgrindName(objfiles, info.Objfile))
			fmt.Fprintln(bw, "fl="+callgrindName(files, info.File))
			fmt.Fprintln(bw, "fn="+callgrindName(fns, info.Name))
		}
		fmt.Fprintf(bw, "%s %d %d\n", callgrindAddress(prev, info.Address), info.Line, scale(n.Flat))
		for _, id := range n.Out {
			e := &g.Edges[id]
			callee := &infos[e.To]
			fmt.Fprintln(bw, "cfl="+callgrindName(files, callee.File))
			fmt.Fprintln(bw, "cfn="+callgrindName(fns, names[e.To]))
			fmt.Fprintf(bw, "calls=0 %s %d\n", callgrindAddress(prev, callee.Address), callee.Line)
			fmt.Fprintf(bw, "* * %d\n", scale(e.Weight))
		}
		prev = info
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing callgrind: %w", err)
	}
	return nil
}

// disambiguatedNames are the nodes' function names, numbered where one
// file and name stand for several functions: of different binaries, or
// in a call_tree graph under different callers.
func disambiguatedNames(g *analysis.Graph, infos []analysis.NodeInfo) []string {
	type key struct{ file, name string }
	type fn struct {
		objfile string
		ctx     int32
	}
	index := map[key]map[fn]int{}
	for i, info := range infos {
		k := key{info.File, info.Name}
		m := index[k]
		if m == nil {
			m = map[fn]int{}
			index[k] = m
		}
		if f := (fn{info.Objfile, g.Nodes[i].Context}); m[f] == 0 {
			m[f] = len(m) + 1
		}
	}
	out := make([]string, len(infos))
	for i, info := range infos {
		out[i] = info.Name
		if m := index[key{info.File, info.Name}]; len(m) > 1 {
			out[i] += fmt.Sprintf(" [%d/%d]", m[fn{info.Objfile, g.Nodes[i].Context}], len(m))
		}
	}
	return out
}

func callgrindName(names map[string]int, name string) string {
	if name == "" {
		return ""
	}
	if id, ok := names[name]; ok {
		return fmt.Sprintf("(%d)", id)
	}
	id := len(names) + 1
	names[name] = id
	return fmt.Sprintf("(%d) %s", id, name)
}

func callgrindAddress(prev *analysis.NodeInfo, curr uint64) string {
	abs := fmt.Sprintf("%#x", curr)
	if prev == nil {
		return abs
	}
	if prev.Address == curr {
		return "*"
	}
	rel := fmt.Sprintf("%+d", int64(curr-prev.Address))
	if len(rel) < len(abs) {
		return rel
	}
	return abs
}

// Comments writes the profile's comments, one a line, as
// `go tool pprof -comments`.
func Comments(w io.Writer, p *format.Profile) error {
	bw := bufio.NewWriter(w)
	for _, c := range p.Comments {
		fmt.Fprintln(bw, c)
	}
	return bw.Flush()
}

// GraphOptions are opt as pprof applies them to the graph of report
// (tree, dot, callgrind, topproto), and the kind of graph it builds:
// nodecount is 80 for a graph unless counted (given), and callgrind is
// untrimmed, at the addresses granularity.
func GraphOptions(report string, opt analysis.Options, counted bool) (analysis.Options, analysis.GraphKind) {
	kind := analysis.GraphText
	switch report {
	case "dot", "svg", "png", "pdf":
		kind = analysis.GraphVisual
	}
	if !counted && report != "topproto" {
		opt.NodeCount = 80
	}
	if report == "callgrind" {
		kind = analysis.GraphCalls
		opt.NoTrim = true
		opt.Granularity = "addresses"
	}
	return opt.Trimmed(), kind
}

// TopProto is `go tool pprof -topproto`'s profile of g: one sample per
// node, its location the node (no mapping), its values cum and flat in
// the graph's output unit. Write it with format.Write.
func TopProto(p *format.Profile, g *analysis.Graph, opt analysis.Options) *format.Profile {
	sampleUnit := g.SampleType.Unit
	unit := opt.Unit
	if unit == "" || unit == "minimum" {
		unit = analysis.OutputUnit(graphTop(g), sampleUnit)
		if unit == "minimum" {
			unit = opt.Unit
		}
	}
	out := &format.Profile{
		SampleTypes:   []format.ValueType{{Type: "cum", Unit: unit}, {Type: "flat", Unit: unit}},
		TimeNanos:     p.TimeNanos,
		DurationNanos: p.DurationNanos,
		PeriodType:    p.PeriodType,
		Period:        p.Period,
		Strings:       []string{""},
		LabelSets:     format.LabelSets{Off: []int32{0, 0}},
		Stacks:        format.Stacks{Off: []int32{0}},
		Samples:       format.Samples{Values: make([][]int64, 2)},
	}
	funcs := map[string]int32{}
	scale := func(v int64) int64 {
		x, _ := analysis.ScaleValue(v, sampleUnit, unit)
		return int64(x)
	}
	for i, n := range g.Nodes {
		info := g.Names.Info(n.Node)
		key := fmt.Sprintf("%q%q%q%d", info.Name, "", info.File, info.StartLine)
		f, ok := funcs[key]
		if !ok {
			f = int32(len(out.Functions))
			funcs[key] = f
			out.Functions = append(out.Functions, format.Function{ID: uint64(f) + 1, Name: info.Name, Filename: info.File, StartLine: info.StartLine})
		}
		out.Locations = append(out.Locations, format.Location{
			ID: uint64(i + 1), Address: info.Address, Mapping: -1,
			Lines: out.AddLines(format.Line{Function: f, Line: info.Line, Column: info.Column}),
		})
		out.Stacks.Locs = append(out.Stacks.Locs, int32(i))
		out.Stacks.Off = append(out.Stacks.Off, int32(i+1))
		out.Samples.Stack = append(out.Samples.Stack, int32(i))
		out.Samples.Labels = append(out.Samples.Labels, 0)
		out.Samples.Values[0] = append(out.Samples.Values[0], scale(n.Cum))
		out.Samples.Values[1] = append(out.Samples.Values[1], scale(n.Flat))
	}
	return out
}

// RunDot draws a DOT graph with Graphviz's dot into w in format (svg,
// png, pdf), as pprof does; an error names dot when it is not installed.
func RunDot(w io.Writer, dot io.Reader, format string) error {
	path, err := exec.LookPath("dot")
	if err != nil {
		return fmt.Errorf("-%s needs Graphviz's dot program, which is not on the PATH (install graphviz, or use -dot)", format)
	}
	cmd := exec.Command(path, "-T"+format)
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = dot, w, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("dot -T%s: %v: %s", format, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}
