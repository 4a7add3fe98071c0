package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/format/symbolize"
)

// The goldens are `go tool pprof` output, made by testdata/regen.sh from
// testdata/cases.txt; they are the oracle, so there is no -update flag
// that would rewrite them from our own output.

type reportCase struct {
	name, report, profile string
	flags                 []string
}

func readCases(t *testing.T) []reportCase {
	t.Helper()
	data, err := os.ReadFile("testdata/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	var cases []reportCase
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		cases = append(cases, reportCase{f[0], f[1], f[2], f[3:]})
	}
	if len(cases) == 0 {
		t.Fatal("no cases in testdata/cases.txt")
	}
	return cases
}

// caseOptions turns pprof's command-line flags into options, as the
// command line will: -top's defaults are nodefraction 0.005 and no node
// limit.
func caseOptions(t *testing.T, flags []string) (opt analysis.Options) {
	t.Helper()
	opt = analysis.DefaultOptions()
	for _, f := range flags {
		name, value, hasValue := strings.Cut(strings.TrimLeft(f, "-"), "=")
		switch name {
		case "peek", "list", "disasm":
			continue // the report, handled by the caller
		}
		if !hasValue {
			value = "true"
		}
		if err := opt.Set(name, value); err != nil {
			t.Fatalf("flag %s: %v", f, err)
		}
	}
	return opt
}

