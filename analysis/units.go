package analysis

// Units: how pprof scales and prints sample values. pprof knows three
// kinds of unit (bytes, time and Google Compute Units); a value in a unit
// of one kind converts to any unit of the same kind, and "minimum" or
// "auto" picks the largest unit of the kind that keeps the value at least
// 1. Units pprof does not know are never converted. These functions are
// exported so that reports and the TUI print numbers exactly as
// `go tool pprof` does.

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// measureUnit is one unit pprof knows: the name it prints, the spellings
// it accepts (lower case, see unitSpelling) and its size in the smallest
// unit of its kind.
type measureUnit struct {
	name      string
	spellings []string
	size      float64
}

// measureKind is a family of interconvertible units. fallback is the unit
// used when the target unit is not of this kind, or when no unit keeps an
// auto-scaled value at least 1 (zero, negative overflow).
type measureKind struct {
	units    []measureUnit
	fallback measureUnit
}

var measureKinds = []measureKind{
	{
		// pprof's byte units are powers of 1024, though named kB, MB...
		units: []measureUnit{
			{"B", []string{"b", "byte"}, 1},
			{"kB", []string{"kb", "kbyte", "kilobyte"}, 1 << 10},
			{"MB", []string{"mb", "mbyte", "megabyte"}, 1 << 20},
			{"GB", []string{"gb", "gbyte", "gigabyte"}, 1 << 30},
			{"TB", []string{"tb", "tbyte", "terabyte"}, 1 << 40},
			{"PB", []string{"pb", "pbyte", "petabyte"}, 1 << 50},
		},
		fallback: measureUnit{name: "B", size: 1},
	},
	{
		// "μs" is listed as pprof lists it, though unitSpelling turns it
		// into "μ" (it is three bytes long), so it never matches there
		// either.
		units: []measureUnit{
			{"ns", []string{"ns", "nanosecond"}, 1},
			{"us", []string{"μs", "us", "microsecond"}, 1e3},
			{"ms", []string{"ms", "millisecond"}, 1e6},
			{"s", []string{"s", "sec", "second"}, 1e9},
			{"hrs", []string{"hour", "hr"}, 3600e9},
		},
		fallback: measureUnit{name: "s", size: 1e9},
	},
	{
		units: []measureUnit{
			{"n*GCU", []string{"nanogcu"}, 1e-9},
			{"u*GCU", []string{"microgcu"}, 1e-6},
			{"m*GCU", []string{"milligcu"}, 1e-3},
			{"GCU", []string{"gcu"}, 1},
			{"k*GCU", []string{"kilogcu"}, 1e3},
			{"M*GCU", []string{"megagcu"}, 1e6},
			{"G*GCU", []string{"gigagcu"}, 1e9},
			{"T*GCU", []string{"teragcu"}, 1e12},
			{"P*GCU", []string{"petagcu"}, 1e15},
		},
		fallback: measureUnit{name: "GCU", size: 1},
	},
}

// unitSpelling is the form pprof looks a unit up by: lower case, and
// without one trailing "s" when longer than two bytes, so that
// "Bytes", "nanoseconds" and "hrs" find "byte", "nanosecond" and "hr".
func unitSpelling(u string) string {
	u = strings.ToLower(u)
	if len(u) > 2 {
		u = strings.TrimSuffix(u, "s")
	}
	return u
}

// find returns the unit of k spelled u.
func (k *measureKind) find(u string) (measureUnit, bool) {
	u = unitSpelling(u)
	for _, m := range k.units {
		if slices.Contains(m.spellings, u) {
			return m, true
		}
	}
	return measureUnit{}, false
}

// best is the largest unit of k in which x (in the smallest unit) is at
// least 1; ok is false when there is none.
func (k *measureKind) best(x float64) (m measureUnit, ok bool) {
	for _, u := range k.units {
		if x/u.size >= 1 && (!ok || u.size >= m.size) {
			m, ok = u, true
		}
	}
	return m, ok
}

