package symbolize

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// sectionData reads one section (decompressed), refusing absurd sizes.
func sectionData(s *elf.Section) ([]byte, error) {
	if s.Type == elf.SHT_NOBITS {
		return nil, fmt.Errorf("section %s has no data in the file", s.Name)
	}
	if s.Size > maxSectionSize {
		return nil, fmt.Errorf("section %s: implausible size %d", s.Name, s.Size)
	}
	return s.Data()
}

// readBuildID returns the GNU build ID note's bytes in hex, or "".
func readBuildID(ef *elf.File) string {
	for _, s := range ef.Sections {
		if s.Type != elf.SHT_NOTE || s.Size > 1<<20 {
			continue
		}
		data, err := sectionData(s)
		if err != nil {
			continue
		}
		if id := findBuildID(data, ef.ByteOrder, int(s.Addralign)); id != "" {
			return id
		}
	}
	for _, p := range ef.Progs {
		if p.Type != elf.PT_NOTE || p.Filesz > 1<<20 {
			continue
		}
		data := make([]byte, p.Filesz)
		if _, err := p.ReadAt(data, 0); err != nil {
			continue
		}
		if id := findBuildID(data, ef.ByteOrder, int(p.Align)); id != "" {
			return id
		}
	}
	return ""
}

// findBuildID walks ELF notes (namesz, descsz, type, name, desc, each
// padded to the alignment) for an NT_GNU_BUILD_ID note named "GNU".
func findBuildID(data []byte, order binary.ByteOrder, align int) string {
	if align != 8 {
		align = 4
	}
	pad := func(n uint64) uint64 { return (n + uint64(align) - 1) &^ uint64(align-1) }
	for len(data) >= 12 {
		namesz := uint64(order.Uint32(data[0:]))
		descsz := uint64(order.Uint32(data[4:]))
		typ := order.Uint32(data[8:])
		rest := data[12:]
		if pad(namesz) > uint64(len(rest)) {
			return ""
		}
		name := rest[:namesz]
		rest = rest[pad(namesz):]
		if descsz > uint64(len(rest)) {
			return ""
		}
		desc := rest[:descsz]
		if typ == 3 && string(bytes.TrimRight(name, "\x00")) == "GNU" && len(desc) > 0 {
			return hex.EncodeToString(desc)
		}
		if pad(descsz) >= uint64(len(rest)) {
			return ""
		}
		data = rest[pad(descsz):]
	}
	return ""
}

// debugRoot is where distributions install separate debug files.
const debugRoot = "/usr/lib/debug"

// debugBinary finds the separate debug file of a binary that has no DWARF,
// as gdb and addr2line do: by build ID under /usr/lib/debug/.build-id,
// then by the .gnu_debuglink name next to the binary, in its .debug
// directory and under /usr/lib/debug. Called with b.mu held.
func (b *Binary) debugBinary() *Binary {
	if b.debugTried {
		return b.debugFile
	}
	b.debugTried = true
	if b.hasDWARF() || b.closer == nil {
		return nil // has its own, or was not opened from a file
	}
	var names []string
	if len(b.buildID) > 2 {
		names = append(names, filepath.Join(debugRoot, ".build-id", b.buildID[:2], b.buildID[2:]+".debug"))
	}
	if s := b.ef.Section(".gnu_debuglink"); s != nil && s.Size < 4096 {
		if data, err := sectionData(s); err == nil {
			if i := bytes.IndexByte(data, 0); i > 0 {
				link := filepath.Base(string(data[:i]))
				dir := filepath.Dir(b.path)
				if abs, err := filepath.Abs(dir); err == nil {
					dir = abs
				}
				names = append(names,
					filepath.Join(dir, link),
					filepath.Join(dir, ".debug", link),
					filepath.Join(debugRoot, dir, link))
			}
		}
	}
	self, _ := os.Stat(b.path)
	for _, name := range names {
		if st, err := os.Stat(name); err != nil || self != nil && os.SameFile(st, self) {
			continue
		}
		d, err := Open(name)
		if err != nil {
			continue
		}
		if d.buildID != "" && b.buildID != "" && d.buildID != b.buildID || !d.hasDWARF() && d.ef.Section(".symtab") == nil {
			d.Close()
			continue
		}
		b.debugFile = d
		return d
	}
	return nil
}