// labelKeyFilter is -tagshow/-taghide over label keys.
func labelKeyFilter(t *testing.T, opt analysis.Options) func(string) bool {
	t.Helper()
	f, err := analysis.LabelKeyFilter(opt)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

var engines sync.Map // profile path → *analysis.Engine

func engineFor(t testing.TB, path string) *analysis.Engine {
	t.Helper()
	if e, ok := engines.Load(path); ok {
		return e.(*analysis.Engine)
	}
	p, err := format.Open(context.Background(), path, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := analysis.NewEngine(p)
	engines.Store(path, e)
	return e
}

// symbolizedEngine loads a profile symbolized with its binary.
func symbolizedEngine(t testing.TB, bin, prof string, noInlines bool) *analysis.Engine {
	t.Helper()
	key := fmt.Sprintf("%s+%s+%v", bin, prof, noInlines)
	if e, ok := engines.Load(key); ok {
		return e.(*analysis.Engine)
	}
	p, err := format.Load(context.Background(), format.Sources{Sources: []string{prof}, Binary: bin}, format.Options{NoInlines: noInlines})
	if err != nil {
		t.Fatal(err)
	}
	e := analysis.NewEngine(p)
	engines.Store(key, e)
	return e
}

func TestReportsMatchPprof(t *testing.T) {
	for _, c := range readCases(t) {
		t.Run(c.name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", c.name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			opt := caseOptions(t, c.flags)
			var e *analysis.Engine
			if bin, prof, ok := strings.Cut(c.profile, "+"); ok {
				// -disasm symbolizes as pprof does: one frame an address.
				e = symbolizedEngine(t, filepath.Join("../../testdata", bin), filepath.Join("../../testdata", prof), opt.NoInlines || c.report == "disasm")
			} else {
				e = engineFor(t, filepath.Join("../../testdata", c.profile))
			}
			p := e.Profile()
			// Graph reports have 80 nodes unless -nodecount is given.
			counted := slices.ContainsFunc(c.flags, func(f string) bool { return strings.HasPrefix(f, "-nodecount=") })
			var got bytes.Buffer
			switch c.report {
			case "top":
				top, err := e.Top(opt)
				if err != nil {
					skipUnsupported(t, err)
					t.Fatal(err)
				}
				if err := Top(&got, p, top, opt); err != nil {
					t.Fatal(err)
				}
			case "traces":
				tr, err := e.Traces(opt)
				if err != nil {
					skipUnsupported(t, err)
					t.Fatal(err)
				}
				if err := Traces(&got, p, tr, opt, labelKeyFilter(t, opt)); err != nil {
					t.Fatal(err)
				}
			case "peek":
				// The regexp is the case's first flag, -peek=RE.
				re := regexp.MustCompile(strings.TrimPrefix(c.flags[0], "-peek="))
				opt.NodeFraction, opt.EdgeFraction, opt.NodeCount = 0, 0, 0
				pk, err := e.Peek(opt, re)
				if err != nil {
					t.Fatal(err)
				}
				if err := Peek(&got, p, pk, opt); err != nil {
					t.Fatal(err)
				}
			case "list":
				re := strings.TrimPrefix(c.flags[0], "-list=")
				lst, err := e.List(opt, regexp.MustCompile(re), analysis.NewSourceFiles())
				if err != nil {
					t.Fatal(err)
				}
				if err := List(&got, lst, re, opt); err != nil {
					t.Fatal(err)
				}
			case "disasm":
				re := regexp.MustCompile(strings.TrimPrefix(c.flags[0], "-disasm="))
				d, err := e.Disasm(opt, re, analysis.DisasmOptions{Syntax: analysis.DisasmSyntax(opt), Open: openDisassembler})
				if err == nil {
					err = Disasm(&got, d, opt)
				} else if len(want) != 0 {
					t.Fatal(err)
				}
			case "tree", "dot", "callgrind":
				gopt, kind := GraphOptions(c.report, opt, counted)
				opt = gopt
				g, err := e.Graph(gopt, kind)
				if err != nil {
					t.Fatal(err)
				}
				switch c.report {
				case "tree":
					err = Tree(&got, p, g, opt)
				case "dot":
					err = Dot(&got, p, g, opt)
				default:
					err = Callgrind(&got, g, opt)
				}
				if err != nil {
					t.Fatal(err)
				}
			case "topproto":
				// Written and read back, printed as pprof's -raw of it.
				gopt, kind := GraphOptions(c.report, opt, counted)
				g, err := e.Graph(gopt, kind)
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if err := format.Write(&buf, TopProto(p, g, gopt)); err != nil {
					t.Fatal(err)
				}
				back, err := format.Parse(&buf, format.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if err := Raw(&got, back); err != nil {
					t.Fatal(err)
				}
			case "comments":
				if err := Comments(&got, p); err != nil {
					t.Fatal(err)
				}
			case "raw":
				fp, err := e.Filtered(opt)
				if err != nil {
					t.Fatal(err)
				}
				if err := Raw(&got, fp); err != nil {
					t.Fatal(err)
				}
			default:
				t.Fatalf("unknown report %q", c.report)
			}
			if slices.Contains(c.flags, "-files") {
				// Nodes of one file that differ in their function's start
				// line print alike, and pprof orders them differently from
				// run to run. Such rows tie on flat, so the sum% column
				// is the same in any order: compare it in order, and the
				// rows without it as a multiset.
				sorted := sortRows(got.Bytes())
				want = sortRows(want)
				got.Reset()
				got.Write(sorted)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("differs from pprof's output:\n%s", lineDiff(string(want), got.String()))
			}
		})
	}
}

// openDisassembler opens a binary for -disasm.
func openDisassembler(path string) (*symbolize.Disassembler, error) {
	b, err := symbolize.Open(path)
	if err != nil {
		return nil, err
	}
	return symbolize.NewDisassembler(b)
}

// skipUnsupported skips a case whose options analysis does not support
// yet (the tag filters, at the time of writing), so that it runs as soon
// as they are.
func skipUnsupported(t *testing.T, err error) {
	t.Helper()
	var oe *analysis.OptionError
	if errors.As(err, &oe) && strings.Contains(oe.Err.Error(), "not supported") {
		t.Skipf("analysis: %v", err)
	}
}

// sortRows puts the rows of a -top report, after its column header, in
// a canonical order: first the sum% column as printed, then the rows with
// that column blanked, sorted.
func sortRows(report []byte) []byte {
	const columns = "      flat  flat%   sum%        cum   cum%\n"
	head, rows, ok := bytes.Cut(report, []byte(columns))
	if !ok {
		return report
	}
	out := append(slices.Clip(head), columns...)
	var rest [][]byte
	for _, line := range bytes.SplitAfter(rows, []byte("\n")) {
		// "%10s %s %s ...": the flat value, then six-byte flat% and sum%.
		trimmed := bytes.TrimLeft(line, " ")
		j := bytes.IndexByte(trimmed, ' ')
		i := len(line) - len(trimmed) + j
		if j < 0 || len(line) < i+14 {
			rest = append(rest, line)
			continue
		}
		out = append(append(out, line[i+8:i+14]...), '\n')
		blanked := slices.Concat(line[:i+8], []byte("      "), line[i+14:])
		rest = append(rest, blanked)
	}
	slices.SortFunc(rest, bytes.Compare)
	return append(out, bytes.Join(rest, nil)...)
}

// lineDiff shows the first few lines that differ.
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	line := func(ls []string, i int) string {
		if i < len(ls) {
			return "|" + ls[i] + "|"
		}
		return "(none)"
	}
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(wl), len(gl)) && shown < 8; i++ {
		if w, g := line(wl, i), line(gl, i); w != g {
			fmt.Fprintf(&b, "line %d:\n  pprof: %s\n  ours:  %s\n", i+1, w, g)
			shown++
		}
	}
	if len(wl) != len(gl) {
		fmt.Fprintf(&b, "pprof has %d lines, ours %d\n", len(wl), len(gl))
	}
	return b.String()
}

// go test ./analysis/report -run '^$' -bench . -benchmem
func BenchmarkTop(b *testing.B) {
	e := engineFor(b, "../../testdata/pprof/large.cpu")
	opt := analysis.DefaultOptions()
	top, err := e.Top(opt)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if err := Top(io.Discard, e.Profile(), top, opt); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTraces(b *testing.B) {
	e := engineFor(b, "../../testdata/synthetic/bigprof_10k.pb.gz")
	opt := analysis.DefaultOptions()
	tr, err := e.Traces(opt)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if err := Traces(io.Discard, e.Profile(), tr, opt, nil); err != nil {
			b.Fatal(err)
		}
	}
}
