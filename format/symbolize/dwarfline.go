package symbolize

import (
	"fmt"
	"path"
	"strings"
)

// lineProgram runs a compilation unit's line number program (DWARF 2 to
// 5) row by row, as debug/dwarf's LineReader does, without copying its
// whole state into a row for each one: the line tables of a big binary
// are megabytes of opcodes, and only a few registers matter here.
type lineProgram struct {
	c          cursor // the opcodes
	vers       int
	addrSize   uint64
	minInst    uint64
	maxOps     uint64
	lineBase   int64
	lineRange  uint64
	opcodeBase uint64
	opLengths  []byte // argument counts of the standard opcodes 1 to opcodeBase-1
	dirs       []string
	files      []string // by file register value; "" for none
	err        error

	// The state machine's registers.
	addr, opIndex, file uint64
	line                int64
}

// lineState is a row of the table.
type lineState struct {
	addr uint64
	file uint64
	line int64
	end  bool // the row ends a sequence
}

// Content types of DWARF 5 directory and file entries (DW_LNCT_*).
const (
	lnctPath     = 1
	lnctDirIndex = 2
)

// lineProgram reads the header of the line table of unit u, whose own
// entry is cu; nil without error for a unit without one.
func (x *infoData) lineProgram(u *infoUnit, cu *die) (*lineProgram, error) {
	if !cu.hasStmtList {
		return nil, nil
	}
	sec := x.sec.line
	off := cu.stmtList
	if off >= uint64(len(sec)) {
		return nil, fmt.Errorf("line table offset %#x out of range", off)
	}
	c := x.cursor(sec, off)
	is64 := false
	length := c.fixed(4)
	if length == 0xffffffff {
		is64, length = true, c.fixed(8)
	}
	if c.bad || length > uint64(len(sec))-c.i {
		return nil, fmt.Errorf("line table at %#x: %w", off, errTruncated)
	}
	c.b = sec[:c.i+length]
	p := &lineProgram{vers: int(c.fixed(2)), addrSize: u.addrSize}
	if p.vers < 2 || p.vers > 5 {
		return nil, fmt.Errorf("line table at %#x: unknown version %d", off, p.vers)
	}
	if p.vers >= 5 {
		p.addrSize = c.u8()
		c.u8() // segment selector size
	}
	offSize := uint64(4)
	if is64 {
		offSize = 8
	}
	headerLength := c.fixed(offSize)
	if headerLength > uint64(len(c.b))-c.i {
		return nil, fmt.Errorf("line table at %#x: header longer than the table", off)
	}
	program := c.i + headerLength
	p.minInst = c.u8()
	p.maxOps = 1
	if p.vers >= 4 {
		p.maxOps = c.u8()
	}
	c.u8() // default is_stmt
	p.lineBase = int64(int8(c.u8()))
	p.lineRange = c.u8()
	p.opcodeBase = c.u8()
	if c.bad || p.maxOps == 0 || p.lineRange == 0 {
		return nil, fmt.Errorf("line table at %#x: bad header", off)
	}
	if p.opcodeBase > 0 {
		at := c.i
		c.skip(p.opcodeBase - 1)
		if !c.bad {
			p.opLengths = c.b[at:c.i]
		}
	}
	compDir := x.str(u, cu.compDir)
	if p.vers < 5 {
		p.dirs = []string{compDir}
		for !c.bad {
			dir := c.cstring()
			if dir == "" {
				break
			}
			if !pathIsAbs(dir) {
				dir = pathJoin(compDir, dir)
			}
			p.dirs = append(p.dirs, dir)
		}
		p.files = []string{""} // file numbers start at 1
		for !c.bad {
			done, err := p.readFileEntry(&c)
			if err != nil {
				return nil, fmt.Errorf("line table at %#x: %w", off, err)
			}
			if done {
				break
			}
		}
	} else {
		var err error
		if p.dirs, err = x.readEntries(u, &c, nil, offSize); err == nil {
			p.files, err = x.readEntries(u, &c, p.dirs, offSize)
		}
		if err != nil {
			return nil, fmt.Errorf("line table at %#x: %w", off, err)
		}
	}
	if c.bad {
		return nil, fmt.Errorf("line table at %#x: %w header", off, errTruncated)
	}
	c.i = program
	p.c = c
	p.reset()
	return p, nil
}

