package analysis

// Labels (pprof calls them tags): the -tags report here, the
// -tagfocus/-tagignore sample filters and the -tagshow/-taghide key
// filters in tagfilter.go, with pprof's rules, which were worked out by
// running `go tool pprof` (the goldens in testdata/tags pin them):
//
//   - A numeric label's unit is the first non-empty unit any sample gives
//     its key; a key that never has one gets "bytes" if it is "request" or
//     "alignment", else the key itself. Every value of a key is read in the
//     key's unit, whatever unit that value carried.
//   - A numeric label with value 0 and no unit does not exist for pprof
//     (its decoder drops it), though format keeps it.
//   - A tag filter is "key=value" or "value". A value that is exactly a
//     number with an optional unit ("64", "16b"), or "N:", ":N" or "N:M",
//     is a range over numeric labels; anything else is a comma-separated
//     list of regexps over string labels.
//   - Numbers compare after scaling the label into the filter's unit, and
//     only when pprof can: a label in a unit it knows (bytes, time, GCU)
//     matches a filter in the same family only, so a bare "16" misses a
//     16-byte label ("16b" finds it); a label in a unit it does not know
//     (span_id) matches any filter, unscaled.
//   - Values are compared as float64, as pprof does: span_id=N also
//     matches ids within float64 rounding of N.

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/internal/radix"
)

// TagValue is one value of a label key in the -tags report.
type TagValue struct {
	Value string // as pprof prints it: numeric values scaled ("1.50kB")
	Total int64
}

// TagKey is one label key in the -tags report: its values, largest first.
type TagKey struct {
	Key    string
	Total  int64 // the sum of Values' totals
	Values []TagValue
}

// numLabelUnits returns the unit of each numeric label key, as pprof
// infers it.
func numLabelUnits(p *format.Profile) map[string]string {
	// The unit a key has is its first label's with one: a kind's labels
	// share its key and unit, so the kinds are read in the order of
	// their first labels, not the labels one by one (a million span
	// ids).
	s := &p.Samples
	first := make([]int, len(s.NumKinds)) // per kind: its first label, +1 (0: none)
	left := len(first)
	for j, k := range s.NumKind {
		if first[k] == 0 {
			first[k] = j + 1
			if left--; left == 0 {
				break
			}
		}
	}
	kinds := make([]int, 0, len(first))
	for k, f := range first {
		if f != 0 {
			kinds = append(kinds, k)
		}
	}
	slices.SortFunc(kinds, func(a, b int) int { return cmp.Compare(first[a], first[b]) })
	units := map[string]string{}
	for _, k := range kinds {
		// A label pprof's proto decoder drops (no number, no unit) is
		// not in the profile; legacy text heap profiles keep bytes:[0].
		kind := s.NumKinds[k]
		key := p.Strings[kind.Key]
		if u := p.Strings[kind.Unit]; u != "" && units[key] == "" {
			units[key] = u
		} else if _, ok := units[key]; !ok {
			units[key] = ""
		}
	}
	for key, u := range units {
		if u != "" {
			continue
		}
		switch key {
		case "request", "alignment":
			units[key] = "bytes"
		default:
			units[key] = key
		}
	}
	return units
}