// ScaleValue converts v from fromUnit to toUnit as pprof does and returns
// the value and the unit name to print after it. toUnit "minimum" or
// "auto" picks the largest unit that keeps |v| at least 1. A fromUnit
// pprof does not know leaves v as it is, with toUnit as the unit name, or
// "" when toUnit is "count", "sample", "unit", "minimum" or "auto".
func ScaleValue(v int64, fromUnit, toUnit string) (float64, string) {
	return newScaler(fromUnit, toUnit).value(v)
}

// ScaledLabel formats v, in fromUnit, scaled to toUnit: two decimals
// unless both are zero, then the unit ("0.75s", "116.21MB", "284"); a
// value that rounds to zero is "0", without unit.
func ScaledLabel(v int64, fromUnit, toUnit string) string {
	return newScaler(fromUnit, toUnit).label(v)
}

// scaler is ScaleValue's conversion from one unit to another, with the
// units looked up once for many values (a label's million values).
type scaler struct {
	kind     *measureKind // nil: fromUnit is not a unit pprof knows
	from, to measureUnit  // to: unless auto
	auto     bool         // the largest unit that keeps the value at least 1
	name     string       // the unit name when kind is nil
}

func newScaler(fromUnit, toUnit string) scaler {
	for i := range measureKinds {
		k := &measureKinds[i]
		from, ok := k.find(fromUnit)
		if !ok {
			continue
		}
		s := scaler{kind: k, from: from, to: k.fallback}
		if toUnit == "minimum" || toUnit == "auto" {
			s.auto = true
		} else if t, ok := k.find(toUnit); ok {
			s.to = t
		}
		return s
	}
	switch toUnit {
	case "count", "sample", "unit", "minimum", "auto":
		return scaler{}
	}
	return scaler{name: toUnit}
}

// value is ScaleValue(v) in s's units.
func (s scaler) value(v int64) (float64, string) {
	// Scale the magnitude; math.MinInt64 has none that fits and goes
	// through as it is, as in pprof.
	if v < 0 && -v > 0 {
		x, u := s.scale(float64(-v))
		return -x, u
	}
	return s.scale(float64(v))
}

// scale is ScaleValue's conversion of x, not negative but for
// math.MinInt64, in s's units: also the rates' (RateLabel), which are
// not integers.
func (s scaler) scale(x float64) (float64, string) {
	if s.kind == nil {
		return x, s.name
	}
	y := x * s.from.size
	to := s.to
	if s.auto {
		if b, ok := s.kind.best(y); ok {
			to = b
		}
	}
	return y / to.size, to.name
}

// label is ScaledLabel(v) in s's units.
func (s scaler) label(v int64) string {
	x, u := s.value(v)
	// fmt's %.2f, without fmt: labels are made per row and per label
	// value, a million of them for a label with a value per sample.
	var buf [32]byte
	var b []byte
	if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
		// A whole number prints its digits and ".00": strconv's exact
		// path for twenty digits (an id) is several times slower.
		b = strconv.AppendInt(buf[:0], int64(x), 10)
	} else {
		b = strconv.AppendFloat(buf[:0], x, 'f', 2, 64)
		b = bytes.TrimSuffix(b, []byte(".00"))
	}
	if s := string(b); s == "0" || s == "-0" {
		return "0"
	}
	return string(append(b, u...))
}

// Label formats v, in unit, in the unit that suits it best, as pprof
// labels single measurements (durations, numeric labels).
func Label(v int64, unit string) string {
	return ScaledLabel(v, unit, "auto")
}

// Percentage formats |v/total| as a six-character percentage the way
// pprof's reports do: "26.41%", "  100%" when within 0.05 of 100, and two
// significant digits below 1% ("0.0068%", "    0%" for zero; a zero
// total counts as 0%).
func Percentage(v, total int64) string {
	var buf [24]byte
	num := percentNumber(buf[:0], v, total)
	if len(num) < 5 {
		return strings.Repeat(" ", 5-len(num)) + string(num) + "%"
	}
	return string(num) + "%"
}

// PercentageWidth is len(Percentage(v, total)) without making the string:
// the views size their percentage columns over every row (a million rows
// at the lines granularity).
func PercentageWidth(v, total int64) int {
	var buf [24]byte
	return max(5, len(percentNumber(buf[:0], v, total))) + 1
}

