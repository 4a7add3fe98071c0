package format

// Java's heapz and contentionz text, whose frames are method ids named
// by a symbol table at the end.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// parseLegacyJava reads Java's heapz and contentionz text: "key = value"
// attributes, "value1 value2 @ ids" lines, then " 0xid function
// (file:line)" lines naming the frames. Frames have method ids, not
// addresses; like pprof we clear them once they are named.
func parseLegacyJava(r *lineReader, kind string) (*Profile, error) {
	var unit string
	var period, msSinceReset int64
	hasPeriod := false
	l, ok := r.next()
	for ; ok; l, ok = r.next() {
		if strings.TrimSpace(l) == "" {
			continue
		}
		m := javaAttrRE.FindStringSubmatch(l)
		if m == nil {
			break
		}
		key, value := m[1], m[2]
		switch {
		case key == "format":
			if value != "java" {
				return nil, r.errorf("unknown format %q", value)
			}
		case key == "resolution":
			unit = value
		case kind == "contentionz" && (key == "sampling period" || key == "ms since reset"):
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil || n < 0 || value[0] == '+' {
				return nil, r.errorf("attribute %q: %s is not a non-negative 64-bit integer", key, quoteLine(value))
			}
			if key == "ms since reset" {
				msSinceReset = n
			} else {
				period, hasPeriod = n, true
			}
		default:
			return nil, r.errorf("unknown attribute %q in a Java %s profile", key, kind)
		}
	}

	types := []ValueType{{"contentions", "count"}, {"delay", unit}}
	var periodType ValueType
	if kind == "heapz" {
		types = []ValueType{{"inuse_objects", "count"}, {"inuse_space", unit}}
	} else if hasPeriod {
		periodType = ValueType{"contentions", "count"}
	}
	lp := newTextProfile(types, periodType, period)
	lp.p.DurationNanos = msSinceReset * 1e6
	bytesKey := int32(0)
	if kind == "heapz" {
		bytesKey = lp.b.str("bytes")
	}

	var addrs []uint64
	for ; ok; l, ok = r.next() {
		if strings.TrimSpace(l) == "" {
			continue
		}
		m := javaSampleRE.FindStringSubmatch(l)
		if m == nil {
			break // the symbols follow
		}
		v1, err1 := strconv.ParseInt(m[1], 10, 64)
		v2, err2 := strconv.ParseInt(m[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, r.errorf("Java sample value out of range in %s", quoteLine(l))
		}
		if kind == "heapz" && v2 == 0 {
			return nil, r.errorf("Java heap sample %s: the count (second value) must be non-zero", quoteLine(l))
		}
		if unit == "" {
			return nil, r.errorf("Java %s profile without a resolution attribute", kind)
		}
		var num []NumLabel
		if kind == "heapz" {
			// bytes count, sampled every 512 KiB on average.
			num = []NumLabel{{Key: bytesKey, Value: v1 / v2}}
			lp.values[0], lp.values[1] = unsampleHeap(v2, v1, 524288)
		} else {
			// delay count
			if period > 0 {
				v1, v2 = v1*period, v2*period
			}
			lp.values[0], lp.values[1] = v2, v1
		}
		if addrs, err1 = hexAddrList(m[3], addrs[:0]); err1 != nil {
			return nil, r.errorf("Java sample: %v", err1)
		}
		if err := lp.sample(addrs, num); err != nil {
			return nil, r.errorf("%v", err)
		}
	}
	if unit == "" {
		return nil, fmt.Errorf("Java %s profile without a resolution attribute", kind)
	}

	// Symbols: the last line for an id wins; a function is known by its
	// name, the first file given for it wins.
	p := lp.p
	named := make([]bool, len(p.Locations))
	funcOf := make(map[string]int32)
	for ; ok; l, ok = r.next() {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "0x") {
			continue
		}
		e := 2
		for e < len(t) && hexDigit(t[e]) {
			e++
		}
		s := e
		for s < len(t) && re2Space(t[s]) {
			s++
		}
		if e == 2 || s == e || s == len(t) {
			continue
		}
		id, err := strconv.ParseUint(t[2:e], 16, 64)
		if err != nil {
			continue
		}
		li, found := lp.locOf[id]
		if !found {
			continue
		}
		fn, line := javaFrame(t[s:])
		fi, found := funcOf[fn.Name]
		if !found {
			if len(p.Functions) >= math.MaxInt32-1 {
				return nil, r.errorf("too many Java functions")
			}
			fi = int32(len(p.Functions))
			fn.ID = uint64(fi) + 1
			p.Functions = append(p.Functions, fn)
			funcOf[fn.Name] = fi
		}
		p.Locations[li].Lines = p.AddLines(Line{Function: fi, Line: line})
		named[li] = true
	}

	// pprof clears the ids of named frames before it assigns mappings and
	// the others' after, so only unnamed frames get its placeholder
	// mapping, unless no frame is named at all.
	for i := range p.Locations {
		if named[i] {
			p.Locations[i].Address = 0
		}
	}
	if err := assignWithPlaceholder(p, nil); err != nil {
		return nil, err
	}
	for i := range p.Locations {
		p.Locations[i].Address = 0
	}
	addPlaceholderMapping(p)
	return p, nil
}
