package views

import (
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// The differential flame graph, as Brendan Gregg's and Grafana's: in a
// diff whose two profiles the root can give apart (Common.Sides), the
// frames are as wide as their value in the new profile (w: in the base,
// to see what went), and coloured by their change, new − base, with the
// diff views' colours, stronger as the change is a larger share of the
// total. The detail line gives a frame's before, after and change.

// flameDiff is the diff flame graph's state beside the tree the widths
// come from.
type flameDiff struct {
	other    *analysis.Tree // the profile the widths are not drawn from
	fromBase bool           // the widths are the base's
	// total is the diff's percentage denominator, as the other views'
	// (the base's total under -diff_base).
	total int64
	// match caches the node of other at the same path as a node of the
	// tree drawn (nil: none there).
	match map[*analysis.TreeNode]*analysis.TreeNode
}

// flameTrees computes the tree the flame graph draws: e's, or in a diff
// with sides the new profile's (or the base's: fromBase), with the other
// for the colours.
func flameTrees(e *analysis.Engine, opt analysis.Options, to analysis.TreeOptions,
	sides func() (newE, baseE *analysis.Engine, err error), fromBase bool) (*analysis.Tree, *flameDiff, error) {
	tr, err := e.Tree(opt, to)
	if err != nil || sides == nil {
		return tr, nil, err
	}
	nt, bt, err := onSides(sides, func(e *analysis.Engine) (*analysis.Tree, error) { return e.Tree(opt, to) })
	if err != nil {
		return nil, nil, err
	}
	d := &flameDiff{other: bt, fromBase: fromBase, total: tr.Total, match: map[*analysis.TreeNode]*analysis.TreeNode{}}
	if fromBase {
		d.other, nt = nt, bt
	}
	return nt, d, nil
}

// flameDiffState is the flame graph's Query state: what its result
// depends on besides the options.
func (f *Flame) flameDiffState() string {
	if !f.c.Diff || f.c.Sides == nil {
		return ""
	}
	if f.fromBase {
		return "diff widths base"
	}
	return "diff widths new"
}

// counterpart is the node of the other tree at n's path (nil: none; n
// nil is the root, whose counterpart is the root).
func (d *flameDiff) counterpart(tr *analysis.Tree, n *analysis.TreeNode) (*analysis.TreeNode, bool) {
	if n == nil {
		return nil, true
	}
	if m, ok := d.match[n]; ok {
		return m, m != nil
	}
	kids := d.other.Roots()
	if n.Parent != nil {
		p, ok := d.counterpart(tr, n.Parent)
		if !ok {
			d.match[n] = nil
			return nil, false
		}
		kids = d.other.Children(p)
	}
	name := tr.Nodes.Name(n.Node)
	var m *analysis.TreeNode
	for _, k := range kids {
		if d.other.Nodes.Name(k.Node) == name {
			m = k
			break
		}
	}
	d.match[n] = m
	return m, m != nil
}

// beforeAfter is frame n's value in the base and in the new profile
// (the root's: the roots' sums).
func (f *Flame) beforeAfter(n *analysis.TreeNode) (before, after int64) {
	d := f.diff
	drawn := f.lay.sum
	var other int64
	if n == nil {
		other = rootsTotal(d.other)
	} else {
		drawn = n.Total
		if m, ok := d.counterpart(f.tree, n); ok {
			other = m.Total
		}
	}
	if d.fromBase {
		return drawn, other
	}
	return other, drawn
}

// diffDetail is the detail line's numbers for frame n in the diff flame
// graph, longest first.
func (f *Flame) diffDetail(n *analysis.TreeNode) []string {
	before, after := f.beforeAfter(n)
	change := after - before
	pct := strings.TrimPrefix(flameShare(change, f.diff.total), "-")
	switch {
	case change > 0:
		pct = "+" + pct
	case change < 0:
		pct = "-" + pct
	}
	ch := "change " + f.signed(change) + " (" + pct + ")"
	return []string{
		"before " + f.value(before) + "  after " + f.value(after) + "  " + ch,
		"before " + f.value(before) + "  after " + f.value(after),
		ch,
		f.signed(change),
	}
}

// widthsNote says what the widths are, for the detail line.
func (f *Flame) widthsNote() string {
	if f.diff.fromBase {
		return "  widths: base · w: new"
	}
	return "  widths: new · w: base"
}

// toggleWidths draws the widths from the other profile: a new result.
func (f *Flame) toggleWidths() {
	if f.diff == nil {
		return
	}
	f.fromBase = !f.fromBase // a new state: Busy until its result is shown
	f.recompute()
}

// diffStyle colours frame n by its change; an unchanged frame is grey.
func (f *Flame) diffStyle(n *analysis.TreeNode) lipgloss.Style {
	before, after := f.beforeAfter(n)
	if after == before {
		return f.c.Styles.FlameSame
	}
	return f.c.Styles.DiffBox(after-before, f.diff.total)
}

// rootsTotal is the sum of a tree's roots' totals: what it draws.
func rootsTotal(tr *analysis.Tree) int64 {
	var sum int64
	for _, r := range tr.Roots() {
		sum += r.Total
	}
	return sum
}
