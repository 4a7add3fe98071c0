package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
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
		labels = sampleLabels(p, t.Sample, units, labelKeyOK, labels[:0])
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

// sampleLabels appends to dst sample i's labels as -traces prints them:
// one line per key with its values in file order, the string labels
// first, each group sorted by its printed line (so shorter keys, padded
// further, come first).
func sampleLabels(p *format.Profile, i int, units map[string]string, keyOK func(string) bool, dst []string) []string {
	line := func(key string, values []string) string {
		return fmt.Sprintf("%10s:  %s\n", key, strings.Join(values, " "))
	}
	var keys []string
	values := map[string][]string{}
	add := func(key, v string) {
		if keyOK != nil && !keyOK(key) {
			return
		}
		if _, ok := values[key]; !ok {
			keys = append(keys, key)
		}
		values[key] = append(values[key], v)
	}

	for _, l := range p.LabelSets.At(p.Samples.Labels[i]) {
		add(p.Strings[l.Key], p.Strings[l.Value])
	}
	start := len(dst)
	for _, k := range keys {
		dst = append(dst, line(k, values[k]))
	}
	slices.Sort(dst[start:])

	keys = keys[:0]
	clear(values)
	for _, l := range p.Samples.NumLabels(i) {
		key := p.Strings[l.Key]
		add(key, analysis.Label(l.Value, units[key]))
	}
	start = len(dst)
	for _, k := range keys {
		dst = append(dst, line(k, values[k]))
	}
	slices.Sort(dst[start:])
	return dst
}
