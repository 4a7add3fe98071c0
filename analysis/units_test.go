package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// The expectations below are what pprof's measurement package returns
// for the same arguments (go1.26.8's vendored pprof).

func TestScaleValue(t *testing.T) {
	for _, c := range []struct {
		v        int64
		from, to string
		want     float64
		unit     string
		label    string
	}{
		// Zero picks the kind's fallback unit, but prints bare.
		{0, "nanoseconds", "minimum", 0, "s", "0"},
		{0, "bytes", "minimum", 0, "B", "0"},
		{0, "count", "minimum", 0, "", "0"},
		{750000000, "nanoseconds", "minimum", 750, "ms", "750ms"},
		{2840000000, "nanoseconds", "ms", 2840, "ms", "2840ms"},
		// Byte units are powers of 1024.
		{121859072, "bytes", "minimum", 116.2138671875, "MB", "116.21MB"},
		{121859072, "bytes", "MB", 116.2138671875, "MB", "116.21MB"},
		{1536, "bytes", "auto", 1.5, "kB", "1.50kB"},
		{1023, "bytes", "kB", 0.9990234375, "kB", "1kB"},
		{1, "Bytes", "KB", 0.0009765625, "kB", "0"},
		// A target of another kind falls back to the source kind's unit.
		{1, "bytes", "ms", 1, "B", "1B"},
		{1000000000, "ns", "bytes", 1, "s", "1s"},
		{10, "bytes", "nosuchunit", 10, "B", "10B"},
		// Unknown source units are not converted.
		{284, "count", "minimum", 284, "", "284"},
		{284, "count", "ms", 284, "ms", "284ms"},
		{284, "widgets", "widgets", 284, "widgets", "284widgets"},
		{284, "widgets", "auto", 284, "", "284"},
		{10, "count", "sample", 10, "", "10"},
		// Negative values scale by magnitude.
		{-1500, "ns", "auto", -1.5, "us", "-1.50us"},
		{-1, "bytes", "minimum", -1, "B", "-1B"},
		{-4, "ns", "ms", -4e-06, "ms", "0"},
		// MinInt64 has no magnitude: no unit keeps it >= 1.
		{math.MinInt64, "ns", "minimum", -9.223372036854776e+09, "s", "-9223372036.85s"},
		{math.MaxInt64, "nanoseconds", "minimum", 2.5620477880152157e+06, "hrs", "2562047.79hrs"},
		{math.MaxInt64, "bytes", "auto", 8192, "PB", "8192PB"},
		{7200000000000, "ns", "minimum", 2, "hrs", "2hrs"},
		{90, "seconds", "auto", 90, "s", "90s"},
		{5, "hours", "ns", 1.8e+13, "ns", "18000000000000ns"},
		{3, "us", "minimum", 3, "us", "3us"},
		// pprof lists "μs" but its lookup trims it to "μ"; "μss" works.
		{3, "μs", "minimum", 3, "", "3"},
		{3, "μss", "minimum", 3, "us", "3us"},
		{3, "microseconds", "ms", 0.003, "ms", "0"},
		{4, "ms", "s", 0.004, "s", "0"},
		{5000, "ns", "ms", 0.005, "ms", "0.01ms"},
		{4, "ns", "ms", 4e-06, "ms", "0"},
		{1500, "gcu", "auto", 1.5, "k*GCU", "1.50k*GCU"},
		{1, "nanogcu", "minimum", 1, "n*GCU", "1n*GCU"},
		{2, "megagcus", "gcu", 2e+06, "GCU", "2000000GCU"},
	} {
		v, u := ScaleValue(c.v, c.from, c.to)
		if v != c.want || u != c.unit {
			t.Errorf("ScaleValue(%d, %q, %q) = %v, %q; want %v, %q", c.v, c.from, c.to, v, u, c.want, c.unit)
		}
		if got := ScaledLabel(c.v, c.from, c.to); got != c.label {
			t.Errorf("ScaledLabel(%d, %q, %q) = %q; want %q", c.v, c.from, c.to, got, c.label)
		}
	}
}

