package symbolize

import (
	"bytes"
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"fmt"
)

// infoData decodes .debug_info entries itself rather than through
// debug/dwarf. Symbolization needs a dozen attributes of compilation
// units, functions and inlined calls; debug/dwarf decodes every attribute
// of every entry it passes into an allocated Field (interface values,
// strings, blocks), which was most of the time spent on big binaries.
// Here an entry is decoded into a fixed struct without allocating, the
// other attributes skipped by the size of their form, and strings are
// read only when a name is asked for. Read-only once built: safe for
// concurrent use.
type infoData struct {
	sec   dwarfSections
	big   bool       // big-endian
	units []infoUnit // in section order
}

// dwarfSections are the DWARF sections the entries and their attribute
// forms point into.
type dwarfSections struct {
	info, abbrev, line, str, lineStr, strOffsets, addr, ranges, rnglists []byte
}

// infoUnit is one unit of .debug_info.
type infoUnit struct {
	off, first, end uint64 // header, first entry, end: offsets in .debug_info
	vers            int
	addrSize        uint64
	is64            bool // the 64-bit DWARF format: offsets are 8 bytes
	kind            uint8
	key             uint8 // what the sizes of forms depend on
	abbrevs         *abbrevTable

	// From the unit's own entry: the base address of its range lists,
	// and the bases of its indexes into .debug_addr, .debug_str_offsets
	// and .debug_rnglists (DWARF 5).
	base, addrBase, strOffBase, rngBase uint64
}

// Unit types of DWARF 5 headers (DW_UT_*); older units are all compile
// units.
const (
	utCompile      = 1
	utType         = 2
	utPartial      = 3
	utSkeleton     = 4
	utSplitCompile = 5
	utSplitType    = 6
)

func (u *infoUnit) offSize() uint64 {
	if u.is64 {
		return 8
	}
	return 4
}

type abbrevTable struct {
	dense  []*abbrev // by code, for small codes (the usual 1, 2, 3...)
	sparse map[uint64]*abbrev
}

func (t *abbrevTable) get(code uint64) *abbrev {
	if code < uint64(len(t.dense)) {
		return t.dense[code]
	}
	return t.sparse[code]
}

type abbrev struct {
	tag      dwarf.Tag
	children bool
	attrs    []abbrevAttr

	// size is the size of the attributes of an entry when all their
	// forms have a fixed size in units of format sizeKey (see
	// infoUnit.key), else -1: such an entry is skipped in one step.
	size    int64
	sizeKey uint8
}

type abbrevAttr struct {
	attr     dwarf.Attr
	form     uint16
	used     bool  // readDIE keeps it
	implicit int64 // DW_FORM_implicit_const's value
}

// The attribute forms (DW_FORM_*).
const (
	formAddr          = 0x01
	formBlock2        = 0x03
	formBlock4        = 0x04
	formData2         = 0x05
	formData4         = 0x06
	formData8         = 0x07
	formString        = 0x08
	formBlock         = 0x09
	formBlock1        = 0x0a
	formData1         = 0x0b
	formFlag          = 0x0c
	formSdata         = 0x0d
	formStrp          = 0x0e
	formUdata         = 0x0f
	formRefAddr       = 0x10
	formRef1          = 0x11
	formRef2          = 0x12
	formRef4          = 0x13
	formRef8          = 0x14
	formRefUdata      = 0x15
	formIndirect      = 0x16
	formSecOffset     = 0x17
	formExprloc       = 0x18
	formFlagPresent   = 0x19
	formStrx          = 0x1a
	formAddrx         = 0x1b
	formRefSup4       = 0x1c
	formStrpSup       = 0x1d
	formData16        = 0x1e
	formLineStrp      = 0x1f
	formRefSig8       = 0x20
	formImplicitConst = 0x21
	formLoclistx      = 0x22
	formRnglistx      = 0x23
	formRefSup8       = 0x24
	formStrx1         = 0x25
	formStrx2         = 0x26
	formStrx3         = 0x27
	formStrx4         = 0x28
	formAddrx1        = 0x29
	formAddrx2        = 0x2a
	formAddrx3        = 0x2b
	formAddrx4        = 0x2c
	formGNUAddrIndex  = 0x1f01
	formGNUStrIndex   = 0x1f02
	formGNURefAlt     = 0x1f20
	formGNUStrpAlt    = 0x1f21
)

