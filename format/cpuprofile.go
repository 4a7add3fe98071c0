package format

// V8's CPU profile, the JSON that `node --cpu-prof` and Chrome DevTools
// write (.cpuprofile; the DevTools protocol's Profiler.Profile):
//
//	{"nodes": [{"id": 1, "callFrame": {"functionName": "(root)", "url": "",
//	            "lineNumber": -1, "columnNumber": -1}, "hitCount": 0,
//	            "children": [2, 3]}, ...],
//	 "startTime": µs, "endTime": µs,
//	 "samples": [leaf node id, ...], "timeDeltas": [µs since the previous sample, ...]}
//
// The nodes are a call tree; a sample names its leaf node and its stack is
// the path up to the root, which we leave out ("(root)" is no frame).
// A sample's time is the interval until the next sample (the last one's
// until endTime), as DevTools draws samples in its flame chart; samples
// whose deltas are negative are put in time order first, as DevTools
// does. Sample types: samples (count) and cpu (microseconds). A frame is
// its function (DevTools' "(anonymous)" when V8 gives no name), in the
// script's URL as file (file:// URLs as paths) at the function's line:
// V8 records where each function starts, not the line a call was made
// on.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"reflect"
	"slices"
	"strings"
)

type v8Profile struct {
	Nodes      []v8Node
	StartTime  *int64
	EndTime    *int64
	Samples    []int64
	TimeDeltas []int64
}

// v8Node is a node as decoded; the profile keeps its fields in v8Tree.
type v8Node struct {
	ID        *int64      `json:"id"`
	CallFrame v8CallFrame `json:"callFrame"`
	Children  []int64     `json:"children"`
	Parent    *int64      `json:"parent"`
}

type v8CallFrame struct {
	FunctionName string `json:"functionName"`
	URL          string `json:"url"`
	LineNumber   int64  `json:"lineNumber"`
	ColumnNumber int64  `json:"columnNumber"`
}

// v8NodeCost is what a node takes once decoded: its v8Node (the
// children's ids apart), its entry in the id index and its parent, depth,
// location and stack.
const v8NodeCost = 120 + 48 + 16

// decodeV8 decodes the JSON one node at a time, charging m for each, so
// that a file of millions of empty nodes fails at its first node and
// one of millions of valid nodes stops at the budget, instead of being
// decoded whole first.
func decodeV8(data []byte, m *meter) (*v8Profile, error) {
	var v v8Profile
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := v8Delim(dec, '{'); err != nil {
		return nil, jsonError(data, err)
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, jsonError(data, err)
		}
		key, _ := t.(string)
		if seen[key] {
			return nil, fmt.Errorf("%s: appears twice", trimForError(key))
		}
		seen[key] = true
		switch key {
		case "nodes":
			err = v8Array(dec, func(i int) error {
				var n v8Node
				if err := v8Decode(dec, &n, "nodes"); err != nil {
					return err
				}
				if n.ID == nil {
					return fmt.Errorf("nodes[%d]: no id", i)
				}
				cost := v8NodeCost + 8*int64(len(n.Children)) + int64(len(n.CallFrame.FunctionName)+len(n.CallFrame.URL))
				if err := m.charge(cost); err != nil {
					return fmt.Errorf("nodes[%d]: %w", i, err)
				}
				v.Nodes = append(v.Nodes, n)
				return nil
			})
		case "samples", "timeDeltas":
			// Numbers of a few bytes each: charged by their count, then
			// decoded in one go.
			var raw json.RawMessage
			if err = v8Decode(dec, &raw, key); err != nil {
				break
			}
			n := int64(bytes.Count(raw, []byte{','}) + 1)
			if err = m.charge(8 * n); err != nil {
				err = fmt.Errorf("%s: %w", key, err)
				break
			}
			xs := make([]int64, 0, n)
			if err = json.Unmarshal(raw, &xs); err != nil {
				err = v8Error(err, dec.InputOffset()-int64(len(raw)), key)
			}
			if key == "samples" {
				v.Samples = xs
			} else {
				v.TimeDeltas = xs
			}
		case "startTime":
			err = v8Decode(dec, &v.StartTime, key)
		case "endTime":
			err = v8Decode(dec, &v.EndTime, key)
		default:
			var skip json.RawMessage
			err = v8Decode(dec, &skip, key)
		}
		if err != nil {
			return nil, jsonError(data, err)
		}
	}
	if err := v8Delim(dec, '}'); err != nil {
		return nil, jsonError(data, err)
	}
	return &v, nil
}

