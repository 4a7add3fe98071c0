package format

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protowire"
)

// Decoding profile.proto has three stages: decompression (pipeReader),
// the protoDecoder, which frames the messages, decodes samples' values
// and labels and hashes their stacks, and the linker, which does what
// depends on the order of references: interning stacks, and giving
// locations, functions and mappings their dense indices in the order they
// are first referenced. The decoder queues for the linker, in file order,
// batches of samples' stacks and the location, function and mapping
// messages between them.
//
// The linker has no goroutine of its own when the input is gzipped: a
// third goroutine on two cores would wait for the scheduler's time slices
// and stall the other stages behind it. Instead the two goroutines that
// are there link a batch whenever they would otherwise wait: gzip when the
// decoder is behind, the decoder when gzip is, and the decoder anyway when
// too many batches wait. Uncompressed input has no gzip goroutine, so
// there the linker gets one.

const (
	batchSamples = 512
	batchBytes   = 64 << 10 // of messages, before a batch is sent early
	maxQueued    = 16       // batches waiting before the decoder links them itself
)

// linkBatch carries one run of the file from the decoder to the linker.
type linkBatch struct {
	first   int32 // index of the batch's first sample
	reserve int   // if > 0, size the Stack column for this many samples
	keys    []byte
	keyEnd  []int32  // sample k's location ids are keys[keyEnd[k-1]:keyEnd[k]]
	hashes  []uint32 // of each sample's key
	msgs    []linkMsg
	msgData []byte
}

// linkMsg is a location, function or mapping message in a batch.
type linkMsg struct {
	num    protowire.Number
	at     int64 // stream offset, for errors
	before int32 // how many of the batch's samples precede it
	end    int32 // its bytes end at msgData[end]
}

func (bt *linkBatch) reset(first int32) {
	bt.first, bt.reserve = first, 0
	bt.keys, bt.keyEnd, bt.hashes = bt.keys[:0], bt.keyEnd[:0], bt.hashes[:0]
	bt.msgs, bt.msgData = bt.msgs[:0], bt.msgData[:0]
}

func (bt *linkBatch) samples() int { return len(bt.keyEnd) }

// full reports whether the batch should be sent.
func (bt *linkBatch) full() bool {
	return len(bt.keyEnd) >= batchSamples || len(bt.msgData) >= batchBytes || len(bt.msgs) >= batchSamples
}

// linker is the last stage. Whoever holds mu may link; only that
// goroutine touches the linker's fields (but the queue, under qmu) and
// p's Stacks, Samples.Stack, Locations, Functions and Mappings, until
// close.
type linker struct {
	p *Profile

	locIDs, funcIDs, mapIDs idMap
	locRef, funcRef, mapRef []ref
	funcs                   []rawFunction
	maps                    []rawMapping
	stacks                  keyTable
	nlocs                   int   // location ids in all stacks
	chunkLocs, chunkStacks  []int // of each chunk of the stacks' arena
	canon                   []byte
	// locChunks holds the locations while linking, locChunk at a time:
	// doubling one slice copied a million locations over and over, in
	// copies the garbage collector has to wait for. close lays them out
	// in Profile.Locations.
	locChunks   [][]Location
	nloc        int32
	lineScratch []Line
	fnIDScratch []uint64
	sink        uint64 // see prefetch
	err         error  // the first error

	mu     sync.Mutex
	qmu    sync.Mutex
	queue  []*linkBatch // queued, not linked yet, in file order
	spare  []*linkBatch // linked, for reuse
	failed atomic.Bool  // set as soon as linking fails

	wake chan struct{} // to the linker's own goroutine, if it has one
	done chan struct{}
}

// newLinker returns a linker; with own, it has its own goroutine (for
// input without a gzip goroutine to help).
func newLinker(p *Profile, own bool) *linker {
	l := &linker{p: p}
	if own {
		l.wake, l.done = make(chan struct{}, 1), make(chan struct{})
		go func() {
			defer close(l.done)
			for range l.wake {
				for l.help() {
				}
			}
		}()
	}
	return l
}

