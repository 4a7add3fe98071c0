package analysis

import (
	"path/filepath"
	"regexp"
	"slices"
	"sort"

	"github.com/pprof-tui/pprof-tui/format"
)

// SourceLine is one source line of a function with its values.
type SourceLine struct {
	Line      int64
	Flat, Cum int64
}

// FunctionSource is the per-line profile of one function in one file, as
// pprof's -list annotates source.
type FunctionSource struct {
	Name string
	// File is the profile's path, cleaned and trimmed by trim_path and
	// pprof's heuristics (TrimSourcePath), as pprof's -list prints it.
	File string
	// StartLine is the line the function starts at, 0 when unknown.
	StartLine int64
	// Flat and Cum are Σ of the lines' values: the header of pprof's
	// -list. A recursive function's lines count its recursion more than
	// once, so Cum can exceed FuncCum.
	Flat, Cum int64
	// FuncCum is the function's cum (its -top row at filefunctions).
	FuncCum int64
	Lines   []SourceLine // with samples, by line number
}

// Source returns, for every function whose name matches re, its lines
// with flat and cum at lines granularity (as pprof's -list; noinlines as
// opt says), ordered by file and line, and the functions by name.
// A function whose frames have no file has no lines.
func (e *Engine) Source(opt Options, re *regexp.Regexp) (total int64, out []FunctionSource, err error) {
	_, total, out, err = e.source(opt, re)
	return total, out, err
}

func (e *Engine) source(opt Options, re *regexp.Regexp) (st format.ValueType, total int64, out []FunctionSource, err error) {
	opt.Granularity = "lines"
	opt.NodeFraction, opt.NodeCount = 0, 0
	t, st, total, each, funcCum, err := e.lineValues(opt, re)
	if err != nil {
		return st, 0, nil, err
	}
	trim := func(file string) string {
		if file == "" {
			return ""
		}
		return filepath.Clean(TrimSourcePath(file, opt.TrimPath, opt.SourcePath))
	}
	type fk struct{ name, file string }
	index := map[fk]int{}
	each(func(n int32, flat, cum int64) {
		info := t.info(n)
		k := fk{info.Name, trim(info.File)}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, FunctionSource{Name: info.Name, File: k.file})
		}
		f := &out[i]
		if k.file != "" {
			f.Lines = append(f.Lines, SourceLine{Line: info.Line, Flat: flat, Cum: cum})
		}
		f.Flat += flat
		f.Cum += cum
	})
	// A function's cum is its row at the filefunctions granularity; where
	// no two functions share a name but not a file, that row is its
	// functions row, the table the Top view has usually kept (a
	// filefunctions table of its own took seconds on 100,000 functions).
	fnOpt := opt
	fnOpt.Granularity = "filefunctions"
	unnamed := slices.ContainsFunc(out, func(f FunctionSource) bool { return f.Name == "" })
	byName := e.oneFilePerName() && !unnamed
	if byName {
		fnOpt.Granularity = "functions"
	}
	listing := func(name, file string) (int, bool) {
		i, ok := index[fk{name, trim(file)}]
		return i, ok
	}
	if funcCum != nil && !unnamed && e.completeTop(fnOpt) == nil {
		// The walk that summed the lines summed each function's cum
		// too: a lines-table function is a filefunctions node (and,
		// with one file per name, a functions node).
		for f, c := range funcCum {
			if i, ok := listing(t.funcs[f].Name, t.funcs[f].File); ok && c != 0 {
				out[i].FuncCum += c
			}
		}
	} else if err := e.funcCumFromTop(fnOpt, byName, out, listing); err != nil {
		return st, 0, nil, err
	}
	// Start lines: the lines granularity keeps them out of the nodes.
	listed := make(map[string]bool, len(out))
	for _, f := range out {
		listed[f.Name] = true
	}
	for _, fn := range e.p.Functions {
		if fn.StartLine == 0 || fn.Filename == "" || !listed[fn.Name] {
			continue
		}
		if i, ok := index[fk{fn.Name, trim(filepath.Clean(fn.Filename))}]; ok && out[i].StartLine == 0 {
			out[i].StartLine = fn.StartLine
		}
	}
	for i := range out {
		lines := out[i].Lines
		sort.Slice(lines, func(a, b int) bool { return lines[a].Line < lines[b].Line })
		// Nodes differing only in what the report does not show (a
		// column) are one line here.
		merged := lines[:0]
		for _, l := range lines {
			if n := len(merged); n > 0 && merged[n-1].Line == l.Line {
				merged[n-1].Flat += l.Flat
				merged[n-1].Cum += l.Cum
				continue
			}
			merged = append(merged, l)
		}
		out[i].Lines = merged
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Name != out[b].Name {
			return out[a].Name < out[b].Name
		}
		return out[a].File < out[b].File
	})
	return st, total, out, nil
}

