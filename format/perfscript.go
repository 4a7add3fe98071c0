package format

// Linux perf's `perf script` text, the samples perf recorded as perf
// itself symbolized them:
//
//	perfwork  2566/2568 [001]   887.007678:    2004008 cpu-clock:ppp:
//		ffffffff8225fd19 pvm_irq_enable+0x19 ([kernel.kallsyms])
//		            1169 spin+0x19 (/tmp/perfwork)
//		    7f9fca2f2ad7 [unknown] ([unknown])
//	(blank line)
//
// A header per sample: the command (comm, which may hold spaces), the
// thread id or pid/tid, the CPU when recorded, the time, the period and
// the event name; then the call chain, leaf first, one frame per line
// (without -g the one frame ends the header line). Each event becomes two
// sample types, its period sum ("cpu-clock", in nanoseconds for the clock
// events) and its sample count ("cpu-clock_samples"), so a profile of
// several events keeps each apart, as perf report does. comm is a string
// label, pid, tid and cpu numeric labels. Frames keep perf's names; a
// frame perf could not name stays an address in its module, which pprof
// shows as [module], or as <unknown> when perf knew no module either.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var (
	// perfHeaderRE is a sample's first line. comm is greedy, so a
	// command name ending in a number still leaves the last number
	// before the time to the thread id.
	perfHeaderRE = regexp.MustCompile(`^\s*(.*?)\s+(\d+)(?:/(\d+))?\s+(?:\[(\d+)\]\s+)?(\d+\.\d+):\s+(?:(\d+)\s+)?(\S+?):(?:\s+(.*))?$`)
	// perfModifiersRE is an event modifier suffix (cycles:u, cpu-clock:ppp).
	perfModifiersRE = regexp.MustCompile(`:[ukhIGHpPSDWe]+$`)
	perfSymOffRE    = regexp.MustCompile(`\+0x[0-9a-fA-F]+$`)
	perfSrclineRE   = regexp.MustCompile(`^\s+\S+:\d+$`)
)

// isPerfScript recognises perf script text by its first sample header,
// or by the header block `perf script --header` starts with (which may
// outlast head).
func isPerfScript(head []byte) bool {
	if bytes.HasPrefix(head, []byte("# ========\n# captured on")) {
		return true
	}
	for len(head) > 0 {
		var line []byte
		line, head, _ = bytes.Cut(head, []byte{'\n'})
		l := strings.TrimRight(string(line), "\r")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			continue
		}
		return perfHeaderRE.MatchString(l) && !strings.HasPrefix(l, "\t")
	}
	return false
}

// perfFrame parses a call chain line "ADDR SYMBOL[+0xOFF] (MODULE)".
func perfFrame(l string) (addr uint64, sym, module string, ok bool) {
	l = strings.TrimSpace(l)
	sp := strings.IndexAny(l, " \t")
	if sp <= 0 || !strings.HasSuffix(l, ")") {
		return 0, "", "", false
	}
	a, err := strconv.ParseUint(l[:sp], 16, 64)
	if err != nil {
		return 0, "", "", false
	}
	rest := strings.TrimLeft(l[sp:], " \t")
	// The module is the last parenthesised group: "(/tmp/x (deleted))"
	// is one.
	depth, open := 0, -1
	for i := len(rest) - 1; i >= 0; i-- {
		switch rest[i] {
		case ')':
			depth++
		case '(':
			depth--
		}
		if depth == 0 {
			open = i
			break
		}
	}
	if open < 0 {
		return 0, "", "", false
	}
	module = rest[open+1 : len(rest)-1]
	sym = perfSymOffRE.ReplaceAllString(strings.TrimSpace(rest[:open]), "")
	return a, sym, module, true
}

// perfUnit is the unit of an event's period.
func perfUnit(event string) string {
	switch event {
	case "cpu-clock", "task-clock":
		return "nanoseconds"
	}
	return "count"
}

type perfParser struct {
	p      *Profile
	b      *builder
	events map[string]int // event name as printed -> its period column
	// bare holds the event names seen, without their modifiers (cycles
	// for cycles:u).
	bare  map[string]bool
	locOf map[perfLocKey]int32
	fnOf  map[string]int32
	mapOf map[string]int32
	keys  struct{ comm, pid, tid, cpu int32 }
	// firstComm is the command of the first sample, whose executable
	// becomes the first mapping: pprof names a profile by it ("File:").
	firstComm int32
	cur       perfSample
	values    []int64 // scratch
}

