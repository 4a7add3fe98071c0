// How values print: the quantity (unit, divide_by, rate) every number
// of a view goes through, and the shares of the total beside them.

package views

import (
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// quantity prints the values of a view, each readable on its own
// (analysis.ReadableLabel: three significant digits in the unit that
// suits it, "95.6s" beside "870ms"), or all in the unit the unit setting
// asks for; after divide_by, and as a rate per second when Common.Rate
// says so. Every number a view shows goes through it, and so does the
// status bar's total (Format). The reports keep pprof's formatting.
type quantity struct {
	from, to string
	ratio    float64 // 1/divide_by
	per      float64 // seconds the values are a change over; 0: not a rate
}

// newQuantity is the quantity for values in sampleUnit, as the unit and
// divide_by settings and c's Rate ask.
func newQuantity(c *Common, sampleUnit string, opt analysis.Options) quantity {
	q := quantity{from: sampleUnit, to: opt.Unit, ratio: opt.Ratio()}
	if c.Rate != nil {
		q.per = c.Rate(opt).Seconds()
	}
	return q
}

// Format returns how the views print values in sampleUnit under opt and
// c, for numbers shown outside the views (the status bar's total) to
// read as the views' do.
func Format(c *Common, sampleUnit string, opt analysis.Options) func(int64) string {
	return newQuantity(c, sampleUnit, opt).format
}

// scaled is v as q prints it, before the unit: after divide_by (not
// truncated to an integer as pprof's reports do: 0.4 is not 0), per
// second for a rate.
func (q quantity) scaled(v int64) float64 {
	x := float64(v) * q.ratio
	if q.per > 0 {
		x /= q.per
	}
	return x
}

func (q quantity) format(v int64) string {
	s := analysis.ReadableLabel(q.scaled(v), q.from, q.to)
	if q.per > 0 {
		s += "/s"
	}
	return s
}

// measureAll is how many values widest prints to measure them; beyond,
// it bounds their width from the extremes (a table of a million rows).
const measureAll = 4096

// widest is the width of the longest of vs as q prints them, or a bound
// on it a column or two wider for more than measureAll values.
func (q quantity) widest(vs ...int64) int {
	if len(vs) <= measureAll {
		w := 1
		for _, v := range vs {
			w = max(w, ansi.StringWidth(q.format(v)))
		}
		return w
	}
	var lo, hi int64
	neg := false
	for _, v := range vs {
		a := abs(v)
		hi = max(hi, a)
		if a != 0 && (lo == 0 || a < lo) {
			lo = a
		}
		neg = neg || v < 0
	}
	w := analysis.ReadableWidth(q.scaled(lo), q.scaled(hi), q.from, q.to, neg)
	if q.per > 0 {
		w += 2
	}
	return w
}

// treeQuantity is the quantity of a call tree's values, and the roots'
// totals and self values, which size the columns.
func treeQuantity(c *Common, tr *analysis.Tree, opt analysis.Options) (quantity, []int64) {
	vs := make([]int64, 0, 2*len(tr.Roots())+1)
	for _, r := range tr.Roots() {
		vs = append(vs, r.Total, r.Self)
	}
	return newQuantity(c, tr.SampleType.Unit, opt), vs
}

// shownSum is the sum of the samples a top table shows: its flats.
func shownSum(top *analysis.Top) int64 {
	var sum int64
	for _, r := range top.Rows {
		sum += r.Flat
	}
	return sum
}

// pct is |v/total| in percent, for heat colours.
func pct(v, total int64) float64 {
	if total == 0 {
		return 0
	}
	f := float64(v) / float64(total) * 100
	if f < 0 {
		f = -f
	}
	return f
}

// percentWidth is the width a column of shares of total needs for these
// values: pprof's six, or what the longest needs ("0.0092%", "2.9e-05%",
// "16556.10%" for a mean above the total).
//
// Only the shares that can widen it are formatted: a million rows took
// 65 ms. From 0.1% up to the total a share ("0.12%" to "99.94%") is no
// wider than the column's minimum, and none below the total is wider
// than analysis.PartWidth.
func percentWidth(values []int64, total int64) int {
	w := 6
	t := float64(abs(total))
	for _, v := range values {
		a := float64(abs(v))
		switch {
		case a < t && 1000*a >= t:
		case a < t && w >= analysis.PartWidth:
		default:
			w = max(w, analysis.PercentageWidth(v, total))
		}
	}
	return w
}

// share is v's share of total, the one way every view prints one:
// pprof's percentage ("26.41%", "  100%", "0.0092%").
func share(v, total int64) string { return analysis.Percentage(v, total) }

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
