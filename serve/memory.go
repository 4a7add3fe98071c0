package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/pprof-tui/pprof-tui/analysis"
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

// acquire reserves n bytes, waiting up to b.wait for them; status hears
// that it waits. A nil budget has no limit.
func (b *budget) acquire(ctx context.Context, n int64, status func(string)) error {
	if b == nil || n == 0 {
		return nil
	}
	if n > b.total {
		return fmt.Errorf("needs about %s of memory; the server allows %s in all", bytesLabel(n), bytesLabel(b.total))
	}
	timer := time.NewTimer(b.wait)
	defer timer.Stop()
	told := false
	for {
		b.mu.Lock()
		if b.used+n <= b.total {
			b.used += n
			b.mu.Unlock()
			return nil
		}
		used, changed := b.used, b.changed
		b.mu.Unlock()
		if !told && status != nil {
			status(fmt.Sprintf("waiting for memory: other sessions' profiles hold %s of %s", bytesLabel(used), bytesLabel(b.total)))
			told = true
		}
		select {
		case <-changed:
		case <-timer.C:
			return errors.New("the server's memory is held by other sessions' profiles; try again later")
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
func (s *Server) Memory() int64 {
	s.mem.mu.Lock()
	defer s.mem.mu.Unlock()
	return s.mem.used
}

// memHold is one session's share of the budget: its profile's estimate.
// A session holds one profile; while it loads another, the old stays
// on screen (and in memory) until the new one is ready, so it holds the
// larger of the two meanwhile.
type memHold struct {
	b    *budget
	mu   sync.Mutex
	held int64
}

// grow makes the hold at least n, and returns what it added, for
// settle.
func (h *memHold) grow(ctx context.Context, n int64, status func(string)) (int64, error) {
	h.mu.Lock()
	extra := max(0, n-h.held)
	h.mu.Unlock()
	if err := h.b.acquire(ctx, extra, status); err != nil {
		return 0, err
	}
	h.mu.Lock()
	h.held += extra
	h.mu.Unlock()
	return extra, nil
}

// settle ends a load that grew the hold by extra: loaded, the hold
// becomes n, the new profile's; otherwise it goes back to the old one's.
func (h *memHold) settle(n, extra int64, loaded bool) {
	h.mu.Lock()
	free := extra
	if loaded {
		free = h.held - n
	}
	h.held -= free
	h.mu.Unlock()
	h.b.release(free)
}

func (h *memHold) releaseAll() {
	h.mu.Lock()
	n := h.held
	h.held = 0
	h.mu.Unlock()
	h.b.release(n)
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