// v8Delim reads the delimiter want.
func v8Delim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return &json.SyntaxError{Offset: dec.InputOffset()}
	}
	return nil
}

// v8Array calls fn for each element of the array that comes next (null
// is none).
func v8Array(dec *json.Decoder, fn func(i int) error) error {
	t, err := dec.Token()
	if err != nil || t == nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != '[' {
		return &json.UnmarshalTypeError{Value: "non-array", Type: reflect.TypeFor[[]v8Node](), Offset: dec.InputOffset(), Field: "nodes"}
	}
	for i := 0; dec.More(); i++ {
		if i == 1<<31-1 {
			return fmt.Errorf("nodes: too many")
		}
		if err := fn(i); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

// v8Decode decodes the next value into x, naming it in type errors as
// the field of the whole profile it is.
func v8Decode(dec *json.Decoder, x any, field string) error {
	start := dec.InputOffset()
	err := dec.Decode(x)
	return v8Error(err, start, field)
}

func v8Error(err error, start int64, field string) error {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		e := *typ
		e.Offset += start
		if e.Field == "" {
			e.Field = field
		} else {
			e.Field = field + "." + e.Field
		}
		return &e
	}
	return err
}

// isCPUProfile recognises the JSON of a V8 CPU profile by its first keys.
func isCPUProfile(head []byte) bool {
	h := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(h) == 0 || h[0] != '{' {
		return false
	}
	return bytes.Contains(h, []byte(`"nodes"`)) && bytes.Contains(h, []byte(`"callFrame"`))
}

// parseCPUProfile reads a V8 CPU profile.
func parseCPUProfile(data []byte, m *meter) (*Profile, error) {
	v, err := decodeV8(data, m)
	if err != nil {
		return nil, err
	}
	if err := checkV8(v); err != nil {
		return nil, err
	}
	index, parent, err := v8Tree(v)
	if err != nil {
		return nil, err
	}
	samples, err := v8SampleTimes(v, index)
	if err != nil {
		return nil, err
	}
	p, err := newV8Profile(v, samples)
	if err != nil {
		return nil, err
	}
	b := newTypedBuilder(p)
	b.mem = m
	b.countSums()
	if err := addV8Samples(v, samples, parent, b, m); err != nil {
		return nil, err
	}
	for i := range p.Functions {
		b.str(p.Functions[i].Name)
		b.str(p.Functions[i].Filename)
	}
	if b.err != nil {
		return nil, b.err
	}
	return p, nil
}

// checkV8 reports the first part a profile lacks.
func checkV8(v *v8Profile) error {
	switch {
	case len(v.Nodes) == 0:
		return fmt.Errorf("nodes: none")
	case v.StartTime == nil:
		return fmt.Errorf("startTime: missing")
	case v.EndTime == nil:
		return fmt.Errorf("endTime: missing")
	case len(v.TimeDeltas) != len(v.Samples):
		return fmt.Errorf("timeDeltas: %d values for %d samples", len(v.TimeDeltas), len(v.Samples))
	case len(v.Samples) == 0:
		return fmt.Errorf("samples: none")
	}
	return nil
}

// v8Tree returns each node's index by id and its parent's index (-1 for
// a root), checking that the nodes form a tree.
func v8Tree(v *v8Profile) (index map[int64]int32, parent []int32, err error) {
	index = make(map[int64]int32, len(v.Nodes))
	for i, n := range v.Nodes {
		if _, dup := index[*n.ID]; dup {
			return nil, nil, fmt.Errorf("nodes[%d]: id %d appears twice", i, *n.ID)
		}
		index[*n.ID] = int32(i)
	}
	parent = make([]int32, len(v.Nodes))
	for i := range parent {
		parent[i] = -1
	}
	setParent := func(child, p int32, field string) error {
		if parent[child] >= 0 && parent[child] != p {
			return fmt.Errorf("%s: node %d has two parents", field, *v.Nodes[child].ID)
		}
		parent[child] = p
		return nil
	}
	for i, n := range v.Nodes {
		for j, c := range n.Children {
			ci, ok := index[c]
			if !ok {
				return nil, nil, fmt.Errorf("nodes[%d].children[%d]: no node %d", i, j, c)
			}
			if err := setParent(ci, int32(i), fmt.Sprintf("nodes[%d].children[%d]", i, j)); err != nil {
				return nil, nil, err
			}
		}
		if n.Parent != nil {
			pi, ok := index[*n.Parent]
			if !ok {
				return nil, nil, fmt.Errorf("nodes[%d].parent: no node %d", i, *n.Parent)
			}
			if err := setParent(int32(i), pi, fmt.Sprintf("nodes[%d].parent", i)); err != nil {
				return nil, nil, err
			}
		}
	}
	if err := v8CheckAcyclic(parent); err != nil {
		return nil, nil, err
	}
	return index, parent, nil
}

// v8CheckAcyclic fails where a path up from a node is longer than the
// number of nodes: it goes round. Each node's depth is kept so that a
// path is walked only until it meets one already measured.
func v8CheckAcyclic(parent []int32) error {
	depth := make([]int32, len(parent))
	for i := range parent {
		d := int32(0)
		for n := int32(i); parent[n] >= 0; n = parent[n] {
			if depth[n] > 0 {
				d += depth[n]
				break
			}
			d++
			if int(d) > len(parent) {
				return fmt.Errorf("nodes[%d]: its parents form a cycle", i)
			}
		}
		depth[i] = d
	}
	return nil
}

// v8Sample is a sample's leaf node and its time.
type v8Sample struct {
	node int32
	at   int64
}

// v8SampleTimes returns the samples with their times, in time order.
func v8SampleTimes(v *v8Profile, index map[int64]int32) ([]v8Sample, error) {
	samples := make([]v8Sample, len(v.Samples))
	at := *v.StartTime
	sorted := true
	for i, id := range v.Samples {
		n, ok := index[id]
		if !ok {
			return nil, fmt.Errorf("samples[%d]: no node %d", i, id)
		}
		d := v.TimeDeltas[i]
		if d > 0 && at > math.MaxInt64-d || d < 0 && at < math.MinInt64-d {
			return nil, fmt.Errorf("timeDeltas[%d]: the sample's time, %d + %d µs, is past the int64 range", i, at, d)
		}
		at += d
		sorted = sorted && v.TimeDeltas[i] >= 0
		samples[i] = v8Sample{n, at}
	}
	if !sorted {
		slices.SortStableFunc(samples, func(a, b v8Sample) int { return cmp.Compare(a.at, b.at) })
	}
	return samples, nil
}

// newV8Profile returns the profile without samples: its types, duration
// and period (the mean interval between samples).
func newV8Profile(v *v8Profile, samples []v8Sample) (*Profile, error) {
	duration, ok := sub64(*v.EndTime, *v.StartTime)
	if !ok || duration > math.MaxInt64/1000 || duration < math.MinInt64/1000 {
		return nil, fmt.Errorf("endTime: %d µs after startTime %d is past the int64 range", *v.EndTime, *v.StartTime)
	}
	p := &Profile{
		SampleTypes:   []ValueType{{"samples", "count"}, {"cpu", "microseconds"}},
		PeriodType:    ValueType{"cpu", "microseconds"},
		DurationNanos: duration * 1000,
	}
	if len(samples) > 1 {
		p.Period = (samples[len(samples)-1].at - samples[0].at) / int64(len(samples)-1)
	}
	return p, nil
}

// v8Frames gives each node a location, one per distinct frame, numbered
// in order of first use.
type v8Frames struct {
	v       *v8Profile
	p       *Profile
	m       *meter
	locOf   map[v8FrameKey]int32
	fnOf    map[v8FrameKey]int32
	nodeLoc []int32 // by node, -1 until asked
}

type v8FrameKey struct {
	name, file string
	line, col  int64
}

func newV8Frames(v *v8Profile, p *Profile, m *meter) *v8Frames {
	f := &v8Frames{v: v, p: p, m: m, locOf: map[v8FrameKey]int32{}, fnOf: map[v8FrameKey]int32{}, nodeLoc: make([]int32, len(v.Nodes))}
	for i := range f.nodeLoc {
		f.nodeLoc[i] = -1
	}
	return f
}

func (x *v8Frames) location(n int32) (int32, error) {
	if l := x.nodeLoc[n]; l >= 0 {
		return l, nil
	}
	p, m := x.p, x.m
	cf := x.v.Nodes[n].CallFrame
	name := cf.FunctionName
	if name == "" {
		name = "(anonymous)"
	}
	k := v8FrameKey{name, v8File(cf.URL), cf.LineNumber + 1, cf.ColumnNumber + 1}
	l, ok := x.locOf[k]
	if !ok {
		fk := v8FrameKey{name: k.name, file: k.file}
		if k.line > 0 {
			fk.line = k.line
		}
		f, ok := x.fnOf[fk]
		if !ok {
			if err := m.charge(functionCost); err != nil {
				return 0, err
			}
			f = int32(len(p.Functions))
			p.Functions = append(p.Functions, Function{ID: uint64(f) + 1, Name: k.name, SystemName: k.name, Filename: k.file, StartLine: fk.line})
			x.fnOf[fk] = f
		}
		if err := m.charge(locationCost); err != nil {
			return 0, err
		}
		l = int32(len(p.Locations))
		p.Locations = append(p.Locations, Location{ID: uint64(l) + 1, Mapping: -1, Lines: p.AddLines(Line{Function: f, Line: fk.line, Column: max(k.col, 0)})})
		x.locOf[k] = l
	}
	x.nodeLoc[n] = l
	return l, nil
}

// addV8Samples adds the samples, each worth the time until the next (the
// last one's until endTime). A node's stack is walked once, however many
// samples name it: a deep tree makes each walk long.
func addV8Samples(v *v8Profile, samples []v8Sample, parent []int32, b *builder, m *meter) error {
	frames := newV8Frames(v, b.p, m)
	nodeStack := make([]int32, len(v.Nodes))
	for i := range nodeStack {
		nodeStack[i] = -1
	}
	var locs []int32
	for i, s := range samples {
		next := *v.EndTime
		if i+1 < len(samples) {
			next = samples[i+1].at
		}
		st := nodeStack[s.node]
		if st < 0 {
			locs = locs[:0]
			for n := s.node; n >= 0 && parent[n] >= 0; n = parent[n] {
				l, err := frames.location(n) // the root is no frame
				if err != nil {
					return fmt.Errorf("samples[%d]: %w", i, err)
				}
				locs = append(locs, l)
			}
			var err error
			if st, err = b.stack(locs); err != nil {
				return fmt.Errorf("samples[%d]: %w", i, err)
			}
			nodeStack[s.node] = st
		}
		cpu, ok := sub64(next, s.at)
		if !ok {
			return fmt.Errorf("samples[%d]: its time, %d µs to %d, is past the int64 range", i, s.at, next)
		}
		if err := b.sample(st, []int64{1, max(cpu, 0)}, 0, nil); err != nil {
			return fmt.Errorf("samples[%d]: %w", i, err)
		}
	}
	return nil
}

// sub64 returns a-b and whether it is in the int64 range.
func sub64(a, b int64) (int64, bool) {
	d := a - b
	return d, (d < a) == (b > 0)
}

// v8File is the file name of a script URL: file:// URLs as paths, other
// URLs (http, node:internal) as they are.
func v8File(u string) string {
	if !strings.HasPrefix(u, "file://") {
		return u
	}
	if parsed, err := url.Parse(u); err == nil && parsed.Path != "" {
		return parsed.Path
	}
	return u
}

// jsonError makes a decoding error name the line and column, or the field.
func jsonError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("%s: %v", lineCol(data, syn.Offset), err)
	case errors.As(err, &typ):
		return fmt.Errorf("%s: field %s: want %s, got JSON %s", lineCol(data, typ.Offset), typ.Field, typ.Type, typ.Value)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("JSON ends early (truncated file?)")
	}
	return err
}

// lineCol names the line and column of byte offset off.
func lineCol(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := off - int64(bytes.LastIndexByte(before, '\n'))
	return fmt.Sprintf("line %d, column %d", line, col)
}
