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
	l, ok := r.next()
	attrs, l, ok, err := readJavaAttrs(r, kind, l, ok)
	if err != nil {
		return nil, err
	}
	lp, bytesKey := newJavaProfile(kind, attrs)
	if l, ok, err = readJavaSamples(r, lp, kind, attrs, bytesKey, l, ok); err != nil {
		return nil, err
	}
	if attrs.unit == "" {
		return nil, fmt.Errorf("Java %s profile without a resolution attribute", kind)
	}
	named, err := readJavaFrames(r, lp, l, ok)
	if err != nil {
		return nil, err
	}
	return finishJava(lp.p, named)
}

// javaAttrs is what a Java profile's attributes say.
type javaAttrs struct {
	unit                 string // of the second value
	period, msSinceReset int64
	hasPeriod            bool
}

// readJavaAttrs reads the attributes from l on, returning the first line
// that is not one.
func readJavaAttrs(r *lineReader, kind string, l string, ok bool) (javaAttrs, string, bool, error) {
	var a javaAttrs
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
				return a, l, ok, r.errorf("unknown format %q", trimForError(value))
			}
		case key == "resolution":
			a.unit = value
		case kind == "contentionz" && (key == "sampling period" || key == "ms since reset"):
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil || n < 0 || value[0] == '+' {
				return a, l, ok, r.errorf("attribute %q: %s is not a non-negative 64-bit integer", key, quoteLine(value))
			}
			if key == "ms since reset" {
				a.msSinceReset = n
			} else {
				a.period, a.hasPeriod = n, true
			}
		default:
			return a, l, ok, r.errorf("unknown attribute %q in a Java %s profile", trimForError(key), kind)
		}
	}
	return a, l, ok, nil
}

// newJavaProfile starts the profile the attributes describe; bytesKey is
// the string of the heap's "bytes" label, 0 for contention.
func newJavaProfile(kind string, a javaAttrs) (lp *textProfile, bytesKey int32) {
	types := []ValueType{{"contentions", "count"}, {"delay", a.unit}}
	var periodType ValueType
	if kind == "heapz" {
		types = []ValueType{{"inuse_objects", "count"}, {"inuse_space", a.unit}}
	} else if a.hasPeriod {
		periodType = ValueType{"contentions", "count"}
	}
	lp = newTextProfile(types, periodType, a.period)
	lp.p.DurationNanos = a.msSinceReset * 1e6
	if kind == "heapz" {
		bytesKey = lp.b.str("bytes")
	}
	return lp, bytesKey
}

// readJavaSamples reads the sample lines from l on, returning the first
// line that is not one: the symbols follow.
func readJavaSamples(r *lineReader, lp *textProfile, kind string, a javaAttrs, bytesKey int32, l string, ok bool) (string, bool, error) {
	var addrs []uint64
	for ; ok; l, ok = r.next() {
		if strings.TrimSpace(l) == "" {
			continue
		}
		m := javaSampleRE.FindStringSubmatch(l)
		if m == nil {
			break
		}
		v1, err1 := strconv.ParseInt(m[1], 10, 64)
		v2, err2 := strconv.ParseInt(m[2], 10, 64)
		if err1 != nil || err2 != nil {
			return l, ok, r.errorf("Java sample value out of range in %s", quoteLine(l))
		}
		if kind == "heapz" && v2 == 0 {
			return l, ok, r.errorf("Java heap sample %s: the count (second value) must be non-zero", quoteLine(l))
		}
		if a.unit == "" {
			return l, ok, r.errorf("Java %s profile without a resolution attribute", kind)
		}
		var num []NumLabel
		if kind == "heapz" {
			// bytes count, sampled every 512 KiB on average.
			num = []NumLabel{{Key: bytesKey, Value: v1 / v2}}
			lp.values[0], lp.values[1] = unsampleHeap(v2, v1, 524288)
		} else {
			// delay count
			if a.period > 0 {
				v1, v2 = v1*a.period, v2*a.period
			}
			lp.values[0], lp.values[1] = v2, v1
		}
		if addrs, err1 = hexAddrList(m[3], addrs[:0]); err1 != nil {
			return l, ok, r.errorf("Java sample: %v", err1)
		}
		if err := lp.sample(addrs, num); err != nil {
			return l, ok, r.errorf("%v", err)
		}
	}
	return l, ok, nil
}

// readJavaFrames reads the symbol lines from l to the end, naming the
// locations they give ids of: the last line for an id wins; a function
// is known by its name, the first file given for it wins. It returns
// which locations were named.
func readJavaFrames(r *lineReader, lp *textProfile, l string, ok bool) ([]bool, error) {
	p := lp.p
	named := make([]bool, len(p.Locations))
	funcOf := make(map[string]int32)
	for ; ok; l, ok = r.next() {
		hexID, name, isSymbol := splitJavaSymbol(strings.TrimSpace(l))
		if !isSymbol || name == "" {
			continue
		}
		id, err := strconv.ParseUint(hexID, 16, 64)
		if err != nil {
			continue
		}
		li, found := lp.locOf[id]
		if !found {
			continue
		}
		fn, line := javaFrame(name)
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
	return named, nil
}

// finishJava clears the method ids and assigns mappings as pprof does:
// it clears the ids of named frames before it assigns mappings and the
// others' after, so only unnamed frames get its placeholder mapping,
// unless no frame is named at all.
func finishJava(p *Profile, named []bool) (*Profile, error) {
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
	return p, nil
}