func TestLabel(t *testing.T) {
	for _, c := range []struct {
		v          int64
		unit, want string
	}{
		{3000000000, "nanoseconds", "3s"},
		{2999999999, "nanoseconds", "3s"},
		{49152, "bytes", "48kB"},
		{16, "bytes", "16B"},
		{-16, "bytes", "-16B"},
		{0, "bytes", "0"},
		{2038747931766884096, "span_id", "2038747931766884096"},
	} {
		if got := Label(c.v, c.unit); got != c.want {
			t.Errorf("Label(%d, %q) = %q; want %q", c.v, c.unit, got, c.want)
		}
	}
}

// TestLabelAsFmt checks ScaledLabel against pprof's formatting (fmt's
// %.2f of the scaled value, ".00" trimmed) over whole and fractional
// scaled values, ids near the int64 limits included.
func TestLabelAsFmt(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pprof := func(v int64, from, to string) string {
		x, u := ScaleValue(v, from, to)
		s := strings.TrimSuffix(fmt.Sprintf("%.2f", x), ".00")
		if s == "0" || s == "-0" {
			return "0"
		}
		return s + u
	}
	vals := []int64{0, 1, -1, 999, 1000, 1023, 1024, 1 << 53, 1<<53 + 1, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for range 20000 {
		vals = append(vals, r.Int64(), -r.Int64(), r.Int64N(1<<20), r.Int64N(1<<40)-1<<39)
	}
	for _, units := range [][2]string{{"span_id", "minimum"}, {"bytes", "minimum"}, {"nanoseconds", "minimum"}, {"count", "minimum"}, {"bytes", "kB"}} {
		for _, v := range vals {
			if got, want := ScaledLabel(v, units[0], units[1]), pprof(v, units[0], units[1]); got != want {
				t.Fatalf("ScaledLabel(%d, %q, %q) = %q; fmt gives %q", v, units[0], units[1], got, want)
			}
		}
	}
}

func TestPercentage(t *testing.T) {
	for _, c := range []struct {
		v, total int64
		want     string
	}{
		{0, 0, "    0%"},
		{0, 100, "    0%"},
		{5, 0, "    0%"},
		{2641, 10000, "26.41%"},
		{1, 1, "  100%"},
		{9995, 10000, "  100%"},
		{10005, 10000, "  100%"},
		{10006, 10000, "100.06%"},
		{9994, 10000, "99.94%"},
		{-50, 100, "50.00%"},
		{50, -100, "50.00%"},
		{68, 1000000, "0.0068%"},
		{1, 3, "33.33%"},
		{1, 1000, "  0.1%"},
		{1, 1000000000000, "1e-10%"},
		{99, 10000, " 0.99%"},
		{100, 10000, " 1.00%"},
		{8, 1, "800.00%"},
		{math.MaxInt64, 1, "922337203685477580800.00%"},
		{math.MinInt64, -1, "922337203685477580800.00%"},
	} {
		if got := Percentage(c.v, c.total); got != c.want {
			t.Errorf("Percentage(%d, %d) = %q; want %q", c.v, c.total, got, c.want)
		}
	}
}

// TestPercentageAsFmt: Percentage (strconv, no fmt) prints what pprof's
// fmt.Sprintf("%5.2f%%") and ("%5.2g%%") do, and PercentageWidth is its
// length, over values of every magnitude and the rounding boundaries.
func TestPercentageAsFmt(t *testing.T) {
	pprof := func(v, total int64) string {
		pct := math.Abs(float64(v)/float64(total)) * 100
		if pct >= 99.95 && pct <= 100.05 {
			return "  100%"
		}
		if pct >= 1 {
			return fmt.Sprintf("%5.2f%%", pct)
		}
		return fmt.Sprintf("%5.2g%%", pct)
	}
	r := rand.New(rand.NewPCG(1, 2))
	check := func(v, total int64) {
		want := pprof(v, total)
		if got := Percentage(v, total); got != want {
			t.Fatalf("Percentage(%d, %d) = %q; fmt gives %q", v, total, got, want)
		}
		if got := PercentageWidth(v, total); got != len(want) {
			t.Fatalf("PercentageWidth(%d, %d) = %d; want %d (%q)", v, total, got, len(want), want)
		}
	}
	for _, total := range []int64{1, 3, 7, 100, 1000, 10000, 999983, 1e9, 1e12, 1 << 62} {
		for v := int64(0); v <= 2000; v++ {
			check(v, total)
			check(-v, total)
		}
		for range 20000 {
			check(r.Int64N(4*total+1)-2*total, total)
			check(r.Int64N(total/1000+1), total)
		}
	}
	for d := int64(1); d <= 1e15; d *= 10 {
		for _, v := range []int64{95, 949, 950, 951, 995, 9949, 9950, 9951, 9995, 9999, 99949, 99950} {
			check(v, d)
		}
	}
}

func TestOutputUnit(t *testing.T) {
	rows := func(fc ...int64) []Row {
		var out []Row
		for i := 0; i+1 < len(fc); i += 2 {
			out = append(out, Row{Flat: fc[i], Cum: fc[i+1]})
		}
		return out
	}
	for _, c := range []struct {
		name string
		top  *Top
		unit string
		want string
	}{
		{"no rows", &Top{Total: 5e9}, "nanoseconds", "minimum"},
		{"nil", nil, "nanoseconds", "minimum"},
		// 10ms is below 1% of 2.84s: one step up, to seconds.
		{"small row", &Top{Total: 2.84e9, Rows: rows(750e6, 750e6, 10e6, 20e6)}, "nanoseconds", "s"},
		{"same unit", &Top{Total: 500e6, Rows: rows(400e6, 400e6, 10e6, 10e6)}, "nanoseconds", "ms"},
		// 1% or more of the total keeps the smaller unit.
		{"one percent", &Top{Total: 1e9, Rows: rows(10e6, 10e6)}, "nanoseconds", "ms"},
		{"zero flat uses cum", &Top{Total: 2e9, Rows: rows(0, 5e6, 1e9, 1e9)}, "nanoseconds", "ms"},
		{"negative", &Top{Total: 2e9, Rows: rows(-30e6, -30e6, 1e9, 1e9)}, "nanoseconds", "ms"},
		{"all zero", &Top{Total: 2e9, Rows: rows(0, 0)}, "nanoseconds", "s"},
		{"zero total", &Top{Rows: rows(0, 0)}, "nanoseconds", "s"},
		{"bytes", &Top{Total: 18099999, Rows: rows(7200000, 7200000, 16, 16)}, "bytes", "kB"},
		{"count", &Top{Total: 284, Rows: rows(75, 75, 1, 1)}, "count", "count"},
		{"unknown", &Top{Total: 284, Rows: rows(75, 75)}, "widgets", "widgets"},
	} {
		if got := OutputUnit(c.top, c.unit); got != c.want {
			t.Errorf("%s: OutputUnit = %q; want %q", c.name, got, c.want)
		}
	}
}

func TestReadableLabel(t *testing.T) {
	for _, tc := range []struct {
		x          float64
		from, unit string
		want       string
	}{
		// A merged 1M-sample CPU profile of 5.56 hours: its rows read on
		// their own, none as 0.03hrs or 0.
		{20009520e6, "nanoseconds", "", "5.56hrs"},
		{95.57e9, "nanoseconds", "", "95.6s"},
		{50e9, "nanoseconds", "", "50.0s"},
		{26.04e9, "nanoseconds", "", "26.0s"},
		{870e6, "nanoseconds", "minimum", "870ms"},
		{17.4e9, "nanoseconds", "auto", "17.4s"},
		{4410, "nanoseconds", "", "4.41us"},
		{5, "nanoseconds", "", "5ns"},
		{3500e9, "nanoseconds", "", "3500s"},
		// Rounding up reaches the next unit.
		{999.6e6, "nanoseconds", "", "1.00s"},
		{9.996e6, "nanoseconds", "", "10.0ms"},
		{99.96e6, "nanoseconds", "", "100ms"},
		{3599.9e9, "nanoseconds", "", "1.00hrs"},
		// Bytes are powers of 1024, though named kB and MB.
		{764932874, "bytes", "", "729MB"},
		{1536, "bytes", "", "1.50kB"},
		{1023.7 * 1024, "bytes", "", "1.00MB"},
		{512, "bytes", "", "512B"},
		// Below the sample's unit (divide_by): three digits, never 0.
		{0.4, "count", "", "0.400"},
		{0.00123, "microseconds", "", "0.00123us"},
		{5, "microseconds", "", "5us"},
		// Counts stay whole; unknown units are never converted.
		{239, "count", "", "239"},
		{1234567, "count", "", "1234567"},
		{7, "widgets", "", "7"},
		{7, "widgets", "widgets", "7widgets"},
		{12.5, "count", "", "12.5"},
		// One unit when asked for.
		{754e9, "nanoseconds", "ms", "754000ms"},
		{10e6, "nanoseconds", "hrs", "0.00000278hrs"},
		{750e6, "nanoseconds", "s", "0.750s"},
		{1258, "bytes", "MB", "0.00120MB"},
		// Signs and zero.
		{-3e9, "nanoseconds", "", "-3.00s"},
		{0, "nanoseconds", "", "0"},
		{0, "bytes", "MB", "0"},
	} {
		if got := ReadableLabel(tc.x, tc.from, tc.unit); got != tc.want {
			t.Errorf("ReadableLabel(%g, %q, %q) = %q, want %q", tc.x, tc.from, tc.unit, got, tc.want)
		}
	}
}

// ReadableWidth bounds the width of every label between its ends.
func TestReadableWidth(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct{ from, unit string }{
		{"nanoseconds", ""}, {"bytes", ""}, {"count", ""}, {"nanoseconds", "ms"}, {"bytes", "MB"}, {"microseconds", ""},
	} {
		for range 2000 {
			lo := math.Exp(r.Float64() * 30)
			hi := lo * math.Exp(r.Float64()*30)
			w := ReadableWidth(lo, hi, c.from, c.unit, true)
			for range 20 {
				x := lo * math.Pow(hi/lo, r.Float64())
				if got := len(ReadableLabel(-x, c.from, c.unit)); got > w {
					t.Fatalf("%s unit %q: %q is %d wide, more than %d for %g..%g", c.from, c.unit, ReadableLabel(-x, c.from, c.unit), got, w, lo, hi)
				}
			}
		}
	}
}

// TestPartWidth: no value smaller than the total in magnitude has a
// share wider than PartWidth (the views stop measuring there), and some
// reach it.
func TestPartWidth(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	widest := 0
	for i := 0; i < 200000; i++ {
		total := r.Int64N(math.MaxInt64) + 1
		if i%2 == 0 {
			total = r.Int64N(1e7) + 1
		}
		v := r.Int64N(total)
		if i%3 == 0 {
			v = r.Int64N(min(total, 1e6)) // small shares: the long ones
		}
		if i%5 == 0 {
			v = -v
		}
		w := PercentageWidth(v, total)
		if w > PartWidth {
			t.Fatalf("PercentageWidth(%d, %d) = %d (%q), more than %d", v, total, w, Percentage(v, total), PartWidth)
		}
		widest = max(widest, w)
	}
	if widest != PartWidth {
		t.Errorf("widest share %d, want PartWidth %d", widest, PartWidth)
	}
}