// die is the part of an entry symbolization uses.
type die struct {
	off      uint64
	tag      dwarf.Tag // 0 for the null entry that ends a list of children
	children bool
	sibling  uint64 // DW_AT_sibling; 0 when absent

	low, high   addrVal
	ranges      uint64 // DW_AT_ranges: an offset, or an index for DW_FORM_rnglistx
	rangesForm  uint16 // 0 when absent
	callFile    int64
	callLine    int64
	origin      uint64 // DW_AT_abstract_origin; 0 when absent
	spec        uint64 // DW_AT_specification; 0 when absent
	name        strRef
	linkageName strRef

	// Only on a unit's entry.
	entryPC                       addrVal
	addrBase, strOffBase, rngBase uint64
	stmtList                      uint64 // its line table's offset in .debug_line
	hasStmtList                   bool
	compDir                       strRef
}

// addrVal is an address attribute: an address, an index into
// .debug_addr, or (DW_AT_high_pc) a length from DW_AT_low_pc.
type addrVal struct {
	v    uint64
	kind uint8
}

const (
	addrNone = iota
	addrAbs
	addrIndex
	addrLength
)

// strRef is a string attribute, read on demand: its form and the
// offset or index it holds (for DW_FORM_string, its offset in
// .debug_info).
type strRef struct {
	form uint16 // 0 when absent
	v    uint64
}

var errTruncated = errors.New("truncated")

// newInfoData reads the unit headers and abbreviation tables, and each
// unit's own entry for its bases. A bad unit ends the list: the units
// before it are kept and the error says what is wrong.
func newInfoData(sec dwarfSections, order binary.ByteOrder) (*infoData, error) {
	x := &infoData{sec: sec, big: order == binary.BigEndian}
	tables := map[uint64]*abbrevTable{}
	c := x.cursor(sec.info, 0)
	for c.i < uint64(len(sec.info)) {
		u := infoUnit{off: c.i, kind: utCompile}
		length := c.fixed(4)
		if length == 0xffffffff {
			u.is64, length = true, c.fixed(8)
		} else if length >= 0xfffffff0 {
			return x, fmt.Errorf("unit at %#x: reserved length %#x", u.off, length)
		}
		if c.bad || length > uint64(len(sec.info))-c.i {
			return x, fmt.Errorf("unit at %#x: %w", u.off, errTruncated)
		}
		if length == 0 {
			continue
		}
		u.end = c.i + length
		c.b = sec.info[:u.end]
		u.vers = int(c.fixed(2))
		var abbrevOff uint64
		switch {
		case u.vers < 2 || u.vers > 5:
			return x, fmt.Errorf("unit at %#x: unsupported DWARF version %d", u.off, u.vers)
		case u.vers >= 5:
			u.kind = uint8(c.u8())
			u.addrSize = c.u8()
			abbrevOff = c.fixed(u.offSize())
		default:
			abbrevOff = c.fixed(u.offSize())
			u.addrSize = c.u8()
		}
		switch u.kind {
		case utSkeleton, utSplitCompile:
			c.skip(8) // unit ID
		case utType, utSplitType:
			c.skip(8 + u.offSize()) // type signature and offset
		}
		if c.bad {
			return x, fmt.Errorf("unit at %#x: %w header", u.off, errTruncated)
		}
		if u.addrSize != 2 && u.addrSize != 4 && u.addrSize != 8 {
			return x, fmt.Errorf("unit at %#x: address size %d", u.off, u.addrSize)
		}
		u.first = c.i
		t, ok := tables[abbrevOff]
		if !ok {
			var err error
			if t, err = parseAbbrevs(sec.abbrev, abbrevOff); err != nil {
				return x, fmt.Errorf("unit at %#x: abbreviations at %#x: %w", u.off, abbrevOff, err)
			}
			tables[abbrevOff] = t
		}
		u.abbrevs = t
		u.key = 0x80 | uint8(u.addrSize)
		if u.is64 {
			u.key |= 0x10
		}
		if u.vers == 2 {
			u.key |= 0x20
		}
		t.sizes(&u)
		c.b, c.i = sec.info, u.end
		x.units = append(x.units, u)
	}
	for i := range x.units {
		u := &x.units[i]
		var e die
		if _, err := x.readDIE(u, u.first, &e); err != nil {
			continue // the unit is unusable; its entries will say so
		}
		u.addrBase, u.strOffBase, u.rngBase = e.addrBase, e.strOffBase, e.rngBase
		// As debug/dwarf (after gdb): some GCC versions give the base
		// as DW_AT_entry_pc.
		if a, ok := x.address(u, e.entryPC); ok {
			u.base = a
		} else if a, ok := x.address(u, e.low); ok {
			u.base = a
		}
	}
	return x, nil
}

