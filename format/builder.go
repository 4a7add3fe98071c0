package format

import (
	"fmt"
	"math"
	"slices"
)

// builder accumulates samples into a Profile, storing each distinct stack
// and string-label set once. Every decoder (profile.proto, legacy CPU,
// folded text) feeds one.
type builder struct {
	p *Profile

	stacks   internTable
	sets     internTable
	strIndex map[string]int32 // for decoders that produce strings, not indices
	anyNum   bool
	kinds    numKinds

	// mem, if set, is charged for what the builder stores; err keeps
	// the first charge that failed where no error can be returned (str).
	mem *meter
	err error
	// sums, if set, are the running totals of each value column, so a
	// decoder can refuse values whose total would wrap around.
	sums []int64
}

func newBuilder(p *Profile) *builder {
	p.Stacks.Off = append(p.Stacks.Off[:0], 0)
	p.LabelSets.Off = append(p.LabelSets.Off[:0], 0, 0) // set 0: empty
	return &builder{p: p}
}

// newTypedBuilder is newBuilder for decoders that make their own sample
// types: the string table starts with "" and the types' names and units
// (in pprof's order), and there is one value column per type.
func newTypedBuilder(p *Profile) *builder {
	b := newBuilder(p)
	b.str("")
	for _, t := range p.SampleTypes {
		b.str(t.Type)
		b.str(t.Unit)
	}
	p.Samples.Values = make([][]int64, len(p.SampleTypes))
	return b
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

// internTable is an open-addressing hash set of items stored elsewhere
// (stacks, label sets). A slot holds the item's 32-bit hash in its high
// half and item+1 in its low half, so a probe touches one word before it
// compares items. Several times smaller and faster than a Go map for a
// million stacks.
type internTable struct {
	slots []uint64
	n     int
}

// mask returns the probe mask, first growing the table so that it stays
// at most half full.
func (t *internTable) mask() int {
	if 2*t.n >= len(t.slots) {
		old := t.slots
		size := max(1024, 2*len(old))
		t.slots = make([]uint64, size)
		for _, s := range old {
			if s == 0 {
				continue
			}
			for j := int(s>>32) & (size - 1); ; j = (j + 1) & (size - 1) {
				if t.slots[j] == 0 {
					t.slots[j] = s
					break
				}
			}
		}
	}
	return len(t.slots) - 1
}

func hash32(h uint64) uint32 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return uint32(h)
}

// stack returns the index of the stack with these locations, adding it
// if it is new.
func (b *builder) stack(locs []int32) (int32, error) {
	st := &b.p.Stacks
	h := hash32(hashInt32s(0xcbf29ce484222325^uint64(len(locs)), locs))
	t := &b.stacks
	mask := t.mask()
	j := int(h) & mask
	for ; t.slots[j] != 0; j = (j + 1) & mask {
		s := t.slots[j]
		if uint32(s>>32) == h && slices.Equal(st.At(int32(uint32(s))-1), locs) {
			return int32(uint32(s)) - 1, nil
		}
	}
	n := len(st.Off) - 1
	if n >= math.MaxInt32-1 || len(st.Locs)+len(locs) >= math.MaxInt32 {
		return 0, fmt.Errorf("too many distinct stacks")
	}
	if err := b.mem.charge(4*int64(len(locs)) + 4 + 16); err != nil {
		return 0, err
	}
	st.Locs = append(st.Locs, locs...)
	st.Off = append(st.Off, int32(len(st.Locs)))
	t.slots[j] = uint64(h)<<32 | uint64(n+1)
	t.n++
	return int32(n), nil
}

