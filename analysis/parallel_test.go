package analysis

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestBothRaisesPanicsOnTheCaller(t *testing.T) {
	ran := false
	defer func() {
		if r := recover(); r != "boom" || !ran {
			t.Errorf("recovered %v (a ran: %v), want b's panic after a ran", r, ran)
		}
	}()
	both(func() { ran = true }, func() { panic("boom") })
	t.Fatal("both returned after a panic")
}

// TestRunsInTwo: every walk that two goroutines share by runs of stacks
// (Top, its first rows, its inline markers at a node fraction, Peek and
// Source) or by halves (the call graph and its label tags) gives what
// one walk gives, with runs of three stacks taken in
// turn, location views built and rows sorted in two halves, on profiles
// with repeated and plain stacks, mean values and a diff base.
func TestRunsInTwo(t *testing.T) {
	type result struct {
		top, first []nameRow
		peek       []PeekEntry
		source     []FunctionSource
		graph      []string
	}
	compute := func(t *testing.T, e *Engine, opt Options) (result, bool) {
		var r result
		// The default table first: later walks know the plain stacks.
		if _, err := e.Top(DefaultOptions()); err != nil {
			t.Fatal(err)
		}
		first, err := e.TopFirst(opt, 4)
		if err != nil {
			return r, false // e.g. a tag the profile lacks
		}
		top, err := e.Top(opt)
		if err != nil {
			t.Fatal(err)
		}
		r.top, r.first = named(top), named(first)[:min(4, len(first.Rows))]
		re := regexp.MustCompile(".")
		peek, err := e.Peek(opt, re)
		if err != nil {
			t.Fatal(err)
		}
		r.peek = peek.Entries
		if _, r.source, err = e.Source(opt, re); err != nil {
			t.Fatal(err)
		}
		for _, kind := range []GraphKind{GraphVisual, GraphText} {
			gopt := opt
			gopt.NodeCount = 80
			g, err := e.Graph(gopt, kind)
			if err != nil {
				t.Fatal(err)
			}
			r.graph = append(r.graph, graphLines(g)...)
		}
		return r, true
	}
	sets := append(slices.Clone(markerOptionSets),
		map[string]string{"sample_index": "0", "nodefraction": "0.005"},
		map[string]string{"mean": "true", "hide": "runtime|json|Sort"},
		map[string]string{"prune_from": "json|Handle"},
	)
	// The walks with the engine's thresholds first, then, with them
	// lowered, the walks in runs: each phase's cases run in parallel,
	// and the thresholds change only between the phases.
	type job struct {
		name      string
		set       map[string]string
		newEngine func() *Engine
		want      result
		ok        bool
	}
	var jobs []*job
	for name, newEngine := range freshEngines(t, "cpu_labels", "diff", "heap", "distinct", "zipf", "deep") {
		newEngine() // reads or makes the profile here, once
		for _, set := range raceSets(sets) {
			jobs = append(jobs, &job{name: name, set: set, newEngine: newEngine})
		}
	}
	t.Run("one walk", func(t *testing.T) {
		for _, j := range jobs {
			t.Run(fmt.Sprint(j.name, j.set), func(t *testing.T) {
				t.Parallel()
				j.want, j.ok = compute(t, j.newEngine(), testOptions(t, j.set))
			})
		}
	})
	defer func(frames, run, locs, sort, edges int) {
		parallelFrames, minRun, parallelLocations, parallelRows, parallelEdges = frames, run, locs, sort, edges
	}(parallelFrames, minRun, parallelLocations, parallelRows, parallelEdges)
	parallelFrames, minRun, parallelLocations, parallelRows, parallelEdges = 2, 3, 2, 8, 2
	compared := 0
	t.Run("in runs", func(t *testing.T) {
		for _, j := range jobs {
			if !j.ok {
				continue // e.g. a tag the profile lacks
			}
			compared++
			t.Run(fmt.Sprint(j.name, j.set), func(t *testing.T) {
				t.Parallel()
				got, _ := compute(t, j.newEngine(), testOptions(t, j.set))
				for _, c := range []struct {
					what      string
					got, want any
				}{{"Top", got.top, j.want.top}, {"TopFirst", got.first, j.want.first}, {"Peek", got.peek, j.want.peek}, {"Source", got.source, j.want.source}, {"Graph", got.graph, j.want.graph}} {
					if !reflect.DeepEqual(c.got, c.want) {
						t.Errorf("%s %v: %s walked in runs on two goroutines differs from one walk's", j.name, j.set, c.what)
					}
				}
			})
		}
	})
	if compared < 4*len(raceSets(sets)) {
		t.Errorf("compared %d option sets", compared)
	}
}

// graphLines is g as text: its nodes with their values, objects and
// tags, and its edges, in order.
func graphLines(g *Graph) []string {
	var out []string
	for _, n := range g.Nodes {
		tags := slices.Clone(n.LabelTags)
		slices.SortFunc(tags, func(a, b GraphTag) int { return strings.Compare(a.Name, b.Name) })
		var nums []string
		for k, ts := range n.NumericTags {
			for _, t := range ts {
				nums = append(nums, fmt.Sprintf("%s/%+v", k, t))
			}
		}
		slices.Sort(nums)
		out = append(out, fmt.Sprintf("%s %d %d %s in%v out%v %+v %v", g.Names.Name(n.Node), n.Flat, n.Cum, n.Objfile, n.In, n.Out, tags, nums))
	}
	for _, e := range g.Edges {
		out = append(out, fmt.Sprintf("%+v", e))
	}
	return out
}

// TestSortInTwo: sorting in two halves and merging orders as one sort
// does and keeps every element once, at lengths around the halves'
// boundaries.
func TestSortInTwo(t *testing.T) {
	defer func(old int) { parallelRows = old }(parallelRows)
	parallelRows = 2
	type pair struct{ key, at int }
	byKey := func(a, b pair) int { return a.key - b.key }
	for _, n := range []int{0, 1, 2, 3, 7, 64, 1001} {
		xs := make([]pair, n)
		for i := range xs {
			xs[i] = pair{(i * 7919) % 13, i}
		}
		want := slices.Clone(xs)
		slices.SortStableFunc(want, byKey)
		got := slices.Clone(xs)
		sortInTwo(got, byKey)
		for i := range got {
			if got[i].key != want[i].key {
				t.Fatalf("n=%d: element %d has key %d, want %d", n, i, got[i].key, want[i].key)
			}
		}
		slices.SortFunc(got, func(a, b pair) int { return a.at - b.at })
		for i := range got {
			if got[i].at != i {
				t.Fatalf("n=%d: element %d lost or repeated", n, i)
			}
		}
	}
}