func parseAbbrevs(data []byte, off uint64) (*abbrevTable, error) {
	if off > uint64(len(data)) {
		return nil, errTruncated
	}
	t := &abbrevTable{}
	c := cursor{b: data, i: off}
	for {
		code := c.uleb()
		if code == 0 || c.bad {
			break
		}
		a := &abbrev{tag: dwarf.Tag(c.uleb()), children: c.u8() != 0}
		for !c.bad {
			attr, form := c.uleb(), c.uleb()
			if attr == 0 && form == 0 {
				break
			}
			at := abbrevAttr{attr: dwarf.Attr(attr), form: uint16(form), used: usedAttr(dwarf.Attr(attr))}
			if form > 0xffff {
				at.form = 0 // unknown: decoding an entry that uses it fails
			}
			if form == formImplicitConst {
				at.implicit = c.sleb()
			}
			a.attrs = append(a.attrs, at)
		}
		switch {
		case code < 1024:
			for uint64(len(t.dense)) <= code {
				t.dense = append(t.dense, nil)
			}
			t.dense[code] = a
		default:
			if t.sparse == nil {
				t.sparse = map[uint64]*abbrev{}
			}
			t.sparse[code] = a
		}
	}
	if c.bad {
		return nil, errTruncated
	}
	return t, nil
}

// sizes sets the fixed sizes of the table's entries for units of u's
// format, if not set yet.
func (t *abbrevTable) sizes(u *infoUnit) {
	set := func(a *abbrev) {
		if a == nil || a.sizeKey != 0 {
			return
		}
		a.sizeKey, a.size = u.key, 0
		for _, at := range a.attrs {
			n := formSize(u, uint64(at.form))
			if n < 0 {
				a.size = -1
				return
			}
			a.size += n
		}
	}
	for _, a := range t.dense {
		set(a)
	}
	for _, a := range t.sparse {
		set(a)
	}
}

// formSize is the size of a value of form in unit u, or -1 when it
// varies.
func formSize(u *infoUnit, form uint64) int64 {
	switch form {
	case formAddr:
		return int64(u.addrSize)
	case formData1, formRef1, formFlag, formStrx1, formAddrx1:
		return 1
	case formData2, formRef2, formStrx2, formAddrx2:
		return 2
	case formStrx3, formAddrx3:
		return 3
	case formData4, formRef4, formRefSup4, formStrx4, formAddrx4:
		return 4
	case formData8, formRef8, formRefSig8, formRefSup8:
		return 8
	case formData16:
		return 16
	case formStrp, formLineStrp, formSecOffset, formStrpSup, formGNURefAlt, formGNUStrpAlt:
		return int64(u.offSize())
	case formRefAddr:
		if u.vers == 2 {
			return int64(u.addrSize)
		}
		return int64(u.offSize())
	case formFlagPresent, formImplicitConst:
		return 0
	}
	return -1
}