// readFileEntry reads a file entry of a DWARF 2 to 4 header or of
// DW_LNE_define_file; done at the empty name that ends the list.
func (p *lineProgram) readFileEntry(c *cursor) (done bool, err error) {
	name := c.cstring()
	if name == "" || c.bad {
		return true, nil
	}
	dir := c.uleb()
	c.uleb() // modification time
	c.uleb() // length
	if !pathIsAbs(name) {
		if dir >= uint64(len(p.dirs)) {
			return false, fmt.Errorf("directory index %d out of range", dir)
		}
		name = pathJoin(p.dirs[dir], name)
	}
	p.files = append(p.files, name)
	return false, nil
}

// readEntries reads the directory (dirs == nil) or file entries of a
// DWARF 5 header: their format, then the entries, of which only the
// path and directory index are kept.
func (x *infoData) readEntries(u *infoUnit, c *cursor, dirs []string, offSize uint64) ([]string, error) {
	nformat := c.u8()
	format := make([][2]uint64, nformat)
	for i := range format {
		format[i] = [2]uint64{c.uleb(), c.uleb()}
	}
	n := c.uleb()
	if c.bad || n > uint64(len(c.b))-c.i {
		return nil, errTruncated
	}
	out := make([]string, n)
	for i := range out {
		var p, dir string
		for _, f := range format {
			var str string
			var v uint64
			switch f[1] {
			case formString:
				str = c.cstring()
			case formStrp, formLineStrp:
				str = x.str(u, strRef{uint16(f[1]), c.fixed(offSize)})
			case formStrpSup:
				c.skip(offSize)
			case formStrx, formUdata:
				v = c.uleb()
			case formStrx1, formData1:
				v = c.fixed(1)
			case formStrx2, formData2:
				v = c.fixed(2)
			case formStrx3:
				c.skip(3)
			case formStrx4, formData4:
				v = c.fixed(4)
			case formData8:
				v = c.fixed(8)
			case formData16:
				c.skip(16)
			case formBlock:
				c.skip(c.uleb())
			default:
				return nil, fmt.Errorf("unknown form %#x in the file table", f[1])
			}
			switch f[0] {
			case lnctPath:
				p = str
			case lnctDirIndex:
				if v >= uint64(len(dirs)) {
					return nil, fmt.Errorf("directory index %d out of range", v)
				}
				dir = dirs[v]
			}
		}
		if c.bad {
			return nil, errTruncated
		}
		if dir != "" && p != "" {
			p = pathJoin(dir, p)
		}
		out[i] = p
	}
	return out, nil
}

func (p *lineProgram) reset() {
	p.addr, p.opIndex, p.file, p.line = 0, 0, 1, 1
}

func (p *lineProgram) advance(ops uint64) {
	if p.maxOps == 1 {
		p.addr += p.minInst * ops
		return
	}
	i := p.opIndex + ops
	p.addr += p.minInst * (i / p.maxOps)
	p.opIndex = i % p.maxOps
}

// The standard and extended opcodes (DW_LNS_*, DW_LNE_*).
const (
	lnsCopy             = 1
	lnsAdvancePC        = 2
	lnsAdvanceLine      = 3
	lnsSetFile          = 4
	lnsSetColumn        = 5
	lnsNegateStmt       = 6
	lnsSetBasicBlock    = 7
	lnsConstAddPC       = 8
	lnsFixedAdvancePC   = 9
	lnsSetPrologueEnd   = 10
	lnsSetEpilogueBegin = 11
	lnsSetISA           = 12

	lneEndSequence      = 1
	lneSetAddress       = 2
	lneDefineFile       = 3
	lneSetDiscriminator = 4
)