// Tags computes pprof's -tags report over value vi of the samples keep
// passes (nil: all), for the label keys keyOK accepts (nil: all); units
// is numLabelUnits(p). A sample adds its value once per label it
// carries, so a key with two values in one sample counts that sample
// twice, as in pprof. Keys are sorted by name; values by |total|, largest
// first, then by name. (pprof leaves values of equal |total| and opposite
// sign in no fixed order.)
func Tags(p *format.Profile, vi int, keep sampleFilter, keyOK func(string) bool, units map[string]string) []TagKey {
	sets := &p.LabelSets
	vals := p.Samples.Values[vi]
	setSum := make([]int64, sets.Len())
	setSeen := make([]bool, sets.Len())
	for i, v := range vals {
		if keep != nil && !keep(i) {
			continue
		}
		s := p.Samples.Labels[i]
		setSum[s] += v
		setSeen[s] = true
	}

	acc := map[string]map[string]int64{}
	add := func(key, value string, v int64) {
		m := acc[key]
		if m == nil {
			m = map[string]int64{}
			acc[key] = m
		}
		m[value] += v
	}
	// String labels are summed by string index first: with a label whose
	// value differs in every sample (a span id), hashing the strings of
	// every label of every set took most of the report's time. The
	// strings are looked up once per distinct index pair.
	pairSum := map[uint64]int64{}
	for s, seen := range setSeen {
		if !seen {
			continue
		}
		for _, l := range sets.At(int32(s)) {
			pairSum[uint64(uint32(l.Key))<<32|uint64(uint32(l.Value))] += setSum[s]
		}
	}
	for kv, v := range pairSum {
		if key := p.Strings[int32(kv>>32)]; keyOK == nil || keyOK(key) {
			add(key, p.Strings[int32(uint32(kv))], v)
		}
	}

	tags := make([]TagKey, 0, len(acc))
	for key, values := range numTagValues(p, vi, keep, keyOK, units) {
		if m := acc[key]; m != nil { // a key with string values too
			for _, tv := range values {
				m[tv.Value] += tv.Total
			}
			continue
		}
		tags = append(tags, TagKey{Key: key, Values: values})
	}
	for key, m := range acc {
		tk := TagKey{Key: key, Values: make([]TagValue, 0, len(m))}
		for value, v := range m {
			tk.Values = append(tk.Values, TagValue{value, v})
		}
		tags = append(tags, tk)
	}
	for i := range tags {
		tk := &tags[i]
		for _, tv := range tk.Values {
			tk.Total += tv.Total
		}
		sortTagValues(tk.Values)
	}
	slices.SortFunc(tags, func(a, b TagKey) int { return strings.Compare(a.Key, b.Key) })
	return tags
}

// sortTagValues sorts values by |total|, largest first, then by name.
// The keys are radix-sorted, by the names' first eight bytes and then
// stably by |total|, and only the runs of equal keys compared by whole
// names: a million names (span ids) lie scattered in the heap. From
// parallelTagValues values on, in two halves on two goroutines, merged.
func sortTagValues(values []TagValue) {
	type sortKey struct {
		desc   uint64 // |total| in signed order, flipped: largest first
		prefix uint64 // the name's first eight bytes, big-endian, zero-padded
		at     int
	}
	keys := make([]sortKey, len(values))
	for i := range values {
		var b [8]byte
		copy(b[:], values[i].Value)
		keys[i] = sortKey{^(uint64(abs64(values[i].Total)) ^ 1<<63), binary.BigEndian.Uint64(b[:]), i}
	}
	compare := func(x, y sortKey) int {
		if c := cmp.Compare(x.desc, y.desc); c != 0 {
			return c
		}
		if c := cmp.Compare(x.prefix, y.prefix); c != 0 {
			return c
		}
		return strings.Compare(values[x.at].Value, values[y.at].Value)
	}
	tmp := make([]sortKey, len(keys))
	h := half(len(keys), parallelTagValues)
	splitAt(h, len(keys), func(_, lo, hi int) {
		part, ptmp := keys[lo:hi], tmp[lo:hi]
		radix.Sort(part, ptmp, func(k sortKey) uint64 { return k.prefix })
		radix.Sort(part, ptmp, func(k sortKey) uint64 { return k.desc })
		for i := 0; i < len(part); {
			j := i + 1
			for j < len(part) && part[j].desc == part[i].desc && part[j].prefix == part[i].prefix {
				j++
			}
			if j-i > 1 {
				slices.SortFunc(part[i:j], compare)
			}
			i = j
		}
	})
	mergeHalves(keys, h, compare)
	sorted := make([]TagValue, len(values))
	for i, k := range keys {
		sorted[i] = values[k.at]
	}
	copy(values, sorted)
}

// parallelTagValues is the count of values (or samples) from which the
// Labels report sorts (or sums) them in two halves on two goroutines (a
// variable for the tests).
var parallelTagValues = 1 << 15

