package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// List writes lst as `go tool pprof -list=RE` prints it: the total,
// then for each function and file its flat and cum and its source lines
// with their values ("." for none), or the error finding the file.
// Under unit=minimum each value scales on its own, as pprof does here.
func List(w io.Writer, lst *analysis.List, re string, opt analysis.Options) error {
	ls, total := lst.Listings, lst.Total
	if len(ls) == 0 {
		return fmt.Errorf("no matches found for regexp: %s", re)
	}
	value := opt.ValueFormat(nil, lst.SampleType.Unit)
	orDot := func(v int64) string {
		if v == 0 {
			return "."
		}
		return value(v)
	}
	hasFile := map[string]bool{}
	for _, l := range ls {
		if l.File != "" {
			hasFile[l.Name] = true
		}
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Total: %s\n", value(total))
	for _, l := range ls {
		if l.File == "" {
			if !hasFile[l.Name] {
				fmt.Fprintf(bw, "No source information for %s\n", l.Name)
			}
			continue
		}
		fmt.Fprintf(bw, "ROUTINE ======================== %s in %s\n", l.Name, l.File)
		fmt.Fprintf(bw, "%10s %10s (flat, cum) %s of Total\n", value(l.Flat), value(l.Cum), analysis.Percentage(l.Cum, total))
		if l.Err != nil {
			fmt.Fprintf(bw, " Error: %v\n", l.Err)
			continue
		}
		for _, r := range l.Rows {
			fmt.Fprintf(bw, "%10s %10s %6d:%s\n", orDot(r.Flat), orDot(r.Cum), r.Line, r.Text)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing list: %w", err)
	}
	return nil
}
