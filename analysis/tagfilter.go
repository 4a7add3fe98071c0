package analysis

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pprof-tui/pprof-tui/format"
)

// sampleFilter reports whether sample i passes.
type sampleFilter func(i int) bool

// tagRangeRx finds the numbers of a numeric tag filter, each with its unit.
var tagRangeRx = regexp.MustCompile(`([+-]?[0-9]+)([A-Za-z]*)`)

// tagRange is a parsed numeric tag filter: values in [lo, hi] of unit.
type tagRange struct {
	lo, hi float64
	unit   string
}

// parseTagRange parses value as a numeric range. ok is false when value is
// not one, and then it is a regexp; err is set only for a number too large
// for int64 (where pprof panics).
func parseTagRange(value string) (r tagRange, ok bool, err error) {
	m := tagRangeRx.FindAllStringSubmatch(value, 2)
	if len(m) == 0 {
		return r, false, nil
	}
	n, err := strconv.ParseInt(m[0][1], 10, 64)
	if err != nil {
		return r, false, fmt.Errorf("%s is out of range", m[0][1])
	}
	v, unit := ScaleValue(n, m[0][2], m[0][2])
	r = tagRange{lo: math.Inf(-1), hi: math.Inf(1), unit: unit}
	if len(m) == 1 {
		switch value {
		case m[0][0]:
			r.lo, r.hi = v, v
		case m[0][0] + ":":
			r.lo = v
		case ":" + m[0][0]:
			r.hi = v
		default:
			return r, false, nil
		}
		return r, true, nil
	}
	if value != m[0][0]+":"+m[1][0] {
		return r, false, nil
	}
	n2, err := strconv.ParseInt(m[1][1], 10, 64)
	if err != nil {
		return r, false, fmt.Errorf("%s is out of range", m[1][1])
	}
	v2, unit2 := ScaleValue(n2, m[1][2], unit)
	if unit2 != unit {
		return r, false, nil
	}
	r.lo, r.hi = v, v2
	return r, true, nil
}

// tagFilterSpec is a parsed -tagfocus or -tagignore value: a key ("" for
// any key) and either a numeric range or regexps over string values.
type tagFilterSpec struct {
	key     string
	isRange bool
	r       tagRange
	rxs     []*regexp.Regexp
}

