// Command pprof-tui is a terminal explorer for pprof and gperftools
// profiles. See README.md.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/pprof-tui/pprof-tui/format"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: pprof-tui PROFILE")
		os.Exit(2)
	}
	p, err := format.Open(context.Background(), os.Args[1], format.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "pprof-tui:", err)
		os.Exit(1)
	}
	for i, st := range p.SampleTypes {
		fmt.Printf("%s/%s: %d samples, total %d\n", st.Type, st.Unit, p.Samples.Len(), p.Total(i))
	}
}
