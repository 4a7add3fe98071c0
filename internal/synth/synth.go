// Package synth writes large, deterministic, realistic-looking CPU profiles
// in the pprof format (gzipped profile.proto), for benchmarks and for
// exercising decoders at scale.
//
// The output looks like the CPU profile of a busy Go server: a layered call
// graph of Go-like functions (with a few long C++ names), walked with
// Zipf-skewed choices so a few paths are very hot and there is a long cold
// tail; inlined frames, self- and mutually-recursive functions, a libc
// mapping with unsymbolized leaf frames, and optional labels. The string
// table is written last, so decoders must resolve strings at the end.
//
// synth knows bytes only: it must not import format or anything above it.
package synth

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protowire"
)

// Config says what profile to synthesize. Zero fields take their defaults.
type Config struct {
	Samples   int    // number of Sample messages (e.g. 1_000_000)
	Functions int    // distinct functions in the call graph (default 3000, min 100)
	MaxDepth  int    // max stack depth in frames, inlined frames included (default 30, min 3)
	Seed      uint64 // the same Config always gives the same bytes
	// Labels adds string labels (service, endpoint, region; Zipf-distributed
	// values) and numeric labels (request_bytes in "bytes" and a
	// high-cardinality span_id with no unit) to request-serving samples.
	Labels bool
	// Shape is the kind of stacks (default Zipf); see Shape. Functions
	// defaults to 100,000 for Wide, and MaxDepth is ignored by the walk
	// shapes (Distinct, Wide, Deep), whose depths are fixed.
	Shape Shape
}

const (
	defaultFunctions = 3000
	minFunctions     = 100
	defaultMaxDepth  = 30
	minDepth         = 3

	period    = 10_000_000 // 10ms, as in Go CPU profiles
	timeNanos = 1_767_225_600_000_000_000

	mainStart = 0x400000
	textStart = 0x401000
	libcStart = 0x7f2c8a400000
	libcLimit = libcStart + 0x1bd000
	libcText  = 0x28000 // libc's text segment starts this far into the file

	// flushSize bounds the uncompressed bytes held before they go to gzip.
	flushSize = 256 << 10
)

// Field numbers from profile.proto.
const (
	profSampleType        protowire.Number = 1
	profSample            protowire.Number = 2
	profMapping           protowire.Number = 3
	profLocation          protowire.Number = 4
	profFunction          protowire.Number = 5
	profStringTable       protowire.Number = 6
	profTimeNanos         protowire.Number = 9
	profDurationNanos     protowire.Number = 10
	profPeriodType        protowire.Number = 11
	profPeriod            protowire.Number = 12
	profComment           protowire.Number = 13
	profDefaultSampleType protowire.Number = 14

	valueTypeType protowire.Number = 1
	valueTypeUnit protowire.Number = 2

	sampleLocationID protowire.Number = 1
	sampleValue      protowire.Number = 2
	sampleLabel      protowire.Number = 3

	labelKey     protowire.Number = 1
	labelStr     protowire.Number = 2
	labelNum     protowire.Number = 3
	labelNumUnit protowire.Number = 4

	mappingID              protowire.Number = 1
	mappingStart           protowire.Number = 2
	mappingLimit           protowire.Number = 3
	mappingOffset          protowire.Number = 4
	mappingFilename        protowire.Number = 5
	mappingBuildID         protowire.Number = 6
	mappingHasFunctions    protowire.Number = 7
	mappingHasFilenames    protowire.Number = 8
	mappingHasLineNumbers  protowire.Number = 9
	mappingHasInlineFrames protowire.Number = 10

	locationID        protowire.Number = 1
	locationMappingID protowire.Number = 2
	locationAddress   protowire.Number = 3
	locationLine      protowire.Number = 4

	lineFunctionID protowire.Number = 1
	lineLine       protowire.Number = 2

	functionID         protowire.Number = 1
	functionName       protowire.Number = 2
	functionSystemName protowire.Number = 3
	functionFilename   protowire.Number = 4
	functionStartLine  protowire.Number = 5
)

// Write writes a gzipped profile.proto for c to w. The output depends only
// on c: the RNG is seeded from c.Seed and the gzip header has no timestamp.
// Samples are compressed as they are generated, so memory stays small
// whatever c.Samples is.
func Write(w io.Writer, c Config) error {
	c, err := c.withDefaults()
	if err != nil {
		return err
	}
	zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	g := newGenerator(c)
	if err := g.write(zw); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	return nil
}

func (c Config) withDefaults() (Config, error) {
	if c.Shape == "" {
		c.Shape = Zipf
	}
	if c.Functions == 0 {
		c.Functions = defaultFunctions
		if c.Shape == Wide {
			c.Functions = wideFunctions
		}
	}
	if c.MaxDepth == 0 {
		c.MaxDepth = defaultMaxDepth
	}
	switch {
	case c.Shape != Zipf && c.Shape != Distinct && c.Shape != Wide && c.Shape != Deep:
		return c, fmt.Errorf("synth: Shape %q is not one of %v", c.Shape, Shapes)
	case c.Samples < 0:
		return c, fmt.Errorf("synth: Samples %d is negative", c.Samples)
	case c.Functions < minFunctions:
		return c, fmt.Errorf("synth: Functions %d is below the minimum %d", c.Functions, minFunctions)
	case c.MaxDepth < minDepth:
		return c, fmt.Errorf("synth: MaxDepth %d is below the minimum %d", c.MaxDepth, minDepth)
	}
	return c, nil
}

// function is a node of the synthetic call graph.
type function struct {
	name, file string
	startLine  int32
	layer      int    // -1 for hand-written functions off the layers
	size       uint64 // bytes of machine code, for laying out addresses
	inline     bool   // always inlined into its callers
	recursive  bool
	background bool // runtime housekeeping: its samples carry no labels
	libc       bool // as a leaf, it has calls into libc on top of it
	leaf       bool // C++ code: it calls nothing but libc
	// callees[i] is called from line calls[i]; choice picks what happens
	// next in a walk (see pick): choice slot 0 stops here, slot i+1 calls
	// callees[i].
	callees   []int32
	calls     []int32
	choice    []uint32
	leafLines [4]int32
	// chain[i] (walk shapes) indexes generator.chains: the functions
	// inlined at locs[i], outermost first; -1 for none.
	chain []int32
	// locs caches the location of this function's frame when nothing is
	// inlined into it: locs[i] for calling callees[i], then one per leaf
	// line. 0 until first used. It spares most walks the location map.
	locs []uint64
}

// step is one frame of a walk: a function and the line it is at.
type step struct {
	fn   int32
	line int32
}

// leafSlot is the index in function.locs of a walk's last frame, at leaf
// line i.
func (f *function) leafSlot(i int) int32 { return int32(len(f.callees) + i) }