// labelSet returns the index of the set with exactly these pairs (in this
// order), adding it if it is new. The empty set is 0.
func (b *builder) labelSet(pairs []StrLabel) (int32, error) {
	if len(pairs) == 0 {
		return 0, nil
	}
	ls := &b.p.LabelSets
	h64 := uint64(0x9e3779b97f4a7c15) ^ uint64(len(pairs))
	for _, kv := range pairs {
		h64 = (h64 ^ uint64(uint32(kv.Key))<<32 ^ uint64(uint32(kv.Value))) * 0x100000001b3
		h64 ^= h64 >> 29
	}
	h := hash32(h64)
	t := &b.sets
	mask := t.mask()
	j := int(h) & mask
	for ; t.slots[j] != 0; j = (j + 1) & mask {
		s := t.slots[j]
		if uint32(s>>32) == h && slices.Equal(ls.At(int32(uint32(s))-1), pairs) {
			return int32(uint32(s)) - 1, nil
		}
	}
	n := len(ls.Off) - 1
	if len(ls.Pairs)+len(pairs) >= math.MaxInt32 {
		return 0, fmt.Errorf("too many distinct label sets")
	}
	if err := b.mem.charge(8*int64(len(pairs)) + 4 + 16); err != nil {
		return 0, err
	}
	ls.Pairs = append(ls.Pairs, pairs...)
	ls.Off = append(ls.Off, int32(len(ls.Pairs)))
	t.slots[j] = uint64(h)<<32 | uint64(n+1)
	t.n++
	return int32(n), nil
}

// sample appends one sample. values must have one entry per column of
// p.Samples.Values (the caller sizes the columns).
func (b *builder) sample(stack int32, values []int64, labels int32, num []NumLabel) error {
	s := &b.p.Samples
	if b.err != nil {
		return b.err
	}
	if len(s.Stack) >= math.MaxInt32-1 {
		return fmt.Errorf("too many samples")
	}
	if err := b.mem.charge(8 + 8*int64(len(values)) + 10*int64(len(num))); err != nil {
		return err
	}
	if b.sums != nil {
		if err := b.addSums(values); err != nil {
			return err
		}
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
		if uint64(len(s.NumValue))+uint64(len(num)) >= math.MaxUint32 {
			return fmt.Errorf("too many numeric labels")
		}
		for _, nl := range num {
			k, err := b.kinds.index(s, NumKind{Key: nl.Key, Unit: nl.Unit})
			if err != nil {
				return err
			}
			s.NumKind = append(s.NumKind, k)
			s.NumValue = append(s.NumValue, nl.Value)
		}
		s.NumOff = append(s.NumOff, uint32(len(s.NumValue)))
	}
	return nil
}

// numKinds numbers the distinct numeric label kinds of a Samples.
type numKinds map[NumKind]uint16

// index returns the index of k in s.NumKinds, adding it if it is new.
func (m *numKinds) index(s *Samples, k NumKind) (uint16, error) {
	if i, ok := (*m)[k]; ok {
		return i, nil
	}
	if len(s.NumKinds) == MaxNumKinds {
		return 0, fmt.Errorf("more than %d distinct numeric label keys and units", MaxNumKinds)
	}
	if *m == nil {
		*m = numKinds{}
	}
	i := uint16(len(s.NumKinds))
	(*m)[k] = i
	s.NumKinds = append(s.NumKinds, k)
	return i, nil
}

func grow[T any](s []T, n int) []T {
	if n <= cap(s) {
		return s
	}
	out := make([]T, len(s), n)
	copy(out, s)
	return out
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
	if err := b.mem.charge(stringCost + int64(len(s))); err != nil && b.err == nil {
		b.err = err
	}
	i := int32(len(b.p.Strings))
	b.p.Strings = append(b.p.Strings, s)
	b.strIndex[s] = i
	return i
}

// countSums makes sample refuse values whose column total would pass
// the int64 range, which would show as a negative total (or a small one)
// for counts that are all positive.
func (b *builder) countSums() {
	b.sums = make([]int64, len(b.p.Samples.Values))
}

func (b *builder) addSums(values []int64) error {
	if len(b.sums) < len(values) {
		b.sums = append(b.sums, make([]int64, len(values)-len(b.sums))...)
	}
	for t, v := range values {
		s := b.sums[t]
		if v > 0 && s > math.MaxInt64-v || v < 0 && s < math.MinInt64-v {
			name := fmt.Sprintf("column %d", t)
			if t < len(b.p.SampleTypes) {
				name = trimForError(b.p.SampleTypes[t].Type)
			}
			return fmt.Errorf("the %s values add up past the int64 range (%d + %d)", name, s, v)
		}
		b.sums[t] = s + v
	}
	return nil
}
