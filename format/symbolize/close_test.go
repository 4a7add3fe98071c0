package symbolize_test

import (
	"debug/elf"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pprof-tui/pprof-tui/format/symbolize"
)

// TestDecodeWhileClosing closes a binary while its code is being
// decoded: Decode reads the mapped file outside the binary's lock, and
// Close must not unmap the pages under it. Each decode gives the whole
// answer or says the binary is closed; unmapped under it, it faulted
// (a "corrupt binary" error) or read whatever was mapped there next.
func TestDecodeWhileClosing(t *testing.T) {
	const bin = "../../testdata/legacy/cpubench"
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	text := ef.Section(".text")
	ef.Close()
	if text == nil {
		t.Fatal("no .text")
	}
	start, end := text.Addr, text.Addr+text.Size
	open := func() (*symbolize.Binary, *symbolize.Disassembler) {
		b, err := symbolize.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		d, err := symbolize.NewDisassembler(b)
		if err != nil {
			t.Fatal(err)
		}
		return b, d
	}
	_, d := open()
	want, err := d.Decode(start, end, symbolize.GNUSyntax)
	if err != nil || len(want) == 0 {
		t.Fatalf("decode: %d instructions, %v", len(want), err)
	}
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	closedMidway := 0
	for round := range rounds {
		b, d := open()
		var wg sync.WaitGroup
		results := make([]error, 3)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := d.Decode(start, end, symbolize.GNUSyntax)
				switch {
				case err != nil && !strings.Contains(err.Error(), "closed"):
					results[i] = err
				case err == nil && !slices.Equal(got, want):
					results[i] = errDiffers
				}
			}()
		}
		// Let the decoders get going, by a different amount each round.
		time.Sleep(time.Duration(round%8) * 200 * time.Microsecond)
		b.Close()
		if _, err := d.Decode(start, start+16, symbolize.GNUSyntax); err != nil {
			closedMidway++
		}
		wg.Wait()
		for _, err := range results {
			if err != nil {
				t.Fatalf("round %d: a decode as the binary closed: %v", round, err)
			}
		}
	}
	if closedMidway != rounds {
		t.Errorf("a closed binary decoded %d times", rounds-closedMidway)
	}
}

var errDiffers = errors.New("the instructions differ from a decode of the open binary")
