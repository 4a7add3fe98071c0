package format

// C++ contention profiles, and Go's block and mutex profiles as text.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

func isContentionHeader(l string) bool {
	return strings.HasPrefix(l, "--- contentionz ") || strings.HasPrefix(l, "--- contention:") || strings.HasPrefix(l, "--- mutex:")
}

// errNotCPPContention says a contention profile has an attribute the C++ format
// does not know.
var errNotCPPContention = errors.New("not a C++ contention profile")

// parseLegacyContention reads C++ contention profiles and Go's block and
// mutex profiles as text: "key = value" attributes, then
// "cycles count @ addrs" lines.
func parseLegacyContention(r *lineReader) (*Profile, error) {
	var period, cyclesPerSec, msSinceReset int64 = 1, 0, 0
	l, ok := r.next()
	for ; ok; l, ok = r.next() {
		if blankOrComment(l) {
			continue
		}
		key, value, isAttr := keyValue(l)
		if !isAttr {
			break
		}
		var dst *int64
		switch key {
		case "cycles/second":
			dst = &cyclesPerSec
		case "sampling period":
			dst = &period
		case "ms since reset":
			dst = &msSinceReset
		case "discarded samples":
			continue
		default:
			return nil, fmt.Errorf("line %d: unknown attribute %q: %w", r.line, trimForError(key), errNotCPPContention)
		}
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return nil, r.errorf("attribute %q: %s is not a 64-bit integer", key, quoteLine(value))
		}
		*dst = n
	}

	lp := newTextProfile([]ValueType{{"contentions", "count"}, {"delay", "nanoseconds"}}, ValueType{"contentions", "count"}, period)
	lp.p.DurationNanos = msSinceReset * 1e6

	var maps []byte
	for ; ok; l, ok = r.next() {
		if blankOrComment(l) {
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(l), "---") {
			maps = r.mapsAfter(l)
			break
		}
		m := submatchAddrs(contentionSampleRE, l)
		if m == nil {
			if _, _, isAttr := keyValue(l); isAttr {
				return nil, r.errorf("attribute after the samples: %s", quoteLine(l))
			}
			return nil, r.errorf("malformed contention sample %s", quoteLine(l))
		}
		cycles, err1 := strconv.ParseInt(m[1], 10, 64)
		count, err2 := strconv.ParseInt(m[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, r.errorf("contention sample value out of range in %s", quoteLine(l))
		}
		delay := cycles
		if period > 0 {
			// pprof scales both by the sampling period, but the delay
			// only when it knows the clock rate (and then in floating
			// point, as here).
			count *= period
			if cyclesPerSec > 0 {
				delay = amd64FloatToInt(float64(cycles) * float64(period) / (float64(cyclesPerSec) / 1e9))
			}
		}
		lp.values[0], lp.values[1] = count, delay
		if err := lp.sampleCallers(r, "contention", m[3], nil); err != nil {
			return nil, err
		}
	}
	return lp.finish(maps)
}
