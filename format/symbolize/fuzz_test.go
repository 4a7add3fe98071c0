package symbolize

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"slices"
	"strings"
	"testing"
)

// fuzzAddrs are addresses to ask a fuzzed binary about: fixed ones, and
// some in and around each executable section.
func fuzzAddrs(b *Binary) []uint64 {
	addrs := []uint64{0, 1, 0x1000, 0x10b0, 0x1232, 0x1316, 0x401000, ^uint64(0)}
	for i, s := range b.ef.Sections {
		if i > 64 {
			break
		}
		if s.Flags&elf.SHF_EXECINSTR != 0 {
			for off := uint64(0); off < s.Size && off < 4096; off += 97 {
				addrs = append(addrs, s.Addr+off)
			}
		}
	}
	return addrs
}

// FuzzBinary feeds corrupt ELF files (with DWARF) to every reader:
// headers, build ID, symbols, DWARF line tables and inline trees, address
// mapping. They must return errors, never panic or hang.
//
//	go test ./format/symbolize -run XXX -fuzz FuzzBinary
func FuzzBinary(f *testing.F) {
	for _, path := range []string{"../../testdata/legacy/cpubench", "../../testdata/legacy/cpubench32"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := NewBinary("fuzz", bytes.NewReader(data))
		if err != nil {
			return
		}
		b.BuildID()
		b.HasSymbols()
		addrs := fuzzAddrs(b)
		for _, m := range []Mode{{}, {NoInlines: true}, {SymbolsOnly: true}} {
			b.Symbolize(addrs, m)
		}
		for _, a := range addrs[:8] {
			b.ObjAddr(0x55875fc2b000, 0x55875fc2c000, 0x1000, a)
			b.ObjAddr(0x400000, 0x500000, 0, a)
		}
	})
}

// FuzzDWARF feeds corrupt DWARF sections to the entry, range list and
// line table readers (FuzzBinary mostly breaks the ELF headers first).
//
//	go test ./format/symbolize -run XXX -fuzz FuzzDWARF
func FuzzDWARF(f *testing.F) {
	for _, path := range []string{"../../testdata/legacy/cpubench", "../../testdata/legacy/cpubench32"} {
		b, err := Open(path)
		if err != nil {
			f.Fatal(err)
		}
		sec, err := b.loadDWARF()
		if err != nil {
			f.Fatal(err)
		}
		// Copies: the sections are in the mapped file, unmapped by Close.
		c := slices.Clone[[]byte]
		f.Add(c(sec.info), c(sec.abbrev), c(sec.line), c(sec.str), c(sec.lineStr), c(sec.addr), c(sec.rnglists), c(sec.ranges), false)
		b.Close()
	}
	f.Fuzz(func(t *testing.T, info, abbrev, line, str, lineStr, addr, rnglists, ranges []byte, odd bool) {
		// odd reads the sections big-endian, as of a relocatable object.
		order := binary.ByteOrder(binary.LittleEndian)
		if odd {
			order = binary.BigEndian
		}
		sec := dwarfSections{info: info, abbrev: abbrev, line: line, str: str, lineStr: lineStr,
			addr: addr, rnglists: rnglists, ranges: ranges, strOffsets: str}
		x, _ := newDWARFIndex(sec, order, odd)
		if x == nil {
			return
		}
		var addrs []uint64
		for _, r := range x.ranges {
			addrs = append(addrs, r.lo, r.lo+(r.hi-r.lo)/2, r.hi-1)
		}
		slices.Sort(addrs)
		addrs = slices.Compact(addrs)
		for _, noInlines := range []bool{false, true} {
			// unitFrames turns a panic into an error; here it is a bug.
			if _, err := x.symbolize(addrs, noInlines); err != nil && strings.Contains(err.Error(), "corrupt binary (") {
				t.Fatal(err)
			}
		}
	})
}

// FuzzGoTable feeds corrupt Go pclntabs (the test binary's own, cut and
// mutated) to the pclntab reader.
//
//	go test ./format/symbolize -run XXX -fuzz FuzzGoTable
func FuzzGoTable(f *testing.F) {
	exe, err := os.Executable()
	if err != nil {
		f.Fatal(err)
	}
	b, err := Open(exe)
	if err != nil {
		f.Fatal(err)
	}
	defer b.Close()
	s := b.goSection()
	if s == nil {
		f.Skip("the test binary has no pclntab")
	}
	data, err := b.section(s)
	if err != nil {
		f.Fatal(err)
	}
	data = slices.Clone(data) // not the mapped file's pages
	text := b.ef.Section(".text").Addr
	f.Add(data, text)
	f.Add(data[:len(data)/3], text)
	f.Add(data[:64], text)
	f.Fuzz(func(t *testing.T, data []byte, text uint64) {
		gt, err := newGoTable(data, text)
		if err != nil {
			return
		}
		// A made-up inline tree region: the fuzzer's bytes again.
		gt.gofunc, gt.gofuncData = 0, data
		s := newScratch()
		pcs := []uint64{0, text, text + 1, text + 0x40, text + 0x41, text + 0x1234, text + 0x10000, text + 0x123456, ^uint64(0)}
		for _, pc := range pcs {
			gt.frames(pc, false, s)
			gt.frames(pc, true, s)
		}
		out := make([][]Frame, len(pcs))
		gt.framesRange(pcs, out, false, s)
		gt.framesRange(pcs, out, true, s)
	})
}