// usedAttr reports whether readDIE keeps attributes of kind a.
func usedAttr(a dwarf.Attr) bool {
	switch a {
	case dwarf.AttrSibling, dwarf.AttrLowpc, dwarf.AttrHighpc, dwarf.AttrEntrypc, dwarf.AttrRanges,
		dwarf.AttrCallFile, dwarf.AttrCallLine, dwarf.AttrAbstractOrigin, dwarf.AttrSpecification,
		dwarf.AttrName, dwarf.AttrLinkageName, attrMIPSLinkageName, dwarf.AttrStmtList, dwarf.AttrCompDir,
		dwarf.AttrAddrBase, dwarf.AttrStrOffsetsBase, dwarf.AttrRnglistsBase:
		return true
	}
	return false
}

// unitOf returns the unit holding offset off, or nil.
func (x *infoData) unitOf(off uint64) *infoUnit {
	lo, hi := 0, len(x.units)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if x.units[m].end <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(x.units) && x.units[lo].first <= off {
		return &x.units[lo]
	}
	return nil
}

// entryAt reads the abbreviation code of the entry at off and returns
// its abbreviation (nil for the null entry) and a cursor after the code.
func (x *infoData) entryAt(u *infoUnit, off uint64) (*abbrev, cursor, error) {
	if off < u.first || off >= u.end {
		return nil, cursor{}, fmt.Errorf("entry at %#x: outside its unit", off)
	}
	c := x.cursor(x.sec.info[:u.end], off)
	code := c.uleb()
	if c.bad {
		return nil, c, fmt.Errorf("entry at %#x: %w", off, errTruncated)
	}
	if code == 0 {
		return nil, c, nil
	}
	a := u.abbrevs.get(code)
	if a == nil {
		return nil, c, fmt.Errorf("entry at %#x: unknown abbreviation %d", off, code)
	}
	return a, c, nil
}

// skipDIE returns the offset after the entry at off (of its first child
// if it has children), its tag and whether it has children, reading no
// attribute: a walk passes most entries (parameters, variables, types)
// this way.
func (x *infoData) skipDIE(u *infoUnit, off uint64) (next uint64, tag dwarf.Tag, children bool, err error) {
	a, c, err := x.entryAt(u, off)
	if err != nil || a == nil {
		return c.i, 0, false, err
	}
	if err := skipAttrs(u, off, a, &c); err != nil {
		return u.end, 0, false, err
	}
	return c.i, a.tag, a.children, nil
}

// skipAttrs moves c past the attributes of the entry at off, of
// abbreviation a.
func skipAttrs(u *infoUnit, off uint64, a *abbrev, c *cursor) error {
	if a.sizeKey == u.key && a.size >= 0 {
		c.skip(uint64(a.size))
	} else {
		for i := range a.attrs {
			if _, _, err := formValue(c, u, &a.attrs[i]); err != nil {
				return fmt.Errorf("entry at %#x: %w", off, err)
			}
		}
	}
	if c.bad {
		return fmt.Errorf("entry at %#x: %w", off, errTruncated)
	}
	return nil
}

// readDIE decodes the entry at off, in unit u, into e and returns the
// offset after it (of its first child if it has children).
func (x *infoData) readDIE(u *infoUnit, off uint64, e *die) (uint64, error) {
	a, c, err := x.entryAt(u, off)
	if err != nil || a == nil {
		*e = die{off: off}
		return c.i, err
	}
	if err := readAttrs(u, off, a, &c, e); err != nil {
		return u.end, err
	}
	return c.i, nil
}

