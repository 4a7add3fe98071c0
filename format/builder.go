package format

import (
	"fmt"
	"math"
)

// builder accumulates samples into a Profile, storing each distinct stack
// and string-label set once. Every decoder (profile.proto, legacy CPU,
// folded text) feeds one.
type builder struct {
	p *Profile

	stackIndex map[uint64]int32 // hash → stack, with linear probing on the hash
	setIndex   map[uint64]int32 // hash → label set, likewise
	strIndex   map[string]int32 // for decoders that produce strings, not indices
	anyNum     bool
}

func newBuilder(p *Profile) *builder {
	p.Stacks.Off = append(p.Stacks.Off[:0], 0)
	p.LabelSets.Off = append(p.LabelSets.Off[:0], 0, 0) // set 0: empty
	return &builder{
		p:          p,
		stackIndex: make(map[uint64]int32),
		setIndex:   make(map[uint64]int32),
	}
}

// hash mixes 32-bit words; it only has to spread stacks over a Go map.
func hashInt32s(h uint64, xs []int32) uint64 {
	for _, x := range xs {
		h ^= uint64(uint32(x))
		h *= 0x100000001b3
		h ^= h >> 29
	}
	return h
}

func equalInt32s(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// stack returns the index of the stack with these locations, adding it
// if it is new.
func (b *builder) stack(locs []int32) (int32, error) {
	st := &b.p.Stacks
	h := hashInt32s(0xcbf29ce484222325^uint64(len(locs)), locs)
	for {
		i, ok := b.stackIndex[h]
		if !ok {
			break
		}
		if equalInt32s(st.At(i), locs) {
			return i, nil
		}
		h++
	}
	n := len(st.Off) - 1
	if n >= math.MaxInt32-1 || len(st.Locs)+len(locs) >= math.MaxInt32 {
		return 0, fmt.Errorf("too many distinct stacks")
	}
	st.Locs = append(st.Locs, locs...)
	st.Off = append(st.Off, int32(len(st.Locs)))
	b.stackIndex[h] = int32(n)
	return int32(n), nil
}

// labelSet returns the index of the set with exactly these pairs (in this
// order), adding it if it is new. The empty set is 0.
func (b *builder) labelSet(pairs []StrLabel) (int32, error) {
	if len(pairs) == 0 {
		return 0, nil
	}
	ls := &b.p.LabelSets
	h := uint64(0x9e3779b97f4a7c15) ^ uint64(len(pairs))
	for _, kv := range pairs {
		h = (h ^ uint64(uint32(kv.Key))<<32 ^ uint64(uint32(kv.Value))) * 0x100000001b3
		h ^= h >> 29
	}
	for {
		i, ok := b.setIndex[h]
		if !ok {
			break
		}
		if equalPairs(ls.At(i), pairs) {
			return i, nil
		}
		h++
	}
	n := len(ls.Off) - 1
	if len(ls.Pairs)+len(pairs) >= math.MaxInt32 {
		return 0, fmt.Errorf("too many distinct label sets")
	}
	ls.Pairs = append(ls.Pairs, pairs...)
	ls.Off = append(ls.Off, int32(len(ls.Pairs)))
	b.setIndex[h] = int32(n)
	return int32(n), nil
}

func equalPairs(a, b []StrLabel) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sample appends one sample. values must have one entry per column of
// p.Samples.Values (the caller sizes the columns).
func (b *builder) sample(stack int32, values []int64, labels int32, num []NumLabel) error {
	s := &b.p.Samples
	if len(s.Stack) >= math.MaxInt32-1 {
		return fmt.Errorf("too many samples")
	}
	s.Stack = append(s.Stack, stack)
	for t, v := range values {
		s.Values[t] = append(s.Values[t], v)
	}
	s.Labels = append(s.Labels, labels)
	if len(num) > 0 && !b.anyNum {
		// First numeric label: a leading 0 and the (empty) ends of the
		// samples before this one.
		b.anyNum = true
		s.NumOff = make([]uint32, len(s.Stack), cap(s.Stack)+1)
	}
	if b.anyNum {
		if uint64(len(s.Num))+uint64(len(num)) >= math.MaxUint32 {
			return fmt.Errorf("too many numeric labels")
		}
		s.Num = append(s.Num, num...)
		s.NumOff = append(s.NumOff, uint32(len(s.Num)))
	}
	return nil
}

// str interns s into the string table, for decoders that work with text.
func (b *builder) str(s string) int32 {
	if b.strIndex == nil {
		b.strIndex = make(map[string]int32)
		for i, x := range b.p.Strings {
			if _, ok := b.strIndex[x]; !ok {
				b.strIndex[x] = int32(i)
			}
		}
		if len(b.p.Strings) == 0 {
			b.p.Strings = append(b.p.Strings, "")
			b.strIndex[""] = 0
		}
	}
	if i, ok := b.strIndex[s]; ok {
		return i
	}
	i := int32(len(b.p.Strings))
	b.p.Strings = append(b.p.Strings, s)
	b.strIndex[s] = i
	return i
}
