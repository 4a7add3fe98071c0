package analysis

import (
	"sync"

	"github.com/pprof-tui/pprof-tui/format"
)

// Engine answers queries about one profile. It caches what does not
// depend on the options (frame slots, node tables per granularity), so
// changing a filter or the sample type re-aggregates without re-reading.
// An Engine is safe for concurrent use.
type Engine struct {
	p  *format.Profile
	lt lineTable

	mu     sync.Mutex
	tables map[tableKey]*nodeTable
	names  *nameRanks  // for every node table
	drop   *dropFrames // the profile's drop_frames/keep_frames, applied once
	base   []bool      // label sets marking -diff_base samples; empty if none
	units  map[string]string
	// derived holds the engines of this profile with -tagroot/-tagleaf
	// frames, by setting.
	derived map[string]*Engine
	tops    recent[Options, *Top] // the last Top results
	// oneFile: 0 unknown, 1 every function name has one file, 2 not
	// (see oneFilePerName).
	oneFile int8
	// computing holds the Top tables being computed, by topKey.
	computing map[Options]*topCall
	locs      recent[locKey, *locPaths]       // the last location views
	weights   recent[weightKey, *keptWeights] // the last stack weights
}

type tableKey struct {
	granularity            string
	noInlines, showColumns bool
}

// NewEngine prepares p for queries. p must not change afterwards.
func NewEngine(p *format.Profile) *Engine {
	return &Engine{p: p, lt: newLineTable(p), names: &nameRanks{p: p}, tables: map[tableKey]*nodeTable{}}
}

// Profile returns the engine's profile.
func (e *Engine) Profile() *format.Profile { return e.p }

func (e *Engine) nodeTable(granularity string, noInlines, showColumns bool) *nodeTable {
	e.mu.Lock()
	defer e.mu.Unlock()
	k := tableKey{granularity, noInlines, showColumns}
	if t := e.tables[k]; t != nil {
		return t
	}
	// The profile's function names are ranked (for the rows' order, see
	// ranks) on the other core while this one numbers the nodes: on
	// wide's 100,000 functions both take about 0.1 s.
	go e.names.get()
	t := newNodeTable(e.p, e.lt, e.names, granularity, noInlines, showColumns)
	e.tables[k] = t
	// Every table sorts its rows by the names' ranks, but only once its
	// stacks are summed: they are ranked meanwhile on the other core,
	// while the query builds its location view (on wide's 1.1M lines,
	// 0.15 s of the first lines table).
	go t.ranks()
	return t
}
