package main

import (
	"bufio"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// perfReport is one event's section of `perf report --stdio --sort sym`:
// each symbol's printed share.
type perfReport struct {
	event  string
	shares map[string]string // symbol -> "53.91" (self or children)
}

var (
	perfEventRE = regexp.MustCompile(`^# Samples: .* of event '([^']+)'`)
	// "    61.72%     0.00%  [.] main" (children) or "    53.91%  [.] spin"
	perfRowRE = regexp.MustCompile(`^\s+(\d+\.\d\d)%\s+(?:\d+\.\d\d%\s+)?\[[.kgujH]\] (.+?)\s*$`)
	// perf's rows for frames it could not name are addresses.
	perfAddrRE = regexp.MustCompile(`^(0x)?[0-9a-f]{16}$`)
)

func readPerfReport(t *testing.T, path string) []perfReport {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []perfReport
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		if m := perfEventRE.FindStringSubmatch(l); m != nil {
			out = append(out, perfReport{event: m[1], shares: map[string]string{}})
			continue
		}
		if m := perfRowRE.FindStringSubmatch(l); m != nil && len(out) > 0 {
			if _, dup := out[len(out)-1].shares[m[2]]; dup {
				t.Fatalf("%s: symbol %q twice in one event", path, m[2])
			}
			out[len(out)-1].shares[m[2]] = m[1]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no event sections", path)
	}
	return out
}

// TestPerfScriptMatchesPerfReport reads the perf script text of a workload
// recorded on this machine (testdata/producers/regen.sh) and checks our
// -top against perf's own report of the same perf.data, symbol by symbol
// to perf's printed precision: flat against `perf report --no-children`,
// cum against `--children`, for each event. Frames perf could not name are
// rows of addresses in perf and [module] or <unknown> rows in ours (as
// pprof shows unsymbolized frames), so those rows are left out on both
// sides.
func TestPerfScriptMatchesPerfReport(t *testing.T) {
	const script = "testdata/producers/perf/perfwork.script.gz"
	self := readPerfReport(t, "testdata/producers/perf/golden/report.self.txt")
	children := readPerfReport(t, "testdata/producers/perf/golden/report.children.txt")
	if len(self) != len(children) {
		t.Fatalf("%d events without children, %d with", len(self), len(children))
	}
	for i, rep := range self {
		event := strings.TrimSuffix(rep.event, ":ppp") // our sample type drops the modifiers
		t.Run(event, func(t *testing.T) {
			out := runCLI(t, "-top", "-json", "-nodefraction=0", "-nodecount=1000000", "-sample_index="+event, script)
			var doc topJSON
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.SampleType != event {
				t.Fatalf("sample type %q, want %q", doc.SampleType, event)
			}
			pct := func(v int64) string { return strconv.FormatFloat(100*float64(v)/float64(doc.Total), 'f', 2, 64) }
			compare := func(kind string, perf map[string]string, ours map[string]int64) {
				for sym, share := range perf {
					if perfAddrRE.MatchString(sym) {
						continue
					}
					v, ok := ours[sym]
					if !ok {
						t.Errorf("%s: perf's %s %s%% is not in our -top", kind, sym, share)
						continue
					}
					if got := pct(v); got != share {
						t.Errorf("%s: %s %s%%, perf %s%%", kind, sym, got, share)
					}
				}
				for sym, v := range ours {
					if _, ok := perf[sym]; !ok && v != 0 && sym != "<unknown>" && !strings.HasPrefix(sym, "[") {
						t.Errorf("%s: our %s %s%% is not in perf's report", kind, sym, pct(v))
					}
				}
			}
			flat, cum := map[string]int64{}, map[string]int64{}
			for _, r := range doc.Rows {
				flat[r.Name], cum[r.Name] = r.Flat, r.Cum
			}
			compare("self", rep.shares, flat)
			compare("children", children[i].shares, cum)
			if len(rep.shares) < 5 {
				t.Errorf("only %d symbols in perf's report: %v", len(rep.shares), rep.shares)
			}
		})
	}
}

// TestPerfScriptLabels checks that comm, pid and tid are labels that
// -tags reports and -tagfocus selects.
func TestPerfScriptLabels(t *testing.T) {
	const script = "testdata/producers/perf/perfwork.script.gz"
	tags := runCLI(t, "-tags", script)
	for _, want := range []string{"comm: Total", "): perfwork", "): crunch", "pid: Total", "tid: Total"} {
		if !strings.Contains(tags, want) {
			t.Errorf("-tags lacks %q:\n%s", want, tags)
		}
	}
	// The crunch thread runs warm (trig, sin, cos) and nothing of main's.
	top := runCLI(t, "-top", "-nodecount=1000000", "-tagfocus=comm=crunch", script)
	if !strings.Contains(top, " warm\n") || strings.Contains(top, " hot\n") || strings.Contains(top, " mixed\n") {
		t.Errorf("-tagfocus=comm=crunch:\n%s", top)
	}
	// The two commands split the samples between them.
	sum := func(args ...string) int64 {
		var doc topJSON
		out := runCLI(t, append([]string{"-top", "-json", "-nodefraction=0", "-nodecount=1000000"}, append(args, script)...)...)
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, r := range doc.Rows {
			n += r.Flat
		}
		return n
	}
	all, crunch, rest := sum(), sum("-tagfocus=comm=crunch"), sum("-tagignore=comm=crunch")
	if crunch == 0 || rest == 0 || crunch+rest != all {
		t.Errorf("flat sums: crunch %d + the rest %d != all %d", crunch, rest, all)
	}
	if n := sum("-tagfocus=tid=1:"); n != all {
		t.Errorf("-tagfocus=tid=1: keeps %d of %d", n, all)
	}
}
