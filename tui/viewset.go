package tui

import "github.com/pprof-tui/pprof-tui/views"

// viewID names a view; the views' tabs are in this order (the keys 1 to
// 9 pick them).
type viewID int

const (
	viewTop viewID = iota
	viewTree
	viewLabels
	viewFlame
	viewPeek
	viewSource
	viewDisasm
	viewTraces
	viewGraph
	numViews
)

// viewSet is the explorer's views. The root reaches them by id, and the
// ones whose own methods it calls by type through their fields, so that
// no code depends on where a view's tab is.
type viewSet struct {
	all    [numViews]views.View
	active viewID
	// top is the Top view, also in all: the live trend and the order of
	// its table are the root's business too.
	top *views.Top
}

// newViewSet makes the views, empty (Top takes its order from the
// options of its first result), with Top focused.
func newViewSet(c *views.Common) viewSet {
	s := viewSet{top: views.NewTop(c)}
	s.all = [numViews]views.View{
		viewTop:    s.top,
		viewTree:   views.NewTree(c),
		viewLabels: views.NewLabels(c),
		viewFlame:  views.NewFlame(c),
		viewPeek:   views.NewPeek(c),
		viewSource: views.NewSource(c),
		viewDisasm: views.NewDisasm(c),
		viewTraces: views.NewTraces(c),
		viewGraph:  views.NewGraph(c),
	}
	return s
}

// get returns the view id names.
func (s *viewSet) get(id viewID) views.View { return s.all[id] }

// focused returns the active view.
func (s *viewSet) focused() views.View { return s.all[s.active] }

// find returns the id of v, or false when v is none of the set's.
func (s *viewSet) find(v views.View) (viewID, bool) {
	for id := range numViews {
		if s.all[id] == v {
			return id, true
		}
	}
	return 0, false
}
