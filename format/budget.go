package format

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"
)

// ErrBudget is returned (wrapped) when decoding a profile would take more
// memory than its Budget allows, or far more than its input's size: the
// load stops before that memory is taken.
var ErrBudget = errors.New("profile needs more memory than allowed")

// Budget counts the memory that decoded profiles take. A decoder charges
// it before it allocates (the in-memory copy of a text input, sample
// values, stacks, locations, strings), so an input that decodes to far
// more than it looks, a few compressed kilobytes that claim gigabytes,
// fails with ErrBudget instead of taking the machine's memory.
//
// A Budget is safe for concurrent use: loads running together, or every
// session of a server, may share one. Parse releases what a failed load
// charged and the transient copy of the input; what the returned profile
// holds stays charged until the caller releases it: a server loading into
// a Sub budget per session releases that budget's Used when the session
// ends.
type Budget struct {
	limit  int64
	used   atomic.Int64
	parent *Budget
}

// NewBudget returns a budget of limit bytes.
func NewBudget(limit int64) *Budget {
	return &Budget{limit: limit}
}

// Sub returns a budget of at most limit bytes whose charges are also
// charged to b: a session's share of a server's memory.
func (b *Budget) Sub(limit int64) *Budget {
	return &Budget{limit: limit, parent: b}
}

// Used is how much is charged now.
func (b *Budget) Used() int64 { return b.used.Load() }

// Charge takes n bytes from the budget (and its parents), or returns an
// error wrapping ErrBudget and takes nothing if that would pass a limit.
func (b *Budget) Charge(n int64) error {
	for {
		u := b.used.Load()
		if n > b.limit-u {
			return fmt.Errorf("%w: it needs more than %d bytes (raise -max_bytes to allow more)", ErrBudget, b.limit)
		}
		if b.used.CompareAndSwap(u, u+n) {
			break
		}
	}
	if b.parent != nil {
		if err := b.parent.Charge(n); err != nil {
			b.used.Add(-n)
			return err
		}
	}
	return nil
}

// Release gives back n bytes charged earlier.
func (b *Budget) Release(n int64) {
	for ; b != nil; b = b.parent {
		b.used.Add(-n)
	}
}

// BudgetPerMaxByte is how many bytes of memory a load may take for each
// byte of Options.MaxBytes when Options.Budget is nil: the decompressed
// input, when a text format holds it whole, plus what it decodes to.
// profile.proto streams and decodes to about 1.1 times its size.
const BudgetPerMaxByte = 2

// maxExpansion bounds what a format decoded from memory may take per
// byte of its input, beyond expansionSlack. What producers write decodes
// to a few times its size at most (a folded line of 4 bytes is a 16-byte
// sample); an input past that is built to exhaust memory, such as a perf
// script whose every sample carries a value for each of a thousand
// event names.
const (
	maxExpansion   = 32
	expansionSlack = 4 << 20
)

// meter charges one load's allocations to its budget and keeps them
// within maxExpansion of the input.
type meter struct {
	budget  *Budget
	charged int64 // to budget, by this load
	cap     int64 // the most this load may take in all
	input   int64 // the input's size, for the error
}

func newMeter(b *Budget) *meter {
	return &meter{budget: b, cap: math.MaxInt64}
}

// bound limits the load to maxExpansion times an input of n bytes.
func (m *meter) bound(n int64) {
	if m == nil {
		return
	}
	m.input = n
	m.cap = min(m.cap, m.charged+maxExpansion*n+expansionSlack)
}

// unbound lifts the limit bound set, for an input replaced by another.
func (m *meter) unbound() {
	if m != nil {
		m.cap = math.MaxInt64
	}
}

// charge accounts for n bytes about to be allocated. A nil meter
// charges nothing: decoders called on their own, in tests.
func (m *meter) charge(n int64) error {
	if m == nil {
		return nil
	}
	if n > m.cap-m.charged {
		return fmt.Errorf("%w: it would decode to more than %d bytes, %d times its %d-byte input: not a profile a tool wrote", ErrBudget, m.cap, maxExpansion, m.input)
	}
	if m.budget != nil {
		if err := m.budget.Charge(n); err != nil {
			return err
		}
	}
	m.charged += n
	return nil
}

// release gives back n bytes of this load's charges.
func (m *meter) release(n int64) {
	if m == nil {
		return
	}
	n = min(n, m.charged)
	m.charged -= n
	if m.budget != nil {
		m.budget.Release(n)
	}
}

// Sizes charged per decoded item, in bytes, rounded up for the maps that
// index them.
const (
	locationCost = 40 + 24 + 48 // Location, its Line, a map entry
	functionCost = 72 + 48      // Function, a map entry
	stringCost   = 16 + 48      // header and map entry, plus its bytes
	mappingCost  = 96 + 48
)
