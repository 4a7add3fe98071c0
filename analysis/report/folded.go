package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// Folded writes stacks in collapsed form, one "root;...;leaf value" per
// line: the input of flamegraph.pl, inferno and speedscope.
func Folded(w io.Writer, stacks []analysis.FoldedStack) error {
	bw := bufio.NewWriter(w)
	for _, s := range stacks {
		fmt.Fprintf(bw, "%s %d\n", s.Frames, s.Value)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing folded stacks: %w", err)
	}
	return nil
}