// next runs the program to its next row; false at its end or on an
// error (p.err).
func (p *lineProgram) next(row *lineState) bool {
	c := &p.c
	for c.i < uint64(len(c.b)) && p.err == nil {
		op := c.u8()
		if op >= p.opcodeBase {
			op -= p.opcodeBase
			p.advance(op / p.lineRange)
			p.line += p.lineBase + int64(op%p.lineRange)
			*row = lineState{addr: p.addr, file: p.file, line: p.line}
			return true
		}
		switch op {
		case 0:
			n := c.uleb()
			start := c.i
			if c.bad || n == 0 || n > uint64(len(c.b))-start {
				p.err = errTruncated
				return false
			}
			switch c.u8() {
			case lneEndSequence:
				*row = lineState{addr: p.addr, file: p.file, line: p.line, end: true}
				p.reset()
				c.i = start + n
				return true
			case lneSetAddress:
				switch p.addrSize {
				case 1, 2, 4, 8:
					p.addr, p.opIndex = c.fixed(p.addrSize), 0
				default:
					p.err = fmt.Errorf("address size %d", p.addrSize)
				}
			case lneDefineFile:
				if done, err := p.readFileEntry(c); err != nil || done {
					p.err = fmt.Errorf("bad DW_LNE_define_file")
				}
			}
			if c.i > start+n {
				p.err = fmt.Errorf("extended opcode longer than its length")
			}
			c.i = start + n
		case lnsCopy:
			*row = lineState{addr: p.addr, file: p.file, line: p.line}
			return true
		case lnsAdvancePC:
			p.advance(c.uleb())
		case lnsAdvanceLine:
			p.line += c.sleb()
		case lnsSetFile:
			p.file = c.uleb()
		case lnsConstAddPC:
			p.advance((255 - p.opcodeBase) / p.lineRange)
		case lnsFixedAdvancePC:
			p.addr += c.fixed(2)
		case lnsSetColumn, lnsSetISA:
			c.uleb()
		case lnsNegateStmt, lnsSetBasicBlock, lnsSetPrologueEnd, lnsSetEpilogueBegin:
		default:
			for range p.opLengths[op-1] {
				c.uleb()
			}
		}
		if c.bad {
			p.err = errTruncated
		}
	}
	return false
}

// cstring reads a NUL-terminated string.
func (c *cursor) cstring() string {
	if c.i >= uint64(len(c.b)) {
		c.bad = true
		return ""
	}
	b := c.b[c.i:]
	for i, x := range b {
		if x == 0 {
			c.i += uint64(i) + 1
			return string(b[:i])
		}
	}
	c.bad = true
	c.i = uint64(len(c.b))
	return ""
}

// pathIsAbs and pathJoin are debug/dwarf's: DWARF paths can be UNIX or
// DOS style, whatever the host.
func pathIsAbs(path string) bool {
	_, path = splitDrive(path)
	return len(path) > 0 && (path[0] == '/' || path[0] == '\\')
}

// pathJoin joins dirname and filename; filename must be relative.
func pathJoin(dirname, filename string) string {
	if len(dirname) == 0 {
		return filename
	}
	drive, dirname := splitDrive(dirname)
	if drive == "" {
		return path.Join(dirname, filename)
	}
	drive2, filename := splitDrive(filename)
	if drive2 != "" {
		if !strings.EqualFold(drive, drive2) {
			return drive2 + filename
		}
	}
	if !(strings.HasSuffix(dirname, "/") || strings.HasSuffix(dirname, `\`)) && dirname != "" {
		sep := `\`
		if strings.HasPrefix(dirname, "/") {
			sep = `/`
		}
		dirname += sep
	}
	return drive + dirname + filename
}

// splitDrive splits a DOS drive letter or UNC share from path.
func splitDrive(path string) (drive, rest string) {
	if len(path) >= 2 && path[1] == ':' {
		if c := path[0]; 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			return path[:2], path[2:]
		}
	}
	if len(path) > 3 && (path[0] == '\\' || path[0] == '/') && (path[1] == '\\' || path[1] == '/') {
		npath := strings.ReplaceAll(path, "/", `\`)
		if slash1 := strings.IndexByte(npath[2:], '\\') + 2; slash1 > 2 {
			if slash2 := strings.IndexByte(npath[slash1+1:], '\\') + slash1 + 1; slash2 > slash1 {
				return path[:slash2], path[slash2:]
			}
		}
	}
	return "", path
}
