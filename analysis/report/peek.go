package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
)

const (
	peekSeparator = "----------------------------------------------------------+-------------"
	peekLegend    = "      flat  flat%   sum%        cum   cum%   calls calls% + context \t \t "
)

// Peek writes pk as `go tool pprof -peek=RE` prints it: for each matching
// node its callers, the node, and its callees, with edge weights and
// their share of the node's cum.
func Peek(w io.Writer, p *format.Profile, pk *analysis.Peek, opt analysis.Options) error {
	if len(pk.Entries) == 0 {
		return fmt.Errorf("no matches found for regexp: %s", pk.Regexp)
	}
	lines, value := topHeader(p, pk.Top, opt)
	total := pk.Top.Total
	bw := bufio.NewWriter(w)
	bw.WriteString(strings.Join(lines, "\n"))
	bw.WriteString("\n" + peekSeparator + "\n" + peekLegend + "\n")
	edge := func(e analysis.Edge, cum int64) {
		var inline string
		if e.Inline {
			inline = " (inline)"
		}
		fmt.Fprintf(bw, "%50s %s |   %s%s\n", value(e.Weight), analysis.Percentage(e.Weight, cum), pk.Top.Nodes.Name(e.Node), inline)
	}
	var sum int64
	for _, en := range pk.Entries {
		bw.WriteString(peekSeparator + "\n")
		for _, e := range en.In {
			edge(e, en.Cum)
		}
		sum += en.Flat
		fmt.Fprintf(bw, "%10s %s %s %10s %s                | %s\n",
			value(en.Flat), analysis.Percentage(en.Flat, total), analysis.Percentage(sum, total),
			value(en.Cum), analysis.Percentage(en.Cum, total), pk.Top.Nodes.Name(en.Node))
		for _, e := range en.Out {
			edge(e, en.Cum)
		}
	}
	if len(pk.Top.Rows) > 0 {
		bw.WriteString(peekSeparator + "\n")
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing peek: %w", err)
	}
	return nil
}
