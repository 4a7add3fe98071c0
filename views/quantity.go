// How values print: the quantity (unit, divide_by, rate) every number
// of a view goes through, and the shares of the total beside them.

package views

import (
	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// quantity prints the values of one table, all in the one unit
// analysis.DisplayUnit picks from the largest of them, after divide_by;
// as a rate per second when Common.Rate says so. Every number a view
// shows goes through it, and so does the status bar's total (Format).
type quantity struct {
	from, to string
	ratio    float64 // 1/divide_by
	per      float64 // seconds the values are a change over; 0: not a rate
}

// newQuantity is the quantity for values vs in sampleUnit, as the unit
// and divide_by settings and c's Rate ask. Views pass the sum of the
// samples they show among vs, which is the largest value of a table
// that is not a mean or a diff, and the same in every view, so that
// every view picks the same unit.
func newQuantity(c *Common, sampleUnit string, opt analysis.Options, vs ...int64) quantity {
	var hi int64
	for _, v := range vs {
		hi = max(hi, abs(v))
	}
	q := quantity{from: sampleUnit, ratio: opt.Ratio()}
	if c.Rate != nil {
		q.per = c.Rate(opt).Seconds()
	}
	scale := q.ratio
	if q.per > 0 {
		scale /= q.per // the unit that suits the largest rate
	}
	q.to = analysis.DisplayUnit(sampleUnit, opt.Unit, int64(float64(hi)*scale))
	return q
}

// Format returns how the views print values of at most hi in magnitude,
// in sampleUnit, under opt and c, for numbers shown outside the views
// (the status bar's total) to read as the views' do.
func Format(c *Common, sampleUnit string, opt analysis.Options, hi int64) func(int64) string {
	return newQuantity(c, sampleUnit, opt, hi).format
}

func (q quantity) format(v int64) string {
	if q.per > 0 {
		// Not truncated to an integer as divide_by's values are: a rate
		// of 0.4/s is not 0.
		return analysis.RateLabel(float64(v)*q.ratio/q.per, q.from, q.to)
	}
	if q.ratio != 1 {
		v = int64(float64(v) * q.ratio)
	}
	return analysis.ScaledLabel(v, q.from, q.to)
}

// widest is the width of the longest of vs as q prints them: the
// largest magnitude, or the most negative value. A rate below 1 prints
// more decimals ("0.0012MB/s") than a larger one, so for rates every
// value is measured (a live delta's table, some thousands of values).
func (q quantity) widest(vs ...int64) int {
	var big, neg int64
	w := 0
	for _, v := range vs {
		big = max(big, abs(v))
		neg = min(neg, v)
		if q.per > 0 {
			w = max(w, ansi.StringWidth(q.format(v)))
		}
	}
	return max(w, ansi.StringWidth(q.format(big)), ansi.StringWidth(q.format(neg)))
}

// treeQuantity is the quantity of a call tree's values (its roots sum
// the samples shown), and the roots' totals and self values, which size
// the columns.
func treeQuantity(c *Common, tr *analysis.Tree, opt analysis.Options) (quantity, []int64) {
	vs := make([]int64, 0, 2*len(tr.Roots())+1)
	for _, r := range tr.Roots() {
		vs = append(vs, r.Total, r.Self)
	}
	return newQuantity(c, tr.SampleType.Unit, opt, append(vs, rootsTotal(tr))...), vs
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

// rootsTotal sums a call tree's roots: the samples it shows.
func rootsTotal(tr *analysis.Tree) int64 {
	var sum int64
	for _, r := range tr.Roots() {
		sum += r.Total
	}
	return sum
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
