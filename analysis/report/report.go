// Package report writes analysis results as the text reports of
// `go tool pprof` (-top, -traces), byte for byte, so that pprof-tui can
// print them to standard output and tests can hold them against pprof's
// own output.
//
// report imports analysis, format and the standard library only; it knows
// nothing of terminals.
package report

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
)

// header is what pprof prints above every text report: the main binary,
// the comments, the sample type and when and how long the profile ran.
// total is the report total in the sample unit; value formats a value in
// the report's output unit.
func header(p *format.Profile, sampleType, sampleUnit string, total int64, value func(int64) string) []string {
	var lines []string
	if len(p.Mappings) > 0 {
		if m := &p.Mappings[0]; m.File != "" {
			lines = append(lines, "File: "+filepath.Base(m.File))
		}
		if m := &p.Mappings[0]; m.BuildID != "" {
			lines = append(lines, "Build ID: "+m.BuildID)
		}
	}
	// Comments starting with '#' are meant for machines.
	for _, c := range p.Comments {
		if !strings.HasPrefix(c, "#") {
			lines = append(lines, c)
		}
	}
	if sampleType != "" {
		lines = append(lines, "Type: "+sampleType)
	}
	if p.DocURL != "" {
		lines = append(lines, "Doc: "+p.DocURL)
	}
	if p.TimeNanos != 0 {
		lines = append(lines, "Time: "+time.Unix(0, p.TimeNanos).Format("2006-01-02 15:04:05 MST"))
	}
	if p.DurationNanos != 0 {
		// The share of wall time is given only for time-valued samples;
		// pprof keeps the separating space even when it is not.
		var share string
		if ns, unit := analysis.ScaleValue(total, sampleUnit, "nanoseconds"); unit == "ns" && ns != 0 {
			share = "(" + analysis.Percentage(int64(ns), p.DurationNanos) + ")"
		}
		lines = append(lines, fmt.Sprintf("Duration: %s, Total samples = %s %s",
			analysis.Label(p.DurationNanos, "nanoseconds"), value(total), share))
	}
	return lines
}

// sampleTypeName is the Type: pprof prints, "mean_" prefixed under -mean.
func sampleTypeName(st format.ValueType, opt analysis.Options) string {
	if opt.Mean {
		return "mean_" + st.Type
	}
	return st.Type
}

// activeFilters lists the filter options in use, in pprof's order and
// spelling (prune_from and the granularity are not filters to pprof).
func activeFilters(opt analysis.Options) []string {
	var out []string
	for _, f := range opt.Filters() {
		if f.Listed {
			out = append(out, f.String())
		}
	}
	if len(out) == 0 {
		return nil
	}
	lines := []string{"Active filters:"}
	for _, f := range out {
		// pprof cuts long filters at 80 bytes, even inside a rune.
		if len(f) > 80 {
			f = f[:80] + "…"
		}
		lines = append(lines, "   "+f)
	}
	return lines
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