// funcCumFromTop sets the listed functions' FuncCum from the Top table
// for fnOpt (functions or filefunctions): by name alone with byName, else
// through index.
func (e *Engine) funcCumFromTop(fnOpt Options, byName bool, out []FunctionSource, index func(name, file string) (int, bool)) error {
	fnTop, err := e.Top(fnOpt)
	if err != nil {
		return err
	}
	named := map[string]int{} // by name alone, when byName
	if byName {
		for i, f := range out {
			named[f.Name] = i
		}
	}
	for _, r := range fnTop.Rows {
		info := fnTop.Nodes.Info(r.Node)
		if byName {
			if i, ok := named[info.Name]; ok && info.Name != "" {
				out[i].FuncCum += r.Cum
			}
			continue
		}
		if i, ok := index(info.Name, info.File); ok {
			out[i].FuncCum += r.Cum
		}
	}
	return nil
}

// lineValues gives, through each, the value of every node of the lines
// table that is a row under opt (a lines granularity, nothing trimmed)
// and whose function's name re matches: from the Top table kept for opt
// if there is one (the Top view at lines); else from a walk of the
// stacks through those functions' locations alone (lineSums), or, for
// mean values or relative percentages, an aggregate of its own. A Top
// table of the 1.1M lines of 100,000 functions took 0.5 s; an aggregate
// of ten million stacks whose plain stacks were not known yet, 2.5 s.
func (e *Engine) lineValues(opt Options, re *regexp.Regexp) (t *nodeTable, st format.ValueType, total int64, each func(f func(n int32, flat, cum int64)), funcCum []int64, err error) {
	if top := e.completeTop(opt); top != nil {
		matches := nodeFuncMatcher(top.Nodes.t, re)
		each = func(f func(n int32, flat, cum int64)) {
			for _, r := range top.Rows {
				if matches(r.Node) {
					f(r.Node, r.Flat, r.Cum)
				}
			}
		}
		return top.Nodes.t, top.SampleType, top.Total, each, nil, nil
	}
	q, err := e.newQuery(opt)
	if err != nil {
		return nil, st, 0, nil, nil, err
	}
	matches := nodeFuncMatcher(q.nodes, re)
	st = e.p.SampleTypes[q.vi]
	if !q.mean && !opt.RelativePercentages {
		want := make([]bool, q.nodes.len())
		for n := range want {
			want[n] = matches(int32(n))
		}
		flat, cum, funcCum, total := q.lineSums(want)
		each = func(f func(n int32, flat, cum int64)) {
			for n, w := range want {
				if !w || flat[n] == 0 && cum[n] == 0 {
					continue
				}
				if opt.DropNegative && (flat[n] < 0 || flat[n] == 0 && cum[n] < 0) {
					continue // as aggregate.valued
				}
				f(int32(n), flat[n], cum[n])
			}
		}
		return q.nodes, st, total, each, funcCum, nil
	}
	q.noMarkers = true
	a := q.aggregate()
	nodes, _ := a.valued()
	each = func(f func(n int32, flat, cum int64)) {
		for _, n := range nodes {
			if matches(n) {
				f(n, a.flatValue(n), a.cumValue(n))
			}
		}
	}
	return q.nodes, st, a.total, each, nil, nil
}

// nodeFuncMatcher reports whether re matches a node's function name (""
// for a node without one), matching each function once.
func nodeFuncMatcher(t *nodeTable, re *regexp.Regexp) func(n int32) bool {
	match := make([]int8, len(t.funcs)+1) // per function (+1: none): 0 unknown, 1 matches, 2 not
	return func(n int32) bool {
		f := t.nodeFunc[n] + 1
		if match[f] == 0 {
			match[f] = 2
			name := ""
			if f > 0 {
				name = t.funcName(f - 1)
			}
			if re.MatchString(name) {
				match[f] = 1
			}
		}
		return match[f] == 1
	}
}

