package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
)

// Top writes top as `go tool pprof -top` prints it for profile p and the
// options top was computed with; opt.Unit and divide_by decide how values
// print (Options.ValueFormat).
func Top(w io.Writer, p *format.Profile, top *analysis.Top, opt analysis.Options) error {
	if top == nil {
		return fmt.Errorf("writing top: no report")
	}
	lines, value := topHeader(p, top, opt)
	total := top.Total

	bw := bufio.NewWriter(w)
	bw.WriteString(strings.Join(lines, "\n"))
	bw.WriteString("\n")
	fmt.Fprintf(bw, "%10s %5s%% %5s%% %10s %5s%%\n", "flat", "flat", "sum", "cum", "cum")
	var sum int64
	for _, r := range top.Rows {
		sum += r.Flat
		var inline string
		if r.Inline != analysis.NotInlined {
			inline = " (" + r.Inline.String() + ")"
		}
		fmt.Fprintf(bw, "%10s %s %s %10s %s  %s%s\n",
			value(r.Flat), analysis.Percentage(r.Flat, total), analysis.Percentage(sum, total),
			value(r.Cum), analysis.Percentage(r.Cum, total), top.Nodes.Name(r.Node), inline)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing top: %w", err)
	}
	return nil
}

// topHeader returns the header lines pprof prints above a table of nodes
// (-top, -peek) and the value formatter for the table.
func topHeader(p *format.Profile, top *analysis.Top, opt analysis.Options) ([]string, func(int64) string) {
	sampleUnit := top.SampleType.Unit
	value := opt.ValueFormat(top, sampleUnit)
	total := top.Total
	lines := header(p, sampleTypeName(top.SampleType, opt), sampleUnit, total, value)
	lines = append(lines, activeFilters(opt)...)
	lines = append(lines, fmt.Sprintf("Showing nodes accounting for %s, %s of %s total",
		value(top.ShownTotal), strings.TrimSpace(analysis.Percentage(top.ShownTotal, total)), value(total)))
	if total != 0 {
		if n := top.DroppedNodes; n > 0 {
			// pprof reports the cutoff as a fraction of the report total,
			// though it cut at that fraction of the graph's flat sum.
			cut := abs64(int64(float64(total) * opt.NodeFraction))
			lines = append(lines, fmt.Sprintf("Dropped %d %s (cum <= %s)", n, plural(n, "node"), value(cut)))
		}
		if n := len(top.Rows); n > 0 && n < top.AllNodes {
			lines = append(lines, fmt.Sprintf("Showing top %d nodes out of %d", n, top.AllNodes))
		}
	}
	return lines, value
}

func plural(n int, noun string) string {
	if n > 1 {
		return noun + "s"
	}
	return noun
}

// Header returns the lines pprof prints above its top table for top and
// opt: the profile's facts (File, Build ID, Type, Time, Duration), the
// active filters, what the shown nodes account for and what was dropped.
func Header(p *format.Profile, top *analysis.Top, opt analysis.Options) []string {
	lines, _ := topHeader(p, top, opt)
	return lines
}
