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

// section returns one section's contents (decompressed), refusing
// absurd sizes: where they are in the mapped file when it is, else read.
// Read-only: the mapping cannot be written.
func (b *Binary) section(s *elf.Section) ([]byte, error) {
	if s.Type == elf.SHT_NOBITS {
		return nil, fmt.Errorf("section %s has no data in the file", s.Name)
	}
	if s.Size > maxSectionSize {
		return nil, fmt.Errorf("section %s: implausible size %d", s.Name, s.Size)
	}
	if n := uint64(len(b.mapped)); s.Flags&elf.SHF_COMPRESSED == 0 && s.Offset <= n && s.Size <= n-s.Offset {
		return b.mapped[s.Offset : s.Offset+s.Size : s.Offset+s.Size], nil
	}
	return s.Data()
}

// readBuildID returns the GNU build ID note's bytes in hex, or "".
func (b *Binary) readBuildID() string {
	ef := b.ef
	for _, s := range ef.Sections {
		if s.Type != elf.SHT_NOTE || s.Size > 1<<20 {
			continue
		}
		data, err := b.section(s)
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
		if data, err := b.section(s); err == nil {
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
	rank       int // 0 to 7: a function, then global, then weak
}

// newSymtab keeps the symbols that name code. Like addr2line, a symbol
// covers the addresses from it to the next symbol of its section,
// whatever its size says (assembly and padding after a function belong to
// it), and a local symbol's file is the STT_FILE symbol before it.
func newSymtab(ef *elf.File, syms []elf.Symbol) *symtab {
	es := make([]symEntry, 0, len(syms))
	file := ""
	for _, s := range syms {
		typ := elf.ST_TYPE(s.Info)
		if typ == elf.STT_FILE {
			file = s.Name
			continue
		}
		if s.Name == "" || s.Value == 0 && ef.Type != elf.ET_REL || s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE || int(s.Section) >= len(ef.Sections) {
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
	// By address, the best-ranked first, then in table order: by rank
	// (a counting sort), then stably by address (a radix sort), which
	// is several times faster than sorting the entries themselves.
	var count [8]int32
	for _, e := range es {
		count[7-e.rank]++
	}
	for r, sum := 0, int32(0); r < len(count); r++ {
		count[r], sum = sum, sum+count[r]
	}
	order := make([]int32, len(es))
	addrs := make([]uint64, len(es))
	for i, e := range es {
		order[count[7-e.rank]] = int32(i)
		count[7-e.rank]++
		addrs[i] = e.addr
	}
	if len(order) > 0 {
		sortByAddr(order, addrs)
	}
	t := &symtab{
		addr: make([]uint64, 0, len(es)), end: make([]uint64, 0, len(es)),
		name: make([]string, 0, len(es)), file: make([]string, 0, len(es)),
	}
	for k, i := range order {
		e := &es[i]
		if k > 0 && e.addr == es[order[k-1]].addr {
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

// relocate applies to data, the contents of section s of a relocatable
// object (ET_REL: a .o file, a kernel module), the relocations that
// DWARF sections use: absolute addresses and offsets, 4 or 8 bytes, as
// ef.DWARF does. Relocations of other kinds and machines are left alone.
func (b *Binary) relocate(s *elf.Section, data []byte) error {
	ef := b.ef
	var rel *elf.Section
	for _, r := range ef.Sections {
		if (r.Type == elf.SHT_RELA || r.Type == elf.SHT_REL) && int(r.Info) < len(ef.Sections) && ef.Sections[r.Info] == s {
			rel = r
			break
		}
	}
	if rel == nil {
		return nil
	}
	rels, err := b.section(rel)
	if err != nil {
		return err
	}
	syms, err := ef.Symbols()
	if err != nil {
		return fmt.Errorf("relocating %s: %w", s.Name, err)
	}
	is64, rela := ef.Class == elf.ELFCLASS64, rel.Type == elf.SHT_RELA
	size := map[[2]bool]int{{true, true}: 24, {true, false}: 16, {false, true}: 12, {false, false}: 8}[[2]bool{is64, rela}]
	order := ef.ByteOrder
	for ; len(rels) >= size; rels = rels[size:] {
		var off, sym, typ uint64
		var addend int64
		if is64 {
			off, sym, typ = order.Uint64(rels), order.Uint64(rels[8:])>>32, order.Uint64(rels[8:])&0xffffffff
			if rela {
				addend = int64(order.Uint64(rels[16:]))
			}
		} else {
			info := order.Uint32(rels[4:])
			off, sym, typ = uint64(order.Uint32(rels)), uint64(info>>8), uint64(info&0xff)
			if rela {
				addend = int64(int32(order.Uint32(rels[8:])))
			}
		}
		width := relocWidth(ef.Machine, typ)
		if width == 0 || sym == 0 || sym > uint64(len(syms)) || off > uint64(len(data)) || uint64(width) > uint64(len(data))-off {
			continue
		}
		sy := syms[sym-1]
		if sy.Section == elf.SHN_UNDEF || sy.Section >= elf.SHN_LORESERVE {
			continue
		}
		dst := data[off : off+uint64(width)]
		if !rela { // the addend is in place
			if width == 8 {
				addend = int64(order.Uint64(dst))
			} else {
				addend = int64(int32(order.Uint32(dst)))
			}
		}
		if width == 8 {
			order.PutUint64(dst, sy.Value+uint64(addend))
		} else {
			order.PutUint32(dst, uint32(sy.Value+uint64(addend)))
		}
	}
	return nil
}

// symbolValues returns the values of the named symbols of .symtab. It
// reads the table raw: for a few names, making every symbol (tens of
// thousands of strings in a Go binary) would be most of the work.
func (b *Binary) symbolValues(names ...string) map[string]uint64 {
	ef := b.ef
	st := ef.Section(".symtab")
	if st == nil || int(st.Link) >= len(ef.Sections) {
		return nil
	}
	syms, err := b.section(st)
	if err != nil {
		return nil
	}
	strs, err := b.section(ef.Sections[st.Link])
	if err != nil {
		return nil
	}
	size := 16 // Elf32_Sym: name, value, size, info, other, shndx
	if ef.Class == elf.ELFCLASS64 {
		size = 24 // Elf64_Sym: name, info, other, shndx, value, size
	}
	out := map[string]uint64{}
	for off := size; off+size <= len(syms); off += size { // the first is the null symbol
		at := ef.ByteOrder.Uint32(syms[off:])
		if int(at) >= len(strs) {
			continue
		}
		s := strs[at:]
		for _, n := range names {
			if len(s) > len(n) && s[len(n)] == 0 && string(s[:len(n)]) == n {
				if size == 24 {
					out[n] = ef.ByteOrder.Uint64(syms[off+8:])
				} else {
					out[n] = uint64(ef.ByteOrder.Uint32(syms[off+4:]))
				}
			}
		}
	}
	return out
}

// absRelocs are, per machine, the types of its 8-byte and 4-byte
// absolute relocations (0 for none).
var absRelocs = map[elf.Machine][2]uint64{
	elf.EM_X86_64:    {uint64(elf.R_X86_64_64), uint64(elf.R_X86_64_32)},
	elf.EM_386:       {0, uint64(elf.R_386_32)},
	elf.EM_ARM:       {0, uint64(elf.R_ARM_ABS32)},
	elf.EM_AARCH64:   {uint64(elf.R_AARCH64_ABS64), uint64(elf.R_AARCH64_ABS32)},
	elf.EM_RISCV:     {uint64(elf.R_RISCV_64), uint64(elf.R_RISCV_32)},
	elf.EM_PPC64:     {uint64(elf.R_PPC64_ADDR64), uint64(elf.R_PPC64_ADDR32)},
	elf.EM_S390:      {uint64(elf.R_390_64), uint64(elf.R_390_32)},
	elf.EM_LOONGARCH: {uint64(elf.R_LARCH_64), uint64(elf.R_LARCH_32)},
}

// relocWidth is the size of an absolute relocation of type typ, or 0.
func relocWidth(m elf.Machine, typ uint64) int {
	switch t := absRelocs[m]; {
	case typ == 0:
	case typ == t[0]:
		return 8
	case typ == t[1]:
		return 4
	}
	return 0
}