// location is a symbolized address: lines innermost first. Main-mapping
// addresses are laid out once all locations are known.
type location struct {
	libc    bool
	address uint64 // libc only
	lines   []step
}

type generator struct {
	cfg Config
	pcg *rand.PCG // hot path: direct calls, no interface
	rng *rand.Rand

	fns        []function
	roots      []int32
	rootChoice []uint32
	libcPool   []uint64 // libc addresses of unsymbolized leaf frames
	libcChoice []uint32

	strs     map[string]int64
	strList  []string
	locIndex map[string]uint64 // encoded lines → location id
	locs     []location        // locs[id-1]
	libcLocs []uint64          // libc pool index → location id, 0 until used
	fnIDs    []uint64          // graph index → function id, 0 until used
	usedFns  []int32           // graph indices in function-id order

	labels labeler

	// The walk shapes (see shapes.go).
	chains     [][]int32
	slotCDF    []uint32
	deepIDs    [][]byte // per deep stack: its packed location ids, once drawn
	deepCDF    []uint32
	walkLabels walkLabeler

	// Per-sample scratch.
	path   []step
	slots  []int32 // slots[i] is path[i]'s index into its function's locs
	key    []byte
	ids    []uint64
	packed []byte
	body   []byte
}

func newGenerator(c Config) *generator {
	pcg := rand.NewPCG(c.Seed, 0x5eed_0f_9a7f_5ca1)
	g := &generator{
		cfg:      c,
		pcg:      pcg,
		rng:      rand.New(pcg),
		strs:     map[string]int64{},
		locIndex: map[string]uint64{},
	}
	g.str("")
	if c.Shape == Zipf {
		g.buildGraph()
		g.labels = newLabeler(g)
	} else {
		g.walkGraph()
		g.walkLabels = newWalkLabeler(g)
	}
	g.fnIDs = make([]uint64, len(g.fns))
	return g
}

// str interns s in the string table.
func (g *generator) str(s string) int64 {
	if i, ok := g.strs[s]; ok {
		return i
	}
	i := int64(len(g.strList))
	g.strs[s] = i
	g.strList = append(g.strList, s)
	return i
}

// cdf turns weights into cumulative thresholds on [0, 2³²) for pick.
func cdf(weights []float64) []uint32 {
	var total float64
	for _, w := range weights {
		total += w
	}
	out := make([]uint32, len(weights))
	var acc float64
	for i, w := range weights {
		acc += w
		out[i] = uint32(min(acc/total*(1<<32), math.MaxUint32))
	}
	return out
}

// zipfCDF weighs n choices 1/(i+1)^s, so choice 0 is the most likely.
func zipfCDF(n int, s float64) []uint32 {
	w := make([]float64, n)
	for i := range w {
		w[i] = math.Pow(float64(i+1), -s)
	}
	return cdf(w)
}