// PartWidth is the widest PercentageWidth of a value smaller than the
// total in magnitude: "99.94%" from 1% up, "0.00012%" or "1.2e-05%"
// below (two significant digits; a non-zero share of an int64 total is
// above 1e-18%, so its exponent has two digits).
const PartWidth = 8

// percentNumber appends Percentage's number, unpadded: "%.2f" from 1%
// up, "%.2g" below (what fmt's %5.2f and %5.2g print, less the padding).
func percentNumber(dst []byte, v, total int64) []byte {
	var pct float64
	if total != 0 {
		pct = math.Abs(float64(v)/float64(total)) * 100
	}
	switch {
	case pct >= 99.95 && pct <= 100.05:
		return append(dst, "100"...)
	case pct >= 1:
		return strconv.AppendFloat(dst, pct, 'f', 2, 64)
	}
	return strconv.AppendFloat(dst, pct, 'g', 2, 64)
}

// OutputUnit is the unit pprof prints top's values in under -unit=minimum,
// the default: the unit of the smallest non-zero row (its flat, else its
// cum), unless that is a smaller unit than the total's and the value is
// below 1% of the total, when the unit of 100 times it is taken so that
// small rows print as 0.01 of a larger unit. It returns sampleUnit when
// pprof does not know the unit, and "minimum" when there are no rows (then
// every value picks its own unit).
func OutputUnit(top *Top, sampleUnit string) string {
	return outputUnit(top, sampleUnit, 1)
}

// outputUnit is OutputUnit for values multiplied by ratio before they
// print (divide_by), as pprof scales the smallest and largest value.
func outputUnit(top *Top, sampleUnit string, ratio float64) string {
	return chooseUnit(top, sampleUnit, ratio, true)
}

// CallgrindUnit is the unit of -callgrind's events: opt's unit, or under
// minimum OutputUnit's choice but for the move to a larger unit, as
// callgrind's values are integers.
func CallgrindUnit(top *Top, sampleUnit string, opt Options) string {
	if opt.Unit != "" && opt.Unit != "minimum" {
		return opt.Unit
	}
	return chooseUnit(top, sampleUnit, opt.Ratio(), false)
}

func chooseUnit(top *Top, sampleUnit string, ratio float64, larger bool) string {
	if top == nil || len(top.Rows) == 0 {
		return "minimum"
	}
	var lo int64
	for _, r := range top.Rows {
		x := abs64(r.Flat)
		if x == 0 {
			x = abs64(r.Cum)
		}
		if x > 0 && (lo == 0 || x < lo) {
			lo = x
		}
	}
	hi := top.Total
	if lo == 0 {
		lo = hi
	}
	if ratio != 1 {
		lo, hi = int64(float64(lo)*ratio), int64(float64(hi)*ratio)
	}
	_, loUnit := ScaleValue(lo, sampleUnit, "minimum")
	_, hiUnit := ScaleValue(hi, sampleUnit, "minimum")
	unit := loUnit
	if larger && loUnit != hiUnit && lo*100 < hi {
		_, unit = ScaleValue(100*lo, sampleUnit, "minimum")
	}
	if unit == "" {
		return sampleUnit
	}
	return unit
}

// UnitNames lists the values -unit takes: minimum, auto and the unit
// names pprof prints.
func UnitNames() []string {
	names := []string{"minimum", "auto"}
	for _, k := range measureKinds {
		for _, u := range k.units {
			names = append(names, u.name)
		}
	}
	return names
}

// checkUnit accepts what pprof's -unit finds: minimum, auto, or a unit
// it knows by any spelling.
func checkUnit(u string) error {
	if u == "minimum" || u == "auto" {
		return nil
	}
	s := unitSpelling(u)
	for _, k := range measureKinds {
		for _, m := range k.units {
			if m.name == u || slices.Contains(m.spellings, s) {
				return nil
			}
		}
	}
	return fmt.Errorf("%q is not a unit pprof knows (minimum, auto, ns, ms, s, B, kB, MB, …)", u)
}

