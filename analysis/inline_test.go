package analysis

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/internal/synth"
)

// TestFusedInlineMarkers: with every node shown (nodefraction=0), the
// inline markers' edges are summed in the same walk as flat and cum; they
// must equal those of the separate walk (taken when nodecount is set, here
// to more than every node).
func TestFusedInlineMarkers(t *testing.T) {
	t.Parallel()
	for name, newEngine := range freshEngines(t, "cpu_labels", "diff", "heap", "zipf", "distinct", "deep") {
		e := newEngine()
		for _, set := range markerOptionSets {
			t.Run(fmt.Sprint(name, set), func(t *testing.T) {
				opt := testOptions(t, set)
				fused, err := e.Top(opt)
				if err != nil {
					t.Skip(err) // e.g. a tag the profile lacks
				}
				opt.NodeCount = 1 << 30
				walked, err := e.Top(opt)
				if err != nil {
					t.Fatal(err)
				}
				if len(fused.Rows) != len(walked.Rows) {
					t.Fatalf("%d rows fused, %d walked", len(fused.Rows), len(walked.Rows))
				}
				inline := 0
				for i := range fused.Rows {
					if fused.Rows[i] != walked.Rows[i] {
						t.Fatalf("row %d: fused %+v, walked %+v", i, fused.Rows[i], walked.Rows[i])
					}
					if fused.Rows[i].Inline != NotInlined {
						inline++
					}
				}
				if name != "heap" && name != "diff" && set["noinlines"] == "" && len(fused.Rows) > 0 && inline == 0 {
					t.Errorf("no row marked inline")
				}
			})
		}
	}
}

// markerOptionSets are the options the inline markers' tests vary: each
// changes which frames are walked, or how edges are weighed.
var markerOptionSets = []map[string]string{
	nil,
	{"granularity": "lines"},
	{"hide": "runtime|json|Sort"},
	{"hide": "main.mix"}, // inlined between two frames of one location
	{"focus": "main|Handle"},
	{"ignore": "fmt"},
	{"tagfocus": "worker=w1"},
	{"mean": "true"},
	{"edgefraction": "0"},
	{"show_from": "main|Serve"},
	{"noinlines": "true"},
}

// freshEngines returns, per name, a maker of new engines (nothing
// computed or kept yet) over the profiles the inline-marker and
// plain-stack tests share: the Go CPU profile with labels, it against a
// -diff_base, a heap profile, and three synthesized shapes.
func freshEngines(t *testing.T, names ...string) map[string]func() *Engine {
	all := map[string]func() *Engine{
		"cpu_labels": func() *Engine { return NewEngine(engineFor(t, "../testdata/go/cpu_labels.pb.gz").p) },
		"diff": func() *Engine {
			return NewEngine(engineFor(t, "../testdata/go/cpu_labels.pb.gz", "-diff_base=go/cpu_labels_no_w0.pb.gz").p)
		},
		"heap":     func() *Engine { return NewEngine(engineFor(t, "../testdata/go/heap.pb.gz").p) },
		"distinct": func() *Engine { return synthEngine(t, synth.Distinct) },
		"zipf":     func() *Engine { return synthEngine(t, synth.Zipf) },
		"deep":     func() *Engine { return synthEngine(t, synth.Deep) },
	}
	out := map[string]func() *Engine{}
	for _, n := range names {
		out[n] = all[n]
	}
	return out
}

// synthProfiles keeps the profiles synthEngine made, by shape: the tests
// that compare fresh engines ask for one per step, and synthesizing and
// parsing it again each time was most of their time (engines share a
// profile: they do not change it). 2,000 samples a shape: the package's
// tests cover the same statements with them as with 5,000, in less
// time; the engine's thresholds that a profile's size decides are
// lowered by the tests that exercise them.
var synthProfiles sync.Map

func synthEngine(t *testing.T, s synth.Shape) *Engine {
	t.Helper()
	if p, ok := synthProfiles.Load(s); ok {
		return NewEngine(p.(*format.Profile))
	}
	var buf bytes.Buffer
	if err := synth.Write(&buf, synth.Config{Samples: raceSamples(2000), Seed: 3, Labels: true, Shape: s}); err != nil {
		t.Fatal(err)
	}
	p, err := format.Parse(&buf, format.Options{Symbolize: "none"})
	if err != nil {
		t.Fatal(err)
	}
	synthProfiles.Store(s, p)
	return NewEngine(p)
}