// pick returns the index of the slot u falls in; zero-weight slots are
// never picked.
func pick(cdf []uint32, u uint32) int {
	lo, hi := 0, len(cdf)-1
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if u < cdf[m] {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

func (g *generator) draw(cdf []uint32) int { return pick(cdf, uint32(g.pcg.Uint64())) }

// write generates the profile into buffers of about flushSize bytes and
// compresses them on a second goroutine, in order: compression takes about
// a third of the time, and this way it overlaps with generation.
func (g *generator) write(zw io.Writer) error {
	const buffers = 3
	full := make(chan []byte, buffers)
	free := make(chan []byte, buffers)
	for range buffers {
		free <- make([]byte, 0, flushSize+flushSize/4)
	}
	done := make(chan error, 1)
	var failed atomic.Bool
	go func() {
		var err error
		for b := range full {
			if err == nil {
				if _, err = zw.Write(b); err != nil {
					failed.Store(true)
				}
			}
			free <- b[:0]
		}
		done <- err
	}()

	out := <-free
	for _, vt := range [][2]string{{"samples", "count"}, {"cpu", "nanoseconds"}} {
		out = g.appendValueType(out, profSampleType, vt)
	}
	var cpu int64
	for i := range g.cfg.Samples {
		var v int64
		if g.cfg.Shape == Zipf {
			out, v = g.appendSample(out)
		} else {
			out, v = g.appendWalkSample(out, i)
		}
		cpu += v
		if len(out) >= flushSize {
			if failed.Load() {
				break
			}
			full <- out
			out = <-free
		}
	}
	if !failed.Load() {
		full <- g.appendTables(out, cpu)
	}
	close(full)
	return <-done
}

func (g *generator) appendValueType(b []byte, num protowire.Number, vt [2]string) []byte {
	var m []byte
	m = appendVarintField(m, valueTypeType, uint64(g.str(vt[0])))
	m = appendVarintField(m, valueTypeUnit, uint64(g.str(vt[1])))
	return appendMessage(b, num, m)
}

// appendSample walks the call graph once and appends the Sample message. It
// returns the sample's cpu value.
func (g *generator) appendSample(b []byte) ([]byte, int64) {
	ids, labeled := g.walk()

	g.packed = g.packed[:0]
	for _, id := range ids {
		g.packed = protowire.AppendVarint(g.packed, id)
	}
	m := g.body[:0]
	m = appendMessage(m, sampleLocationID, g.packed)

	x := g.pcg.Uint64()
	m, cpu := g.appendValues(m, x)

	if labeled && g.cfg.Labels {
		m = append(m, g.labels.next()...)
	}
	g.body = m
	return appendMessage(b, profSample, m), cpu
}

// appendValues appends a sample's values, drawn from x: a count of 1,
// now and then 2 or 3, and its cpu time. It returns the cpu time.
func (g *generator) appendValues(m []byte, x uint64) ([]byte, int64) {
	count := int64(1)
	switch {
	case x&0xff >= 254:
		count = 3
	case x&0xff >= 240:
		count = 2
	}
	cpu := count * period
	g.packed = protowire.AppendVarint(protowire.AppendVarint(g.packed[:0], uint64(count)), uint64(cpu))
	return appendMessage(m, sampleValue, g.packed), cpu
}

// walk descends the call graph from a root and returns the sample's
// location ids, leaf first, and whether the sample serves a request (and so
// carries labels).
func (g *generator) walk() (ids []uint64, labeled bool) {
	maxDepth := g.cfg.MaxDepth
	path, slots := g.path[:0], g.slots[:0]
	f := g.roots[g.draw(g.rootChoice)]
	background := g.fns[f].background
	var x uint64
	for {
		fn := &g.fns[f]
		x = g.pcg.Uint64()
		c := pick(fn.choice, uint32(x))
		if c == 0 && len(path)+1 < minDepth && len(fn.callees) > 0 {
			c = 1
		}
		if c == 0 || len(path)+1 >= maxDepth {
			l := skewed(x >> 32)
			path = append(path, step{f, fn.leafLines[l]})
			slots = append(slots, fn.leafSlot(l))
			break
		}
		path = append(path, step{f, fn.calls[c-1]})
		slots = append(slots, int32(c-1))
		f = fn.callees[c-1]
		if len(path) < 2 {
			background = background || g.fns[f].background
		}
	}
	g.path, g.slots = path, slots

	ids = g.ids[:0]
	if leaf := &g.fns[f]; leaf.libc && len(path) < maxDepth {
		n := min(1+int(x>>40)%3, maxDepth-len(path))
		j := pick(g.libcChoice, uint32(x>>8))
		for k := range n {
			ids = append(ids, g.libcLocation((j+k)%len(g.libcPool)))
		}
	}
	// Group frames into locations from the leaf outwards: a location ends
	// at the first frame that is not inlined into its caller.
	key := g.key[:0]
	end := len(path) - 1
	for i := len(path) - 1; i >= 0; i-- {
		s := path[i]
		fn := &g.fns[s.fn]
		if i == end && (i == 0 || !fn.inline) {
			// A frame of its own, the common case.
			id := &fn.locs[slots[i]]
			if *id == 0 {
				*id = g.location(g.frameKey(key[:0], s), path[i:i+1])
			}
			ids = append(ids, *id)
			end = i - 1
			continue
		}
		key = g.frameKey(key, s)
		if i > 0 && fn.inline {
			continue
		}
		ids = append(ids, g.location(key, path[i:end+1]))
		key = key[:0]
		end = i - 1
	}
	g.key = key
	g.ids = ids
	return ids, !background
}

func (g *generator) frameKey(key []byte, s step) []byte {
	key = binary.LittleEndian.AppendUint32(key, uint32(s.fn))
	return binary.LittleEndian.AppendUint32(key, uint32(s.line))
}

// skewed maps random bits to 0..3 with probabilities 1/2, 1/4, 1/8, 1/8:
// a function's self time sits mostly on one line.
func skewed(x uint64) int {
	switch {
	case x&1 == 0:
		return 0
	case x&2 == 0:
		return 1
	case x&4 == 0:
		return 2
	}
	return 3
}

// location returns the id of the main-mapping location with the given
// frames (outermost first in frames; key encodes them innermost first).
func (g *generator) location(key []byte, frames []step) uint64 {
	if id, ok := g.locIndex[string(key)]; ok {
		return id
	}
	lines := make([]step, len(frames))
	for i, s := range frames {
		lines[len(frames)-1-i] = s
		if g.fnIDs[s.fn] == 0 {
			g.usedFns = append(g.usedFns, s.fn)
			g.fnIDs[s.fn] = uint64(len(g.usedFns))
		}
	}
	g.locs = append(g.locs, location{lines: lines})
	id := uint64(len(g.locs))
	g.locIndex[string(key)] = id
	return id
}

func (g *generator) libcLocation(j int) uint64 {
	if id := g.libcLocs[j]; id != 0 {
		return id
	}
	g.locs = append(g.locs, location{libc: true, address: g.libcPool[j]})
	id := uint64(len(g.locs))
	g.libcLocs[j] = id
	return id
}

// appendTables appends everything but the samples: mappings, locations,
// functions, the scalar fields and, last, the string table.
func (g *generator) appendTables(b []byte, cpu int64) []byte {
	const stride = 7 // bytes between the addresses of one function's locations
	perFn := make([]uint64, len(g.fns))
	index := make([]uint64, len(g.locs)) // a location's rank within its function
	for i, l := range g.locs {
		if !l.libc {
			outer := l.lines[len(l.lines)-1].fn
			index[i] = perFn[outer]
			perFn[outer]++
		}
	}
	base := make([]uint64, len(g.fns))
	next := uint64(textStart)
	for f := range g.fns {
		base[f] = next
		next += (max(g.fns[f].size, (perFn[f]+1)*stride) + 15) &^ 15
	}
	mainLimit := (next + 0x100000 + 0xfff) &^ 0xfff

	var m []byte
	m = appendVarintField(m, mappingID, 1)
	m = appendVarintField(m, mappingStart, mainStart)
	m = appendVarintField(m, mappingLimit, mainLimit)
	m = appendVarintField(m, mappingFilename, uint64(g.str("/usr/local/bin/shopd")))
	m = appendVarintField(m, mappingBuildID, uint64(g.str(g.buildID())))
	for _, f := range []protowire.Number{mappingHasFunctions, mappingHasFilenames, mappingHasLineNumbers, mappingHasInlineFrames} {
		m = appendVarintField(m, f, 1)
	}
	b = appendMessage(b, profMapping, m)
	m = m[:0]
	m = appendVarintField(m, mappingID, 2)
	m = appendVarintField(m, mappingStart, libcStart)
	m = appendVarintField(m, mappingLimit, libcLimit)
	m = appendVarintField(m, mappingOffset, libcText)
	m = appendVarintField(m, mappingFilename, uint64(g.str("/lib/x86_64-linux-gnu/libc.so.6")))
	m = appendVarintField(m, mappingBuildID, uint64(g.str(g.buildID())))
	b = appendMessage(b, profMapping, m)

	var line []byte
	for i, l := range g.locs {
		m = appendVarintField(m[:0], locationID, uint64(i+1))
		if l.libc {
			m = appendVarintField(m, locationMappingID, 2)
			m = appendVarintField(m, locationAddress, l.address)
		} else {
			outer := l.lines[len(l.lines)-1].fn
			m = appendVarintField(m, locationMappingID, 1)
			m = appendVarintField(m, locationAddress, base[outer]+4+index[i]*stride)
		}
		for _, s := range l.lines {
			line = appendVarintField(line[:0], lineFunctionID, g.fnIDs[s.fn])
			line = appendVarintField(line, lineLine, uint64(s.line))
			m = appendMessage(m, locationLine, line)
		}
		b = appendMessage(b, profLocation, m)
	}

	for i, f := range g.usedFns {
		fn := &g.fns[f]
		name := uint64(g.str(fn.name))
		m = appendVarintField(m[:0], functionID, uint64(i+1))
		m = appendVarintField(m, functionName, name)
		m = appendVarintField(m, functionSystemName, name)
		m = appendVarintField(m, functionFilename, uint64(g.str(fn.file)))
		m = appendVarintField(m, functionStartLine, uint64(fn.startLine))
		b = appendMessage(b, profFunction, m)
	}

	// A busy 24-core server: the profile covered a 24th of its cpu time.
	duration := max(cpu/24, 1_000_000_000)
	b = appendVarintField(b, profTimeNanos, timeNanos)
	b = appendVarintField(b, profDurationNanos, uint64(duration))
	b = g.appendValueType(b, profPeriodType, [2]string{"cpu", "nanoseconds"})
	b = appendVarintField(b, profPeriod, period)
	comment := fmt.Sprintf("synthetic profile: samples=%d functions=%d max_depth=%d seed=%d labels=%t",
		g.cfg.Samples, g.cfg.Functions, g.cfg.MaxDepth, g.cfg.Seed, g.cfg.Labels)
	if g.cfg.Shape != Zipf {
		comment += " shape=" + string(g.cfg.Shape)
	}
	b = appendVarintField(b, profComment, uint64(g.str(comment)))
	b = appendVarintField(b, profDefaultSampleType, uint64(g.str("cpu")))

	for _, s := range g.strList {
		b = protowire.AppendTag(b, profStringTable, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	return b
}

func (g *generator) buildID() string {
	var id [20]byte
	for i := range id {
		id[i] = byte(g.rng.Uint32())
	}
	return hex.EncodeToString(id[:])
}

// appendVarintField appends a varint field, or nothing for proto3's
// default 0.
func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendMessage(b []byte, num protowire.Number, m []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}

// labeler draws the labels of request-serving samples. Consecutive samples
// often belong to the same request (span), so labels change only when a
// new span starts, and the encoded labels are reused until then.
type labeler struct {
	g                         *generator
	service, endpoint, region []int64 // string table indices of values
	serviceC, endpointC       []uint32
	regionC, sizeC            []uint32
	keys                      struct{ service, endpoint, region, bytes, span, unit int64 }
	encoded                   []byte // the current span's labels
}

var (
	services = []string{"checkout", "cart", "catalog", "search", "payments", "accounts",
		"inventory", "shipping", "recommendations", "pricing", "reviews", "notifications"}
	regions   = []string{"us-east-1", "eu-west-1", "us-west-2", "ap-southeast-1", "eu-central-1", "sa-east-1"}
	resources = []string{"carts/{id}", "carts/{id}/items", "products", "products/{id}", "search",
		"orders", "orders/{id}", "payments", "users/{id}", "users/{id}/sessions", "inventory/{sku}",
		"prices", "shipments/{id}", "reviews", "recommendations", "healthz"}
	methods = []string{"GET", "POST", "PUT", "DELETE"}
)

func newLabeler(g *generator) labeler {
	l := labeler{g: g}
	if !g.cfg.Labels {
		return l
	}
	l.keys.service = g.str("service")
	l.keys.endpoint = g.str("endpoint")
	l.keys.region = g.str("region")
	l.keys.bytes = g.str("request_bytes")
	l.keys.unit = g.str("bytes")
	l.keys.span = g.str("span_id")
	for _, s := range services {
		l.service = append(l.service, g.str(s))
	}
	for _, m := range methods {
		for _, r := range resources {
			l.endpoint = append(l.endpoint, g.str(m+" /api/v1/"+r))
		}
	}
	// Shuffle so the hottest endpoints are not all GETs.
	g.rng.Shuffle(len(l.endpoint), func(i, j int) { l.endpoint[i], l.endpoint[j] = l.endpoint[j], l.endpoint[i] })
	for _, r := range regions {
		l.region = append(l.region, g.str(r))
	}
	l.serviceC = zipfCDF(len(l.service), 1.3)
	l.endpointC = zipfCDF(len(l.endpoint), 1.2)
	l.regionC = zipfCDF(len(l.region), 1.5)
	l.sizeC = zipfCDF(16, 1.4)
	return l
}

// next returns the encoded Label fields of the next sample.
func (l *labeler) next() []byte {
	g := l.g
	x := g.pcg.Uint64()
	if l.encoded != nil && x&3 != 0 {
		return l.encoded
	}
	span := g.pcg.Uint64() >> 1
	size := uint64(64) << g.draw(l.sizeC)
	size += (x >> 8) % size
	var b, m []byte
	for _, kv := range [][2]int64{
		{l.keys.service, l.service[g.draw(l.serviceC)]},
		{l.keys.endpoint, l.endpoint[g.draw(l.endpointC)]},
		{l.keys.region, l.region[g.draw(l.regionC)]},
	} {
		m = appendVarintField(m[:0], labelKey, uint64(kv[0]))
		m = appendVarintField(m, labelStr, uint64(kv[1]))
		b = appendMessage(b, sampleLabel, m)
	}
	m = appendVarintField(m[:0], labelKey, uint64(l.keys.bytes))
	m = appendVarintField(m, labelNum, size)
	m = appendVarintField(m, labelNumUnit, uint64(l.keys.unit))
	b = appendMessage(b, sampleLabel, m)
	m = appendVarintField(m[:0], labelKey, uint64(l.keys.span))
	m = appendVarintField(m, labelNum, span|1)
	b = appendMessage(b, sampleLabel, m)
	l.encoded = b
	return b
}

// The call graph.
//
// Layer 0 holds the roots (runtime.goexit, runtime.mstart); generated
// functions fill layers 1..L-1 and call mostly into the next layer, each
// layer's functions ranked by popularity so a few are called from many
// places. Hand-written runtime chains (scheduler, GC, malloc, syscalls)
// hang off the roots and serve as shared sinks.

// special is a hand-written function of the graph.
type special struct {
	name, file string
	callees    []string // explicit; nil means generated (layer-1 entries) or a leaf
	layer1     bool     // a goroutine entry point, called from runtime.goexit
	sink       bool     // generated functions may call it
	inline     bool
	background bool
	libc       bool
}

var specials = []special{
	{name: "runtime.goexit", file: "runtime/asm_amd64.s"},
	{name: "runtime.mstart", file: "runtime/asm_amd64.s", callees: []string{"runtime.mstart0"}, background: true},
	{name: "runtime.mstart0", file: "runtime/proc.go", callees: []string{"runtime.mstart1"}},
	{name: "runtime.mstart1", file: "runtime/proc.go", callees: []string{"runtime.schedule"}},
	{name: "runtime.schedule", file: "runtime/proc.go", callees: []string{"runtime.findRunnable", "runtime.execute"}},
	{name: "runtime.findRunnable", file: "runtime/proc.go", callees: []string{"runtime.netpoll", "runtime.stealWork", "runtime.stopm"}},
	{name: "runtime.execute", file: "runtime/proc.go", callees: []string{"runtime.casgstatus"}},
	{name: "runtime.casgstatus", file: "runtime/proc.go"},
	{name: "runtime.netpoll", file: "runtime/netpoll_epoll.go", callees: []string{"runtime.epollwait"}},
	{name: "runtime.epollwait", file: "runtime/sys_linux_amd64.s"},
	{name: "runtime.stealWork", file: "runtime/proc.go", callees: []string{"runtime.runqsteal"}},
	{name: "runtime.runqsteal", file: "runtime/proc.go", callees: []string{"runtime.runqgrab"}},
	{name: "runtime.runqgrab", file: "runtime/proc.go", callees: []string{"runtime.usleep"}},
	{name: "runtime.usleep", file: "runtime/sys_linux_amd64.s"},
	{name: "runtime.stopm", file: "runtime/proc.go", callees: []string{"runtime.mPark"}},
	{name: "runtime.mPark", file: "runtime/proc.go", callees: []string{"runtime.notesleep"}, inline: true},
	{name: "runtime.notesleep", file: "runtime/lock_futex.go", callees: []string{"runtime.futexsleep"}},
	{name: "runtime.futexsleep", file: "runtime/os_linux.go", callees: []string{"runtime.futex"}},
	{name: "runtime.futex", file: "runtime/sys_linux_amd64.s"},

	{name: "net/http.(*conn).serve", file: "net/http/server.go", layer1: true},
	{name: "google.golang.org/grpc.(*Server).handleStream", file: "google.golang.org/grpc@v1.71.0/server.go", layer1: true},
	{name: "runtime.gcBgMarkWorker", file: "runtime/mgc.go", callees: []string{"runtime.systemstack"}, layer1: true, background: true},
	{name: "runtime.bgsweep", file: "runtime/mgcsweep.go", callees: []string{"runtime.sweepone"}, layer1: true, background: true},
	{name: "runtime.systemstack", file: "runtime/asm_amd64.s", callees: []string{"runtime.gcBgMarkWorker.func2"}},
	{name: "runtime.gcBgMarkWorker.func2", file: "runtime/mgc.go", callees: []string{"runtime.gcDrain"}},
	{name: "runtime.gcDrain", file: "runtime/mgcmark.go", callees: []string{"runtime.scanobject", "runtime.markroot", "runtime.(*gcWork).balance"}},
	{name: "runtime.scanobject", file: "runtime/mgcmark.go", callees: []string{"runtime.findObject", "runtime.greyobject", "runtime.spanOf"}},
	{name: "runtime.findObject", file: "runtime/mbitmap.go"},
	{name: "runtime.greyobject", file: "runtime/mgcmark.go"},
	{name: "runtime.spanOf", file: "runtime/mheap.go", inline: true},
	{name: "runtime.markroot", file: "runtime/mgcmark.go", callees: []string{"runtime.scanstack"}},
	{name: "runtime.scanstack", file: "runtime/mgcmark.go", callees: []string{"runtime.scanframeworker"}},
	{name: "runtime.scanframeworker", file: "runtime/mgcmark.go"},
	{name: "runtime.(*gcWork).balance", file: "runtime/mgcwork.go"},
	{name: "runtime.sweepone", file: "runtime/mgcsweep.go", callees: []string{"runtime.(*sweepLocked).sweep"}},
	{name: "runtime.(*sweepLocked).sweep", file: "runtime/mgcsweep.go"},

	// Sinks, hottest first.
	{name: "runtime.mallocgc", file: "runtime/malloc.go", sink: true,
		callees: []string{"runtime.nextFreeFast", "runtime.(*mcache).nextFree", "runtime.memclrNoHeapPointers", "runtime.profilealloc"}},
	{name: "runtime.memmove", file: "runtime/memmove_amd64.s", sink: true},
	{name: "runtime.mapaccess2_faststr", file: "internal/runtime/maps/runtime_faststr.go", sink: true, callees: []string{"runtime.memequal", "aeshashbody"}},
	{name: "runtime.growslice", file: "runtime/slice.go", sink: true, callees: []string{"runtime.mallocgc", "runtime.memmove"}},
	{name: "syscall.Syscall", file: "syscall/syscall_linux.go", sink: true, callees: []string{"internal/runtime/syscall.Syscall6"}},
	{name: "runtime.memequal", file: "internal/bytealg/equal_amd64.s", sink: true},
	{name: "runtime.concatstrings", file: "runtime/string.go", sink: true, callees: []string{"runtime.rawstringtmp"}},
	{name: "runtime.selectgo", file: "runtime/select.go", sink: true, callees: []string{"runtime.sellock", "runtime.gopark"}},
	{name: "runtime.cgocall", file: "runtime/cgocall.go", sink: true, callees: []string{"runtime.asmcgocall"}},

	{name: "runtime.nextFreeFast", file: "runtime/malloc.go", inline: true},
	{name: "runtime.(*mcache).nextFree", file: "runtime/malloc.go", callees: []string{"runtime.(*mcache).refill"}},
	{name: "runtime.(*mcache).refill", file: "runtime/mcache.go", callees: []string{"runtime.(*mcentral).cacheSpan"}},
	{name: "runtime.(*mcentral).cacheSpan", file: "runtime/mcentral.go"},
	{name: "runtime.memclrNoHeapPointers", file: "runtime/memclr_amd64.s"},
	{name: "runtime.profilealloc", file: "runtime/malloc.go"},
	{name: "aeshashbody", file: "runtime/asm_amd64.s"},
	{name: "internal/runtime/syscall.Syscall6", file: "internal/runtime/syscall/asm_linux_amd64.s"},
	{name: "runtime.rawstringtmp", file: "runtime/string.go", callees: []string{"runtime.rawstring"}, inline: true},
	{name: "runtime.rawstring", file: "runtime/string.go", callees: []string{"runtime.mallocgc"}},
	{name: "runtime.sellock", file: "runtime/select.go"},
	{name: "runtime.gopark", file: "runtime/proc.go", callees: []string{"runtime.mcall"}},
	{name: "runtime.mcall", file: "runtime/asm_amd64.s"},
	{name: "runtime.asmcgocall", file: "runtime/asm_amd64.s", libc: true},
}

type goPackage struct {
	path string // import path, as function names spell it
	dir  string // source directory, as file names spell it
}

var (
	stdPackages = []string{"bufio", "bytes", "context", "crypto/tls", "crypto/sha256", "crypto/aes",
		"compress/flate", "encoding/json", "encoding/binary", "fmt", "io", "net", "net/http", "net/url",
		"os", "reflect", "regexp", "sort", "strconv", "strings", "sync", "time", "database/sql",
		"internal/poll", "math/big", "text/template", "unicode/utf8", "log/slog", "mime/multipart"}
	modules = []struct{ path, version, sub string }{
		{"google.golang.org/grpc", "v1.71.0", ""},
		{"google.golang.org/grpc", "v1.71.0", "internal/transport"},
		{"google.golang.org/protobuf", "v1.36.6", "internal/impl"},
		{"google.golang.org/protobuf", "v1.36.6", "proto"},
		{"github.com/jackc/pgx/v5", "v5.7.2", "pgconn"},
		{"github.com/jackc/pgx/v5", "v5.7.2", "pgtype"},
		{"go.uber.org/zap", "v1.27.0", ""},
		{"go.uber.org/zap", "v1.27.0", "zapcore"},
		{"github.com/prometheus/client_golang", "v1.21.1", "prometheus"},
		{"github.com/redis/go-redis/v9", "v9.7.3", ""},
		{"github.com/go-chi/chi/v5", "v5.2.1", ""},
		{"go.opentelemetry.io/otel/sdk", "v1.35.0", "trace"},
		{"github.com/klauspost/compress", "v1.18.0", "zstd"},
		{"golang.org/x/net", "v0.38.0", "http2"},
		{"github.com/aws/aws-sdk-go-v2/service/s3", "v1.79.0", ""},
	}
	appPackages = []string{"internal/api", "internal/auth", "internal/cart", "internal/catalog",
		"internal/checkout", "internal/inventory", "internal/pricing", "internal/search", "internal/store",
		"internal/session", "internal/ratelimit", "internal/cache", "internal/billing", "internal/orders",
		"internal/shipping", "internal/notify", "internal/recommend", "internal/featureflag",
		"internal/audit", "internal/tenant", "pkg/middleware", "pkg/httputil", "pkg/retry", "pkg/codec", "pkg/pool"}

	typeWords = []string{"Server", "Client", "Conn", "Handler", "Router", "Encoder", "Decoder", "Reader",
		"Writer", "Cache", "Pool", "Store", "Repo", "Service", "Session", "Tx", "Rows", "Stmt", "Span",
		"Tracer", "Logger", "Buffer", "Parser", "Batch", "Queue", "Worker", "Limiter", "Index", "Table",
		"Iterator", "Codec", "Registry", "Meter", "Frame", "Stream", "Request", "Response", "Token",
		"Ledger", "Cart", "Order", "Product", "Catalog", "Query", "Planner", "Matcher", "Scanner"}
	verbs = []string{"read", "write", "parse", "encode", "decode", "handle", "serve", "process", "flush",
		"lookup", "get", "put", "load", "store", "resolve", "validate", "marshal", "unmarshal", "compute",
		"apply", "build", "render", "scan", "match", "fetch", "update", "insert", "delete", "commit",
		"dispatch", "emit", "record", "observe", "merge", "hash", "compress", "sign", "verify", "refresh",
		"evict", "acquire", "release", "next", "close", "open", "append", "format", "convert", "check", "filter"}
	nouns = []string{"", "Header", "Body", "Frame", "Loop", "Value", "Field", "Request", "Response", "Batch",
		"Entry", "Key", "Token", "Row", "Rows", "Span", "Message", "Chunk", "Block", "Record", "Item", "Items",
		"Struct", "Slice", "Map", "String", "Bytes", "Int", "Time", "Path", "Query", "Config", "State",
		"Stream", "Metrics", "Labels", "Context", "Result", "Plan", "Page", "Prices", "Orders", "Locked", "Fast", "Slow"}

	cxxLibs = []struct{ ns, dir string }{
		{"rocksdb", "rocksdb/db"}, {"rocksdb", "rocksdb/table"}, {"leveldb", "leveldb/db"},
		{"google::protobuf::internal", "protobuf/src/google/protobuf"}, {"re2", "re2/re2"},
		{"absl::lts_20240722::container_internal", "abseil-cpp/absl/container/internal"}, {"snappy", "snappy"},
	}
	cxxClasses = []string{"DBImpl", "BlockBasedTable", "MemTable", "WriteBatch", "Arena", "InternalKeyComparator",
		"LRUCache", "Compiler", "Prog", "RE2", "TableCache", "VersionSet", "BlockIter", "BloomFilterPolicy",
		"ThreadPoolImpl", "DFA", "TcParser", "ArenaImpl", "SnappyDecompressor"}
	cxxTemplates = []string{
		"std::__1::basic_string<char, std::__1::char_traits<char>, std::__1::allocator<char> >",
		"std::__1::vector<rocksdb::Slice, std::__1::allocator<rocksdb::Slice> >",
		"std::__1::pair<std::__1::basic_string<char, std::__1::char_traits<char>, std::__1::allocator<char> > const, unsigned long>",
	}
	cxxMethods = []string{"Get", "Put", "Write", "Seek", "Next", "Prev", "Lookup", "Insert", "Allocate",
		"Compress", "Uncompress", "Parse", "Match", "Search", "Find", "Resize", "Serialize", "MergeFrom",
		"Append", "Reserve", "Flush", "Compact", "Release", "Unref"}
	cxxArgs = []string{"()", "(unsigned long)", "(char const*, unsigned long)", "(rocksdb::Slice const&) const",
		"(rocksdb::ReadOptions const&, rocksdb::Slice const&, std::__1::basic_string<char, std::__1::char_traits<char>, std::__1::allocator<char> >*)",
		"(absl::lts_20240722::string_view, re2::RE2::Anchor, int*, re2::StringPiece*, int) const",
		"(google::protobuf::MessageLite*, char const*, google::protobuf::internal::ParseContext*, google::protobuf::internal::TcFieldData)"}
)

// buildGraph lays out the Zipf shape's call graph: functions in layers
// from the roots down, edges mostly to the next layers, a little
// recursion, and the walk's choices. Each step draws from g.rng in turn,
// so their order fixes the output.
func (g *generator) buildGraph() {
	c := g.cfg
	gb := &graphBuilder{
		g:      g,
		r:      g.rng,
		layers: min(max(minDepth, c.MaxDepth*2/3), max(minDepth, (c.Functions-len(specials))/4)),
		byName: map[string]int32{},
	}
	gb.members = make([][]int32, gb.layers)
	gb.addSpecials()
	gb.addGenerated()
	gb.sizeBodies()
	gb.callers = make([]int, len(g.fns))
	gb.addEdges()
	gb.giveCallers()
	gb.addRecursion()
	gb.setChoices()
	g.pickLibcPool()
}

// graphBuilder holds what buildGraph's steps share.
type graphBuilder struct {
	g       *generator
	r       *rand.Rand
	layers  int
	byName  map[string]int32
	members [][]int32 // by layer, most popular first
	sinks   []int32
	bodies  []int // lines in each function's body
	callers []int // by function
}

func (gb *graphBuilder) add(f function) int32 {
	g := gb.g
	i := int32(len(g.fns))
	g.fns = append(g.fns, f)
	gb.byName[f.name] = i
	return i
}

// addSpecials adds the runtime's and libraries' functions that every
// profile has: the roots, layer 1's entry points and the sinks.
func (gb *graphBuilder) addSpecials() {
	g := gb.g
	for _, s := range specials {
		file := "/usr/local/go/src/" + s.file
		if strings.Contains(s.file, "@") {
			file = "/root/go/pkg/mod/" + s.file
		}
		f := gb.add(function{name: s.name, file: file, inline: s.inline, background: s.background, libc: s.libc, layer: -1})
		switch {
		case s.name == "runtime.goexit" || s.name == "runtime.mstart":
			g.fns[f].layer = 0
			g.roots = append(g.roots, f)
		case s.layer1:
			g.fns[f].layer = 1
			gb.members[1] = append(gb.members[1], f)
		case s.sink:
			gb.sinks = append(gb.sinks, f)
		}
	}
}

// addGenerated spreads the generated functions over layers 1..L-1, most
// in the middle.
func (gb *graphBuilder) addGenerated() {
	g, r, layers := gb.g, gb.r, gb.layers
	generated := g.cfg.Functions - len(specials)
	weights := make([]float64, layers)
	for k := 1; k < layers; k++ {
		weights[k] = 1 + 2*math.Sin(math.Pi*float64(k)/float64(layers))
	}
	layerCDF := cdf(weights)
	names := map[string]bool{}
	for _, f := range g.fns {
		names[f.name] = true
	}
	for i := range generated {
		// The first L-1 go one to a layer, so no layer is empty.
		k := 1 + i
		if k >= layers {
			k = pick(layerCDF, r.Uint32())
		}
		frac := float64(k) / float64(layers-1)
		var f function
		if frac > 0.6 && r.Float64() < 0.03 {
			f = cxxFunction(r, names)
			f.leaf = true
			f.libc = r.Float64() < 0.6
		} else {
			f = goFunction(r, names, frac)
			f.inline = r.Float64() < 0.16
		}
		f.layer = k
		gb.members[k] = append(gb.members[k], gb.add(f))
	}
}

// sizeBodies gives each function its line numbers and code size.
func (gb *graphBuilder) sizeBodies() {
	g, r := gb.g, gb.r
	gb.bodies = make([]int, len(g.fns))
	for i := range g.fns {
		gb.bodies[i] = g.fns[i].layOutBody(r)
	}
}

// layOutBody draws f's body, in lines (returned), its first line, its
// code size and its leaf lines, in that order from r.
func (f *function) layOutBody(r *rand.Rand) int {
	body := 5 + r.IntN(150)
	if f.inline {
		body = 2 + r.IntN(8)
	}
	f.startLine = int32(20 + r.IntN(2500))
	f.size = uint64(16 + body*(8+r.IntN(24)))
	for j := range f.leafLines {
		f.leafLines[j] = f.startLine + 1 + int32(r.IntN(body))
	}
	return body
}

// edge makes from call to, once.
func (gb *graphBuilder) edge(from, to int32) {
	f := &gb.g.fns[from]
	for _, c := range f.callees {
		if c == to {
			return
		}
	}
	f.callees = append(f.callees, to)
	gb.callers[to]++
}

// addEdges adds the specials' explicit edges, then generated ones: from
// each function to a few in the next layers, Zipf-skewed, and sometimes
// to a sink.
func (gb *graphBuilder) addEdges() {
	g, r, layers, members := gb.g, gb.r, gb.layers, gb.members
	for i, s := range specials {
		for _, name := range s.callees {
			gb.edge(int32(i), gb.byName[name])
		}
	}
	for _, e := range members[1] {
		gb.edge(g.roots[0], e) // runtime.goexit starts every goroutine
	}
	popularity := make([][]uint32, layers)
	for k := 1; k < layers; k++ {
		popularity[k] = zipfCDF(len(members[k]), 1.1)
	}
	sinkCDF := zipfCDF(len(gb.sinks), 1.0)
	calleeCount := zipfCDF(8, 1.0)
	for k := 1; k < layers-1; k++ {
		for _, i := range members[k] {
			f := &g.fns[i]
			if len(f.callees) > 0 || f.leaf {
				continue
			}
			n := 1 + pick(calleeCount, r.Uint32())
			if f.inline {
				// Small, but layer 1 must call on: stacks are at least minDepth deep.
				n = max(r.IntN(3), 2-k)
			}
			for range n {
				t := k + 1
				switch x := r.Float64(); {
				case x < 0.1:
					t = k + 3
				case x < 0.3:
					t = k + 2
				}
				t = min(t, layers-1)
				var j int
				if r.IntN(2) == 0 {
					j = pick(popularity[t], r.Uint32())
				} else {
					j = r.IntN(len(members[t]))
				}
				gb.edge(i, members[t][j])
			}
			if r.Float64() < 0.3 {
				gb.edge(i, gb.sinks[pick(sinkCDF, r.Uint32())])
			}
		}
	}
}

// giveCallers gives every generated function a caller, however cold.
func (gb *graphBuilder) giveCallers() {
	g, r, members := gb.g, gb.r, gb.members
	for k := 2; k < gb.layers; k++ {
		for _, i := range members[k] {
			above := members[k-1]
			for try := 0; gb.callers[i] == 0 && try < 20; try++ {
				if c := above[r.IntN(len(above))]; !g.fns[c].leaf {
					gb.edge(c, i)
				}
			}
		}
	}
}

// addRecursion makes a few self-recursive functions and mutually
// recursive pairs (a calls b calls a), never inlined, as in Go.
func (gb *graphBuilder) addRecursion() {
	g, r := gb.g, gb.r
	for k := 1; k < gb.layers-1; k++ {
		for _, i := range gb.members[k] {
			f := &g.fns[i]
			if f.inline || f.libc || len(f.callees) == 0 {
				continue
			}
			switch x := r.Float64(); {
			case x < 0.03:
				f.recursive = true
				// Second most likely callee: recursion is common but not dominant.
				f.callees = append(f.callees, i)
				last := len(f.callees) - 1
				pos := min(1, last)
				f.callees[pos], f.callees[last] = f.callees[last], f.callees[pos]
			case x < 0.045:
				b := f.callees[0]
				if fb := &g.fns[b]; b != i && !fb.inline && !fb.recursive && !fb.libc && fb.layer > 0 {
					f.recursive, fb.recursive = true, true
					gb.edge(b, i)
				}
			}
		}
	}
}

// setChoices gives each call its line and each function the walk's
// choice between stopping there and each callee.
func (gb *graphBuilder) setChoices() {
	g, r := gb.g, gb.r
	for i := range g.fns {
		f := &g.fns[i]
		for range f.callees {
			f.calls = append(f.calls, f.startLine+1+int32(r.IntN(gb.bodies[i])))
		}
		// Self time is rare near the roots and common near the leaves.
		var stop float64
		switch {
		case f.layer == 0:
			stop = 0
		case len(f.callees) == 0:
			stop = 1
		case f.layer > 0:
			frac := float64(f.layer) / float64(gb.layers-1)
			stop = 0.01 + 0.3*frac*frac*r.Float64()
		default:
			stop = 0.05 + 0.2*r.Float64()
		}
		if f.inline {
			stop += 0.1
		}
		w := []float64{stop}
		for j := range f.callees {
			w = append(w, (1-stop)*math.Pow(float64(j+1), -1.2))
		}
		f.choice = cdf(w)
		f.locs = make([]uint64, len(f.callees)+len(f.leafLines))
	}
	g.rootChoice = cdf([]float64{0.85, 0.15})
}

// pickLibcPool draws the libc addresses of unsymbolized leaf frames: ten
// functions 0x13000 apart, so every address is distinct.
func (g *generator) pickLibcPool() {
	r := g.rng
	for i := range 10 {
		off := uint64(i*0x13000 + r.IntN(0x12000))
		g.libcPool = append(g.libcPool, libcStart+libcText+off&^0xf)
	}
	g.libcChoice = zipfCDF(len(g.libcPool), 1.3)
	g.libcLocs = make([]uint64, len(g.libcPool))
}

func pickString(r *rand.Rand, s []string) string { return s[r.IntN(len(s))] }

func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// goFunction makes up a Go function in an app, module or standard-library
// package: app code near the roots, the standard library near the leaves.
func goFunction(r *rand.Rand, names map[string]bool, frac float64) function {
	var pkg goPackage
	switch x := r.Float64(); {
	case x < 0.7*(1-frac):
		p := pickString(r, appPackages)
		pkg = goPackage{"github.com/acme/shop/" + p, "/src/shop/" + p}
	case x < 0.7*(1-frac)+0.3:
		m := modules[r.IntN(len(modules))]
		pkg = goPackage{m.path, "/root/go/pkg/mod/" + m.path + "@" + m.version}
		if m.sub != "" {
			pkg.path += "/" + m.sub
			pkg.dir += "/" + m.sub
		}
	default:
		p := pickString(r, stdPackages)
		pkg = goPackage{p, "/usr/local/go/src/" + p}
	}
	typ := pickString(r, typeWords)
	verb := pickString(r, verbs)
	noun := pickString(r, nouns)
	base := pkg.path
	var name, file string
	switch x := r.Float64(); {
	case x < 0.4:
		name = fmt.Sprintf("%s.(*%s).%s%s", base, typ, capitalize(verb), noun)
		file = strings.ToLower(typ)
	case x < 0.55:
		name = fmt.Sprintf("%s.%s.%s%s", base, typ, capitalize(verb), noun)
		file = strings.ToLower(typ)
	case x < 0.6:
		name = fmt.Sprintf("%s.(*%s[...]).%s%s", base, typ, capitalize(verb), noun)
		file = strings.ToLower(typ)
	case x < 0.8:
		name = fmt.Sprintf("%s.%s%s", base, verb, noun)
		file = verb
	default:
		name = fmt.Sprintf("%s.%s%s", base, capitalize(verb), noun)
		file = verb
	}
	if r.Float64() < 0.1 {
		name += fmt.Sprintf(".func%d", 1+r.IntN(3)) // a closure
	}
	unique := name
	for n := 1; names[unique]; n++ {
		unique = fmt.Sprintf("%s.func%d", name, n)
	}
	name = unique
	names[name] = true
	return function{name: name, file: pkg.dir + "/" + file + ".go"}
}

// cxxFunction makes up a long C++ name from a cgo-linked library.
func cxxFunction(r *rand.Rand, names map[string]bool) function {
	lib := cxxLibs[r.IntN(len(cxxLibs))]
	cls := pickString(r, cxxClasses)
	if r.Float64() < 0.3 {
		cls += "<" + pickString(r, cxxTemplates) + ">"
	}
	name := lib.ns + "::" + cls + "::" + pickString(r, cxxMethods) + pickString(r, cxxArgs)
	for n := 2; names[name]; n++ {
		name = fmt.Sprintf("%s::%s::%s%d%s", lib.ns, cls, pickString(r, cxxMethods), n, pickString(r, cxxArgs))
	}
	names[name] = true
	file := strings.ToLower(cls)
	if i := strings.IndexByte(file, '<'); i >= 0 {
		file = file[:i]
	}
	return function{name: name, file: "/src/third_party/" + lib.dir + "/" + file + ".cc"}
}

// BenchmarkProfile returns the profile the benchmarks share: the file
// named by $PPROF_TUI_BIGPROF if it is set, else the 1M-sample Zipf
// profile with labels, written once into the temporary directory (Cached).
func BenchmarkProfile() (string, error) {
	if p := os.Getenv("PPROF_TUI_BIGPROF"); p != "" {
		return p, nil
	}
	return BenchmarkShape(Zipf)
}

// BenchmarkShape returns the 1M-sample profile of the given shape, with
// labels, written once into the temporary directory (Cached).
func BenchmarkShape(s Shape) (string, error) {
	return Cached(Config{Samples: 1_000_000, Labels: true, Seed: 1, Shape: s})
}

// BenchShapes is the shapes the benchmarks run over: every shape, or
// those $PPROF_TUI_SHAPES lists (comma-separated), to keep a run short.
func BenchShapes() []Shape {
	env := os.Getenv("PPROF_TUI_SHAPES")
	if env == "" {
		return Shapes
	}
	var out []Shape
	for _, s := range strings.Split(env, ",") {
		out = append(out, Shape(strings.TrimSpace(s)))
	}
	return out
}

// Cached writes the profile for c into the system's temporary directory,
// once: later calls (from any process) reuse the file. Benchmarks use it
// so that a fresh clone can measure on a million samples without a
// committed file.
func Cached(c Config) (string, error) {
	c, err := c.withDefaults()
	if err != nil {
		return "", err
	}
	name := fmt.Sprintf("pprof-tui-synth-%d-%d-%d-%d-%t.pb.gz", c.Samples, c.Functions, c.MaxDepth, c.Seed, c.Labels)
	if c.Shape != Zipf {
		name = fmt.Sprintf("pprof-tui-synth-%s-%d-%d-%d-%t.pb.gz", c.Shape, c.Samples, c.Functions, c.Seed, c.Labels)
	}
	path := filepath.Join(os.TempDir(), name)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	tmp, err := os.CreateTemp(os.TempDir(), name+".*")
	if err != nil {
		return "", err
	}
	if err := Write(tmp, c); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return path, os.Rename(tmp.Name(), path)
}
