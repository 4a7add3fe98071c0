package analysis

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/format/symbolize"
)

// Disasm is pprof's -disasm report: the machine instructions of the
// functions matching a regexp, each with the flat and cum of the samples
// at its addresses.
type Disasm struct {
	SampleType format.ValueType
	Total      int64
	Routines   []Routine
	// Errors are the binaries that could not be opened, as pprof prints
	// them (one line each, after the total).
	Errors []string
}

// Routine is one function's disassembly.
type Routine struct {
	Name   string
	Binary string // the file it was decoded from
	// Start and End are the symbol's object addresses (End exclusive);
	// Offset turns them into the profile's: runtime = object + Offset.
	Start, End, Offset uint64
	Flat, Cum          int64
	Insts              []AsmInst
}

// AsmInst is an instruction with its samples and pprof's annotation:
// the function, file base name and line of the pclntab or of the first
// sample in it.
type AsmInst struct {
	symbolize.Inst
	Flat, Cum int64
	Function  string
	File      string // base name
	Line      int
	// With DisasmOptions.Frames: the source frames of the address, and
	// the symbol a call or jump goes to.
	Frames     []symbolize.Frame
	TargetName string
}

// Disassemblers opens a binary for decoding, by path (a mapping's file).
type Disassemblers func(path string) (*symbolize.Disassembler, error)

// DisasmOptions are the options of a disassembly beyond the report's.
type DisasmOptions struct {
	Syntax symbolize.Syntax
	Open   Disassemblers
	// AnySymbols also finds functions in binaries without a .symtab,
	// by their separate debug file or dynamic symbols (pprof does not).
	AnySymbols bool
	// Function, when set, picks the function of that name (the nodes
	// and symbols named so) instead of the regexp: the views' selection.
	Function string
	// Frames also gives each instruction its source frames, inline
	// calls included (innermost first), and names call targets.
	Frames bool
}

// DisasmMissing is the error of a disassembly that found no binary with
// the function: the mappings its samples are in, and why each binary
// could not be read.
type DisasmMissing struct {
	Function string
	Mappings []string // the files the profile names for its samples
	Errors   []string
}

func (e *DisasmMissing) Error() string {
	if len(e.Mappings) == 0 {
		return fmt.Sprintf("%s: no samples at an address of a mapped binary", e.Function)
	}
	return fmt.Sprintf("%s: no symbol in %s", e.Function, strings.Join(e.Mappings, ", "))
}

// DisasmSyntax is the assembly syntax the settings ask for: Intel with
// intel_syntax, else GNU with gnu_syntax, else Go's.
func DisasmSyntax(opt Options) symbolize.Syntax {
	switch {
	case opt.IntelSyntax:
		return symbolize.IntelSyntax
	case opt.GNUSyntax:
		return symbolize.GNUSyntax
	}
	return symbolize.GoSyntax
}

// disasmOptions are opt as pprof's -disasm overrides them: addresses,
// no inlines (so an address is one node), no trimming.
func disasmOptions(opt Options) Options {
	opt.Granularity = "addresses"
	opt.NoInlines = true
	opt.NodeCount, opt.NodeFraction, opt.EdgeFraction = 0, 0, 0
	return opt
}

// Disasm computes pprof's -disasm report for the functions whose
// symbols re matches, in the binaries of the mappings with samples of
// nodes re matches; as pprof, it also matches the functions holding the
// address re spells, if it is a number.
func (e *Engine) Disasm(opt Options, re *regexp.Regexp, do DisasmOptions) (*Disasm, error) {
	top, err := e.Top(disasmOptions(opt))
	if err != nil {
		return nil, err
	}
	out := &Disasm{SampleType: top.SampleType, Total: top.Total}
	var address *uint64
	if a, err := strconv.ParseUint(re.String(), 0, 64); err == nil {
		address = &a
	}
	raw, div, err := e.undividedSums(opt)
	if err != nil {
		return nil, err
	}
	matchNode, matchSym := e.disasmMatchers(top, re, do.Function)
	nodes, mappings, matched := e.disasmNodes(top, raw, div, matchNode)
	syms := e.disasmSymbols(do, matchSym, address, nodes, mappings, matched, &out.Errors)
	if len(syms) == 0 {
		if do.Function != "" {
			return out, &DisasmMissing{Function: do.Function, Mappings: mappings, Errors: out.Errors}
		}
		if address == nil {
			return out, fmt.Errorf("no matches found for regexp %s", re)
		}
		return out, fmt.Errorf("no matches found for address 0x%x", *address)
	}
	for _, s := range syms {
		r, err := e.routine(s, nodes, opt.Mean, do.Syntax, do.Frames)
		if err != nil {
			return out, err
		}
		out.Routines = append(out.Routines, r)
	}
	return out, nil
}

