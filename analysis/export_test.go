package analysis

import "math"

// ForgetTops drops the Engine's kept Top tables and stack weights, so
// that a benchmark's next Top sums and aggregates the stacks again (its
// location views and node tables stay, as they do when a person changes
// the sample type).
func ForgetTops(e *Engine) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.tops = recent[Options, *Top]{}
	e.weights = recent[weightKey, *keptWeights]{}
}

// ForgetPlainStacks drops what the Engine's node tables know of which
// stacks are plain, so that a benchmark's next table walks every stack
// node by node (and learns them again).
func ForgetPlainStacks(e *Engine) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, t := range e.tables {
		t.plain.Store(nil)
	}
}

// ForgetLocationViews drops the Engine's kept location views, so that a
// benchmark's next filter builds its view again, as a new filter does.
func ForgetLocationViews(e *Engine) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.locs = recent[locKey, *locPaths]{}
}

// BuildLocationView builds the location view of opt's name filters, on
// two goroutines or one.
func BuildLocationView(e *Engine, opt Options, two bool) error {
	c, err := compileOptions(&opt)
	if err != nil {
		return err
	}
	defer func(old int) { parallelLocations = old }(parallelLocations)
	if !two {
		parallelLocations = math.MaxInt
	}
	e.buildLocView(c, opt.NoInlines, nil)
	return nil
}

// NodeTableWithRanks makes the engine's node table at granularity and
// ranks its names, as a query's table does before its rows are sorted.
func NodeTableWithRanks(e *Engine, granularity string) {
	e.nodeTable(granularity, false, false).ranks()
}

// RowsOf sums opt's table once and returns what makes its rows from the
// sums (sorting them, their inline markers and the Row values).
func RowsOf(e *Engine, opt Options) (func() *Top, error) {
	q, err := e.newQuery(opt)
	if err != nil {
		return nil, err
	}
	a := q.aggregate()
	return a.top, nil
}