// numTagValues sums value vi of the samples keep passes (nil: all) by
// numeric label key (those keyOK accepts, nil: all) and printed value
// (ScaledLabel in the key's unit, units[key]), in no order. A label with
// a value per sample (a span id) has a million values: they are sorted
// by number and summed where neighbours print alike, which a map of the
// numbers, then one of the printed values, took several times as long
// for. Printing is monotonic in the number (a unit per magnitude, two
// decimals, float64 rounding), so the numbers that print alike are
// neighbours.
func numTagValues(p *format.Profile, vi int, keep sampleFilter, keyOK func(string) bool, units map[string]string) map[string][]TagValue {
	s := &p.Samples
	if s.NumOff == nil {
		return nil
	}
	// Each kind's key, as an index into names (-1: not shown); two kinds
	// of one key (two units, or the name twice in the string table) add
	// up.
	var keys interner[string]
	kindKey := make([]int32, len(s.NumKinds))
	for k, kind := range s.NumKinds {
		name := p.Strings[kind.Key]
		if keyOK != nil && !keyOK(name) {
			kindKey[k] = -1
			continue
		}
		kindKey[k] = keys.id(name)
	}
	names := keys.keys
	// each calls f with every shown numeric label of samples [lo, hi)
	// keep passes: its key's index, its value and the sample's.
	vals := s.Values[vi]
	each := func(lo, hi int, f func(k int32, value, v int64)) {
		for i := lo; i < hi; i++ {
			if keep != nil && !keep(i) {
				continue
			}
			for j := s.NumOff[i]; j < s.NumOff[i+1]; j++ {
				if k := kindKey[s.NumKind[j]]; k >= 0 {
					f(k, s.NumValue[j], vals[i])
				}
			}
		}
	}
	// The samples are summed in two halves on two goroutines, each half
	// by key, then sorted and summed by printed value; the halves' lists
	// are merged per key at the end.
	parts := make([][2][]TagValue, len(names))
	from := make([][2][]int64, len(names))
	inHalves(s.Len(), parallelTagValues, func(part, lo, hi int) {
		// Counted first: appends grew the million-value slice in
		// copies. With every sample, the labels are counted by kind
		// alone.
		count := make([]int, len(names))
		if keep == nil {
			for _, kind := range s.NumKind[s.NumOff[lo]:s.NumOff[hi]] {
				if k := kindKey[kind]; k >= 0 {
					count[k]++
				}
			}
		} else {
			each(lo, hi, func(k int32, _, _ int64) { count[k]++ })
		}
		sums := make([][]valueSum, len(names))
		for k, n := range count {
			sums[k] = make([]valueSum, 0, n)
		}
		// A value repeated by consecutive samples (a request's span id
		// across its samples) is summed as it is met: the sort then has
		// one element per run.
		each(lo, hi, func(k int32, value, v int64) {
			s := sums[k]
			if n := len(s) - 1; n >= 0 && s[n].value == value {
				s[n].sum += v
				return
			}
			sums[k] = append(s, valueSum{value, v})
		})
		tmp := make([]valueSum, slices.Max(append(count, 0))) // the sorts', for every key
		for k, vs := range sums {
			if len(vs) > 0 {
				scale := newScaler(units[names[k]], "minimum")
				parts[k][part], from[k][part] = printValueSums(vs, tmp[:len(vs)], scale)
			}
		}
	})
	out := make(map[string][]TagValue, len(names))
	for k := range names {
		if len(parts[k][0]) == 0 && len(parts[k][1]) == 0 {
			continue
		}
		out[names[k]] = mergePrinted(parts[k], from[k])
	}
	return out
}

// printValueSums sorts vs by value and sums it by printed value: the
// values and, for each, the smallest number printed so.
func printValueSums(vs, tmp []valueSum, scale scaler) (values []TagValue, from []int64) {
	// By number: a radix sort, a fifth of a comparison sort's time.
	// The keys are flipped in their sign bit, for signed order.
	radix.Sort(vs, tmp, func(v valueSum) uint64 { return uint64(v.value) ^ 1<<63 })
	distinct := 0 // numbers: at most as many values
	for i := range vs {
		if i == 0 || vs[i].value != vs[i-1].value {
			distinct++
		}
	}
	values, from = make([]TagValue, 0, distinct), make([]int64, 0, distinct)
	for i := 0; i < len(vs); {
		num, sum := vs[i].value, int64(0)
		for ; i < len(vs) && vs[i].value == num; i++ {
			sum += vs[i].sum
		}
		label := scale.label(num)
		if last := len(values) - 1; last >= 0 && values[last].Value == label {
			values[last].Total += sum
			continue
		}
		values = append(values, TagValue{label, sum})
		from = append(from, num)
	}
	return values, from
}

// mergePrinted merges two halves' printValueSums (the second nil when
// there was one) by number; a value in both, or printed alike at their
// seam, is summed.
func mergePrinted(parts [2][]TagValue, from [2][]int64) []TagValue {
	a, b := parts[0], parts[1]
	if b == nil {
		return a
	}
	values := make([]TagValue, 0, len(a)+len(b))
	add := func(tv TagValue) {
		if last := len(values) - 1; last >= 0 && values[last].Value == tv.Value {
			values[last].Total += tv.Total
			return
		}
		values = append(values, tv)
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j == len(b) || i < len(a) && from[0][i] <= from[1][j] {
			add(a[i])
			i++
		} else {
			add(b[j])
			j++
		}
	}
	return values
}

