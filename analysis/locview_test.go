package analysis

import (
	"testing"
)

// TestKeptViews: a query that differs from a kept one only in focus and
// ignore takes the kept location view's lines and node lists (sameLines)
// and matches focus and ignore alone; one that differs only in the
// granularity takes its view (sameView). Their tables equal a fresh
// engine's, after hide, show, prune_from and show_from views, with and
// without inlined frames, at five granularities.
func TestKeptViews(t *testing.T) {
	t.Parallel()
	steps := []map[string]string{
		{"hide": "json"},
		{"hide": "json", "focus": "main|Handle"},
		{"hide": "json", "focus": "main|Handle", "ignore": "fmt"},
		{"hide": "json", "ignore": "Sort"},
		{"show": "main|Handle|json", "granularity": "lines"},
		{"show": "main|Handle|json", "granularity": "lines", "focus": "json"},
		{"prune_from": "json|Handle", "noinlines": "true"},
		{"prune_from": "json|Handle", "noinlines": "true", "ignore": "main"},
		{"show_from": "main|Serve"},
		{"show_from": "main|Serve", "focus": "Handle", "hide": "json"},
		{},
		{"focus": "json"},
		{"ignore": "json", "focus": "main"},
		{"ignore": "json", "focus": "main", "granularity": "lines"},
		{"ignore": "json", "focus": "main", "granularity": "lines", "showcolumns": "true"},
		{"hide": "json", "granularity": "files"},
		{"hide": "json", "granularity": "filefunctions"},
		{"hide": "json", "granularity": "addresses"},
		{"prune_from": "json|Handle", "noinlines": "true", "granularity": "lines"},
		{"prune_from": "json|Handle", "granularity": "filefunctions"},
	}
	for name, newEngine := range freshEngines(t, "cpu_labels", "diff", "distinct", "zipf", "deep") {
		warm := newEngine()
		reused, views := 0, 0
		for _, set := range steps {
			opt := testOptions(t, set)
			opt.NodeFraction = 0
			want, err := newEngine().Top(opt)
			if err != nil {
				t.Fatal(err)
			}
			k := opt
			if k.Granularity == "" {
				k.Granularity = "functions"
			}
			k = k.Trimmed()
			key := locKeyOf(&k)
			if warm.recentLocs(key) == nil && warm.sameLines(key) != nil {
				reused++
			}
			if warm.recentLocs(key) == nil && warm.sameView(key) != nil {
				views++
			}
			got, err := warm.Top(opt)
			if err != nil {
				t.Fatal(err)
			}
			g, w := named(got), named(want)
			if len(g) != len(w) || got.Total != want.Total {
				t.Fatalf("%s %v: %d rows, total %d; fresh engine %d, %d", name, set, len(g), got.Total, len(w), want.Total)
			}
			for i := range g {
				if g[i] != w[i] {
					t.Fatalf("%s %v: row %d %+v; fresh engine %+v", name, set, i, g[i], w[i])
				}
			}
		}
		if reused < 5 || views < 4 {
			t.Errorf("%s: %d focus or ignore steps found a kept view's lines, %d granularities a kept view; want 5 and 4 or more", name, reused, views)
		}
	}
}
