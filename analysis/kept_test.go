package analysis

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestKeptMatchesPprof: what the filters keep is pprof's "Showing nodes
// accounting for X ... of T total" with -nodefraction=0 (goldens from
// testdata/top/regen.sh), both with a case's -focus among the options
// and with it as the extra focus a search adds.
func TestKeptMatchesPprof(t *testing.T) {
	for _, c := range readCases(t, "testdata/top/cases.txt") {
		flags := strings.Join(c.flags, " ")
		if !strings.Contains(c.profile, "cpu_labels") && !strings.Contains(flags, "-focus=") {
			continue // the filters on one profile, and every focus
		}
		if strings.Contains(flags, "-mean") || strings.Contains(flags, "-nodecount=") || strings.Contains(flags, "-nodefraction=") || strings.Contains(flags, "-drop_negative") {
			continue // a mean's total is no sum; trimmed or dropped nodes leave X short of what is kept
		}
		t.Run(c.name, func(t *testing.T) {
			want := readPprofTop(t, filepath.Join("testdata/top", c.name+".txt"))
			opt := DefaultOptions()
			opt.NodeFraction, opt.NodeCount = 0, 1000000
			applyFlags(t, &opt, c.flags)
			e := engineFor(t, filepath.Join("../testdata", c.profile), c.flags...)
			check := func(how string, opt Options, focus *regexp.Regexp) {
				t.Helper()
				k, err := e.Kept(opt, focus)
				if err != nil {
					t.Fatal(err)
				}
				if k.Value != want.shown || k.Total != want.total {
					t.Errorf("%s: kept %d of %d, pprof shows %d of %d", how, k.Value, k.Total, want.shown, want.total)
				}
			}
			check("as an option", opt, nil)
			if opt.Focus != "" && !opt.RelativePercentages {
				re := regexp.MustCompile(opt.Focus)
				opt.Focus = ""
				check("as a search", opt, re)
			}
		})
	}
}

// A search under a focus keeps the samples both focuses keep.
func TestKeptTwoFocuses(t *testing.T) {
	e := engineFor(t, "../testdata/go/cpu_labels.pb.gz")
	opt := DefaultOptions()
	opt.Focus = "main\\.quicksort"
	both, err := e.Kept(opt, regexp.MustCompile("partition"))
	if err != nil {
		t.Fatal(err)
	}
	opt.Focus = "main\\.partition"
	one, err := e.Kept(opt, regexp.MustCompile("quicksort"))
	if err != nil {
		t.Fatal(err)
	}
	opt.Focus = ""
	none, err := e.Kept(opt, regexp.MustCompile("xyzzy"))
	if err != nil {
		t.Fatal(err)
	}
	if both.Value == 0 || both != one || none.Value != 0 || none.Total != both.Total {
		t.Errorf("quicksort then partition %+v, partition then quicksort %+v, no match %+v", both, one, none)
	}
}
