package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/format"
)

// DefaultMaxMemory is the sessions' memory budget unless -max_memory
// says otherwise: a fixed size, not a share of the machine's memory, so
// that what a server admits is the same on every machine, and small
// enough for a laptop or a shared box. It holds one profile of the
// largest size served by default (512 MiB decoded, about 1.5 GiB
// parsed), or many ordinary ones.
const DefaultMaxMemory = 2 << 30

// parsedFactor is how many times its decoded size a profile is reckoned
// to take while it is parsed and held: the decoded bytes read, and the
// profile built from them, whose strings, locations and samples take
// about as much again or more.
const parsedFactor = 3

// budget is a weighted semaphore of bytes, shared by the sessions: a
// reservation waits for others to be released, for a bounded time.
type budget struct {
	total int64
	wait  time.Duration
	mu    sync.Mutex
	used  int64
	// changed is closed, and replaced, whenever bytes are released.
	changed chan struct{}
}

// errMemoryBusy is acquire's answer when the bytes were not freed in
// time.
var errMemoryBusy = errors.New("the server's memory is held by open profiles")

// acquire reserves n bytes, waiting up to b.wait for them; status hears
// that it waits. Before it waits, it has the garbage collector give
// back what dropped profiles held (see memHold). A nil budget has no
// limit.
func (b *budget) acquire(ctx context.Context, n int64, status func(used, total int64)) error {
	if b == nil || n == 0 {
		return nil
	}
	if n > b.total {
		return fmt.Errorf("needs about %s of memory; the server allows %s in all", bytesLabel(n), bytesLabel(b.total))
	}
	timer := time.NewTimer(b.wait)
	defer timer.Stop()
	collected, told := false, false
	for {
		b.mu.Lock()
		if b.used+n <= b.total {
			b.used += n
			b.mu.Unlock()
			return nil
		}
		used, changed := b.used, b.changed
		b.mu.Unlock()
		if !collected {
			collected = true
			runtime.GC() // queues the cleanups of collected profiles, which close changed
			continue
		}
		if !told && status != nil {
			status(used, b.total)
			told = true
		}
		select {
		case <-changed:
		case <-timer.C:
			return errMemoryBusy
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (b *budget) release(n int64) {
	if b == nil || n <= 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// Memory reports the bytes reserved now (for tests and the log).
func (s *Server) Memory() int64 { return s.mem.Memory() }

func (b *budget) Memory() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// memHold is one session's share of the budget: a reservation for
// each profile it keeps. A reservation is tied to its profile
// (format.Profile.Holds), so it lasts while the explorer keeps that
// profile, a copy of it or a profile merged from it: the profile on
// screen and the one loading to replace it, a diff's two profiles, the
// sides a diff's flame graph reads again, a live profile's marked
// snapshot. The garbage collector gives a reservation back once its
// profile is dropped; the session's end gives back whatever is left.
type memHold struct {
	b       *budget
	mu      sync.Mutex
	tickets []*ticket
}

// ticket is one reservation's bytes, given back once.
type ticket struct {
	b    *budget
	n    int64
	done atomic.Bool
}

func (t *ticket) release() {
	if t.done.CompareAndSwap(false, true) {
		t.b.release(t.n)
	}
}

// reservation is what a profile holds: its collection releases the
// ticket (a cleanup's argument must not keep its object alive, hence
// the two types).
type reservation struct{ t *ticket }

// reserve reserves n bytes for a profile about to be loaded. The
// caller ties the reservation to the profile with hold, or releases it
// if the load fails.
func (h *memHold) reserve(ctx context.Context, n int64, status func(string)) (*ticket, error) {
	whose := func() string {
		if own := h.held(); own > 0 {
			return fmt.Sprintf("this session's and others' profiles (%s of it this session's)", bytesLabel(own))
		}
		return "other sessions' profiles"
	}
	err := h.b.acquire(ctx, n, func(used, total int64) {
		if status != nil {
			status(fmt.Sprintf("waiting for memory: %s hold %s of %s", whose(), bytesLabel(used), bytesLabel(total)))
		}
	})
	if errors.Is(err, errMemoryBusy) {
		return nil, fmt.Errorf("the server's memory is held by %s; try again later", whose())
	}
	if err != nil {
		return nil, err
	}
	t := &ticket{b: h.b, n: n}
	h.mu.Lock()
	h.tickets = slices.DeleteFunc(h.tickets, func(t *ticket) bool { return t.done.Load() })
	h.tickets = append(h.tickets, t)
	h.mu.Unlock()
	return t, nil
}

// hold ties t to p: t is released once p is collected.
func hold(p *format.Profile, t *ticket) {
	r := &reservation{t}
	runtime.AddCleanup(r, (*ticket).release, t)
	p.Holds = append(p.Holds, r)
}

// held is what the session's profiles hold now.
func (h *memHold) held() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	var n int64
	for _, t := range h.tickets {
		if !t.done.Load() {
			n += t.n
		}
	}
	return n
}

func (h *memHold) releaseAll() {
	h.mu.Lock()
	ts := h.tickets
	h.tickets = nil
	h.mu.Unlock()
	for _, t := range ts {
		t.release()
	}
}

// decodedCap is what a profile of size bytes read through r decodes to,
// at most maxBytes: its size, or for gzip the trailer's ISIZE. A
// trailer can lie; the parse is then capped at what it claims (see
// rootFiles.parseIn), so the lie fails the load instead of taking more
// than was reserved. A gzip stream of several members, whose last
// trailer gives only its own size, fails the same way.
func decodedCap(r io.ReaderAt, size, maxBytes int64) int64 {
	n := size
	var b [4]byte
	if size >= 20 {
		if _, err := r.ReadAt(b[:2], 0); err == nil && b[0] == 0x1f && b[1] == 0x8b {
			if _, err := r.ReadAt(b[:], size-4); err == nil {
				// Below the file's own size it is a stored stream, a
				// lie or a size past 4 GiB (ISIZE wraps): the file's
				// size then bounds the first, and fails the others.
				n = max(size, int64(b[0])|int64(b[1])<<8|int64(b[2])<<16|int64(b[3])<<24)
			}
		}
	}
	return max(1, min(n, maxBytes))
}

// reckon is the memory a profile decoding to decoded bytes is reckoned
// to take, from the budget's point of view.
func reckon(decoded int64) int64 { return parsedFactor*decoded + 1<<20 }

func bytesLabel(n int64) string { return analysis.ScaledLabel(n, "bytes", "auto") }
