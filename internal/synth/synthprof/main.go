// Command synthprof writes a large synthetic CPU profile (gzipped
// profile.proto) for benchmarks and scripts:
//
//	go run ./internal/synth/synthprof -samples 1000000 -o /tmp/big.pb.gz
//	go run ./internal/synth/synthprof -samples 1000000 -shape distinct -o /tmp/distinct.pb.gz
//
// The output depends only on the flags.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/pprof-tui/pprof-tui/internal/synth"
)

func main() {
	var c synth.Config
	flag.IntVar(&c.Samples, "samples", 100_000, "number of samples")
	flag.IntVar(&c.Functions, "functions", 0, "distinct functions in the call graph (0: the shape's default, 3000, or 100,000 for wide)")
	flag.IntVar(&c.MaxDepth, "depth", 30, "maximum stack depth in frames, inlined frames included")
	flag.Uint64Var(&c.Seed, "seed", 1, "random seed")
	flag.BoolVar(&c.Labels, "labels", true, "add string and numeric labels")
	shape := flag.String("shape", "zipf", "stacks: zipf (a few hot paths), distinct (random walks, 90%+ distinct stacks, inline chains), wide (100,000 functions, shallow) or deep (200-500 frames, recursive)")
	out := flag.String("o", "-", "output file, - for stdout")
	flag.Parse()
	c.Shape = synth.Shape(*shape)
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "synthprof: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	if err := run(c, *out); err != nil {
		fmt.Fprintln(os.Stderr, "synthprof:", err)
		os.Exit(1)
	}
}

func run(c synth.Config, out string) error {
	var w io.Writer = os.Stdout
	var f *os.File
	if out != "-" {
		var err error
		if f, err = os.Create(out); err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := synth.Write(bw, c); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	if f != nil {
		if err := f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", out, err)
		}
	}
	return nil
}
