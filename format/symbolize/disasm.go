package symbolize

import (
	"cmp"
	"debug/elf"
	"debug/gosym"
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/arch/arm64/arm64asm"
	"golang.org/x/arch/x86/x86asm"
)

// Disassembly: a binary's machine code decoded in-process with
// golang.org/x/arch, the decoder `go tool pprof -disasm` uses (through
// cmd/internal/disasm and cmd/internal/objfile), and laid out as it does:
// the same symbols, text section, load address and pclntab lines, so
// that the -disasm report can equal pprof's byte for byte.

// Syntax is an assembly syntax.
type Syntax int

const (
	GoSyntax    Syntax = iota // Go's assembler (PUSHQ BP, CALL fib(SB)), as go tool pprof prints
	IntelSyntax               // Intel's (push rbp), as objdump -M intel
	GNUSyntax                 // AT&T as GNU objdump prints it (push %rbp)
)

// Sym is a symbol of the binary's symbol table, as go tool pprof lists
// them: [Start, End) are object addresses, End one short of the
// symbol's last byte (pprof's Sym.End is inclusive and its disassembly
// stops before it, so a function's last one-byte instruction is left
// out; we keep the quirk where pprof's numbers are at stake).
type Sym struct {
	Name       string
	Start, End uint64
	Size       uint64
}

// Inst is one decoded instruction.
type Inst struct {
	Addr uint64
	Len  int
	Text string
	// File and Line are the Go pclntab's for the address ("" and 0
	// without one: C binaries).
	File string
	Line int
	// Target is where a call or a jump with a constant target goes (0:
	// none); Call tells calls from jumps.
	Target uint64
	Call   bool
}

// Disassembler decodes the code of one binary. It is safe for
// concurrent use once made.
type Disassembler struct {
	b         *Binary
	arch      string
	text      []byte
	textStart uint64
	syms      []Sym // every symbol, by address (pprof's Symbols)
	lookup    []Sym // syms without the section markers (the decoder's names)
	pcln      *gosym.Table
	pprofSyms bool // syms are .symtab's, which go tool pprof reads

	pltOnce  sync.Once
	plt      map[uint64]string // PLT stub address → function (objdumpSym)
	loadAddr uint64
	loadErr  error
}

// NewDisassembler reads what decoding b needs: its .text section, symbol
// table and, for Go binaries, the pclntab.
func NewDisassembler(b *Binary) (d *Disassembler, err error) {
	defer recoverError(&err, b.path)
	defer safely(debug.SetPanicOnFault(true))
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, fmt.Errorf("%s: closed", b.path)
	}
	ef := b.ef
	d = &Disassembler{b: b}
	switch ef.Machine {
	case elf.EM_X86_64:
		d.arch = "amd64"
	case elf.EM_386:
		d.arch = "386"
	case elf.EM_AARCH64:
		d.arch = "arm64"
	default:
		return nil, fmt.Errorf("%s: cannot disassemble %v code (amd64, 386 and arm64 only)", b.path, ef.Machine)
	}
	sect := ef.Section(".text")
	if sect == nil {
		return nil, fmt.Errorf("%s: text section not found", b.path)
	}
	if d.text, err = b.section(sect); err != nil {
		return nil, fmt.Errorf("%s: %w", b.path, err)
	}
	d.textStart = sect.Addr

	// objfile's symbols: every .symtab entry, sorted by address with
	// the same (deterministic) sort, so that equal addresses come in
	// the same order and the decoder names the same symbol.
	elfSyms, err := ef.Symbols()
	if err != nil && err != elf.ErrNoSymbols {
		return nil, fmt.Errorf("%s: symbol table: %w", b.path, err)
	}
	d.pprofSyms = len(elfSyms) > 0
	if !d.pprofSyms {
		// pprof finds nothing here (Symbols says so); a separate debug
		// file or the dynamic symbols name the functions for the view.
		if dbg := b.debugBinary(); dbg != nil {
			elfSyms, _ = dbg.ef.Symbols()
		}
		if len(elfSyms) == 0 {
			elfSyms, _ = ef.DynamicSymbols()
		}
	}
	d.syms = make([]Sym, 0, len(elfSyms))
	for _, s := range elfSyms {
		d.syms = append(d.syms, Sym{Name: s.Name, Start: s.Value, End: s.Value + s.Size - 1, Size: s.Size})
	}
	slices.SortFunc(d.syms, func(a, b Sym) int { return cmp.Compare(a.Start, b.Start) })
	for _, s := range d.syms {
		switch s.Name {
		case "runtime.text", "text", "_text", "runtime.etext", "etext", "_etext":
		default:
			d.lookup = append(d.lookup, s)
		}
	}

	// The pclntab, for Go binaries: lines for each instruction.
	pcsect := ef.Section(".gopclntab")
	if pcsect == nil {
		pcsect = ef.Section(".data.rel.ro.gopclntab")
	}
	if pcsect != nil {
		if data, err := b.section(pcsect); err == nil {
			start := d.textStart
			for _, s := range d.syms {
				if s.Name == "runtime.text" {
					start = s.Start
					break
				}
			}
			d.pcln, _ = gosym.NewTable(nil, gosym.NewLineTable(data, start))
		}
	}

	d.loadErr = fmt.Errorf("%s: unknown load address", b.path)
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			d.loadAddr, d.loadErr = p.Vaddr-p.Vaddr%max(p.Align, 1), nil
			break
		}
	}
	return d, nil
}

