package report

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/pprof-tui/pprof-tui/format"
)

// Raw writes p as `go tool pprof -raw` prints a profile: its facts, every
// sample with its values, location ids and labels, every location with
// its lines, and every mapping.
//
// pprof gives a profile without mappings one (ID 1, every field zero)
// when it reads it, for every location: so does Raw.
func Raw(w io.Writer, p *format.Profile) error {
	mappings := p.Mappings
	noMappings := len(mappings) == 0
	if noMappings {
		mappings = []format.Mapping{{ID: 1}}
	}
	bw := bufio.NewWriter(w)
	for _, c := range p.Comments {
		fmt.Fprintln(bw, "Comment: "+c)
	}
	if p.DocURL != "" {
		fmt.Fprintf(bw, "Doc: %s\n", p.DocURL)
	}
	// pprof reads every profile with a period type, empty if the file
	// has none.
	fmt.Fprintf(bw, "PeriodType: %s %s\n", p.PeriodType.Type, p.PeriodType.Unit)
	fmt.Fprintf(bw, "Period: %d\n", p.Period)
	if p.TimeNanos != 0 {
		fmt.Fprintf(bw, "Time: %v\n", time.Unix(0, p.TimeNanos))
	}
	if p.DurationNanos != 0 {
		fmt.Fprintf(bw, "Duration: %.4v\n", time.Duration(p.DurationNanos))
	}
	fmt.Fprintln(bw, "Samples:")
	var types []string
	for _, st := range p.SampleTypes {
		dflt := ""
		if st.Type == p.DefaultSampleType {
			dflt = "[dflt]"
		}
		types = append(types, fmt.Sprintf("%s/%s%s", st.Type, st.Unit, dflt))
	}
	fmt.Fprintln(bw, strings.TrimSpace(strings.Join(types, " ")))
	const labelHeader = "                "
	// A label set's text, made once: samples share few sets.
	setText := make([]string, p.LabelSets.Len())
	setDone := make([]bool, len(setText))
	for i, s := range p.Samples.Stack {
		for _, col := range p.Samples.Values {
			fmt.Fprintf(bw, " %10d", col[i])
		}
		bw.WriteString(": ")
		for _, l := range p.Stacks.At(s) {
			fmt.Fprintf(bw, "%d ", p.Locations[l].ID)
		}
		bw.WriteString("\n")
		set := p.Samples.Labels[i]
		if !setDone[set] {
			setText[set], setDone[set] = rawLabels(p, set), true
		}
		if ls := setText[set]; ls != "" {
			bw.WriteString(labelHeader + ls + "\n")
		}
		if ls := rawNumLabels(p, i); ls != "" {
			bw.WriteString(labelHeader + ls + "\n")
		}
	}
	fmt.Fprintln(bw, "Locations")
	// In id order: pprof numbers the locations as it reads them, in
	// order of first use, which is the order a profile's writer gives
	// its ids, whatever order it writes them in.
	order := make([]int, len(p.Locations))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p.Locations[order[a]].ID < p.Locations[order[b]].ID })
	for _, li := range order {
		loc := &p.Locations[li]
		head := fmt.Sprintf("%6d: %#x ", loc.ID, loc.Address)
		switch {
		case noMappings:
			head += "M=1 "
		case loc.Mapping >= 0:
			head += fmt.Sprintf("M=%d ", p.Mappings[loc.Mapping].ID)
		}
		if loc.IsFolded {
			head += "[F] "
		}
		lines := p.LinesOf(loc)
		if len(lines) == 0 {
			fmt.Fprintln(bw, head)
		}
		for _, ln := range lines {
			text := "??"
			if ln.Function >= 0 {
				fn := &p.Functions[ln.Function]
				text = fmt.Sprintf("%s %s:%d:%d s=%d", fn.Name, fn.Filename, ln.Line, ln.Column, fn.StartLine)
				if fn.Name != fn.SystemName {
					text += "(" + fn.SystemName + ")"
				}
			}
			fmt.Fprintln(bw, head+text)
			head = "             "
		}
	}
	fmt.Fprint(bw, "Mappings")
	for _, m := range mappings {
		bits := ""
		if m.HasFunctions {
			bits += "[FN]"
		}
		if m.HasFilenames {
			bits += "[FL]"
		}
		if m.HasLineNumbers {
			bits += "[LN]"
		}
		if m.HasInlineFrames {
			bits += "[IN]"
		}
		fmt.Fprintf(bw, "\n%d: %#x/%#x/%#x %s %s %s", m.ID, m.Start, m.Limit, m.Offset, m.File, m.BuildID, bits)
	}
	bw.WriteString("\n")
	return bw.Flush()
}

// rawLabels is label set set's string labels as pprof prints them:
// key:[values] sorted.
func rawLabels(p *format.Profile, set int32) string {
	values := map[string][]string{}
	var keys []string
	for _, l := range p.LabelSets.At(set) {
		k := p.Strings[l.Key]
		if _, ok := values[k]; !ok {
			keys = append(keys, k)
		}
		values[k] = append(values[k], p.Strings[l.Value])
	}
	var ls []string
	for _, k := range keys {
		ls = append(ls, fmt.Sprintf("%s:%v", k, values[k]))
	}
	sort.Strings(ls)
	return strings.Join(ls, " ")
}

// rawNumLabels is sample i's numeric labels as pprof prints them, with
// their units where any label of the key has one.
func rawNumLabels(p *format.Profile, i int) string {
	type entry struct {
		values  []int64
		units   []string
		hasUnit bool
	}
	entries := map[string]*entry{}
	var keys []string
	for _, nl := range p.Samples.NumLabels(i) {
		k := p.Strings[nl.Key]
		e := entries[k]
		if e == nil {
			e = &entry{}
			entries[k] = e
			keys = append(keys, k)
		}
		e.values = append(e.values, nl.Value)
		u := p.Strings[nl.Unit]
		e.units = append(e.units, u)
		e.hasUnit = e.hasUnit || nl.Unit != 0
	}
	var ls []string
	for _, k := range keys {
		e := entries[k]
		if e.hasUnit {
			vs := make([]string, len(e.values))
			for j, v := range e.values {
				vs[j] = fmt.Sprintf("%d %s", v, e.units[j])
			}
			ls = append(ls, fmt.Sprintf("%s:%v", k, vs))
		} else {
			ls = append(ls, fmt.Sprintf("%s:%v", k, e.values))
		}
	}
	sort.Strings(ls)
	return strings.Join(ls, " ")
}
