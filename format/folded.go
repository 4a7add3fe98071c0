package format

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// splitFoldedLine splits "a;b;c 42" into its stack, "a;b;c" (root
// first), and count. Frames may contain spaces; the count is what
// follows the last one. countErr says what is wrong with a count that is
// a number but not a valid one (negative, too large): the line is still
// folded stacks, just a broken one.
func splitFoldedLine(line string) (stack string, count int64, countErr error, ok bool) {
	sp := strings.LastIndexByte(line, ' ')
	if sp <= 0 {
		return "", 0, nil, false
	}
	stack = strings.TrimRight(line[:sp], " ")
	if stack == "" {
		return "", 0, nil, false
	}
	n, err := strconv.ParseInt(line[sp+1:], 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return stack, 0, fmt.Errorf("count %s is past the int64 range", trimForError(line[sp+1:])), true
	case err != nil:
		return "", 0, nil, false
	case n < 0:
		return stack, 0, fmt.Errorf("negative count %d", n), true
	}
	return stack, n, nil, true
}

// parseFolded reads Brendan Gregg's collapsed-stack text, as written by
// stackcollapse-*.pl, perf script | inferno-collapse, py-spy --format raw
// and async-profiler's collapsed output: one "root;...;leaf count" per line.
// Every distinct frame name becomes a function with one location.
func parseFolded(data []byte, m *meter) (*Profile, error) {
	p := &Profile{
		SampleTypes: []ValueType{{Type: "samples", Unit: "count"}},
		PeriodType:  ValueType{Type: "samples", Unit: "count"},
		Period:      1,
	}
	b := newBuilder(p)
	b.mem = m
	b.str("")
	p.Samples.Values = make([][]int64, 1)
	b.countSums()
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
		stack, count, countErr, ok := splitFoldedLine(string(line))
		if !ok {
			return nil, fmt.Errorf("line %d: want \"frame;frame;... count\", got %q", lineNo, trimForError(string(line)))
		}
		if countErr != nil {
			return nil, fmt.Errorf("line %d: %w", lineNo, countErr)
		}
		locs = locs[:0]
		// Leaf first: the frames from the end, without splitting the
		// line into a slice of them.
		for rest := stack; ; {
			i := strings.LastIndexByte(rest, ';')
			name := rest[i+1:]
			li, ok := locOf[name]
			if !ok {
				li = int32(len(p.Locations))
				if li == 1<<31-1 {
					return nil, fmt.Errorf("line %d: too many distinct frames", lineNo)
				}
				if err := m.charge(locationCost + functionCost + int64(len(name))); err != nil {
					return nil, fmt.Errorf("line %d: %w", lineNo, err)
				}
				p.Functions = append(p.Functions, Function{ID: uint64(li) + 1, Name: name, SystemName: name})
				p.Locations = append(p.Locations, Location{ID: uint64(li) + 1, Mapping: -1, Lines: p.AddLines(Line{Function: li})})
				locOf[name] = li
			}
			locs = append(locs, li)
			if i < 0 {
				break
			}
			rest = rest[:i]
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
	if b.err != nil {
		return nil, b.err
	}
	return p, nil
}
