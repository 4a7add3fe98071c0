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
	// Traces of one profile stack share their frame slice; different
	// stacks can still give the same frames (other addresses of the
	// same functions), so frames are interned by content, once a slice.
	var framesOf [][]Frame
	var keep []bool
	byContent := map[string]int32{}
	bySlice := map[*Frame]int32{}
	var key []byte
	// byStack caches bySlice by the profile's stack id: most lookups.
	byStack := make([]int32, p.Stacks.Len())
	for i := range byStack {
		byStack[i] = -1
	}
	intern := func(sample int, f []Frame) int32 {
		st := p.Samples.Stack[sample]
		if id := byStack[st]; id >= 0 && &framesOf[id][0] == &f[0] {
			return id
		}
		if id, ok := bySlice[&f[0]]; ok {
			byStack[st] = id
			return id
		}
		key = key[:0]
		for _, fr := range f {
			key = binary.LittleEndian.AppendUint32(key, uint32(fr.Node))
			if fr.Inlined {
				key = append(key, 1)
			} else {
				key = append(key, 0)
			}
		}
		id, ok := byContent[string(key)]
		if !ok {
			id = int32(len(framesOf))
			framesOf = append(framesOf, f)
			byContent[string(key)] = id
			ok := match == nil
			for _, fr := range f {
				if ok {
					break
				}
				ok = match(fr.Node)
			}
			keep = append(keep, ok)
		}
		bySlice[&f[0]] = id
		byStack[st] = id
		return id
	}
	// Labels are interned by identity, cheaply: the string set's id and
	// the numeric labels' kinds and values; each set is formatted once.
	var labelsOf [][]string
	labelIDs := map[string]int32{}
	// Samples without numeric labels: by the string set's id alone.
	bySet := make([]int32, p.LabelSets.Len())
	for i := range bySet {
		bySet[i] = -1
	}
	labelID := func(i int) int32 {
		set := p.Samples.Labels[i]
		plain := p.Samples.NumOff == nil || p.Samples.NumOff[i] == p.Samples.NumOff[i+1]
		if plain && bySet[set] >= 0 {
			return bySet[set]
		}
		key = binary.LittleEndian.AppendUint32(key[:0], uint32(set))
		for j := range p.Samples.NumLabels(i) {
			key = binary.LittleEndian.AppendUint16(key, p.Samples.NumKind[j])
			key = binary.LittleEndian.AppendUint64(key, uint64(p.Samples.NumValue[j]))
		}
		if id, ok := labelIDs[string(key)]; ok {
			if plain {
				bySet[set] = id
			}
			return id
		}
		id := int32(len(labelsOf))
		labelIDs[string(key)] = id
		var labels []string
		for _, l := range SampleLabels(p, i, tr.LabelUnits, keyOK, nil) {
			labels = append(labels, strings.Replace(strings.TrimSuffix(strings.TrimLeft(l, " "), "\n"), ":  ", ":", 1))
		}
		labelsOf = append(labelsOf, labels)
		if plain {
			bySet[set] = id
		}
		return id
	}
	type group struct{ frames, labels int32 }
	index := map[group]int32{}
	var groups []group
	var values []int64
	var counts []int
	for _, t := range tr.Traces {
		if len(t.Frames) == 0 {
			continue
		}
		id := intern(t.Sample, t.Frames)
		if !keep[id] {
			continue
		}
		g := group{id, labelID(t.Sample)}
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
		out[i] = Stack{Frames: framesOf[g.frames], Labels: labelsOf[g.labels], Value: values[k], Samples: counts[k]}
	}
	return out
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