// Path is the binary's file name.
func (d *Disassembler) Path() string { return d.b.path }

// Offset is what go tool pprof subtracts from the runtime addresses of
// a mapping starting at start to get object addresses: start minus the
// binary's load address (0 for a mapping at 0 or a binary without one).
func (d *Disassembler) Offset(start uint64) uint64 {
	if start == 0 || d.loadErr != nil {
		return 0
	}
	return start - d.loadAddr
}

// Symbols returns the symbols whose names re matches (nil: all), by
// address, skipping those at 0 with no size (STT_FILE). With pprofOnly,
// only the binary's own .symtab counts, as for go tool pprof; else a
// separate debug file's or the dynamic symbols stand in for it.
func (d *Disassembler) Symbols(re *regexp.Regexp, pprofOnly bool) []Sym {
	if pprofOnly && !d.pprofSyms {
		return nil
	}
	var out []Sym
	for _, s := range d.syms {
		if s.Start == 0 && s.Size == 0 {
			continue
		}
		if re == nil || re.MatchString(s.Name) {
			out = append(out, s)
		}
	}
	return out
}

// Frames returns the source frames of each object address, inline calls
// included, innermost first (see Binary.Symbolize).
func (d *Disassembler) Frames(addrs []uint64) ([][]Frame, error) {
	return d.b.Symbolize(addrs, Mode{})
}

// SymbolAt returns the name and start of the symbol holding addr (an
// object address), as the decoder names call targets.
func (d *Disassembler) SymbolAt(addr uint64) (string, uint64) {
	i := sort.Search(len(d.lookup), func(i int) bool { return addr < d.lookup[i].Start })
	if i > 0 {
		s := d.lookup[i-1]
		if s.Start != 0 && s.Start <= addr && addr < s.Start+s.Size {
			return s.Name, s.Start
		}
	}
	return "", 0
}

// Decode decodes the instructions at object addresses [start, end),
// clipped to the text section, as go tool pprof does: an undecodable
// byte is "?".
func (d *Disassembler) Decode(start, end uint64, syntax Syntax) (insts []Inst, err error) {
	defer recoverError(&err, d.b.path)
	defer safely(debug.SetPanicOnFault(true))
	// d.text and the pclntab are the mapped file's pages.
	d.b.inUse.RLock()
	defer d.b.inUse.RUnlock()
	d.b.mu.Lock()
	closed := d.b.closed
	d.b.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("%s: closed", d.b.path)
	}
	textEnd := d.textStart + uint64(len(d.text))
	start = max(start, d.textStart)
	end = min(end, textEnd)
	if start >= end {
		return nil, nil
	}
	code := d.text[:end-d.textStart]
	for pc := start; pc < end; {
		in := d.decode(code[pc-d.textStart:], pc, syntax)
		if d.pcln != nil {
			in.File, in.Line, _ = d.pcln.PCToLine(pc)
		}
		insts = append(insts, in)
		pc += uint64(in.Len)
	}
	return insts, nil
}