// ValueFormat returns how the values of one table print under o's unit
// and divide_by, as pprof prints them: under unit=minimum one unit for
// the table, chosen from top's rows (with top nil, from each value on
// its own); divide_by scales each value first, truncating as pprof does.
func (o Options) ValueFormat(top *Top, sampleUnit string) func(int64) string {
	unit, ratio := o.Unit, o.Ratio()
	if unit == "" {
		unit = "minimum"
	}
	if unit == "minimum" && top != nil {
		unit = outputUnit(top, sampleUnit, ratio)
	}
	if ratio == 1 {
		return func(v int64) string { return ScaledLabel(v, sampleUnit, unit) }
	}
	return func(v int64) string { return ScaledLabel(int64(float64(v)*ratio), sampleUnit, unit) }
}

// ReadableLabel formats x, a value in fromUnit (a fraction after
// divide_by, or a rate), as the explorer prints it: each value readable
// on its own. Under toUnit "", "minimum" or "auto" each value takes the
// largest unit, from fromUnit up, that keeps it at least 1 once rounded;
// any other unit is the one every value prints in. The number has three
// significant digits ("95.6s", "870ms", "5.56hrs", "1.50kB", "0.0123ms"
// under unit=ms), more only for the digits before the point ("20009s"
// under unit=s), and a value in its own unit that is a whole number
// prints whole ("239", "512B", "5ns"); only zero is "0". The reports keep
// pprof's ScaledLabel.
func ReadableLabel(x float64, fromUnit, toUnit string) string {
	var buf [40]byte
	return string(appendReadable(buf[:0], x, fromUnit, toUnit))
}

// readableAuto reports whether ReadableLabel picks each value's unit
// under toUnit.
func readableAuto(toUnit string) bool {
	return toUnit == "" || toUnit == "minimum" || toUnit == "auto"
}

func appendReadable(dst []byte, x float64, fromUnit, toUnit string) []byte {
	if x == 0 || math.IsNaN(x) {
		return append(dst, '0')
	}
	if x < 0 {
		dst = append(dst, '-')
		x = -x
	}
	auto := readableAuto(toUnit)
	if auto {
		toUnit = "auto"
	}
	s := newScaler(fromUnit, toUnit)
	y, name, same := x, s.name, true
	if s.kind != nil {
		base := x * s.from.size
		to := s.to
		if auto {
			to = s.from
			for _, u := range s.kind.units {
				// 0.9995 rounds to 1.00: 999.6ms is 1.00s, not 1000ms.
				if u.size > to.size && base/u.size >= 0.9995 {
					to = u
				}
			}
		}
		y, name, same = base/to.size, to.name, to.size == s.from.size
	}
	switch {
	case same && y == math.Trunc(y) && y < 1e18:
		dst = strconv.AppendFloat(dst, y, 'f', 0, 64)
	case y >= 99.95:
		dst = strconv.AppendFloat(dst, y, 'f', 0, 64)
	case y >= 9.995:
		dst = strconv.AppendFloat(dst, y, 'f', 1, 64)
	case y >= 0.9995:
		dst = strconv.AppendFloat(dst, y, 'f', 2, 64)
	default:
		// Three significant digits however small: never 0.
		d := min(30, 2-int(math.Floor(math.Log10(y))))
		dst = strconv.AppendFloat(dst, y, 'f', d, 64)
	}
	return append(dst, name...)
}

// ReadableWidth is at least the width of ReadableLabel of any magnitude
// from lo to hi (lo the smallest non-zero one), with neg a "-", so that
// a column of a million values is sized without printing each: the
// labels of both ends, and a four-digit number ("99.9") in any unit
// between them.
func ReadableWidth(lo, hi float64, fromUnit, toUnit string, neg bool) int {
	hiLabel := ReadableLabel(hi, fromUnit, toUnit)
	w := max(len(ReadableLabel(lo, fromUnit, toUnit)), len(hiLabel))
	auto := readableAuto(toUnit)
	if s := newScaler(fromUnit, "auto"); auto && s.kind != nil {
		for _, u := range s.kind.units {
			if u.size >= s.from.size && u.size <= hi*s.from.size {
				w = max(w, 4+len(u.name))
			}
		}
	} else {
		// One unit, the one hi prints in.
		w = max(w, 4+len(strings.TrimLeft(hiLabel, "-.0123456789")))
	}
	if neg {
		w++
	}
	return w
}
