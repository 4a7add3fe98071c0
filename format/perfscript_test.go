package format

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// perfScriptQuirks is perf script text in the shapes perf writes it:
// call chains with kernel, unknown and (deleted) modules; a command name
// with spaces and digits; the CPU column (perf record -a); a sample
// without call chain, its frame on the header line; a tracepoint whose
// fields follow the event; srcline lines; two events.
const perfScriptQuirks = `# ========
# captured on: x
# ========
#
Web Content 2   1234/1240 [003]  100.000001:     250000 cpu-clock:ppp: 
	ffffffff8225fd19 pvm_irq_enable+0x19 ([kernel.kallsyms])
	            1169 spin+0x19 (/tmp/perfwork (deleted))
	  main.c:12
	            1200 main+0x20 (/tmp/perfwork (deleted))
	    7f9fca2f2ad7 [unknown] ([unknown])

Web Content 2   1234/1240 [001]  100.000002:     250000 cpu-clock:ppp:      7f00000010 [unknown] (/usr/lib/libc.so.6)

sh  99/99 [000]  100.000003:          1 sched:sched_switch: prev_comm=sh prev_pid=99 ==> next_comm=swapper/0
	ffffffff81000010 __schedule+0x10 ([kernel.kallsyms])
	            1200 main+0x20 (/tmp/perfwork (deleted))
`

func TestPerfScriptQuirks(t *testing.T) {
	data := []byte(perfScriptQuirks)
	if !isPerfScript(data) || isFolded(data) || isLegacyText(data) {
		t.Fatalf("sniffers: perf %v folded %v legacy text %v", isPerfScript(data), isFolded(data), isLegacyText(data))
	}
	p, err := Parse(bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, p)
	var types []string
	for _, st := range p.SampleTypes {
		types = append(types, st.Type+"/"+st.Unit)
	}
	if got := strings.Join(types, " "); got != "cpu-clock_samples/count cpu-clock/nanoseconds sched:sched_switch_samples/count sched:sched_switch/count" {
		t.Errorf("sample types %s", got)
	}
	if p.DefaultSampleType != "cpu-clock" || p.Period != 250000 || p.PeriodType.Type != "cpu-clock" {
		t.Errorf("default %q, period %d %v", p.DefaultSampleType, p.Period, p.PeriodType)
	}
	if p.Mappings[0].File != "/tmp/perfwork (deleted)" && p.Mappings[0].File != "[kernel.kallsyms]" {
		t.Errorf("first mapping %q", p.Mappings[0].File)
	}
	want := []struct {
		stack  string
		values []int64
		labels string
	}{
		{"pvm_irq_enable spin main ?", []int64{1, 250000, 0, 0}, "comm=Web Content 2 pid=1234 tid=1240 cpu=3"},
		{"[/usr/lib/libc.so.6]", []int64{1, 250000, 0, 0}, "comm=Web Content 2 pid=1234 tid=1240 cpu=1"},
		{"__schedule main", []int64{0, 0, 1, 1}, "comm=sh pid=99 tid=99 cpu=0"},
	}
	if p.Samples.Len() != len(want) {
		t.Fatalf("%d samples, want %d", p.Samples.Len(), len(want))
	}
	for i, w := range want {
		var frames []string
		for _, li := range p.Stacks.At(p.Samples.Stack[i]) {
			l := p.Locations[li]
			switch {
			case len(p.LinesOf(&l)) > 0:
				frames = append(frames, p.Functions[p.LinesOf(&l)[0].Function].Name)
			case l.Mapping >= 0:
				frames = append(frames, "["+p.Mappings[l.Mapping].File+"]")
			default:
				frames = append(frames, "?")
			}
		}
		if got := strings.Join(frames, " "); got != w.stack {
			t.Errorf("sample %d: stack %q, want %q", i, got, w.stack)
		}
		for c, v := range w.values {
			if p.Samples.Values[c][i] != v {
				t.Errorf("sample %d: %s = %d, want %d", i, p.SampleTypes[c].Type, p.Samples.Values[c][i], v)
			}
		}
		var labels []string
		for _, kv := range p.LabelSets.At(p.Samples.Labels[i]) {
			labels = append(labels, p.Strings[kv.Key]+"="+p.Strings[kv.Value])
		}
		for _, nl := range p.Samples.NumLabels(i) {
			labels = append(labels, p.Strings[nl.Key]+"="+strconv.FormatInt(nl.Value, 10))
		}
		if got := strings.Join(labels, " "); got != w.labels {
			t.Errorf("sample %d: labels %q, want %q", i, got, w.labels)
		}
	}
}

func TestPerfScriptErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"perfwork 1 1.0: 1 cpu-clock:\n\tzz spin (x)\n", "perf script: line 2: want a call chain line ADDRESS SYMBOL (MODULE), got \"\\tzz spin (x)\""},
		{"perfwork 1 1.0: 1 cpu-clock:\n\t10 spin x\n", "perf script: line 2: want a call chain line"},
		{"perfwork 1 1.0: 1 cpu-clock:\n\t10 spin (x)\n\nnot a header\n", "perf script: line 4: not a perf script sample header"},
		{"perfwork 1 1.0: 99999999999999999999 cpu-clock:\n", "perf script: line 1: period 99999999999999999999 out of range"},
		{"perfwork 99999999999999999999 1.0: 1 cpu-clock:\n", "perf script: line 1: tid 99999999999999999999 out of range"},
		{"# only comments\nperfwork 1 1.0: 1 cpu-clock:\n\t\n", ""},
	} {
		_, err := Parse(strings.NewReader(c.in), Options{})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.in, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("%q: error %v, want %s…", c.in, err, c.want)
		case err != nil && strings.Contains(err.Error(), "\n"):
			t.Errorf("%q: error of several lines: %v", c.in, err)
		}
	}
}

// TestPerfData reads a perf.data file through the installed perf, and
// says so clearly when perf is not installed.
func TestPerfData(t *testing.T) {
	data := append([]byte("PERFILE2"), make([]byte, 200)...)
	saved := perfCommand
	perfCommand = "pprof-tui-test-no-such-perf"
	_, err := Parse(bytes.NewReader(data), Options{})
	perfCommand = saved
	if err == nil || !strings.HasPrefix(err.Error(), "perf.data: reading it needs Linux perf (`perf script`), which is not installed") {
		t.Errorf("without perf: %v", err)
	}

	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("no perf installed")
	}
	out := filepath.Join(t.TempDir(), "perf.data")
	rec := exec.Command("perf", "record", "-q", "-e", "cpu-clock", "-F", "5000", "-g", "-o", out, "--",
		"sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done")
	if msg, err := rec.CombinedOutput(); err != nil {
		t.Skipf("perf record not permitted here: %v: %s", err, msg)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := Parse(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, p)
	if p.DefaultSampleType != "cpu-clock" || p.Samples.Len() == 0 {
		t.Errorf("default sample type %q, %d samples", p.DefaultSampleType, p.Samples.Len())
	}
	if _, err := Parse(bytes.NewReader(data), Options{}); err == nil || !strings.HasPrefix(err.Error(), "perf.data: perf script: ") {
		t.Errorf("a broken perf.data: %v", err)
	}
}