// readAttrs decodes the entry at off, of abbreviation a, into e, moving
// c past its attributes.
func readAttrs(u *infoUnit, off uint64, a *abbrev, c *cursor, e *die) error {
	*e = die{off: off, tag: a.tag, children: a.children}
	for i := range a.attrs {
		at := &a.attrs[i]
		form, v, err := formValue(c, u, at)
		if err != nil {
			return fmt.Errorf("entry at %#x: %w", off, err)
		}
		if !at.used {
			continue
		}
		switch at.attr {
		case dwarf.AttrSibling:
			e.sibling, _ = reference(u, form, v)
		case dwarf.AttrLowpc:
			e.low = addressAttr(form, v, false)
		case dwarf.AttrHighpc:
			e.high = addressAttr(form, v, true)
		case dwarf.AttrEntrypc:
			e.entryPC = addressAttr(form, v, false)
		case dwarf.AttrRanges:
			switch {
			case form == formRnglistx:
				e.ranges, e.rangesForm = v, formRnglistx
			case form == formSecOffset || u.vers < 5 && isConstant(form):
				e.ranges, e.rangesForm = v, formSecOffset
			}
		case dwarf.AttrCallFile:
			if isConstant(form) {
				e.callFile = int64(v)
			}
		case dwarf.AttrCallLine:
			if isConstant(form) {
				e.callLine = int64(v)
			}
		case dwarf.AttrAbstractOrigin:
			e.origin, _ = reference(u, form, v)
		case dwarf.AttrSpecification:
			e.spec, _ = reference(u, form, v)
		case dwarf.AttrName:
			e.name = stringAttr(form, v)
		case dwarf.AttrLinkageName, attrMIPSLinkageName:
			e.linkageName = stringAttr(form, v)
		case dwarf.AttrStmtList:
			if form == formSecOffset || isConstant(form) {
				e.stmtList, e.hasStmtList = v, true
			}
		case dwarf.AttrCompDir:
			e.compDir = stringAttr(form, v)
		case dwarf.AttrAddrBase:
			e.addrBase = offsetAttr(form, v)
		case dwarf.AttrStrOffsetsBase:
			e.strOffBase = offsetAttr(form, v)
		case dwarf.AttrRnglistsBase:
			e.rngBase = offsetAttr(form, v)
		}
	}
	return nil
}

// formValue reads an attribute's form (at.form, or the one that follows
// for DW_FORM_indirect) and value: the number it holds (an address,
// constant, offset, reference or index; for DW_FORM_string the string's
// offset in .debug_info), or 0 for blocks.
func formValue(c *cursor, u *infoUnit, at *abbrevAttr) (form, v uint64, err error) {
	form = uint64(at.form)
	if form == formIndirect {
		form = c.uleb()
	}
	switch form {
	case formAddr:
		v = c.fixed(u.addrSize)
	case formData1, formRef1, formFlag, formStrx1, formAddrx1:
		v = c.fixed(1)
	case formData2, formRef2, formStrx2, formAddrx2:
		v = c.fixed(2)
	case formStrx3, formAddrx3:
		v = c.fixed(3)
	case formData4, formRef4, formRefSup4, formStrx4, formAddrx4:
		v = c.fixed(4)
	case formData8, formRef8, formRefSig8, formRefSup8:
		v = c.fixed(8)
	case formData16:
		c.skip(16)
	case formUdata, formRefUdata, formStrx, formAddrx, formLoclistx, formRnglistx, formGNUAddrIndex, formGNUStrIndex:
		v = c.uleb()
	case formSdata:
		v = uint64(c.sleb())
	case formString:
		v = c.i
		if n := bytes.IndexByte(c.b[min(c.i, uint64(len(c.b))):], 0); n >= 0 {
			c.i += uint64(n) + 1
		} else {
			c.bad = true
		}
	case formStrp, formLineStrp, formSecOffset, formStrpSup, formGNURefAlt, formGNUStrpAlt:
		v = c.fixed(u.offSize())
	case formRefAddr:
		if u.vers == 2 {
			v = c.fixed(u.addrSize)
		} else {
			v = c.fixed(u.offSize())
		}
	case formBlock1:
		c.skip(c.fixed(1))
	case formBlock2:
		c.skip(c.fixed(2))
	case formBlock4:
		c.skip(c.fixed(4))
	case formBlock, formExprloc:
		c.skip(c.uleb())
	case formFlagPresent:
		v = 1
	case formImplicitConst:
		v = uint64(at.implicit)
	default:
		return form, 0, fmt.Errorf("unknown attribute form %#x", form)
	}
	if c.bad {
		return form, 0, errTruncated
	}
	return form, v, nil
}

