package analysis

import (
	"regexp"
	"sort"
)

// SourceLine is one source line of a function with its values.
type SourceLine struct {
	Line      int64
	Flat, Cum int64
}

// FunctionSource is the per-line profile of one function in one file, as
// pprof's -list annotates source.
type FunctionSource struct {
	Name  string
	File  string
	Flat  int64 // Σ of the lines' flat
	Cum   int64 // the function's cum
	Lines []SourceLine
}

// Source returns, for every function whose name matches re, its lines
// with flat and cum at lines granularity (as pprof's -list; noinlines as
// opt says), ordered by file and line, and the functions by name.
func (e *Engine) Source(opt Options, re *regexp.Regexp) (total int64, out []FunctionSource, err error) {
	opt.Granularity = "lines"
	opt.NodeFraction, opt.NodeCount = 0, 0
	top, err := e.Top(opt)
	if err != nil {
		return 0, nil, err
	}
	fnOpt := opt
	fnOpt.Granularity = "filefunctions"
	fnTop, err := e.Top(fnOpt)
	if err != nil {
		return 0, nil, err
	}
	type fk struct{ name, file string }
	index := map[fk]int{}
	for _, r := range top.Rows {
		info := top.Nodes.Info(r.Node)
		if !re.MatchString(info.Name) {
			continue
		}
		k := fk{info.Name, info.File}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, FunctionSource{Name: info.Name, File: info.File})
		}
		out[i].Lines = append(out[i].Lines, SourceLine{Line: info.Line, Flat: r.Flat, Cum: r.Cum})
		out[i].Flat += r.Flat
	}
	for _, r := range fnTop.Rows {
		info := fnTop.Nodes.Info(r.Node)
		if i, ok := index[fk{info.Name, info.File}]; ok {
			out[i].Cum = r.Cum
		}
	}
	for i := range out {
		sort.Slice(out[i].Lines, func(a, b int) bool { return out[i].Lines[a].Line < out[i].Lines[b].Line })
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Name != out[b].Name {
			return out[a].Name < out[b].Name
		}
		return out[a].File < out[b].File
	})
	return top.Total, out, nil
}