// asmNode is a node of the -disasm table: an address and its values.
type asmNode struct {
	addr      uint64
	flat, cum int64
	info      NodeInfo
	// Under mean, pprof sums the undivided values and their divisors
	// (the first sample value) and divides per instruction; its routine
	// totals are the undivided sums.
	rawFlat, rawCum int64
	divFlat, divCum int64
}

// undividedSums are, under mean, each node's flat and cum undivided
// (raw) and their divisors (div); nil maps otherwise.
func (e *Engine) undividedSums(opt Options) (raw, div map[int32][2]int64, err error) {
	raw, div = map[int32][2]int64{}, map[int32][2]int64{}
	if !opt.Mean {
		return raw, div, nil
	}
	o := opt
	o.Mean = false
	for _, t := range []struct {
		index string
		into  map[int32][2]int64
	}{{opt.SampleIndex, raw}, {"0", div}} {
		o.SampleIndex = t.index
		rt, err := e.Top(disasmOptions(o))
		if err != nil {
			return nil, nil, err
		}
		for _, r := range rt.Rows {
			t.into[r.Node] = [2]int64{r.Flat, r.Cum}
		}
	}
	return raw, div, nil
}

// disasmMatchers are what picks the nodes whose mappings are read and
// the symbols disassembled: re, or the function named so (its symbol is
// its system name where the profile has one: C++'s mangled name).
func (e *Engine) disasmMatchers(top *Top, re *regexp.Regexp, function string) (matchNode func(r Row, info NodeInfo) bool, matchSym *regexp.Regexp) {
	if function == "" {
		return func(r Row, info NodeInfo) bool { return re.MatchString(top.Nodes.Name(r.Node)) }, re
	}
	names := []string{regexp.QuoteMeta(function)}
	for _, f := range e.p.Functions {
		if f.Name == function && f.SystemName != "" && f.SystemName != f.Name {
			names = append(names, regexp.QuoteMeta(f.SystemName))
		}
	}
	return func(r Row, info NodeInfo) bool { return info.Name == function },
		regexp.MustCompile("^(" + strings.Join(names, "|") + ")$")
}

// disasmNodes are top's rows as asmNodes, and the files of the mappings
// with a node matchNode accepts, in order (mappings) and as a set.
func (e *Engine) disasmNodes(top *Top, raw, div map[int32][2]int64, matchNode func(Row, NodeInfo) bool) (nodes []asmNode, mappings []string, matched map[string]bool) {
	nodes = make([]asmNode, 0, len(top.Rows))
	matched = map[string]bool{}
	for _, r := range top.Rows {
		info := top.Nodes.Info(r.Node)
		n := asmNode{addr: info.Address, flat: r.Flat, cum: r.Cum, info: info, rawFlat: r.Flat, rawCum: r.Cum}
		if v, ok := raw[r.Node]; ok {
			n.rawFlat, n.rawCum = v[0], v[1]
			n.divFlat, n.divCum = div[r.Node][0], div[r.Node][1]
		}
		nodes = append(nodes, n)
		if !matchNode(r, info) {
			continue
		}
		if m := e.mappingOf(info.Address); m != nil && m.File != "" && !matched[m.File] {
			mappings = append(mappings, m.File)
		}
		if m := e.mappingOf(info.Address); m != nil && m.File != "" {
			matched[m.File] = true
		}
	}
	return nodes, mappings, matched
}

// objSym is a symbol to disassemble and the nodes at its addresses.
type objSym struct {
	sym    symbolize.Sym
	d      *symbolize.Disassembler
	offset uint64
	nodes  []int
}

// disasmSymbols finds the symbols matchSym accepts (holding address, if
// not nil) in the matched binaries, by name then start; it appends to
// errs the binaries that could not be opened.
func (e *Engine) disasmSymbols(do DisasmOptions, matchSym *regexp.Regexp, address *uint64, nodes []asmNode, mappings []string, matched map[string]bool, errs *[]string) []*objSym {
	p := e.p
	// A function without samples (a callee the Disasm view follows) is
	// looked for in every binary, and shown without values.
	anyBinary := do.Function != "" && len(mappings) == 0
	var syms []*objSym
	for i := range p.Mappings {
		m := &p.Mappings[i]
		if anyBinary {
			if m.File == "" || matched[m.File] {
				continue
			}
			matched[m.File] = true
		} else if !matched[m.File] && (address == nil || *address < m.Start || *address > m.Limit) {
			continue
		}
		d, err := do.Open(m.File)
		if err != nil {
			if !anyBinary {
				*errs = append(*errs, err.Error())
			}
			continue
		}
		offset := d.Offset(m.Start)
		for _, s := range d.Symbols(matchSym, !do.AnySymbols) {
			if address != nil && !(s.Start <= *address && *address < s.Start+s.Size) {
				continue
			}
			if do.Frames {
				// The views show the whole function (pprof leaves out
				// the last byte).
				s.End = s.Start + max(s.Size, 1)
			}
			os := &objSym{sym: s, d: d, offset: offset}
			for k, n := range nodes {
				if a := n.addr - offset; a >= s.Start && a < s.End {
					os.nodes = append(os.nodes, k)
				}
			}
			if len(os.nodes) > 0 || anyBinary {
				syms = append(syms, os)
			}
		}
	}
	sort.SliceStable(syms, func(i, j int) bool {
		if a, b := syms[i].sym.Name, syms[j].sym.Name; a != b {
			return a < b
		}
		return syms[i].sym.Start < syms[j].sym.Start
	})
	return syms
}