// isConstant reports whether form is of the constant class.
func isConstant(form uint64) bool {
	switch form {
	case formData1, formData2, formData4, formData8, formUdata, formSdata, formImplicitConst:
		return true
	}
	return false
}

// offsetAttr is the value of a section offset attribute (the *_base
// ones), or 0.
func offsetAttr(form, v uint64) uint64 {
	if form == formSecOffset || isConstant(form) {
		return v
	}
	return 0
}

func reference(u *infoUnit, form, v uint64) (uint64, bool) {
	switch form {
	case formRef1, formRef2, formRef4, formRef8, formRefUdata:
		return u.off + v, true
	case formRefAddr:
		return v, true
	}
	return 0, false
}

func addressAttr(form, v uint64, high bool) addrVal {
	switch form {
	case formAddr:
		return addrVal{v, addrAbs}
	case formAddrx, formAddrx1, formAddrx2, formAddrx3, formAddrx4:
		return addrVal{v, addrIndex}
	}
	if high && isConstant(form) {
		return addrVal{v, addrLength}
	}
	return addrVal{}
}

func stringAttr(form, v uint64) strRef {
	switch form {
	case formString, formStrp, formLineStrp, formStrx, formStrx1, formStrx2, formStrx3, formStrx4:
		return strRef{uint16(form), v}
	}
	return strRef{}
}

// address resolves an address attribute that is an address or an index
// into .debug_addr.
func (x *infoData) address(u *infoUnit, a addrVal) (uint64, bool) {
	switch a.kind {
	case addrAbs:
		return a.v, true
	case addrIndex:
		return x.debugAddr(u, u.addrBase, a.v)
	}
	return 0, false
}

func (x *infoData) debugAddr(u *infoUnit, base, idx uint64) (uint64, bool) {
	if base > uint64(len(x.sec.addr)) || idx > uint64(len(x.sec.addr))/u.addrSize {
		return 0, false
	}
	c := x.cursor(x.sec.addr, base+idx*u.addrSize)
	v := c.fixed(u.addrSize)
	return v, !c.bad
}

// str reads a string attribute; "" when absent or unreadable.
func (x *infoData) str(u *infoUnit, s strRef) string {
	var sec []byte
	off := s.v
	switch s.form {
	case formString:
		sec = x.sec.info
	case formStrp:
		sec = x.sec.str
	case formLineStrp:
		sec = x.sec.lineStr
	case formStrx, formStrx1, formStrx2, formStrx3, formStrx4:
		n := u.offSize()
		if off > uint64(len(x.sec.strOffsets))/n {
			return ""
		}
		c := x.cursor(x.sec.strOffsets, u.strOffBase+off*n)
		off = c.fixed(n)
		if c.bad {
			return ""
		}
		sec = x.sec.str
	default:
		return ""
	}
	if off >= uint64(len(sec)) {
		return ""
	}
	b := sec[off:]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return string(b[:i])
	}
	return ""
}

