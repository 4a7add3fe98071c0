package symbolize

import "testing"

// TestSymbolValues compares the raw .symtab lookup with debug/elf's
// symbols, on a 64-bit and a 32-bit binary.
func TestSymbolValues(t *testing.T) {
	for _, bin := range []string{"../../testdata/legacy/cpubench", "../../testdata/legacy/cpubench32"} {
		b, err := Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		syms, err := b.ef.Symbols()
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]uint64{}
		var names []string
		for _, s := range syms {
			if s.Name != "" {
				want[s.Name] = s.Value // the last of a name, as symbolValues
				names = append(names, s.Name)
			}
		}
		got := b.symbolValues(append(names, "no such symbol")...)
		if len(got) != len(want) {
			t.Errorf("%s: %d symbols, debug/elf %d", bin, len(got), len(want))
		}
		for n, v := range want {
			if got[n] != v {
				t.Errorf("%s: %s = %#x, debug/elf %#x", bin, n, got[n], v)
			}
		}
		b.Close()
	}
}
