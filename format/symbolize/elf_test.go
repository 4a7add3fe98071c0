package symbolize

import (
	"cmp"
	"debug/elf"
	"math/rand"
	"slices"
	"testing"
)

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

// TestNewSymtab checks the symbol table's order and choice of aliases
// against a plain stable sort, on a binary's symbols shuffled and
// doubled with aliases of every kind.
func TestNewSymtab(t *testing.T) {
	b, err := Open("../../testdata/legacy/cpubench")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	syms, err := b.ef.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	var all []elf.Symbol
	for _, s := range syms {
		all = append(all, s)
		if r.Intn(2) == 0 {
			alias := s
			alias.Name += ".alias"
			alias.Info = elf.ST_INFO([]elf.SymBind{elf.STB_LOCAL, elf.STB_GLOBAL, elf.STB_WEAK}[r.Intn(3)], []elf.SymType{elf.STT_FUNC, elf.STT_NOTYPE, elf.STT_OBJECT}[r.Intn(3)])
			all = append(all, alias)
		}
	}
	r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	got := newSymtab(b.ef, all)

	// The same choice by a stable sort of the entries newSymtab keeps.
	var es []symEntry
	for _, s := range all {
		if one := newSymtab(b.ef, []elf.Symbol{s}); len(one.addr) == 1 {
			rank := 0
			if typ := elf.ST_TYPE(s.Info); typ == elf.STT_FUNC || typ == elf.STT_GNU_IFUNC {
				rank = 4
			}
			rank += map[elf.SymBind]int{elf.STB_GLOBAL: 2, elf.STB_WEAK: 1}[elf.ST_BIND(s.Info)]
			es = append(es, symEntry{addr: s.Value, name: s.Name, rank: rank})
		}
	}
	slices.SortStableFunc(es, func(a, b symEntry) int { return cmp.Or(cmp.Compare(a.addr, b.addr), cmp.Compare(b.rank, a.rank)) })
	var want []string
	for i, e := range es {
		if i == 0 || e.addr != es[i-1].addr {
			want = append(want, e.name)
		}
	}
	if !slices.Equal(got.name, want) {
		t.Errorf("names %d, want %d; first difference at %d", len(got.name), len(want), firstDiff(got.name, want))
	}
	if !slices.IsSorted(got.addr) || len(got.addr) < 10 {
		t.Errorf("%d addresses, sorted: %v", len(got.addr), slices.IsSorted(got.addr))
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
