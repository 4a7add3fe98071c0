package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// Disasm writes d as `go tool pprof -disasm=RE` prints it: the binaries
// that could not be opened, the total, then each routine's flat and
// cum and its instructions, each with its values ("." for none), its
// address and, where it changes, the function, file and line.
func Disasm(w io.Writer, d *analysis.Disasm, opt analysis.Options) error {
	value := opt.ValueFormat(nil, d.SampleType.Unit)
	orDot := func(v int64) string {
		if v == 0 {
			return "."
		}
		return value(v)
	}
	bw := bufio.NewWriter(w)
	// pprof prints these as it finds them, before its buffered report.
	for _, e := range d.Errors {
		fmt.Fprintf(bw, "%s\n", e)
	}
	fmt.Fprintf(bw, "Total: %s\n", value(d.Total))
	for _, r := range d.Routines {
		fmt.Fprintf(bw, "ROUTINE ======================== %s\n", r.Name)
		fmt.Fprintf(bw, "%10s %10s (flat, cum) %s of Total\n", value(r.Flat), value(r.Cum), analysis.Percentage(r.Cum, d.Total))
		function, file, line := "", "", 0
		for _, in := range r.Insts {
			loc := ""
			// The location only where it changes.
			if in.Function != function || in.File != file || in.Line != line {
				function, file, line = in.Function, in.File, in.Line
				if in.Function != "" {
					loc = in.Function + " "
				}
				if in.File != "" {
					loc += in.File
					if in.Line != 0 {
						loc += fmt.Sprintf(":%d", in.Line)
					}
				}
			}
			switch {
			case loc == "":
				fmt.Fprintf(bw, "%10s %10s %10x: %s\n", orDot(in.Flat), orDot(in.Cum), in.Addr, in.Text)
			case len(in.Text) < 40:
				fmt.Fprintf(bw, "%10s %10s %10x: %-40s;%s\n", orDot(in.Flat), orDot(in.Cum), in.Addr, in.Text, loc)
			default:
				fmt.Fprintf(bw, "%74s;%s\n", "", loc)
				fmt.Fprintf(bw, "%10s %10s %10x: %s\n", orDot(in.Flat), orDot(in.Cum), in.Addr, in.Text)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing disasm: %w", err)
	}
	return nil
}