// valueSum is a numeric label's value and a sample's value.
type valueSum struct{ value, sum int64 }

// tagsTotal is the percentage denominator of the -tags report, as pprof
// computes a report's total: the sum of |value vi| over the samples keep
// passes (nil: all), or, if some of them are a diff base (base flags their
// label sets, see Engine.baseSets; nil when there are none) and that sum
// is not 0, over those only. pprof uses every sample unless
// -relative_percentages is set.
func tagsTotal(p *format.Profile, vi int, keep sampleFilter, base []bool) int64 {
	var total, baseTotal int64
	for i, v := range p.Samples.Values[vi] {
		if keep != nil && !keep(i) {
			continue
		}
		total += abs64(v)
		if base != nil && base[p.Samples.Labels[i]] {
			baseTotal += abs64(v)
		}
	}
	if baseTotal > 0 {
		return baseTotal
	}
	return total
}

// formatTagsText writes tags as `go tool pprof -tags` prints them: unit is
// the sample type's unit, total the report total (tagsTotal).
func formatTagsText(w io.Writer, tags []TagKey, unit string, total int64) error {
	value := func(v int64) string { return ScaledLabel(v, unit, "minimum") }
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight)
	for _, k := range tags {
		if total > 0 {
			fmt.Fprintf(tw, "%s:\t Total %s of %s (%s)\n", k.Key, value(k.Total), value(total), Percentage(k.Total, total))
		} else {
			fmt.Fprintf(tw, "%s:\t Total %s of %s\n", k.Key, value(k.Total), value(total))
		}
		for _, v := range k.Values {
			if total > 0 {
				fmt.Fprintf(tw, " \t%s (%s):\t %s\n", value(v.Total), Percentage(v.Total, total), v.Value)
			} else {
				fmt.Fprintf(tw, " \t%s:\t %s\n", value(v.Total), v.Value)
			}
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// unitConversion returns how pprof's ScaleValue converts a value in unit
// from into unit to (not "minimum"): float64(v)*mul/div, in unit. Filters
// resolve it once per label key rather than once per label.
func unitConversion(from, to string) (mul, div float64, unit string) {
	for i := range measureKinds {
		k := &measureKinds[i]
		f, ok := k.find(from)
		if !ok {
			continue
		}
		t, ok := k.find(to)
		if !ok {
			t = k.fallback
		}
		return f.size, t.size, t.name
	}
	_, unit = ScaleValue(1, from, to) // a unit pprof does not know: v as it is
	return 1, 1, unit
}

// LabelValues lists p's label keys, string and numeric, sorted, and for
// each string key up to limit of its values, sorted (for completion).
func LabelValues(p *format.Profile, limit int) (keys []string, values map[string][]string) {
	values = map[string][]string{}
	seen := map[format.StrLabel]bool{}
	for _, l := range p.LabelSets.Pairs {
		if seen[l] {
			continue
		}
		seen[l] = true
		k := p.Strings[l.Key]
		if _, ok := values[k]; !ok {
			keys = append(keys, k)
			values[k] = nil
		}
		if len(values[k]) < limit {
			values[k] = append(values[k], p.Strings[l.Value])
		}
	}
	for _, nk := range p.Samples.NumKinds {
		k := p.Strings[nk.Key]
		if _, ok := values[k]; !ok {
			keys = append(keys, k)
			values[k] = nil
		}
	}
	slices.Sort(keys)
	for _, v := range values {
		slices.Sort(v)
	}
	return keys, values
}

// NumLabelUnits returns the unit of each numeric label key as pprof
// infers it (the first explicit unit; else bytes for "request" and
// "alignment"; else the key itself). The map is shared: do not modify.
func (e *Engine) NumLabelUnits() map[string]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.units == nil {
		e.units = numLabelUnits(e.p)
	}
	return e.units
}

// interner numbers keys in order of first appearance.
type interner[K comparable] struct {
	keys []K // by number
	ids  map[K]int32
}

// id is k's number, given it the first time.
func (in *interner[K]) id(k K) int32 {
	i, ok := in.ids[k]
	if !ok {
		if in.ids == nil {
			in.ids = map[K]int32{}
		}
		i = int32(len(in.keys))
		in.ids[k] = i
		in.keys = append(in.keys, k)
	}
	return i
}
