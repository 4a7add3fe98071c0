package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/pprof-tui/pprof-tui/format"
)

// spanProfile writes a profile whose values span microseconds to hours:
// main.main calls one function per unit, each with its own delay.
func spanProfile(t *testing.T) string {
	t.Helper()
	names := []string{"main.main", "main.hours", "main.minutes", "main.seconds", "main.millis", "main.micros"}
	values := []int64{8200, 9000e9, 754e9, 3250e6, 47500e3, 12300} // ns
	p := &format.Profile{
		SampleTypes: []format.ValueType{{Type: "delay", Unit: "nanoseconds"}},
		PeriodType:  format.ValueType{Type: "delay", Unit: "nanoseconds"},
		Period:      1,
		Strings:     []string{""},
	}
	p.Stacks.Off = []int32{0}
	p.LabelSets.Off = []int32{0, 0}
	for i, n := range names {
		p.Functions = append(p.Functions, format.Function{ID: uint64(i + 1), Name: n, Filename: "main.go"})
		p.Locations = append(p.Locations, format.Location{ID: uint64(i + 1), Mapping: -1, Lines: p.AddLines(format.Line{Function: int32(i), Line: int64(10 * (i + 1))})})
		stack := []int32{int32(i)}
		if i > 0 {
			stack = append(stack, 0) // leaf first
		}
		p.Stacks.Locs = append(p.Stacks.Locs, stack...)
		p.Stacks.Off = append(p.Stacks.Off, int32(len(p.Stacks.Locs)))
		p.Samples.Stack = append(p.Samples.Stack, int32(i))
		p.Samples.Labels = append(p.Samples.Labels, 0)
	}
	p.Samples.Values = [][]int64{values}
	path := filepath.Join(t.TempDir(), "span.pb.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := format.Write(f, p); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// unreadable is a value a person cannot read at a glance: a bare 0
// column value, a value below 1 of its unit, or fewer than three
// significant digits ("0.03hrs", "0.75s").
var unreadable = regexp.MustCompile(`(?m)(^|\s)(0\s+[-0-9]|(0\.[0-9]+|[0-9]\.[0-9]?)[a-zA-Z]+(\s|$))`)

// A profile whose values span microseconds to hours reads in every view
// with each value on its own (three significant digits, none 0, none
// below 1 of its unit), the status bar's total too; :unit= puts every
// view in the one unit asked for.
func TestReadableValues(t *testing.T) {
	t.Parallel()
	path := spanProfile(t)
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		cfg := testConfig(path)
		cfg.Width, cfg.Height = size[0], size[1]
		h := start(t, cfg)
		suffix := fmt.Sprintf("-%dx%d", size[0], size[1])
		for _, step := range []struct {
			name string
			keys []string
			want []string
		}{
			{"span-top", nil, []string{"2.50hrs", "754s", "12.3us", "8.20us", "3.25s", "47.5ms"}},
			{"span-tree", []string{"2"}, []string{"2.71hrs", "2.50hrs", "3.25s"}},
			{"span-flame", []string{"4", "<down>", "<down>"}, nil},
			{"span-peek", []string{"1", "g", "j", "5"}, []string{"754s"}},
			{"span-traces", []string{"8"}, []string{"754s"}},
		} {
			h.keys(step.keys...)
			s := h.screen()
			golden(t, step.name+suffix, s)
			if !strings.Contains(s, "total 2.71hrs") {
				t.Errorf("%s: the status bar's total is not 2.71hrs:\n%s", step.name, s)
			}
			for _, w := range step.want {
				if !strings.Contains(s, w) {
					t.Errorf("%s: no %s on the screen:\n%s", step.name, w, s)
				}
			}
			if bad := unreadable.FindString(strings.ReplaceAll(s, "▶", " ")); bad != "" {
				t.Errorf("%s: %q on a screen:\n%s", step.name, bad, s)
			}
		}
		h.command("unit=ms")
		for _, v := range []string{"1", "2", "4", "5"} {
			h.keys(v)
			if s := h.screen(); !strings.Contains(s, "754000ms") || !strings.Contains(s, "total 9757298ms") || strings.Contains(s, "754s") {
				t.Errorf("unit=ms, view %s: not in ms:\n%s", v, s)
			}
		}
		h.keys("1")
		golden(t, "span-top-unit-ms"+suffix, h.screen())
	}
}

// With :mean=true a block profile's mean delays exceed the total many
// times over; the rows stay in line with the headings (issue 13: the
// row 356793.47us 16556.10% pushed the table out of line).
func TestMeanStaysAligned(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		cfg := testConfig(testdata("block.pb.gz"))
		cfg.Width, cfg.Height = size[0], size[1]
		h := start(t, cfg)
		h.command("mean=true")
		for _, v := range []string{"1", "2"} {
			h.keys(v)
			s := h.screen()
			lines := strings.Split(s, "\n")
			head := lines[1]
			// Every share ends where its heading does.
			for _, col := range []string{"flat%", "cum%"} {
				end := ansi.StringWidth(head[:strings.Index(head, col)]) + len(col)
				for _, l := range lines[2 : len(lines)-2] {
					if strings.TrimSpace(l) == "" {
						continue
					}
					if r := []rune(l); len(r) < end || r[end-1] != '%' {
						t.Errorf("view %s %dx%d: %s column out of line:\n%s\n%s", v, size[0], size[1], col, head, l)
					}
				}
			}
			if w := ansi.StringWidth(lines[2]); w > size[0] {
				t.Errorf("view %s: a row is %d wide in %d", v, w, size[0])
			}
		}
		h.keys("1")
		golden(t, fmt.Sprintf("block-mean-top-%dx%d", size[0], size[1]), h.screen())
	}
}
