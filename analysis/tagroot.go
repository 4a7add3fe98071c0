package analysis

import (
	"strings"

	"github.com/pprof-tui/pprof-tui/format"
)

// tagNodes returns the engine for the profile with pprof's -tagroot and
// -tagleaf pseudo-frames added to every sample: one frame per listed key,
// named by the sample's values of that key (joined by ","; "" when it has
// none) with the key as its file, the first key nearest the root. The
// derived profile is built once per setting and cached.
func (e *Engine) tagNodes(opt *Options) *Engine {
	roots, leaves := splitKeys(opt.TagRoot), splitKeys(opt.TagLeaf)
	if len(roots)+len(leaves) == 0 {
		return e
	}
	unit := opt.Unit
	if unit == "" {
		unit = "minimum"
	}
	key := strings.Join(roots, ",") + "|" + strings.Join(leaves, ",") + "|" + unit
	e.mu.Lock()
	defer e.mu.Unlock()
	if d := e.derived[key]; d != nil {
		return d
	}
	d := NewEngine(addTagFrames(e.p, roots, leaves, unit))
	if e.derived == nil {
		e.derived = map[string]*Engine{}
	}
	e.derived[key] = d
	return d
}

func splitKeys(s string) []string {
	var out []string
	for _, k := range strings.Split(s, ",") {
		if k != "" {
			out = append(out, k)
		}
	}
	return out
}

// addTagFrames copies p with the label pseudo-frames in every stack.
func addTagFrames(p *format.Profile, roots, leaves []string, unit string) *format.Profile {
	out := *p
	out.Functions = append([]format.Function(nil), p.Functions...)
	out.Locations = append([]format.Location(nil), p.Locations...)
	out.Lines = p.Lines[:len(p.Lines):len(p.Lines)] // shared; appends copy
	out.Stacks = format.Stacks{Off: []int32{0}}
	out.Samples.Stack = make([]int32, len(p.Samples.Stack))

	type frameKey struct{ name, key string }
	frames := map[frameKey]int32{}
	frame := func(name, key string) int32 {
		k := frameKey{name, key}
		if l, ok := frames[k]; ok {
			return l
		}
		f := int32(len(out.Functions))
		out.Functions = append(out.Functions, format.Function{ID: uint64(f) + 1, Name: name, Filename: key})
		l := int32(len(out.Locations))
		out.Locations = append(out.Locations, format.Location{ID: uint64(l) + 1, Mapping: -1, Lines: out.AddLines(format.Line{Function: f})})
		frames[k] = l
		return l
	}
	// The values of one key in sample i, as pprof formats them: string
	// labels, then numeric ones scaled in their own unit.
	values := func(i int, key string) string {
		var vs []string
		for _, kv := range p.LabelSets.At(p.Samples.Labels[i]) {
			if p.Strings[kv.Key] == key {
				vs = append(vs, p.Strings[kv.Value])
			}
		}
		for _, nl := range p.Samples.NumLabels(i) {
			if p.Strings[nl.Key] == key {
				if nl.Unit == 0 {
					// Without a unit in the file pprof does not scale.
					vs = append(vs, ScaledLabel(nl.Value, "", ""))
				} else {
					vs = append(vs, ScaledLabel(nl.Value, p.Strings[nl.Unit], unit))
				}
			}
		}
		return strings.Join(vs, ",")
	}
	stackIndex := map[string]int32{}
	var locs []int32
	var sb strings.Builder
	for i, s := range p.Samples.Stack {
		locs = locs[:0]
		for k := len(leaves) - 1; k >= 0; k-- { // the first key nearest the root
			locs = append(locs, frame(values(i, leaves[k]), leaves[k]))
		}
		locs = append(locs, p.Stacks.At(s)...)
		for k := len(roots) - 1; k >= 0; k-- {
			locs = append(locs, frame(values(i, roots[k]), roots[k]))
		}
		sb.Reset()
		for _, l := range locs {
			sb.WriteByte(byte(l))
			sb.WriteByte(byte(l >> 8))
			sb.WriteByte(byte(l >> 16))
			sb.WriteByte(byte(l >> 24))
		}
		key := sb.String()
		st, ok := stackIndex[key]
		if !ok {
			st = int32(out.Stacks.Len())
			out.Stacks.Locs = append(out.Stacks.Locs, locs...)
			out.Stacks.Off = append(out.Stacks.Off, int32(len(out.Stacks.Locs)))
			stackIndex[key] = st
		}
		out.Samples.Stack[i] = st
	}
	return &out
}