func (d *Disassembler) decode(code []byte, pc uint64, syntax Syntax) Inst {
	in := Inst{Addr: pc}
	switch d.arch {
	case "amd64", "386":
		mode := 64
		if d.arch == "386" {
			mode = 32
		}
		inst, err := x86asm.Decode(code, mode)
		if err != nil || inst.Len == 0 || inst.Op == 0 {
			in.Len, in.Text = 1, "?"
			return in
		}
		in.Len = inst.Len
		switch syntax {
		case IntelSyntax:
			in.Text = x86asm.IntelSyntax(inst, pc, d.SymbolAt)
		case GNUSyntax:
			in.Text = d.objdumpText(inst, pc)
		default:
			in.Text = x86asm.GoSyntax(inst, pc, d.SymbolAt)
		}
		if rel, ok := inst.Args[0].(x86asm.Rel); ok {
			switch inst.Op {
			case x86asm.CALL:
				in.Call = true
				in.Target = uint64(int64(pc) + int64(inst.Len) + int64(rel))
			case x86asm.JMP, x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JCXZ, x86asm.JE, x86asm.JECXZ,
				x86asm.JG, x86asm.JGE, x86asm.JL, x86asm.JLE, x86asm.JNE, x86asm.JNO, x86asm.JNP, x86asm.JNS,
				x86asm.JO, x86asm.JP, x86asm.JRCXZ, x86asm.JS, x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE:
				in.Target = uint64(int64(pc) + int64(inst.Len) + int64(rel))
			}
		}
	case "arm64":
		in.Len = 4
		inst, err := arm64asm.Decode(code)
		if err != nil || inst.Op == 0 {
			in.Text = "?"
			return in
		}
		switch syntax {
		case GoSyntax:
			in.Text = arm64asm.GoSyntax(inst, pc, d.SymbolAt, textReader{code, pc})
		default:
			in.Text = arm64asm.GNUSyntax(inst)
		}
		for _, a := range inst.Args {
			if rel, ok := a.(arm64asm.PCRel); ok {
				switch inst.Op {
				case arm64asm.BL:
					in.Call = true
					in.Target = uint64(int64(pc) + int64(rel))
				case arm64asm.B, arm64asm.CBZ, arm64asm.CBNZ, arm64asm.TBZ, arm64asm.TBNZ:
					in.Target = uint64(int64(pc) + int64(rel))
				}
			}
		}
	}
	return in
}

// objdumpText is x86asm's GNU syntax made to read as objdump -d prints
// it (binutils 2.40): no q on call, ret and leave, movslq, immediates
// unsigned at the operand's size, branch targets as "11d8 <fib+0x27>",
// and RIP-relative operands followed by "# 3a060 <sink>".
func (d *Disassembler) objdumpText(inst x86asm.Inst, pc uint64) string {
	text := x86asm.GNUSyntax(inst, pc, nil)
	if text == "data16 nop" {
		return "xchg %ax,%ax"
	}
	op, args, _ := strings.Cut(text, " ")
	switch op {
	case "pushfq":
		op = "pushf"
	case "popfq":
		op = "popf"
	case "mov":
		if _, ok := inst.Args[0].(x86asm.Reg); ok && inst.Len >= 9 {
			if _, ok := inst.Args[1].(x86asm.Imm); ok && inst.DataSize == 64 && inst.Opcode>>24 != 0xc7 {
				op = "movabs" // a 64-bit immediate
			}
		}
	case "callq":
		op = "call"
	case "retq":
		op = "ret"
	case "leaveq":
		op = "leave"
	case "jmpq":
		op = "jmp"
	case "movsxd":
		op = "movslq"
	case "pushl", "popl":
		if inst.Mode == 32 {
			op = op[:len(op)-1] // the size is the mode's
		}
	}
	if args == "%st" {
		args = "%st(0)"
	}
	// No index is %riz in x86asm, nothing in objdump; displacements
	// are signed there.
	args = strings.ReplaceAll(args, ",%riz,1)", ")")
	if strings.Contains(args, "(") {
		args = bigDisp.ReplaceAllStringFunc(args, func(m string) string {
			v, err := strconv.ParseUint(m[2:len(m)-1], 16, 32)
			if err != nil {
				return m
			}
			return fmt.Sprintf("-0x%x(", 1<<32-v)
		})
	}
	if inst.Mode == 64 && strings.Contains(args, ":0x") {
		args = segDisp.ReplaceAllString(args, ":0xffffffff$1")
	}
	if strings.Contains(args, "(,") {
		args = noBase.ReplaceAllString(args, "${1}0x0(,")
	}
	if strings.Contains(args, "$-0x") {
		args = negImm.ReplaceAllStringFunc(args, func(m string) string {
			v, err := strconv.ParseInt(m[1:], 0, 64)
			if err != nil {
				return m
			}
			u := uint64(v)
			if w := inst.DataSize; w > 0 && w < 64 {
				u &= 1<<w - 1
			}
			return fmt.Sprintf("$0x%x", u)
		})
	}
	comment := ""
	for _, a := range inst.Args {
		switch a := a.(type) {
		case x86asm.Rel:
			t := uint64(int64(pc) + int64(inst.Len) + int64(a))
			args = strings.Replace(args, fmt.Sprintf("0x%x", t), fmt.Sprintf("%x%s", t, d.objdumpSym(t)), 1)
		case x86asm.Mem:
			if a.Base == x86asm.RIP {
				t := uint64(int64(pc) + int64(inst.Len) + a.Disp)
				comment = fmt.Sprintf("        # %x%s", t, d.objdumpSym(t))
			}
		}
	}
	if args == "" {
		return op + comment
	}
	return op + " " + args + comment
}

