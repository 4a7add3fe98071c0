package analysis

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/pprof-tui/pprof-tui/format"
)

// Stack is one distinct stack of a -traces report with its labels: the
// samples that have both, summed. The Traces view lists them.
type Stack struct {
	Frames  []Frame // leaf first, as -traces prints them
	Labels  []string
	Value   int64
	Samples int
}

// Stacks groups tr's traces (computed from p) by stack and labels, the
// heaviest first, the first met first among equals. Labels are -traces'
// lines, one a key, as "key:v1 v2" (keyOK choosing the keys). With
// match, only the stacks with a frame whose node it accepts are kept.
func Stacks(p *format.Profile, tr *Traces, keyOK func(string) bool, match func(node int32) bool) []Stack {
	in := newTraceInterner(p, tr, keyOK, match)
	type group struct{ frames, labels int32 }
	index := map[group]int32{}
	var groups []group
	var values []int64
	var counts []int
	for _, t := range tr.Traces {
		if len(t.Frames) == 0 {
			continue
		}
		id := in.frames(t.Sample, t.Frames)
		if !in.keep[id] {
			continue
		}
		g := group{id, in.labels(t.Sample)}
		k, ok := index[g]
		if !ok {
			k = int32(len(groups))
			index[g] = k
			groups = append(groups, g)
			values = append(values, 0)
			counts = append(counts, 0)
		}
		values[k] += t.Value
		counts[k]++
	}
	// Heaviest first (by size, for diffs), the first met first among
	// equals.
	order := make([]int32, len(groups))
	for k := range order {
		order[k] = int32(k)
	}
	abs := func(v int64) int64 {
		if v < 0 {
			return -v
		}
		return v
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(abs(values[b]), abs(values[a])); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	out := make([]Stack, len(order))
	for i, k := range order {
		g := groups[k]
		out[i] = Stack{Frames: in.framesOf[g.frames], Labels: in.labelsOf[g.labels], Value: values[k], Samples: counts[k]}
	}
	return out
}

// traceInterner numbers Stacks' distinct frame lists and label sets.
//
// Traces of one profile stack share their frame slice; different stacks
// can still give the same frames (other addresses of the same
// functions), so frames are interned by content, once a slice. Labels
// are interned by identity, cheaply: the string set's id and the numeric
// labels' kinds and values; each set is formatted once.
type traceInterner struct {
	p     *format.Profile
	tr    *Traces
	keyOK func(string) bool
	match func(node int32) bool

	framesOf  [][]Frame
	keep      []bool // per frame list: match accepts a frame's node
	byContent map[string]int32
	bySlice   map[*Frame]int32
	// byStack caches bySlice by the profile's stack id: most lookups.
	byStack []int32
	key     []byte

	labelsOf [][]string
	labelIDs map[string]int32
	// bySet is, for samples without numeric labels, the id by the
	// string set's id alone.
	bySet []int32
}

func newTraceInterner(p *format.Profile, tr *Traces, keyOK func(string) bool, match func(node int32) bool) *traceInterner {
	in := &traceInterner{
		p: p, tr: tr, keyOK: keyOK, match: match,
		byContent: map[string]int32{}, bySlice: map[*Frame]int32{}, byStack: make([]int32, p.Stacks.Len()),
		labelIDs: map[string]int32{}, bySet: make([]int32, p.LabelSets.Len()),
	}
	for i := range in.byStack {
		in.byStack[i] = -1
	}
	for i := range in.bySet {
		in.bySet[i] = -1
	}
	return in
}

// frames returns the id of frame list f, sample's.
func (in *traceInterner) frames(sample int, f []Frame) int32 {
	st := in.p.Samples.Stack[sample]
	if id := in.byStack[st]; id >= 0 && &in.framesOf[id][0] == &f[0] {
		return id
	}
	if id, ok := in.bySlice[&f[0]]; ok {
		in.byStack[st] = id
		return id
	}
	key := in.key[:0]
	for _, fr := range f {
		key = binary.LittleEndian.AppendUint32(key, uint32(fr.Node))
		if fr.Inlined {
			key = append(key, 1)
		} else {
			key = append(key, 0)
		}
	}
	in.key = key
	id, ok := in.byContent[string(key)]
	if !ok {
		id = int32(len(in.framesOf))
		in.framesOf = append(in.framesOf, f)
		in.byContent[string(key)] = id
		ok := in.match == nil
		for _, fr := range f {
			if ok {
				break
			}
			ok = in.match(fr.Node)
		}
		in.keep = append(in.keep, ok)
	}
	in.bySlice[&f[0]] = id
	in.byStack[st] = id
	return id
}

// labels returns the id of sample i's labels.
func (in *traceInterner) labels(i int) int32 {
	p := in.p
	set := p.Samples.Labels[i]
	plain := p.Samples.NumOff == nil || p.Samples.NumOff[i] == p.Samples.NumOff[i+1]
	if plain && in.bySet[set] >= 0 {
		return in.bySet[set]
	}
	key := binary.LittleEndian.AppendUint32(in.key[:0], uint32(set))
	for j := range p.Samples.NumLabels(i) {
		key = binary.LittleEndian.AppendUint16(key, p.Samples.NumKind[j])
		key = binary.LittleEndian.AppendUint64(key, uint64(p.Samples.NumValue[j]))
	}
	in.key = key
	if id, ok := in.labelIDs[string(key)]; ok {
		if plain {
			in.bySet[set] = id
		}
		return id
	}
	id := int32(len(in.labelsOf))
	in.labelIDs[string(key)] = id
	var labels []string
	for _, l := range SampleLabels(p, i, in.tr.LabelUnits, in.keyOK, nil) {
		labels = append(labels, strings.Replace(strings.TrimSuffix(strings.TrimLeft(l, " "), "\n"), ":  ", ":", 1))
	}
	in.labelsOf = append(in.labelsOf, labels)
	if plain {
		in.bySet[set] = id
	}
	return id
}

// SampleLabels appends to dst sample i's labels as -traces prints them:
// one line per key with its values in file order, the string labels
// first, each group sorted by its printed line (so shorter keys, padded
// further, come first). units are the numeric keys' units; keyOK (nil:
// all) says which keys -tagshow/-taghide keep.
func SampleLabels(p *format.Profile, i int, units map[string]string, keyOK func(string) bool, dst []string) []string {
	line := func(key string, values []string) string {
		return fmt.Sprintf("%10s:  %s\n", key, strings.Join(values, " "))
	}
	var keys []string
	values := map[string][]string{}
	add := func(key, v string) {
		if keyOK != nil && !keyOK(key) {
			return
		}
		if _, ok := values[key]; !ok {
			keys = append(keys, key)
		}
		values[key] = append(values[key], v)
	}

	for _, l := range p.LabelSets.At(p.Samples.Labels[i]) {
		add(p.Strings[l.Key], p.Strings[l.Value])
	}
	start := len(dst)
	for _, k := range keys {
		dst = append(dst, line(k, values[k]))
	}
	slices.Sort(dst[start:])

	keys = keys[:0]
	clear(values)
	for _, l := range p.Samples.NumLabels(i) {
		key := p.Strings[l.Key]
		add(key, Label(l.Value, units[key]))
	}
	start = len(dst)
	for _, k := range keys {
		dst = append(dst, line(k, values[k]))
	}
	slices.Sort(dst[start:])
	return dst
}
