package symbolize_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pprof-tui/pprof-tui/format/symbolize"
)

// TestSymbolizeAgain asks one binary about overlapping sets of addresses,
// in both modes, as reloading a profile does: the answers come partly
// from what it found before and must equal a fresh binary's.
func TestSymbolizeAgain(t *testing.T) {
	const bin = "../../testdata/legacy/cpubench"
	all := textAddrs(t, bin, 1)
	var odd, firstHalf []uint64
	for i, a := range all {
		if i%2 == 1 {
			odd = append(odd, a)
		}
		if i < len(all)/2 {
			firstHalf = append(firstHalf, a)
		}
	}
	// Unsorted, with repeats: as a profile's locations come.
	mixed := append(append([]uint64{}, all[len(all)-1], all[0], all[0]), all...)
	for _, mode := range []symbolize.Mode{{}, {NoInlines: true}} {
		b, err := symbolize.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		for _, addrs := range [][]uint64{odd, firstHalf, mixed} {
			got, err := b.Symbolize(addrs, mode)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := symbolize.Open(bin)
			if err != nil {
				t.Fatal(err)
			}
			want, err := fresh.Symbolize(addrs, mode)
			fresh.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%+v: %d addresses: symbolized again, they differ", mode, len(addrs))
			}
		}
		// Now every address was asked about: the answers are the ones
		// kept, not found again.
		kept, _ := b.Symbolize(all, mode)
		again, _ := b.Symbolize(odd, mode)
		for i := range again {
			if len(again[i]) > 0 && &again[i][0] != &kept[2*i+1][0] {
				t.Fatalf("%+v: %#x symbolized again", mode, odd[i])
			}
		}
		b.Close()
	}
}

// TestCutShortWhileOpen cuts a binary short after opening it (as copying
// another file over it in place does): symbolizing it then must give an
// error, not a crash, and a closed binary answers nothing.
func TestCutShortWhileOpen(t *testing.T) {
	data, err := os.ReadFile("../../testdata/legacy/cpubench")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "cpubench")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	addrs := textAddrs(t, bin, 1)
	b, err := symbolize.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(bin, 4096); err != nil {
		t.Fatal(err)
	}
	b.HasSymbols()
	if _, err := b.Symbolize(addrs, symbolize.Mode{}); err == nil {
		t.Log("no error: the file was read, not mapped")
	} else {
		t.Log(err)
	}
	b.Close()
	if _, err := b.Symbolize(addrs, symbolize.Mode{}); err == nil {
		t.Error("a closed binary symbolized")
	}
}