// batch returns an empty batch whose first sample is sample first.
func (l *linker) batch(first int32) *linkBatch {
	var bt *linkBatch
	l.qmu.Lock()
	if n := len(l.spare); n > 0 {
		bt = l.spare[n-1]
		l.spare = l.spare[:n-1]
	}
	l.qmu.Unlock()
	if bt == nil {
		bt = &linkBatch{}
	}
	bt.reset(first)
	return bt
}

// send queues a batch, linking the queue first if it is long.
func (l *linker) send(bt *linkBatch) {
	l.qmu.Lock()
	l.queue = append(l.queue, bt)
	n := len(l.queue)
	l.qmu.Unlock()
	if n > maxQueued {
		// One, not all: the rest is for gzip when it waits.
		l.mu.Lock()
		l.linkOne()
		l.mu.Unlock()
		return
	}
	if l.wake != nil {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
}

// help links one queued batch unless someone else is linking; it reports
// whether it did. The goroutines that would wait call it first.
func (l *linker) help() bool {
	if !l.mu.TryLock() {
		return false
	}
	did := l.linkOne()
	l.mu.Unlock()
	return did
}

// linkOne links the first queued batch, if any. The caller holds mu.
func (l *linker) linkOne() bool {
	l.qmu.Lock()
	if len(l.queue) == 0 {
		l.qmu.Unlock()
		return false
	}
	bt := l.queue[0]
	l.queue = l.queue[1:]
	l.qmu.Unlock()
	if l.err == nil {
		if l.err = l.safeLink(bt); l.err != nil {
			l.failed.Store(true)
		}
	}
	l.qmu.Lock()
	l.spare = append(l.spare, bt)
	l.qmu.Unlock()
	return true
}

// close queues the last batch, if any, links everything queued and
// returns the first error.
func (l *linker) close(last *linkBatch) error {
	if last != nil && (last.samples() > 0 || len(last.msgs) > 0) {
		l.qmu.Lock()
		l.queue = append(l.queue, last)
		l.qmu.Unlock()
	}
	if l.wake != nil {
		close(l.wake)
		<-l.done
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.linkOne() {
	}
	l.layOutLocations()
	return l.err
}

// locChunk is how many locations the linker allocates at once.
const locChunk = 1 << 14

// loc returns location i while linking.
func (l *linker) loc(i int32) *Location {
	return &l.locChunks[i/locChunk][i%locChunk]
}

// layOutLocations moves the linked locations into Profile.Locations.
func (l *linker) layOutLocations() {
	if l.locChunks == nil {
		return
	}
	out := make([]Location, l.nloc)
	for c, chunk := range l.locChunks {
		copy(out[c*locChunk:], chunk)
		l.locChunks[c] = nil
	}
	l.p.Locations, l.locChunks = out, nil
}

// safeLink is link with a panic as its error: any goroutine may be the
// one linking (gzip's, the decoder's).
func (l *linker) safeLink(bt *linkBatch) (err error) {
	defer catch(&err)
	return l.link(bt)
}

// prefetchGroup is how many samples' table slots are loaded together.
const prefetchGroup = 16

func (l *linker) link(bt *linkBatch) error {
	s := &l.p.Samples
	if bt.reserve > 0 {
		s.Stack = grow(s.Stack, bt.reserve)
	}
	// Runs of samples between the messages, in file order.
	k, msgStart := 0, int32(0)
	for _, msg := range bt.msgs {
		if err := l.linkRun(bt, k, int(msg.before)); err != nil {
			return err
		}
		k = int(msg.before)
		if err := l.define(msg, bt.msgData[msgStart:msg.end]); err != nil {
			return err
		}
		msgStart = msg.end
	}
	return l.linkRun(bt, k, bt.samples())
}

// linkRun interns the stacks of the batch's samples from to to. A stack
// found in its home slot (most of them) is taken here, inline; the others
// go through stack.
func (l *linker) linkRun(bt *linkBatch, from, to int) error {
	s := &l.p.Samples
	if len(s.Stack)+to-from >= math.MaxInt32-1 {
		return fmt.Errorf("too many samples")
	}
	t := &l.stacks
	out := s.Stack
	defer func() { s.Stack = out }()
	ends, hashes := bt.keyEnd[:to], bt.hashes[:to]
	start := 0
	if from > 0 {
		start = int(ends[from-1])
	}
	for k0 := from; k0 < to; k0 += prefetchGroup {
		k1 := min(k0+prefetchGroup, to)
		l.prefetch(hashes[k0:k1])
		for k := k0; k < k1; k++ {
			key, h := bt.keys[start:ends[k]], hashes[k]
			start = int(ends[k])
			if len(t.slots) > 0 && len(key) < 0x80 {
				sl := t.slot(int(h) & (t.size() - 1))
				if uint32(sl>>32) == h {
					if st, ok := t.match(uint32(sl)-1, key); ok {
						out = append(out, st)
						continue
					}
				}
			}
			st, err := l.stack(key, h, bt.first+int32(k))
			if err != nil {
				return err
			}
			out = append(out, st)
		}
	}
	return nil
}

// prefetch loads the table slots of a group of stacks, and the arena
// entries they point to, before the group is interned: the loads are
// independent, so their cache misses overlap instead of coming one at a
// time, and interning then finds them in the cache.
func (l *linker) prefetch(hashes []uint32) {
	t := &l.stacks
	if len(t.arena) == 0 {
		return
	}
	// No branches on what the loads return, or a mispredicted one would
	// stall the loads behind it: an entry is loaded even when the hash
	// differs, and for an empty slot the last chunk's first byte is.
	mask := t.size() - 1
	last := len(t.arena) - 1
	var sink uint64
	for _, h := range hashes {
		sl := t.slot(int(h) & mask)
		p := uint32(sl) - 1
		c := t.arena[min(int(p>>arenaShift), last)]
		sink += sl + uint64(c[min(int(p&(arenaChunk-1)), len(c)-1)])
	}
	l.sink += sink
}

// double makes room for one more element by doubling s's capacity when
// it is full: append grows large slices by a quarter, which for the
// thousands of locations of a large profile leaves four times their size
// behind as garbage.
func double[T any](s []T) []T {
	if len(s) < cap(s) {
		return s
	}
	return grow(s, max(64, 2*cap(s)))
}

// define decodes a location, function or mapping message.
func (l *linker) define(msg linkMsg, b []byte) error {
	var err error
	switch msg.num {
	case fProfileLocation:
		err = l.location(b)
	case fProfileFunction:
		err = l.function(b)
	case fProfileMapping:
		err = l.mapping(b)
	}
	if err != nil {
		return fmt.Errorf("%s (at byte %d): %w", fieldNames[msg.num], msg.at, err)
	}
	return nil
}

// locIndex returns the dense index of location id, reserving one if the
// Location has not been seen yet. Id 0 yields -1 (an error for the caller).
func (l *linker) locIndex(id uint64, from int32) int32 {
	if id < uint64(len(l.locIDs.small)) {
		if i := l.locIDs.small[id]; i != 0 {
			return i - 1
		}
	}
	if id == 0 {
		return -1
	}
	if i, ok := l.locIDs.get(id); ok {
		return i
	}
	i := l.nloc
	if int(i)%locChunk == 0 {
		l.locChunks = append(l.locChunks, make([]Location, locChunk))
	}
	*l.loc(i) = Location{ID: id, Mapping: -1}
	l.nloc++
	l.locRef = append(double(l.locRef), ref{from: from})
	l.locIDs.set(id, i)
	return i
}

func (l *linker) funcIndex(id uint64, from int32) int32 {
	if i, ok := l.funcIDs.get(id); ok {
		return i
	}
	i := int32(len(l.funcs))
	l.funcs = append(double(l.funcs), rawFunction{})
	l.p.Functions = append(double(l.p.Functions), Function{ID: id})
	l.funcRef = append(double(l.funcRef), ref{from: from})
	l.funcIDs.set(id, i)
	return i
}

func (l *linker) mapIndex(id uint64, from int32) int32 {
	if i, ok := l.mapIDs.get(id); ok {
		return i
	}
	i := int32(len(l.maps))
	l.maps = append(l.maps, rawMapping{Mapping: Mapping{ID: id}})
	l.mapRef = append(l.mapRef, ref{from: from})
	l.mapIDs.set(id, i)
	return i
}

// location decodes a location message and stores it at its index.
func (l *linker) location(b []byte) error {
	loc, mapID, ok := l.parseLocationFast(b)
	if !ok {
		var err error
		if loc, mapID, err = l.parseLocation(b); err != nil {
			return err
		}
	}
	return l.addLocation(loc, mapID)
}

// parseLocationFast decodes a location message as encoders write them:
// one-byte tags, varint fields but for lines, lines of varint fields. It
// reports false for anything else (a longer tag, another wire type, a
// malformed varint), and parseLocation decodes the message again and
// words the error. The lines and their function ids go to the scratch
// slices. On wide profiles, with a million locations, the generic field
// walk with a callback per field took a quarter of the decode's time.
func (l *linker) parseLocationFast(b []byte) (loc Location, mapID uint64, ok bool) {
	lines, fnIDs := l.lineScratch[:0], l.fnIDScratch[:0]
	defer func() { l.lineScratch, l.fnIDScratch = lines, fnIDs }()
	for len(b) > 0 {
		tag := b[0]
		if tag >= 0x80 || tag < 8 { // a longer tag, or field number 0
			return loc, 0, false
		}
		v, n := uvarint(b[1:])
		if n <= 0 {
			return loc, 0, false
		}
		b = b[1+n:]
		switch tag & 7 {
		case byte(protowire.VarintType):
			if tag>>3 == 4 {
				return loc, 0, false
			}
			locationField(&loc, &mapID, protowire.Number(tag>>3), v)
		case byte(protowire.BytesType):
			if v > uint64(len(b)) {
				return loc, 0, false
			}
			data := b[:v]
			b = b[v:]
			switch tag >> 3 {
			case 1, 2, 3, 5:
				return loc, 0, false
			case 4:
				var ln Line
				var fnID uint64
				for len(data) > 0 {
					t := data[0]
					if t >= 0x80 || t < 8 || t&7 != byte(protowire.VarintType) {
						return loc, 0, false
					}
					v, n := uvarint(data[1:])
					if n <= 0 {
						return loc, 0, false
					}
					data = data[1+n:]
					lineField(&ln, &fnID, protowire.Number(t>>3), v)
				}
				lines = append(lines, ln)
				fnIDs = append(fnIDs, fnID)
			}
		default:
			return loc, 0, false
		}
	}
	return loc, mapID, true
}

// parseLocation is parseLocationFast for any well-formed message, with
// errors for the rest.
func (l *linker) parseLocation(b []byte) (loc Location, mapID uint64, err error) {
	lines, fnIDs := l.lineScratch[:0], l.fnIDScratch[:0]
	defer func() { l.lineScratch, l.fnIDScratch = lines, fnIDs }()
	err = fields(b, func(num protowire.Number, typ protowire.Type, v uint64, data []byte) error {
		switch num {
		case 1, 2, 3, 5:
			if err := wantVarint(num, typ); err != nil {
				return err
			}
		}
		locationField(&loc, &mapID, num, v)
		if num == 4 {
			if typ != protowire.BytesType {
				return fmt.Errorf("line: wire type %d, want 2", typ)
			}
			var ln Line
			var fnID uint64
			err := fields(data, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
				if num < 1 || num > 3 {
					return nil
				}
				if err := wantVarint(num, typ); err != nil {
					return err
				}
				lineField(&ln, &fnID, num, v)
				return nil
			})
			if err != nil {
				return fmt.Errorf("line %d: %w", len(lines), err)
			}
			lines = append(lines, ln)
			fnIDs = append(fnIDs, fnID)
		}
		return nil
	})
	if err != nil {
		return loc, 0, fmt.Errorf("location id %d: %w", loc.ID, err)
	}
	return loc, mapID, nil
}

// locationField sets a location message's varint field num to v.
func locationField(loc *Location, mapID *uint64, num protowire.Number, v uint64) {
	switch num {
	case 1:
		loc.ID = v
	case 2:
		*mapID = v
	case 3:
		loc.Address = v
	case 5:
		loc.IsFolded = v != 0
	}
}

// lineField sets a line message's varint field num to v.
func lineField(ln *Line, fnID *uint64, num protowire.Number, v uint64) {
	switch num {
	case 1:
		*fnID = v
	case 2:
		ln.Line = int64(v)
	case 3:
		ln.Column = int64(v)
	}
}

// addLocation checks and stores loc, with the lines and function ids in
// the scratch slices.
func (l *linker) addLocation(loc Location, mapID uint64) error {
	lines, fnIDs := l.lineScratch, l.fnIDScratch
	if loc.ID == 0 {
		return fmt.Errorf("location with address %#x: id 0 (ids must be non-zero)", loc.Address)
	}
	i := l.locIndex(loc.ID, -1)
	if l.locRef[i].defined {
		return fmt.Errorf("location %d: duplicate id %d", i, loc.ID)
	}
	l.locRef[i].defined = true
	loc.Mapping = -1
	if mapID != 0 {
		loc.Mapping = l.mapIndex(mapID, i)
	}
	for j, id := range fnIDs {
		lines[j].Function = -1
		if id != 0 {
			lines[j].Function = l.funcIndex(id, i)
		}
	}
	if len(lines) > 0 {
		if len(l.p.Lines)+len(lines) > math.MaxInt32 {
			return fmt.Errorf("location id %d: more than %d lines in all", loc.ID, math.MaxInt32)
		}
		if cap(l.p.Lines) == 0 {
			// Room for two lines per location the stacks referenced
			// (samples come first in most files): on a wide profile
			// doubling from 64 took a sixth of the decode's time.
			l.p.Lines = make([]Line, 0, max(64, 2*int(l.nloc)))
		}
		loc.Lines = l.p.AddLines(lines...)
	}
	*l.loc(i) = loc
	return nil
}

func (l *linker) function(b []byte) error {
	var f Function
	var raw rawFunction
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
		if num < 1 || num > 5 {
			return nil
		}
		if err := wantVarint(num, typ); err != nil {
			return err
		}
		switch num {
		case 1:
			f.ID = v
		case 2:
			raw.name = int64(v)
		case 3:
			raw.systemName = int64(v)
		case 4:
			raw.filename = int64(v)
		case 5:
			f.StartLine = int64(v)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("function id %d: %w", f.ID, err)
	}
	if f.ID == 0 {
		return fmt.Errorf("function %d: id 0 (ids must be non-zero)", len(l.funcs))
	}
	i := l.funcIndex(f.ID, -1)
	if l.funcRef[i].defined {
		return fmt.Errorf("function %d: duplicate id %d", i, f.ID)
	}
	l.funcRef[i].defined = true
	l.p.Functions[i] = f
	l.funcs[i] = raw
	return nil
}

func (l *linker) mapping(b []byte) error {
	var m rawMapping
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, _ []byte) error {
		if num < 1 || num > 10 {
			return nil
		}
		if err := wantVarint(num, typ); err != nil {
			return err
		}
		switch num {
		case 1:
			m.ID = v
		case 2:
			m.Start = v
		case 3:
			m.Limit = v
		case 4:
			m.Offset = v
		case 5:
			m.file = int64(v)
		case 6:
			m.buildID = int64(v)
		case 7:
			m.HasFunctions = v != 0
		case 8:
			m.HasFilenames = v != 0
		case 9:
			m.HasLineNumbers = v != 0
		case 10:
			m.HasInlineFrames = v != 0
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("mapping id %d: %w", m.ID, err)
	}
	if m.ID == 0 {
		return fmt.Errorf("mapping %d: id 0 (ids must be non-zero)", len(l.maps))
	}
	i := l.mapIndex(m.ID, -1)
	if l.mapRef[i].defined {
		return fmt.Errorf("mapping %d: duplicate id %d", i, m.ID)
	}
	l.mapRef[i].defined = true
	l.maps[i] = m
	return nil
}