var (
	negImm = regexp.MustCompile(`\$-0x[0-9a-f]+`)
	noBase = regexp.MustCompile(`(^|[ ,*])\(,`)
	// bigDisp is a 32-bit displacement x86asm prints unsigned.
	bigDisp = regexp.MustCompile(`\b0x[89a-f][0-9a-f]{7}\(`)
	// segDisp is an absolute address after a segment, sign-extended in
	// 64-bit mode by objdump.
	segDisp = regexp.MustCompile(`:0x([89a-f][0-9a-f]{7})\b`)
)

// objdumpSym is objdump's " <sym+0xoff>" for addr: a PLT stub's
// "<name@plt>", else the nearest named symbol at or below it, or "".
func (d *Disassembler) objdumpSym(addr uint64) string {
	d.pltOnce.Do(d.readPLT)
	if name, ok := d.plt[addr]; ok {
		return " <" + name + "@plt>"
	}
	i := sort.Search(len(d.lookup), func(i int) bool { return addr < d.lookup[i].Start })
	for ; i > 0; i-- {
		s := d.lookup[i-1]
		if s.Name == "" || s.Start == 0 {
			continue
		}
		if s.Start == addr {
			return " <" + s.Name + ">"
		}
		return fmt.Sprintf(" <%s+0x%x>", s.Name, addr-s.Start)
	}
	return ""
}

// readPLT names the PLT stubs as objdump does, from the .rela.plt
// relocations: stub i of .plt.sec (16 bytes each), or stub i+1 of .plt
// (after its header) without one. x86-64 only.
func (d *Disassembler) readPLT() {
	defer func() { recover() }() // a corrupt table leaves stubs unnamed
	ef := d.b.ef
	if ef.Machine != elf.EM_X86_64 {
		return
	}
	rela := ef.Section(".rela.plt")
	plt := ef.Section(".plt.sec")
	first := uint64(0)
	if plt == nil {
		plt, first = ef.Section(".plt"), 16
	}
	if rela == nil || plt == nil {
		return
	}
	data, err := rela.Data()
	if err != nil {
		return
	}
	syms, err := ef.DynamicSymbols()
	if err != nil {
		return
	}
	d.plt = map[uint64]string{}
	for i := 0; (i+1)*24 <= len(data); i++ {
		info := ef.ByteOrder.Uint64(data[i*24+8:])
		sym := int(info>>32) - 1 // DynamicSymbols drops the null symbol
		if sym < 0 || sym >= len(syms) {
			continue
		}
		d.plt[plt.Addr+first+uint64(i)*16] = syms[sym].Name
	}
}

// textReader gives arm64asm the code around pc (for literal pools).
type textReader struct {
	code []byte
	pc   uint64
}

func (r textReader) ReadAt(data []byte, off int64) (n int, err error) {
	if off < 0 || uint64(off) < r.pc {
		return 0, io.EOF
	}
	d := uint64(off) - r.pc
	if d >= uint64(len(r.code)) {
		return 0, io.EOF
	}
	n = copy(data, r.code[d:])
	if n < len(data) {
		err = io.ErrUnexpectedEOF
	}
	return
}
