package serve

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// BenchmarkBytesPerKey measures what the explorer writes to an SSH
// client per key at 100×30 in 256 colours (the figures in
// docs/performance.md: go test ./serve -run XXX -bench BytesPerKey
// -benchtime 1x -v): a cursor move inside the window, a move that
// scrolls the list by a line, a page, on Top, Tree and the flame graph.
// A quiet screen (150 ms without output) ends each key's bytes, so a run
// takes about 16 s of waiting.
func BenchmarkBytesPerKey(b *testing.B) {
	for range b.N {
		bytesPerKey(b)
	}
}

func bytesPerKey(b *testing.B) {
	ts := startServer(b, nil)
	tm := ts.open(termOpt{w: 100, h: 30})
	tm.waitFor(0, "choose a profile")
	tm.press("\r", "main.fib") // the embedded demo: the same profile, read from memory
	// A key's bytes run from the quiet screen before it to the quiet
	// screen after it, which is the quiet screen before the next key.
	m := tm.quiet()
	measure := func(keys string, n int) []int {
		var sizes []int
		for range n {
			tm.send(keys)
			next := tm.quiet()
			sizes = append(sizes, next-m)
			m = next
		}
		return sizes
	}
	var report []string
	medians := map[string]int{}
	row := func(what string, sizes []int) {
		s := append([]int(nil), sizes...)
		sort.Ints(s)
		medians[what] = s[len(s)/2]
		report = append(report, fmt.Sprintf("%-36s median %5d B  min %5d  max %5d  (%d keys)", what, s[len(s)/2], s[0], s[len(s)-1], len(s)))
	}
	// The tree bottom-up (b): a row per function, as many as Top's.
	for _, v := range []struct{ keys, name string }{{"1", "Top"}, {"2b", "Tree"}} {
		measure(v.keys, 1)
		measure("g", 1)
		row(v.name+": cursor down (j)", measure("j", 10))
		measure("j", 15) // to the window's last row
		row(v.name+": down past the bottom (scroll)", measure("j", 10))
		row(v.name+": page down", measure("\x1b[6~", 2))
	}
	measure("4", 1)
	row("Flame: next frame down (j)", measure("j", 5))
	row("Flame: parent frame (k)", measure("k", 5))
	row("view switch 1 → 2 → 4 → 1", append(append(measure("1", 1), measure("2", 1)...), append(measure("4", 1), measure("1", 1)...)...))
	b.Logf("bytes written per key at 100×30, xterm-256color:\n%s", strings.Join(report, "\n"))
	b.ReportMetric(float64(medians["Top: cursor down (j)"]), "B/j")
	b.ReportMetric(float64(medians["Top: down past the bottom (scroll)"]), "B/scroll")
	b.ReportMetric(float64(medians["view switch 1 → 2 → 4 → 1"]), "B/switch")
}