// perfSample is the sample being read: its header's parts, then the
// frames of its call chain.
type perfSample struct {
	open   bool // a header was read and its sample not yet added
	locs   []int32
	col    int // of its event's sample count
	period int64
	labels int32
	num    []NumLabel
	single string // a frame on the header line (no call chains)
}

// mainMappingFirst moves the mapping of the first sample's command (perf
// cuts comm to 15 bytes) to the front.
func (pp *perfParser) mainMappingFirst() {
	p := pp.p
	if pp.firstComm < 0 {
		return
	}
	comm := p.Strings[pp.firstComm]
	main := -1
	for i, m := range p.Mappings {
		base := m.File[strings.LastIndexByte(m.File, '/')+1:]
		if comm != "" && strings.HasPrefix(base, comm) {
			main = i
			break
		}
	}
	if main <= 0 {
		return
	}
	p.Mappings[0], p.Mappings[main] = p.Mappings[main], p.Mappings[0]
	p.Mappings[0].ID, p.Mappings[main].ID = 1, uint64(main)+1
	for i := range p.Locations {
		switch p.Locations[i].Mapping {
		case 0:
			p.Locations[i].Mapping = int32(main)
		case int32(main):
			p.Locations[i].Mapping = 0
		}
	}
}

type perfLocKey struct {
	addr        uint64
	sym, module string
}

// parsePerfScript reads perf script text.
func parsePerfScript(data []byte, m *meter) (*Profile, error) {
	pp := newPerfParser(m)
	r := &lineReader{data: data}
	for {
		l, ok := r.next()
		if !ok {
			break
		}
		if strings.TrimSpace(l) == "" {
			if err := pp.flush(); err != nil {
				return nil, r.lineError(err)
			}
			continue
		}
		if l[0] == ' ' || l[0] == '\t' {
			if !pp.cur.open {
				return nil, r.errorf("call chain line before any sample header: %s", quoteLine(l))
			}
			if err := pp.frame(l, &pp.cur.locs); err != nil {
				if perfSrclineRE.MatchString(l) {
					continue // perf script -F +srcline
				}
				return nil, r.lineError(err)
			}
			continue
		}
		if strings.HasPrefix(l, "#") {
			continue
		}
		if err := pp.header(r, l); err != nil {
			return nil, err
		}
	}
	if err := pp.flush(); err != nil {
		return nil, r.lineError(err)
	}
	return pp.finish()
}

func newPerfParser(m *meter) *perfParser {
	pp := &perfParser{
		p:      &Profile{},
		events: map[string]int{},
		bare:   map[string]bool{},
		locOf:  map[perfLocKey]int32{},
		fnOf:   map[string]int32{},
		mapOf:  map[string]int32{},
	}
	pp.b = newBuilder(pp.p)
	b := pp.b
	b.mem = m
	b.countSums()
	b.str("")
	pp.firstComm = -1
	pp.keys.comm, pp.keys.pid, pp.keys.tid, pp.keys.cpu = b.str("comm"), b.str("pid"), b.str("tid"), b.str("cpu")
	return pp
}

// flush adds the sample being read, if any.
func (pp *perfParser) flush() error {
	c := &pp.cur
	if !c.open {
		return nil
	}
	c.open = false
	if len(c.locs) == 0 && c.single != "" {
		if err := pp.frame(c.single, &c.locs); err != nil {
			return err
		}
	}
	st, err := pp.b.stack(c.locs)
	if err != nil {
		return err
	}
	values := grow(pp.values[:0], len(pp.p.SampleTypes))[:len(pp.p.SampleTypes)]
	pp.values = values
	clear(values)
	values[c.col], values[c.col+1] = 1, c.period
	return pp.b.sample(st, values, c.labels, c.num)
}

