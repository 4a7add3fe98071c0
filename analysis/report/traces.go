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
// the options tr was computed with. unit is pprof's -unit; "minimum" (the
// default, also "") scales each value on its own, as pprof does here.
// labelKeyOK says which label keys -tagshow/-taghide keep (nil: all).
func Traces(w io.Writer, p *format.Profile, tr *analysis.Traces, opt analysis.Options, unit string, labelKeyOK func(string) bool) error {
	if tr == nil {
		return fmt.Errorf("writing traces: no report")
	}
	if unit == "" {
		unit = "minimum"
	}
	sampleUnit := tr.SampleType.Unit
	value := valueFormatter(sampleUnit, unit)
	total, err := tracesTotal(p, tr, opt)
	if err != nil {
		return err
	}
	units := numLabelUnits(p)

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
		if !numLabelLive(l) {
			continue
		}
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

// tracesTotal is pprof's report total for -traces: Σ|value| over every
// sample (over the samples shown under relative_percentages), over the
// diff base alone when the profile has one, divided by Σ count under
// mean.
func tracesTotal(p *format.Profile, tr *analysis.Traces, opt analysis.Options) (int64, error) {
	vi, err := analysis.SampleIndex(p, opt.SampleIndex)
	if err != nil {
		return 0, err
	}
	base := diffBaseSets(p)
	vals := p.Samples.Values[vi]
	var total, div, baseTotal, baseDiv int64
	add := func(i int) {
		v := abs64(vals[i])
		var d int64
		if opt.Mean {
			d = p.Samples.Values[0][i]
		}
		total += v
		div += d
		if base[p.Samples.Labels[i]] {
			baseTotal += v
			baseDiv += d
		}
	}
	if opt.RelativePercentages {
		// pprof counts the samples left after filtering, including any
		// whose every frame was hidden by -show_from or -prune_from;
		// tr holds only the ones with frames.
		for _, t := range tr.Traces {
			add(t.Sample)
		}
	} else {
		for i := range vals {
			add(i)
		}
	}
	if baseTotal > 0 {
		total, div = baseTotal, baseDiv
	}
	if div != 0 {
		return total / div, nil
	}
	return total, nil
}

// diffBaseSets marks the label sets of a diff's base samples
// (pprof::base=true).
func diffBaseSets(p *format.Profile) []bool {
	base := make([]bool, p.LabelSets.Len())
	for s := range base {
		for _, l := range p.LabelSets.At(int32(s)) {
			if p.Strings[l.Key] == "pprof::base" && p.Strings[l.Value] == "true" {
				base[s] = true
				break
			}
		}
	}
	return base
}

// numLabelLive reports whether pprof sees a numeric label at all: its
// decoder drops one with neither a value nor a unit.
func numLabelLive(l format.NumLabel) bool { return l.Value != 0 || l.Unit != 0 }

// numLabelUnits is the unit of each numeric label key as pprof infers it:
// the first unit any of the key's labels gives, else "bytes" for
// "request" and "alignment", else the key itself. (analysis has the same
// rule unexported, for tag filters; this package cannot reach it.)
func numLabelUnits(p *format.Profile) map[string]string {
	units := map[string]string{}
	for _, l := range p.Samples.Num {
		if !numLabelLive(l) {
			continue
		}
		key := p.Strings[l.Key]
		if u := p.Strings[l.Unit]; u != "" && units[key] == "" {
			units[key] = u
		} else if _, ok := units[key]; !ok {
			units[key] = ""
		}
	}
	for key, u := range units {
		if u != "" {
			continue
		}
		switch key {
		case "request", "alignment":
			units[key] = "bytes"
		default:
			units[key] = key
		}
	}
	return units
}
