package format

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// splitFoldedLine splits "a;b;c 42" into its frames (root first) and count.
// Frames may contain spaces; the count is what follows the last one.
func splitFoldedLine(line string) (frames []string, count int64, ok bool) {
	sp := strings.LastIndexByte(line, ' ')
	if sp <= 0 {
		return nil, 0, false
	}
	n, err := strconv.ParseInt(line[sp+1:], 10, 64)
	if err != nil || n < 0 {
		return nil, 0, false
	}
	stack := strings.TrimRight(line[:sp], " ")
	if stack == "" {
		return nil, 0, false
	}
	return strings.Split(stack, ";"), n, true
}

// parseFolded reads Brendan Gregg's collapsed-stack text, as written by
// stackcollapse-*.pl, perf script | inferno-collapse, py-spy --format raw
// and async-profiler's collapsed output: one "root;...;leaf count" per line.
// Every distinct frame name becomes a function with one location.
func parseFolded(data []byte) (*Profile, error) {
	p := &Profile{
		SampleTypes: []ValueType{{Type: "samples", Unit: "count"}},
		PeriodType:  ValueType{Type: "samples", Unit: "count"},
		Period:      1,
	}
	b := newBuilder(p)
	b.str("")
	p.Samples.Values = make([][]int64, 1)
	locOf := make(map[string]int32)
	var locs []int32
	lineNo := 0
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		lineNo++
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 || line[0] == '#' {
			continue
		}
		frames, count, ok := splitFoldedLine(string(line))
		if !ok {
			return nil, fmt.Errorf("line %d: want \"frame;frame;... count\", got %q", lineNo, trimForError(string(line)))
		}
		locs = locs[:0]
		for i := len(frames) - 1; i >= 0; i-- { // leaf first
			name := frames[i]
			li, ok := locOf[name]
			if !ok {
				li = int32(len(p.Locations))
				if li == 1<<31-1 {
					return nil, fmt.Errorf("line %d: too many distinct frames", lineNo)
				}
				p.Functions = append(p.Functions, Function{ID: uint64(li) + 1, Name: name, SystemName: name})
				p.Locations = append(p.Locations, Location{ID: uint64(li) + 1, Mapping: -1, Lines: p.AddLines(Line{Function: li})})
				locOf[name] = li
			}
			locs = append(locs, li)
		}
		st, err := b.stack(locs)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", lineNo, err)
		}
		if err := b.sample(st, []int64{count}, 0, nil); err != nil {
			return nil, fmt.Errorf("line %d: %w", lineNo, err)
		}
	}
	if p.Samples.Len() == 0 {
		return nil, fmt.Errorf("no stacks")
	}
	for i := range p.Functions {
		b.str(p.Functions[i].Name)
	}
	return p, nil
}