// symtab is the function symbols of a binary, sorted by address.
type symtab struct {
	addr []uint64
	end  []uint64 // the end of the symbol's section
	name []string
	file []string // from the STT_FILE symbol before a local symbol
}

// symbols loads the symbol table: .symtab (of the binary or its debug
// file), else the dynamic symbols. Called with b.mu held.
func (b *Binary) symbols() (*symtab, error) {
	if b.symsSet {
		return b.syms, b.symsErr
	}
	b.symsSet = true
	src := b
	if b.ef.Section(".symtab") == nil {
		if d := b.debugBinary(); d != nil && d.ef.Section(".symtab") != nil {
			src = d
		}
	}
	syms, err := src.ef.Symbols()
	if err == elf.ErrNoSymbols || len(syms) == 0 {
		syms, err = src.ef.DynamicSymbols()
		if err == elf.ErrNoSymbols {
			err = nil
		}
	}
	if err != nil {
		b.symsErr = fmt.Errorf("%s: symbol table: %w", b.path, err)
	}
	b.syms = newSymtab(src.ef, syms)
	return b.syms, b.symsErr
}

type symEntry struct {
	addr, end  uint64
	name, file string
	rank       int
}

// newSymtab keeps the symbols that name code. Like addr2line, a symbol
// covers the addresses from it to the next symbol of its section,
// whatever its size says (assembly and padding after a function belong to
// it), and a local symbol's file is the STT_FILE symbol before it.
func newSymtab(ef *elf.File, syms []elf.Symbol) *symtab {
	var es []symEntry
	file := ""
	for _, s := range syms {
		typ := elf.ST_TYPE(s.Info)
		if typ == elf.STT_FILE {
			file = s.Name
			continue
		}
		if s.Name == "" || s.Value == 0 || s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE || int(s.Section) >= len(ef.Sections) {
			continue
		}
		sect := ef.Sections[s.Section]
		rank := 0
		switch typ {
		case elf.STT_FUNC, elf.STT_GNU_IFUNC:
			rank = 4
		case elf.STT_NOTYPE:
			// Assembly labels in code (often without .type): only
			// those in executable sections.
			if sect.Flags&elf.SHF_EXECINSTR == 0 {
				continue
			}
		default:
			continue
		}
		e := symEntry{addr: s.Value, end: sect.Addr + sect.Size, name: s.Name, rank: rank}
		switch elf.ST_BIND(s.Info) {
		case elf.STB_GLOBAL:
			e.rank += 2
		case elf.STB_WEAK:
			e.rank++
		case elf.STB_LOCAL:
			e.file = file
		}
		es = append(es, e)
	}
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].addr != es[j].addr {
			return es[i].addr < es[j].addr
		}
		return es[i].rank > es[j].rank
	})
	t := &symtab{}
	for i, e := range es {
		if i > 0 && e.addr == es[i-1].addr {
			continue // an alias: keep the best-ranked name
		}
		t.addr = append(t.addr, e.addr)
		t.end = append(t.end, e.end)
		t.name = append(t.name, e.name)
		t.file = append(t.file, e.file)
	}
	return t
}

// lookup returns the function holding addr and its file, or "".
func (t *symtab) lookup(addr uint64) (name, file string) {
	if t == nil {
		return "", ""
	}
	i := sort.Search(len(t.addr), func(i int) bool { return t.addr[i] > addr }) - 1
	if i < 0 || addr >= t.end[i] {
		return "", ""
	}
	return t.name[i], t.file[i]
}
