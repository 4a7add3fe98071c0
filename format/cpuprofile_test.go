package format

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// cpuProfileQuirks: samples out of time order (a negative delta), a tree
// given by parent fields instead of children, an anonymous function, a
// file:// URL with an escape, a sample on the root.
const cpuProfileQuirks = `{"nodes":[
 {"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1,"columnNumber":-1}},
 {"id":2,"parent":1,"callFrame":{"functionName":"main","url":"file:///srv/my%20app/a.js","lineNumber":9,"columnNumber":2}},
 {"id":3,"parent":2,"callFrame":{"functionName":"","url":"file:///srv/my%20app/a.js","lineNumber":19,"columnNumber":0}},
 {"id":4,"parent":1,"callFrame":{"functionName":"(garbage collector)","url":"","lineNumber":-1,"columnNumber":-1}}],
 "startTime":1000,"endTime":1100,
 "samples":[3,2,4,1],"timeDeltas":[10,30,-20,50]}`

func TestCPUProfileQuirks(t *testing.T) {
	data := []byte(cpuProfileQuirks)
	if !isCPUProfile(data) || isFolded(data) || isPerfScript(data) {
		t.Fatal("sniffers")
	}
	p, err := Parse(bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, p)
	// Times 1010 (node 3), 1040 (2), 1020 (4), 1070 (root); in order
	// 3@1010 4@1020 2@1040 root@1070, each until the next, the last
	// until endTime.
	want := []struct {
		stack string
		cpu   int64
	}{
		{"(anonymous) /srv/my app/a.js:20;main /srv/my app/a.js:10", 10},
		{"(garbage collector) :0", 20},
		{"main /srv/my app/a.js:10", 30},
		{"", 30},
	}
	if p.Samples.Len() != len(want) {
		t.Fatalf("%d samples", p.Samples.Len())
	}
	for i, w := range want {
		var frames []string
		for _, li := range p.Stacks.At(p.Samples.Stack[i]) {
			ln := p.LinesOf(&p.Locations[li])[0]
			f := p.Functions[ln.Function]
			frames = append(frames, f.Name+" "+f.Filename+":"+strconv.FormatInt(ln.Line, 10))
		}
		if got := strings.Join(frames, ";"); got != w.stack || p.Samples.Values[1][i] != w.cpu || p.Samples.Values[0][i] != 1 {
			t.Errorf("sample %d: %q %d µs, want %q %d", i, got, p.Samples.Values[1][i], w.stack, w.cpu)
		}
	}
	if p.DurationNanos != 100_000 {
		t.Errorf("duration %d ns", p.DurationNanos)
	}
}

func TestCPUProfileErrors(t *testing.T) {
	const node1 = `{"id":1,"callFrame":{"functionName":"(root)"}`
	for _, c := range []struct{ in, want string }{
		{`{"nodes":[` + node1 + `,]}`, "V8 CPU profile: line 1, column "},
		{"{\"nodes\":[\n" + `{"id":"x","callFrame":{}}]}`, "V8 CPU profile: line 2, column 10: field nodes.id: want int64, got JSON string"},
		{`{"nodes":[` + node1, "V8 CPU profile: JSON ends early"},
		{`{"nodes":[{"id":1,"callFrame":{"lineNumber":"x"}}]}`, "V8 CPU profile: line 1, column 48: field nodes.callFrame.lineNumber: want int64, got JSON string"},
		{`{"nodes":[],"callFrame":1}`, "V8 CPU profile: nodes: none"},
		{`{"nodes":[` + node1 + `}],"callFrame":0}`, "V8 CPU profile: startTime: missing"},
		{`{"nodes":[` + node1 + `}],"startTime":0,"endTime":1,"samples":[1],"timeDeltas":[]}`, "V8 CPU profile: timeDeltas: 0 values for 1 samples"},
		{`{"nodes":[` + node1 + `}],"startTime":0,"endTime":1,"samples":[2],"timeDeltas":[1],"callFrame":0}`, "V8 CPU profile: samples[0]: no node 2"},
		{`{"nodes":[` + node1 + `,"children":[7]}],"startTime":0,"endTime":1,"samples":[1],"timeDeltas":[1],"callFrame":0}`, "V8 CPU profile: nodes[0].children[0]: no node 7"},
		{`{"nodes":[` + node1 + `},` + node1 + `}],"startTime":0,"endTime":1,"samples":[1],"timeDeltas":[1]}`, "V8 CPU profile: nodes[1]: id 1 appears twice"},
		{`{"nodes":[{"id":1,"parent":2,"callFrame":{}},{"id":2,"parent":1,"callFrame":{}}],"startTime":0,"endTime":1,"samples":[1],"timeDeltas":[1]}`, "V8 CPU profile: nodes[0]: its parents form a cycle"},
		{`{"nodes":[{"callFrame":{}}],"startTime":0,"endTime":1,"samples":[1],"timeDeltas":[1]}`, "V8 CPU profile: nodes[0]: no id"},
	} {
		_, err := Parse(strings.NewReader(c.in), Options{})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s:\n error %v\n want %s…", c.in, err, c.want)
		}
	}
}