// ranges returns the address ranges of an entry of unit u (appended to
// dst): DW_AT_low_pc and DW_AT_high_pc, and DW_AT_ranges's list.
func (x *infoData) ranges(u *infoUnit, e *die, dst [][2]uint64) ([][2]uint64, error) {
	if lo, ok := x.address(u, e.low); ok {
		switch e.high.kind {
		case addrLength:
			dst = append(dst, [2]uint64{lo, lo + e.high.v})
		case addrAbs, addrIndex:
			if hi, ok := x.address(u, e.high); ok {
				dst = append(dst, [2]uint64{lo, hi})
			}
		}
	}
	if e.rangesForm == 0 {
		return dst, nil
	}
	if u.vers >= 5 && x.sec.rnglists != nil {
		off := e.ranges
		if e.rangesForm == formRnglistx {
			// An index into the offsets that follow the header.
			n := u.offSize()
			if off > uint64(len(x.sec.rnglists))/n {
				return dst, fmt.Errorf("entry at %#x: range list index %d out of range", e.off, off)
			}
			c := x.cursor(x.sec.rnglists, u.rngBase+off*n)
			off = u.rngBase + c.fixed(n)
			if c.bad {
				return dst, fmt.Errorf("entry at %#x: range list index %d out of range", e.off, e.ranges)
			}
		}
		return x.rnglist(u, off, dst)
	}
	if x.sec.ranges != nil && e.rangesForm == formSecOffset {
		return x.rangeList(u, e.ranges, dst)
	}
	return dst, nil
}

// rangeList reads a range list of .debug_ranges (DWARF 2 to 4).
func (x *infoData) rangeList(u *infoUnit, off uint64, dst [][2]uint64) ([][2]uint64, error) {
	if off > uint64(len(x.sec.ranges)) {
		return dst, fmt.Errorf("range list offset %#x out of range", off)
	}
	c := x.cursor(x.sec.ranges, off)
	base := u.base
	maxAddr := ^uint64(0) >> (64 - 8*u.addrSize)
	for c.i < uint64(len(c.b)) {
		lo, hi := c.fixed(u.addrSize), c.fixed(u.addrSize)
		switch {
		case c.bad:
			return dst, fmt.Errorf("range list at %#x: %w", off, errTruncated)
		case lo == 0 && hi == 0:
			return dst, nil
		case lo == maxAddr:
			base = hi
		default:
			dst = append(dst, [2]uint64{base + lo, base + hi})
		}
	}
	return dst, nil
}

// The range list entries of DWARF 5 (DW_RLE_*).
const (
	rleEndOfList    = 0
	rleBaseAddressx = 1
	rleStartxEndx   = 2
	rleStartxLength = 3
	rleOffsetPair   = 4
	rleBaseAddress  = 5
	rleStartEnd     = 6
	rleStartLength  = 7
)

// rnglist reads a range list of .debug_rnglists (DWARF 5).
func (x *infoData) rnglist(u *infoUnit, off uint64, dst [][2]uint64) ([][2]uint64, error) {
	if off > uint64(len(x.sec.rnglists)) {
		return dst, fmt.Errorf("range list offset %#x out of range", off)
	}
	c := x.cursor(x.sec.rnglists, off)
	base := u.base
	addr := func(idx uint64) uint64 {
		a, ok := x.debugAddr(u, u.addrBase, idx)
		if !ok {
			c.bad = true
		}
		return a
	}
	for !c.bad {
		switch op := c.u8(); op {
		case rleEndOfList:
			if c.bad {
				break
			}
			return dst, nil
		case rleBaseAddressx:
			base = addr(c.uleb())
		case rleStartxEndx:
			lo := addr(c.uleb())
			dst = append(dst, [2]uint64{lo, addr(c.uleb())})
		case rleStartxLength:
			lo := addr(c.uleb())
			dst = append(dst, [2]uint64{lo, lo + c.uleb()})
		case rleOffsetPair:
			lo := c.uleb()
			dst = append(dst, [2]uint64{base + lo, base + c.uleb()})
		case rleBaseAddress:
			base = c.fixed(u.addrSize)
		case rleStartEnd:
			lo := c.fixed(u.addrSize)
			dst = append(dst, [2]uint64{lo, c.fixed(u.addrSize)})
		case rleStartLength:
			lo := c.fixed(u.addrSize)
			dst = append(dst, [2]uint64{lo, lo + c.uleb()})
		default:
			return dst, fmt.Errorf("range list at %#x: unknown entry kind %d", off, op)
		}
	}
	return dst, fmt.Errorf("range list at %#x: %w", off, errTruncated)
}

