package analysis

import (
	"sort"
	"strings"
)

// FoldedStack is one line of Brendan Gregg's collapsed-stack format.
type FoldedStack struct {
	Frames string // node names, root first, joined by ';'
	Value  int64
}

// Folded returns the filtered stacks in collapsed form (the input of
// flamegraph.pl, inferno and speedscope): one entry per distinct path of
// nodes, with the selected value summed, sorted by path.
func (e *Engine) Folded(opt Options) ([]FoldedStack, error) {
	q, err := e.newQuery(opt)
	if err != nil {
		return nil, err
	}
	p := e.p
	w, dw, _, _ := q.stackWeights()
	type acc struct{ w, dw int64 }
	sums := map[string]*acc{}
	names := q.nodes.allNames()
	var sb strings.Builder
	var path []int32
	fold := q.folder()
	for s := 0; s < p.Stacks.Len(); s++ {
		sw, sdw, ok := stackWeight(w, dw, s)
		if !ok {
			continue
		}
		path, ok = q.appendPath(fold, path[:0], nil, p.Stacks.At(int32(s)))
		if !ok || len(path) == 0 {
			continue
		}
		sb.Reset()
		for i, n := range path {
			if i > 0 {
				sb.WriteByte(';')
			}
			// ';' separates frames; a name may not contain it.
			sb.WriteString(strings.ReplaceAll(names[n], ";", ":"))
		}
		key := sb.String()
		a := sums[key]
		if a == nil {
			a = &acc{}
			sums[key] = a
		}
		a.w += sw
		a.dw += sdw
	}
	out := make([]FoldedStack, 0, len(sums))
	for k, a := range sums {
		v := a.w
		if q.mean && a.dw != 0 {
			v /= a.dw
		}
		if v == 0 {
			continue
		}
		out = append(out, FoldedStack{Frames: k, Value: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Frames < out[j].Frames })
	return out, nil
}