// header adds the sample before it and starts the one a sample header
// line l begins: its event, period, command, and pid, tid and cpu labels.
func (pp *perfParser) header(r *lineReader, l string) error {
	m := perfHeaderRE.FindStringSubmatch(l)
	if m == nil {
		return r.errorf("not a perf script sample header (want COMM PID/TID [CPU] TIME: PERIOD EVENT:): %s", quoteLine(l))
	}
	if err := pp.flush(); err != nil {
		return r.lineError(err)
	}
	b, c := pp.b, &pp.cur
	c.open = true
	c.locs = c.locs[:0]
	c.single = strings.TrimSpace(m[8])
	if _, _, _, ok := perfFrame(c.single); !ok {
		c.single = "" // a tracepoint's fields
	}
	var err error
	if c.col, err = pp.event(m[7]); err != nil {
		return r.lineError(err)
	}
	c.period = 1
	if m[6] != "" {
		if c.period, err = strconv.ParseInt(m[6], 10, 64); err != nil {
			return r.errorf("period %s out of range", trimForError(m[6]))
		}
	}
	if pp.p.Period == 0 && c.col == 0 {
		pp.p.Period = c.period
	}
	comm := b.str(strings.TrimSpace(m[1]))
	if pp.firstComm < 0 {
		pp.firstComm = comm
	}
	if c.labels, err = b.labelSet([]StrLabel{{Key: pp.keys.comm, Value: comm}}); err != nil {
		return r.lineError(err)
	}
	c.num = c.num[:0]
	// One number is the thread id; "pid/tid" gives both.
	pid, tid := "", m[2]
	if m[3] != "" {
		pid, tid = m[2], m[3]
	}
	for _, id := range [...]struct {
		key int32
		s   string
	}{{pp.keys.pid, pid}, {pp.keys.tid, tid}, {pp.keys.cpu, m[4]}} {
		if id.s == "" {
			continue
		}
		v, err := strconv.ParseInt(id.s, 10, 64)
		if err != nil {
			return r.errorf("%s %s out of range", pp.p.Strings[id.key], trimForError(id.s))
		}
		c.num = append(c.num, NumLabel{Key: id.key, Value: v})
	}
	return nil
}

// finish puts the main mapping first and the names in the string table.
func (pp *perfParser) finish() (*Profile, error) {
	if pp.p.Samples.Len() == 0 {
		return nil, fmt.Errorf("no samples")
	}
	pp.mainMappingFirst()
	b := pp.b
	for i := range pp.p.Functions {
		b.str(pp.p.Functions[i].Name)
	}
	for i := range pp.p.Mappings {
		b.str(pp.p.Mappings[i].File)
	}
	if b.err != nil {
		return nil, b.err
	}
	return pp.p, nil
}

// event returns the column of the sample count of event (as printed,
// modifiers included), adding its two sample types when it is new.
func (pp *perfParser) event(printed string) (int, error) {
	if col, ok := pp.events[printed]; ok {
		return col, nil
	}
	name := perfModifiersRE.ReplaceAllString(printed, "")
	if pp.bare[name] {
		name = printed // cycles:u and cycles:k stay apart
	} else {
		pp.bare[name] = true
	}
	if len(pp.events) >= 1024 {
		return 0, fmt.Errorf("more than 1024 events")
	}
	p := pp.p
	col := len(p.SampleTypes)
	unit := perfUnit(name)
	p.SampleTypes = append(p.SampleTypes, ValueType{Type: name + "_samples", Unit: "count"}, ValueType{Type: name, Unit: unit})
	pp.b.str(name + "_samples")
	pp.b.str("count")
	pp.b.str(name)
	pp.b.str(unit)
	if col == 0 {
		p.DefaultSampleType = name
		p.PeriodType = ValueType{Type: name, Unit: unit}
	}
	// Every sample, those before and those to come, has a value in the
	// two new columns: many event names make every sample large.
	n := p.Samples.Len()
	if err := pp.b.mem.charge(16 * int64(n)); err != nil {
		return 0, fmt.Errorf("event %s: %w", trimForError(name), err)
	}
	p.Samples.Values = append(p.Samples.Values, make([]int64, n), make([]int64, n))
	pp.events[printed] = col
	return col, nil
}

// frame appends the location of call chain line l to locs.
func (pp *perfParser) frame(l string, locs *[]int32) error {
	addr, sym, module, ok := perfFrame(l)
	if !ok {
		return fmt.Errorf("want a call chain line ADDRESS SYMBOL (MODULE), got %s", quoteLine(l))
	}
	if sym == "[unknown]" {
		sym = ""
	}
	if module == "[unknown]" {
		module = ""
	}
	key := perfLocKey{addr, sym, module}
	li, ok := pp.locOf[key]
	if !ok {
		p := pp.p
		if len(p.Locations) == 1<<31-1 {
			return fmt.Errorf("too many distinct frames")
		}
		if err := pp.b.mem.charge(locationCost + functionCost + int64(len(sym)) + mappingCost + int64(len(module))); err != nil {
			return err
		}
		li = int32(len(p.Locations))
		loc := Location{ID: uint64(li) + 1, Mapping: -1, Address: addr}
		if module != "" {
			mi, ok := pp.mapOf[module]
			if !ok {
				mi = int32(len(p.Mappings))
				// perf named the frames it could: nothing to symbolize.
				p.Mappings = append(p.Mappings, Mapping{ID: uint64(mi) + 1, File: module, HasFunctions: true})
				pp.mapOf[module] = mi
			}
			loc.Mapping = mi
		}
		if sym != "" {
			fi, ok := pp.fnOf[sym]
			if !ok {
				fi = int32(len(p.Functions))
				p.Functions = append(p.Functions, Function{ID: uint64(fi) + 1, Name: sym, SystemName: sym})
				pp.fnOf[sym] = fi
			}
			loc.Lines = p.AddLines(Line{Function: fi})
		}
		p.Locations = append(p.Locations, loc)
		pp.locOf[key] = li
	}
	*locs = append(*locs, li)
	return nil
}