// skipChildren returns the offset after the children of e (read at off,
// its children starting at next): its sibling's, when it names it, else
// found by reading the children.
func (x *infoData) skipChildren(u *infoUnit, e *die, next uint64) (uint64, error) {
	if !e.children {
		return next, nil
	}
	if e.sibling > e.off && e.sibling <= u.end {
		return e.sibling, nil
	}
	var c die
	for depth := 1; depth > 0; {
		at := next
		var (
			tag      dwarf.Tag
			children bool
			err      error
		)
		if next, tag, children, err = x.skipDIE(u, at); err != nil {
			return u.end, err
		}
		switch {
		case tag == 0:
			depth--
		case children:
			if _, err := x.readDIE(u, at, &c); err != nil {
				return u.end, err
			}
			if c.sibling > at && c.sibling <= u.end {
				next = c.sibling
			} else {
				depth++
			}
		}
	}
	return next, nil
}

// cursor reads DWARF's encodings from b. Reading past the end sets bad
// and gives zeros, so that a whole entry is checked once.
type cursor struct {
	b   []byte
	i   uint64
	big bool
	bad bool
}

func (x *infoData) cursor(b []byte, off uint64) cursor {
	return cursor{b: b, i: off, big: x.big}
}

func (c *cursor) u8() uint64 {
	if c.i >= uint64(len(c.b)) {
		c.bad = true
		return 0
	}
	v := c.b[c.i]
	c.i++
	return uint64(v)
}

// fixed reads an n-byte unsigned integer, n at most 8.
func (c *cursor) fixed(n uint64) uint64 {
	if c.i > uint64(len(c.b)) || n > uint64(len(c.b))-c.i {
		c.bad = true
		c.i = uint64(len(c.b))
		return 0
	}
	p := c.b[c.i : c.i+n]
	c.i += n
	if !c.big {
		switch n {
		case 2:
			return uint64(binary.LittleEndian.Uint16(p))
		case 4:
			return uint64(binary.LittleEndian.Uint32(p))
		case 8:
			return binary.LittleEndian.Uint64(p)
		}
	}
	var v uint64
	for k := range p {
		if c.big {
			v = v<<8 | uint64(p[k])
		} else {
			v = v<<8 | uint64(p[len(p)-1-k])
		}
	}
	return v
}

func (c *cursor) skip(n uint64) {
	if c.i > uint64(len(c.b)) || n > uint64(len(c.b))-c.i {
		c.bad = true
		c.i = uint64(len(c.b))
		return
	}
	c.i += n
}

func (c *cursor) uleb() uint64 {
	if c.i < uint64(len(c.b)) && c.b[c.i] < 0x80 { // the usual one byte
		c.i++
		return uint64(c.b[c.i-1])
	}
	v, _ := c.leb()
	return v
}

func (c *cursor) sleb() int64 {
	v, bits := c.leb()
	if bits < 64 && v>>(bits-1)&1 != 0 {
		v |= ^uint64(0) << bits // sign-extend
	}
	return int64(v)
}

// leb reads the bits of an LEB128 number, and how many there are.
func (c *cursor) leb() (v uint64, bits uint) {
	for {
		if c.i >= uint64(len(c.b)) {
			c.bad = true
			return 0, 7
		}
		b := c.b[c.i]
		c.i++
		if bits < 64 {
			v |= uint64(b&0x7f) << bits
		}
		bits += 7
		if b < 0x80 {
			return v, bits
		}
	}
}