// lineSums sums the flat and cum of the nodes want flags, and the cum
// of their functions (funcCum, by the node table's function; want flags
// every node of a function it flags one of), walking only the stacks
// through a location with such a node, on two cores; total is the
// percentage denominator (the stack weights' total).
func (q *query) lineSums(want []bool) (flat, cum, funcCum []int64, total int64) {
	locWanted := q.locsWith(want)
	w, _, total, _ := q.stackWeights()
	nf := len(q.nodes.funcs)
	sums := func(r *runs) (flat, cum, funcCum []int64) {
		flat, cum, funcCum = make([]int64, len(want)), make([]int64, len(want)), make([]int64, nf)
		stamp, fstamp := make([]int32, len(want)), make([]int32, nf)
		off, nodes, nodeFunc := q.locOff, q.locNodes, q.nodes.nodeFunc
		c := r.cursor()
		for s := c.next(); s >= 0; s = c.next() {
			sw := w[s]
			if sw == 0 {
				continue
			}
			locs := q.e.p.Stacks.At(int32(s))
			if !slices.ContainsFunc(locs, func(l int32) bool { return locWanted[l] }) {
				continue
			}
			lo, hi, ok := q.pathRange(locs)
			if !ok {
				continue
			}
			// Only the wanted locations' frames are read, in place.
			path, mark := locs[lo:hi], int32(s+1)
			for _, l := range path {
				if !locWanted[l] {
					continue
				}
				for _, n := range nodes[off[l]:off[l+1]] {
					if !want[n] || stamp[n] == mark {
						continue
					}
					stamp[n] = mark
					cum[n] += sw
					if f := nodeFunc[n]; f >= 0 && fstamp[f] != mark {
						fstamp[f] = mark
						funcCum[f] += sw
					}
				}
			}
			if l := q.leafLoc(path); l >= 0 {
				if leaf := nodes[off[l+1]-1]; want[leaf] {
					flat[leaf] += sw // the leaf-most frame
				}
			}
		}
		return flat, cum, funcCum
	}
	var flat2, cum2, funcCum2 []int64
	inTwo(&q.e.p.Stacks, func(r *runs, part int) {
		if part == 0 {
			flat, cum, funcCum = sums(r)
		} else {
			flat2, cum2, funcCum2 = sums(r)
		}
	})
	addInto(flat, flat2)
	addInto(cum, cum2)
	addInto(funcCum, funcCum2)
	return flat, cum, funcCum, total
}

// oneFilePerName reports whether every function name of the profile
// has one file (after filepath.Clean, as the filefunctions nodes have
// it), so that a function's node at the functions granularity is its
// node at filefunctions. Computed once per engine.
func (e *Engine) oneFilePerName() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.oneFile == 0 {
		e.oneFile = 1
		files := make(map[string]string, len(e.p.Functions))
		for _, fn := range e.p.Functions {
			if fn.Name == "" {
				continue
			}
			file := fn.Filename
			if file != "" {
				file = filepath.Clean(file)
			}
			if f, ok := files[fn.Name]; ok && f != file {
				e.oneFile = 2
				break
			}
			files[fn.Name] = file
		}
	}
	return e.oneFile == 1
}

// Listing is one function's source annotated with its values, the lines
// pprof's -list prints: from the function's start line (or 5 lines
// before its first line with samples) to 5 lines after its last.
type Listing struct {
	FunctionSource
	// Path is the file read; "" when it was not found (Err says where
	// the lookup looked, Rows then holds the lines with samples only).
	Path string
	Err  error
	Rows []ListingRow
}

// ListingRow is one line of a listing.
type ListingRow struct {
	SourceLine
	Text string
	// NoText is set for a line whose file was not found.
	NoText bool
}

// listMargin is pprof's: lines shown before the first and after the last
// line with samples.
const listMargin = 5

// Span returns the lines pprof's -list shows for f: from its start line
// (or listMargin before its first line) to listMargin after its last.
func (f *FunctionSource) Span() (from, to int64) {
	if len(f.Lines) == 0 {
		return 0, -1
	}
	from = f.Lines[0].Line - listMargin
	if f.StartLine != 0 {
		from = f.StartLine
	}
	to = f.Lines[len(f.Lines)-1].Line + listMargin
	return max(from, 1), to
}

// List is the annotated source of the functions matching a regexp:
// pprof's -list report.
type List struct {
	SampleType format.ValueType
	Total      int64
	Listings   []Listing
}

// List returns the listings of the functions matching re (see Source),
// reading their files through files (SourceFiles.Find: pprof's places
// first, so that -list equals pprof's wherever pprof finds the file).
func (e *Engine) List(opt Options, re *regexp.Regexp, files *SourceFiles) (*List, error) {
	st, total, fns, err := e.source(opt, re)
	if err != nil {
		return nil, err
	}
	var out []Listing
	for _, f := range fns {
		l := Listing{FunctionSource: f}
		if f.File == "" {
			out = append(out, l)
			continue
		}
		text, found, ferr := files.Find(f.File, opt)
		l.Path, l.Err = found, ferr
		if ferr != nil {
			for _, sl := range f.Lines {
				l.Rows = append(l.Rows, ListingRow{SourceLine: sl, NoText: true})
			}
			out = append(out, l)
			continue
		}
		from, to := f.Span()
		k := 0
		for n := from; n <= to && n <= int64(len(text)); n++ {
			row := ListingRow{SourceLine: SourceLine{Line: n}, Text: text[n-1]}
			for k < len(f.Lines) && f.Lines[k].Line < n {
				k++
			}
			if k < len(f.Lines) && f.Lines[k].Line == n {
				row.Flat, row.Cum = f.Lines[k].Flat, f.Lines[k].Cum
			}
			l.Rows = append(l.Rows, row)
		}
		out = append(out, l)
	}
	return &List{SampleType: st, Total: total, Listings: out}, nil
}