// parseTagFilter parses a -tagfocus or -tagignore value (name is the
// option, for errors). It needs no profile, so values are checked when
// they are set.
func parseTagFilter(name, value string) (tagFilterSpec, error) {
	var spec tagFilterSpec
	// As pprof, the key ends at the first "="; an empty key is no key.
	wantKey, expr, hasKey := strings.Cut(value, "=")
	if !hasKey {
		wantKey, expr = "", value
	}
	spec.key = wantKey
	r, isRange, err := parseTagRange(expr)
	if err != nil {
		return spec, optErr(name, "invalid range %q: %v", expr, err)
	}
	if isRange {
		spec.isRange, spec.r = true, r
		return spec, nil
	}
	for _, part := range strings.Split(expr, ",") {
		rx, err := regexp.Compile(part)
		if err != nil {
			return spec, optErr(name, "invalid regexp %q: %v", part, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		spec.rxs = append(spec.rxs, rx)
	}
	return spec, nil
}

// compileTagFilter compiles a -tagfocus or -tagignore value (name is the
// option, for errors) into a filter; "" gives a nil filter. units is
// numLabelUnits(p).
func compileTagFilter(p *format.Profile, name, value string, units map[string]string) (sampleFilter, error) {
	if value == "" {
		return nil, nil
	}
	spec, err := parseTagFilter(name, value)
	if err != nil {
		return nil, err
	}
	if spec.isRange {
		return numTagFilter(p, spec.key, spec.r, units), nil
	}
	return strTagFilter(p, spec.key, spec.rxs), nil
}

// numTagFilter keeps the samples with a numeric label of key wantKey (any
// key if "") in range r.
func numTagFilter(p *format.Profile, wantKey string, r tagRange, units map[string]string) sampleFilter {
	// The conversion into the filter's unit of each key that can match.
	type conv struct{ mul, div float64 }
	convs := map[int32]conv{}
	seen := map[int32]bool{}
	for _, l := range p.Samples.NumKinds {
		if seen[l.Key] {
			continue
		}
		seen[l.Key] = true
		key := p.Strings[l.Key]
		if wantKey != "" && key != wantKey {
			continue
		}
		if mul, div, unit := unitConversion(units[key], r.unit); unit == r.unit {
			convs[l.Key] = conv{mul, div}
		}
	}
	s := &p.Samples
	return func(i int) bool {
		for _, l := range s.NumLabels(i) {
			c, ok := convs[l.Key]
			if !ok {
				continue
			}
			if v := float64(l.Value) * c.mul / c.div; v >= r.lo && v <= r.hi {
				return true
			}
		}
		return false
	}
}

// strTagFilter keeps the samples whose string labels match: with a key,
// any regexp matching any value of that key; without, every regexp
// matching some "key:value" of the sample.
func strTagFilter(p *format.Profile, wantKey string, rxs []*regexp.Regexp) sampleFilter {
	// Decide once per label set, through a per-pair cache of which regexps
	// match: sets share pairs, and regexps are the cost.
	words := (len(rxs) + 63) / 64
	pairBits := map[format.StrLabel][]uint64{}
	bitsOf := func(l format.StrLabel) []uint64 {
		if b, ok := pairBits[l]; ok {
			return b
		}
		b := make([]uint64, words)
		key, val := p.Strings[l.Key], p.Strings[l.Value]
		subject := val
		if wantKey == "" {
			subject = key + ":" + val
		}
		if wantKey == "" || key == wantKey {
			for j, rx := range rxs {
				if rx.MatchString(subject) {
					b[j/64] |= 1 << (j % 64)
				}
			}
		}
		pairBits[l] = b
		return b
	}
	sets := &p.LabelSets
	pass := make([]bool, sets.Len())
	got := make([]uint64, words)
	for s := range pass {
		clear(got)
		for _, l := range sets.At(int32(s)) {
			for w, b := range bitsOf(l) {
				got[w] |= b
			}
		}
		if wantKey != "" {
			pass[s] = slices.ContainsFunc(got, func(w uint64) bool { return w != 0 })
			continue
		}
		pass[s] = true
		for j := range rxs {
			if got[j/64]&(1<<(j%64)) == 0 {
				pass[s] = false
				break
			}
		}
	}
	labels := p.Samples.Labels
	return func(i int) bool { return pass[labels[i]] }
}

// tagFilterSamples combines -tagfocus and -tagignore: a sample passes if
// focus (when set) matches it and ignore (when set) does not. It returns
// nil when both are nil.
func tagFilterSamples(focus, ignore sampleFilter) sampleFilter {
	switch {
	case focus == nil && ignore == nil:
		return nil
	case ignore == nil:
		return focus
	case focus == nil:
		return func(i int) bool { return !ignore(i) }
	}
	return func(i int) bool { return focus(i) && !ignore(i) }
}

// labelKeyFilter compiles opt's -tagshow and -taghide, each one regexp
// over label keys (commas are literal). A key is kept if tagshow (when
// set) matches it and taghide (when set) does not. It returns nil when
// both are empty.
func labelKeyFilter(opt *Options) (func(key string) bool, error) {
	var c compiled
	if err := c.compile(opt, keysLabels); err != nil {
		return nil, err
	}
	s, h := c.tagShow, c.tagHide
	if s == nil && h == nil {
		return nil, nil
	}
	return func(key string) bool {
		return (s == nil || s.MatchString(key)) && (h == nil || !h.MatchString(key))
	}, nil
}

// tagFilters are the compiled -tagfocus and -tagignore. The settings
// table says which settings they are and where each one goes
// (Setting.tag).
type tagFilters struct{ focus, ignore sampleFilter }

// sampleFilter compiles tagfocus and tagignore into a per-sample
// predicate (nil when neither is set).
func (e *Engine) sampleFilter(opt *Options) (func(i int) bool, error) {
	var f tagFilters
	var units map[string]string
	t := table()
	for i := range t {
		s := &t[i]
		if s.tag == nil || s.get(opt) == "" {
			continue
		}
		if units == nil {
			units = e.NumLabelUnits()
		}
		var err error
		if *s.tag(&f), err = compileTagFilter(e.p, s.Name, s.get(opt), units); err != nil {
			return nil, err
		}
	}
	return tagFilterSamples(f.focus, f.ignore), nil
}
