package synth

import (
	"fmt"
	"slices"
	"testing"
)

// TestShapes checks what each walk shape promises: depths, distinct
// stacks, inline chains, labels, recursion.
func TestShapes(t *testing.T) {
	for _, c := range []struct {
		shape              Shape
		samples            int
		minDepth, maxDepth int
		minDistinct        float64 // distinct stacks / samples
		functions          int     // at least, in the profile
	}{
		{Distinct, 20000, 3, 30, 0.9, 2000},
		{Wide, 5000, 2, 6, 0.9, 5000},
		{Deep, 2000, 200, 500, 0, 500},
	} {
		t.Run(string(c.shape), func(t *testing.T) {
			cfg := Config{Samples: c.samples, Seed: 1, Labels: true, Shape: c.shape}
			p := decode(t, write(t, cfg))
			checkStructure(t, cfg, p)
			stacks := map[string]bool{}
			recursive := 0
			for i, s := range p.samples {
				if d := len(s.locs); d < c.minDepth || d > c.maxDepth {
					t.Fatalf("sample %d: depth %d, want %d-%d", i, d, c.minDepth, c.maxDepth)
				}
				stacks[fmt.Sprint(s.locs)] = true
				if c.shape == Deep {
					seen := map[uint64]bool{}
					for _, l := range s.locs {
						if seen[l] {
							recursive++
							break
						}
						seen[l] = true
					}
				}
				keys := map[string]bool{}
				for _, l := range s.labels {
					keys[p.strings[l.key]] = true
				}
				if !keys["worker"] || !keys["route"] || keys["bytes"] != (i%4 == 0) {
					t.Fatalf("sample %d: label keys %v", i, keys)
				}
			}
			if d := float64(len(stacks)) / float64(len(p.samples)); d < c.minDistinct {
				t.Errorf("%.1f%% of the stacks distinct, want %.0f%%", 100*d, 100*c.minDistinct)
			}
			if c.shape == Deep && recursive < len(p.samples)*9/10 {
				t.Errorf("%d of %d samples recursive", recursive, len(p.samples))
			}
			chains := 0
			for _, l := range p.locations {
				if n := len(l.lines); n > 1 {
					chains++
					if n > 3 {
						t.Fatalf("location %d: %d lines", l.id, n)
					}
				}
			}
			if f := float64(chains) / float64(len(p.locations)); f < 0.25 || f > 0.4 {
				t.Errorf("%.0f%% of the locations have inline chains, want about a third", 100*f)
			}
			if len(p.functions) < c.functions {
				t.Errorf("%d functions, want at least %d", len(p.functions), c.functions)
			}
			t.Logf("%d samples, %d distinct stacks, %d locations (%d with inline chains), %d functions",
				len(p.samples), len(stacks), len(p.locations), chains, len(p.functions))
		})
	}
	if !slices.Contains(Shapes, Zipf) {
		t.Fatal("Shapes lacks the default")
	}
}
