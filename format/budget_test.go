package format

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
)

// allocatedBy returns how many bytes of heap f allocated, garbage
// included: what a hostile input made the process take, at most.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// The inputs built to exhaust memory, each scaled down from the
// gigabytes it took to a size a test runs in a moment, with MaxBytes
// scaled down alike. Each must fail with ErrBudget (or a structural
// error) having allocated a bounded amount.
func TestMemoryBombs(t *testing.T) {
	v8Chain := func(depth int) []byte {
		var b bytes.Buffer
		b.WriteString(`{"nodes":[`)
		for i := 1; i <= depth; i++ {
			if i > 1 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":%d,"callFrame":{"functionName":"f"}`, i)
			if i < depth {
				fmt.Fprintf(&b, `,"children":[%d]`, i+1)
			}
			b.WriteByte('}')
		}
		b.WriteString(`],"startTime":0,"endTime":1,"samples":[`)
		for i := 1; i <= depth; i++ {
			if i > 1 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d", i)
		}
		b.WriteString(`],"timeDeltas":[`)
		b.WriteString(strings.TrimSuffix(strings.Repeat("0,", depth), ","))
		b.WriteString("]}")
		return b.Bytes()
	}
	perfEvents := func(events, samples int) []byte {
		var b bytes.Buffer
		for i := range samples {
			fmt.Fprintf(&b, "x 1 1.0: 1 ev%d:\n\t1 f (/x)\n\n", min(i, events-1))
		}
		return b.Bytes()
	}
	folded := func(size int) []byte {
		var b bytes.Buffer
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "main;f%d;g%d 1\n", i, i)
		}
		return b.Bytes()
	}
	for _, c := range []struct {
		name     string
		data     []byte
		maxBytes int64
		want     string
		bound    uint64 // bytes the failed load may allocate
	}{
		// 60 MB of empty nodes held 4.6 GB: refused at the first.
		{"V8 empty nodes", []byte(`{"nodes":[{"callFrame":{}},` + strings.Repeat("{},", 300_000) + `{}]}`), 0, "nodes[0]: no id", 4 << 20},
		// A 200,000-deep chain, every node sampled, took 2.4 GB: its
		// stacks alone are depth²/2 locations.
		{"V8 deep chain", v8Chain(4000), 2 << 20, "", 24 << 20},
		// 1,024 event names make every sample carry 2,048 values.
		{"perf script events", perfEvents(1024, 3000), 16 << 20, "", 48 << 20},
		// Folded text of distinct frames decodes to many times its size.
		{"folded", folded(2 << 20), 4 << 20, "", 24 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			alloc := allocatedBy(func() {
				_, err = Parse(bytes.NewReader(c.data), Options{MaxBytes: c.maxBytes})
			})
			switch {
			case err == nil:
				t.Fatalf("loaded")
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Errorf("error %v, want %q", err, c.want)
			case c.want == "" && !errors.Is(err, ErrBudget):
				t.Errorf("error %v, want ErrBudget", err)
			case strings.Contains(err.Error(), "\n"):
				t.Errorf("error of several lines: %v", err)
			}
			if alloc > c.bound {
				t.Errorf("%d-byte input: %d bytes allocated, want at most %d", len(c.data), alloc, c.bound)
			}
			t.Logf("%d-byte input: %v; %d bytes allocated", len(c.data), err, alloc)
		})
	}
}

// TestBudgetShared: a budget given in Options is charged by the load and
// keeps what the profile holds; a failed load gives all of it back; a
// sub-budget charges its parent.
func TestBudgetShared(t *testing.T) {
	data := []byte("main;a 1\nmain;b 2\n")
	server := NewBudget(1 << 30)
	session := server.Sub(1 << 20)
	if _, err := Parse(bytes.NewReader(data), Options{Budget: session}); err != nil {
		t.Fatal(err)
	}
	if session.Used() <= 0 || server.Used() != session.Used() {
		t.Fatalf("charged %d to the session, %d to the server", session.Used(), server.Used())
	}
	used := session.Used()
	if _, err := Parse(bytes.NewReader([]byte("main;a 1\nbad\n")), Options{Budget: session}); err == nil {
		t.Fatal("loaded a bad profile")
	}
	if session.Used() != used {
		t.Errorf("a failed load left %d bytes charged", session.Used()-used)
	}
	small := NewBudget(100)
	_, err := Parse(bytes.NewReader(data), Options{Budget: small})
	if !errors.Is(err, ErrBudget) {
		t.Fatalf("a 100-byte budget: %v, want ErrBudget", err)
	}
	if small.Used() != 0 {
		t.Errorf("a failed load left %d bytes charged", small.Used())
	}
	session.Release(session.Used())
	if server.Used() != 0 {
		t.Errorf("the server keeps %d bytes after the session released its own", server.Used())
	}
}

// TestSumsDoNotWrap: counts that are each in range but whose total is
// not are refused, naming where, instead of showing a negative total.
func TestSumsDoNotWrap(t *testing.T) {
	const max = "9223372036854775807"
	for _, c := range []struct{ name, in, want string }{
		{"folded", "a;b " + max + "\na;b " + max + "\n", "folded stacks: line 2: the samples values add up past the int64 range"},
		{"perf periods", strings.Repeat("x 1 1.0: "+max+" cycles:\n\t1 f (/x)\n\n", 3), "perf script: line 6: the cycles values add up past the int64 range"},
		{"V8 time deltas", `{"nodes":[{"id":1,"callFrame":{}}],"startTime":1,"endTime":2,"samples":[1,1],"timeDeltas":[` + max + `,1]}`, "V8 CPU profile: timeDeltas[0]: the sample's time"},
		{"V8 end time", `{"nodes":[{"id":1,"callFrame":{}}],"startTime":-9,"endTime":` + max + `,"samples":[1],"timeDeltas":[0]}`, "V8 CPU profile: endTime: "},
	} {
		p, err := Parse(strings.NewReader(c.in), Options{})
		if err == nil {
			t.Errorf("%s: loaded, total %d", c.name, p.Total(0))
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %s…", c.name, err, c.want)
		}
	}
}

// TestCheckSums: the magnitudes of a column must add up within int64,
// so that no total the explorer shows wraps; CheckSums names the column.
func TestCheckSums(t *testing.T) {
	const top = math.MaxInt64
	for _, c := range []struct {
		name string
		col  []int64
		want string
	}{
		{"fits", []int64{top - 1, 1}, ""},
		{"diff fits", []int64{top / 2, -(top / 2)}, ""},
		{"wraps", []int64{top, top}, "the cpu values add up past the int64 range"},
		{"wraps by one", []int64{top, 1}, "the cpu values add up past the int64 range"},
		{"negatives wrap", []int64{-top, -top}, "the cpu values add up past the int64 range"},
		{"min int", []int64{math.MinInt64}, "the cpu values add up past the int64 range"},
	} {
		p := &Profile{SampleTypes: []ValueType{{Type: "samples"}, {Type: "cpu"}}}
		p.Samples.Values = [][]int64{make([]int64, len(c.col)), c.col}
		err := p.CheckSums()
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
