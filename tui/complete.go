package tui

import (
	"regexp"
	"slices"
	"strings"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/views"
)

// completion is the tab list shown above the command line.
type completion struct {
	line  string   // the command line it was made for
	cands []string // what may replace the word being typed
	// shown are the same without their common "name=" part, safe to
	// draw: a verb's arguments are names from outside (files, saved
	// configurations).
	shown []string
	page  int // the page shown, when they do not fit
	pages int
}

// completions lists what may replace the last word of the command line:
// setting names, choices, sample types, units, label keys and values,
// function names. Candidates are whole words, as they would be typed.
func (c *cmdline) completions(word string, prof *format.Profile) []string {
	var values []string
	name, value, hasValue := strings.Cut(word, "=")
	s, known := analysis.LookupSetting(name)
	switch {
	case !hasValue:
		values = append(verbNames(), analysis.SettingNames()...)
		for _, st := range prof.SampleTypes {
			values = append(values, st.Type)
		}
		return withPrefix(values, "", word)
	case !known:
		return nil
	case s.Name != name: // a choice's name is a boolean setting
		return withPrefix([]string{"true", "false"}, name+"=", value)
	}
	switch s.Values {
	case analysis.ValuesBool:
		values = []string{"true", "false"}
	case analysis.ValuesChoice:
		values = s.Choices
	case analysis.ValuesSampleType:
		for _, st := range prof.SampleTypes {
			values = append(values, st.Type)
		}
	case analysis.ValuesUnit:
		values = analysis.UnitNames()
	case analysis.ValuesLabelFilter:
		keys, vals := c.labels(prof)
		k, v, hasKey := strings.Cut(value, "=")
		if !hasKey {
			return withPrefix(appendEach(keys, "="), name+"=", value)
		}
		var quoted []string
		for _, x := range vals[k] {
			quoted = append(quoted, strings.ReplaceAll(regexp.QuoteMeta(x), ",", `\x2c`))
		}
		return withPrefix(quoted, name+"="+k+"=", v)
	case analysis.ValuesLabelKey:
		values, _ = c.labels(prof)
	case analysis.ValuesLabelKeys:
		keys, _ := c.labels(prof)
		i := strings.LastIndex(value, ",") + 1
		return withPrefix(keys, name+"="+value[:i], value[i:])
	case analysis.ValuesFunction:
		seen := map[string]bool{}
		for _, f := range prof.Functions {
			if q := regexp.QuoteMeta(f.Name); !seen[q] && strings.HasPrefix(q, value) {
				seen[q] = true
				values = append(values, q)
			}
		}
	}
	return withPrefix(values, name+"=", value)
}

// withPrefix returns prefix+v for each v of values that starts with
// typed, sorted and without repeats.
func withPrefix(values []string, prefix, typed string) []string {
	var out []string
	for _, v := range values {
		if strings.HasPrefix(v, typed) {
			out = append(out, prefix+v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func appendEach(ss []string, suffix string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s + suffix
	}
	return out
}

// labels returns prof's label keys and each key's values, computed once
// per profile.
func (c *cmdline) labels(prof *format.Profile) ([]string, map[string][]string) {
	if c.labelsOf != prof {
		c.labelsOf = prof
		c.labelKeys, c.labelValues = analysis.LabelValues(prof, 1000)
	}
	return c.labelKeys, c.labelValues
}

// complete extends the command line by tab: to the one completion, or
// to the candidates' common prefix, listing them above the line; tab
// again pages through a list too long to show at once. Without a
// completion it returns the word it has none for, and false.
func (c *cmdline) complete(prof *format.Profile) (word string, ok bool) {
	line := c.input.Value()
	if c.comp.line == line && c.comp.pages > 1 {
		c.comp.page = (c.comp.page + 1) % c.comp.pages
		return "", true
	}
	_, start, quote := scanCommand(line)
	word = line[start:]
	if quote != 0 {
		word = strings.ReplaceAll(word, string(quote), "")
	} else if w, err := splitCommand(word); err == nil && len(w) == 1 {
		word = w[0]
	}
	var cands []string
	if args, ok := c.verbArgs(line[:start], word); ok {
		for _, x := range args {
			cands = append(cands, quoteWord(x))
		}
	} else {
		cands = c.completions(word, prof)
	}
	c.comp = completion{}
	switch len(cands) {
	case 0:
		return word, false
	case 1:
		one := cands[0]
		name, _, hasValue := strings.Cut(one, "=")
		if s, ok := analysis.LookupSetting(name); ok && !hasValue && s.Name == name && s.Kind != analysis.KindBool {
			one += "="
		}
		c.setLine(line[:start] + quoteCompletion(one))
		return "", true
	}
	common := cands[0]
	for _, x := range cands[1:] {
		for !strings.HasPrefix(x, common) {
			common = common[:len(common)-1]
		}
	}
	c.setLine(line[:start] + quoteCompletion(common))
	cut := strings.LastIndex(common, "=") + 1
	shown := make([]string, len(cands))
	for i, x := range cands {
		shown[i] = views.SafeText(x[cut:])
	}
	c.comp = completion{line: c.input.Value(), cands: cands, shown: shown}
	_, _, _, c.comp.pages = compLayout(shown, c.width, c.height)
	return "", true
}

// quoteCompletion quotes a completed word's value when it needs it.
func quoteCompletion(word string) string {
	name, value, ok := strings.Cut(word, "=")
	if !ok {
		return word
	}
	return name + "=" + quoteWord(value)
}

// verbArgs completes word as an argument of the verb the line starts
// with (before is the line before word), if that verb completes its
// arguments.
func (c *cmdline) verbArgs(before, word string) ([]string, bool) {
	words, _, _ := scanCommand(before)
	if len(words) == 0 || c.args == nil {
		return nil, false
	}
	return c.args(words, word)
}
