package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
)

const (
	traceSeparator = "-----------+-------------------------------------------------------"
	blanks         = "             "
)

// Traces writes tr as `go tool pprof -traces` prints it for profile p and
// the options tr was computed with. Under unit=minimum each value scales
// on its own, as pprof does here.
// labelKeyOK says which label keys -tagshow/-taghide keep (nil: all).
func Traces(w io.Writer, p *format.Profile, tr *analysis.Traces, opt analysis.Options, labelKeyOK func(string) bool) error {
	if tr == nil {
		return fmt.Errorf("writing traces: no report")
	}
	sampleUnit := tr.SampleType.Unit
	value := opt.ValueFormat(nil, sampleUnit)
	total := tr.Total
	units := tr.LabelUnits

	bw := bufio.NewWriter(w)
	bw.WriteString(strings.Join(header(p, sampleTypeName(tr.SampleType, opt), sampleUnit, total, value), "\n"))
	bw.WriteString("\n")
	var labels []string
	for _, t := range tr.Traces {
		bw.WriteString(traceSeparator + "\n")
		labels = analysis.SampleLabels(p, t.Sample, units, labelKeyOK, labels[:0])
		for _, l := range labels {
			bw.WriteString(l)
		}
		// Each frame is "%10s   name", the value on the first one only;
		// written by hand, as this loop prints most of the report.
		for i, f := range t.Frames {
			if i == 0 {
				v := value(t.Value)
				bw.WriteString(blanks[:max(0, 10-utf8.RuneCountInString(v))])
				bw.WriteString(v)
				bw.WriteString("   ")
			} else {
				bw.WriteString(blanks[:13])
			}
			bw.WriteString(tr.Nodes.Name(f.Node))
			if f.Inlined {
				bw.WriteString(" (inline)")
			}
			bw.WriteByte('\n')
		}
	}
	bw.WriteString(traceSeparator + "\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing traces: %w", err)
	}
	return nil
}