// routine decodes s and annotates its instructions with the samples by
// address, summed until the next instruction (a sample may land inside
// one), as pprof's annotateAssembly; with frames, also with their source
// frames and call targets' names.
func (e *Engine) routine(s *objSym, nodes []asmNode, mean bool, syntax symbolize.Syntax, frames bool) (Routine, error) {
	insts, err := s.d.Decode(s.sym.Start, s.sym.End, syntax)
	if err != nil {
		return Routine{}, err
	}
	r := Routine{Name: s.sym.Name, Binary: s.d.Path(), Start: s.sym.Start, End: s.sym.End, Offset: s.offset}
	ns := make([]asmNode, len(s.nodes))
	for k, i := range s.nodes {
		ns[k] = nodes[i]
		r.Flat += nodes[i].rawFlat
		r.Cum += nodes[i].rawCum
	}
	sort.SliceStable(ns, func(i, j int) bool { return ns[i].addr < ns[j].addr })
	k := 0
	for i, in := range insts {
		next := ^uint64(0)
		if i+1 < len(insts) {
			next = insts[i+1].Addr
		}
		a, used := annotate(in, ns[k:], s.offset, next, mean)
		k += used
		r.Insts = append(r.Insts, a)
	}
	if frames {
		e.addFrames(r.Insts, s.d)
	}
	return r, nil
}

// annotate is instruction in with the samples of ns (by address, from
// in's) below next, the next instruction's address; it returns how many
// of ns it took.
func annotate(in symbolize.Inst, ns []asmNode, offset, next uint64, mean bool) (a AsmInst, used int) {
	a = AsmInst{Inst: in, Line: in.Line}
	if in.File != "" {
		a.File = filepath.Base(in.File)
	}
	var rawFlat, rawCum, divFlat, divCum int64
	for ; used < len(ns) && ns[used].addr-offset < next; used++ {
		n := ns[used]
		a.Flat += n.flat
		a.Cum += n.cum
		rawFlat, rawCum, divFlat, divCum = rawFlat+n.rawFlat, rawCum+n.rawCum, divFlat+n.divFlat, divCum+n.divCum
		if n.info.File != "" && a.File == "" {
			a.File = filepath.Base(n.info.File)
		}
		if n.info.Line != 0 && a.Line == 0 {
			a.Line = int(n.info.Line)
		}
		// A name without a file or line came from the ELF symbol table,
		// which go tool pprof does not read: it has no name there, and
		// neither has its annotation.
		if n.info.Name != "" && a.Function == "" && (n.info.File != "" || n.info.Line != 0) {
			a.Function = n.info.Name
		}
	}
	if mean {
		a.Flat, a.Cum = rawFlat, rawCum
		if divFlat != 0 {
			a.Flat = rawFlat / divFlat
		}
		if divCum != 0 {
			a.Cum = rawCum / divCum
		}
	}
	return a, used
}

// addFrames gives each instruction its source frames, and the name of
// the function its call or jump goes to.
func (e *Engine) addFrames(insts []AsmInst, d *symbolize.Disassembler) {
	addrs := make([]uint64, len(insts))
	for i, in := range insts {
		addrs[i] = in.Addr
	}
	frames, _ := d.Frames(addrs)
	for i := range insts {
		in := &insts[i]
		if i < len(frames) {
			in.Frames = frames[i]
		}
		if in.Target != 0 {
			in.TargetName, _ = d.SymbolAt(in.Target)
			in.TargetName = e.functionNamed(in.TargetName)
		}
	}
}

// functionNamed returns the profile's name of the function whose
// system name (a symbol: mangled for C++) is sym, or sym.
func (e *Engine) functionNamed(sym string) string {
	for _, f := range e.p.Functions {
		if f.SystemName == sym && f.Name != "" {
			return f.Name
		}
	}
	return sym
}

// mappingOf returns the mapping holding addr, or nil.
func (e *Engine) mappingOf(addr uint64) *format.Mapping {
	for i := range e.p.Mappings {
		m := &e.p.Mappings[i]
		if m.Start <= addr && addr < m.Limit {
			return m
		}
	}
	return nil
}