// perfDataMagic starts a perf.data file (perf's header, file and pipe
// modes).
var perfDataMagic = []byte("PERFILE2")

func isPerfData(head []byte) bool { return bytes.HasPrefix(head, perfDataMagic) }

// perfCommand is the perf executable; a variable for tests.
var perfCommand = "perf"

// perfTimeout bounds one `perf script` run: a perf.data file can make
// perf work for as long as it likes (a variable for tests).
var perfTimeout = 5 * time.Minute

// errNoPerf is Parse's answer to perf.data under Options.NoPrograms.
var errNoPerf = errors.New("perf.data: reading it runs Linux perf, which is not allowed here")

// parsePerfData runs the installed `perf script` on a perf.data file and
// reads its text: perf.data's records and its symbolization (build-id
// cache, kallsyms) are perf's own business. perf's output is held in
// memory: it is charged to the budget as it comes and capped at maxBytes
// like any decompressed input; perf runs in a process group of its own,
// killed whole when it takes longer than perfTimeout or writes too much.
func parsePerfData(data []byte, maxBytes int64, m *meter) (*Profile, error) {
	path, err := exec.LookPath(perfCommand)
	if err != nil {
		return nil, fmt.Errorf("perf.data: reading it needs Linux perf (`perf script`), which is not installed: %w", err)
	}
	f, err := os.CreateTemp("", "pprof-tui-*.perf.data")
	if err != nil {
		return nil, fmt.Errorf("perf.data: %w", err)
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, fmt.Errorf("perf.data: %w", werr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), perfTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "script", "-F", "+pid", "-i", f.Name())
	ownProcessGroup(cmd)
	// perf's children may hold its pipes open after it is killed.
	cmd.WaitDelay = 5 * time.Second
	// perf's text is several times the size of its perf.data: it is held
	// to the budget as it comes, and its decode to its own size.
	m.unbound()
	stdout := &cappedBuffer{max: maxBytes, full: cancel, m: m}
	stderr := &cappedBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil || stdout.err != nil {
		switch {
		case stdout.err != nil:
			// perf's own error would be its broken pipe.
			return nil, fmt.Errorf("perf.data: perf script output: %w", stdout.err)
		case stdout.over:
			return nil, fmt.Errorf("perf.data: perf script wrote more than %d bytes (-max_bytes); stopped", maxBytes)
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return nil, fmt.Errorf("perf.data: perf script ran longer than %v; stopped", perfTimeout)
		}
		msg := strings.TrimSpace(stderr.buf.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg != "" {
			err = fmt.Errorf("%w: %s", err, msg)
		}
		return nil, fmt.Errorf("perf.data: perf script: %w", err)
	}
	m.bound(int64(stdout.buf.Len()))
	p, err := parsePerfScript(stdout.buf.Bytes(), m)
	m.release(stdout.charged) // perf's text is garbage now
	if err != nil {
		return nil, fmt.Errorf("perf.data: perf script output: %w", err)
	}
	return p, nil
}

// cappedBuffer keeps up to max bytes; past that it fails the write and
// calls full, once. With a meter it charges the buffer's growth (twice
// over) and fails once the budget is spent. It holds its bytes.Buffer by
// name: an embedded one's ReadFrom would let io.Copy around Write.
type cappedBuffer struct {
	buf     bytes.Buffer
	max     int64
	over    bool
	full    func()
	m       *meter
	charged int64 // to m
	err     error // the meter's refusal
}

func (c *cappedBuffer) Write(b []byte) (int, error) {
	if int64(c.buf.Len())+int64(len(b)) > c.max {
		if !c.over && c.full != nil {
			c.full()
		}
		c.over = true
		return 0, errors.New("output too large")
	}
	if c.m != nil && c.buf.Len()+len(b) > c.buf.Cap() {
		n := int64(max(c.buf.Cap(), len(b)))
		if err := c.m.charge(n); err != nil {
			c.err = err
			return 0, err
		}
		c.charged += n
	}
	return c.buf.Write(b)
}
