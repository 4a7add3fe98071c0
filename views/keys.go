package views

import (
	"github.com/charmbracelet/bubbles/key"
)

// KeyMap is every key binding of the explorer, with its help text. The
// root's table of what its keys do, with the views' groups (ViewGroups),
// makes the key hint line, the `?` help and the key table in
// docs/explorer.md.
type KeyMap struct {
	// Anywhere.
	Quit, Help, Views, NextView, PrevView key.Binding
	Command, SampleType, Back, Picker     key.Binding
	Copy, Info                            key.Binding

	// Live refresh (-refresh).
	Pause, Refresh, Delta, Trend key.Binding
	StepBack, StepForward        key.Binding
	Mark                         key.Binding

	// The picker's own.
	PickBase key.Binding

	// Moving in a view.
	Up, Down, PageUp, PageDown, Home, End key.Binding
	Search, NextMatch, PrevMatch, Clear   key.Binding

	// The selected row.
	Drill, Focus, Ignore, Hide, Pivot key.Binding

	// The stacks.
	Recursion key.Binding

	// Top.
	Sort key.Binding

	// Tree.
	Expand, Collapse, Toggle, Heaviest, CollapseAll, Invert key.Binding

	// Flame graph.
	FramePrev, FrameNext, FrameParent, FrameChild, Zoom, ZoomOut key.Binding
	Widths                                                       key.Binding

	// Peek.
	Walk, Center key.Binding

	// Source.
	Hottest, ScrollLeft, ScrollRight key.Binding

	// Disassembly.
	Follow, Return key.Binding

	// Traces.
	SelectFrame key.Binding
}

// DefaultKeyMap returns the explorer's keys.
func DefaultKeyMap() *KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return &KeyMap{
		Quit:        b("q", "quit", "q", "ctrl+c"),
		Help:        b("?", "help", "?"),
		Views:       b("1-9", "switch view", "1", "2", "3", "4", "5", "6", "7", "8", "9"),
		NextView:    b("tab", "next view", "tab"),
		PrevView:    b("shift+tab", "previous view", "shift+tab"),
		Command:     b(":", "command: pprof settings, focus=RE… (:help lists them)", ":"),
		SampleType:  b("s", "sample type: cycle through them", "s"),
		Back:        b("backspace", "back: undo the last change (an option, a zoom, a pivot)", "backspace"),
		Copy:        b("y", "copy: the selected name to the clipboard (OSC 52)", "y"),
		Info:        b("I", "info: the profile's facts, settings and node counts", "I"),
		Pause:       b("p", "pause: stop or resume the live refresh (-refresh)", "p"),
		Refresh:     b("r", "refresh: fetch the live source now", "r"),
		Delta:       b("d", "delta: the latest snapshot or its change since the one before", "d"),
		Trend:       b("t", "trend: a column of each function's flat over the snapshots (Top)", "t"),
		StepBack:    b("[", "step back: an earlier snapshot's top functions (pauses)", "["),
		StepForward: b("]", "step forward: a later snapshot, past the latest back to live", "]"),
		Mark:        b("m", "mark: compare every new snapshot with this one (again: clear)", "m"),
		PickBase:    b("b", "base: compare what opens next with this profile (again: -base, again: none)", "b"),
		Picker:      b("P", "picker: close the profile, back to the picker (when it opened from one)", "P"),

		Up:        b("↑/k", "up", "up", "k"),
		Down:      b("↓/j", "down", "down", "j"),
		PageUp:    b("pgup", "page up", "pgup", "ctrl+b", "ctrl+u"),
		PageDown:  b("pgdn", "page down", "pgdown", "ctrl+f", "ctrl+d"),
		Home:      b("g", "first row", "g", "home"),
		End:       b("G", "last row", "G", "end"),
		Search:    b("/", "search: regexp, as you type", "/"),
		NextMatch: b("n", "next match", "n"),
		PrevMatch: b("N", "previous match", "N"),
		Clear:     b("esc", "clear search", "esc"),

		Drill:  b("enter", "drill: focus on the selected function alone", "enter"),
		Focus:  b("f", "focus: add the selected function to the focus", "f"),
		Ignore: b("i", "ignore: drop the samples through it", "i"),
		Hide:   b("H", "hide: remove it from the stacks, its flat going to its callers (merge function)", "H"),
		Pivot:  b("S", "pivot: its callers above it and callees below, across all its call sites (sandwich)", "S"),

		Recursion: b("R", "recursion: fold all recursion, then direct only, then none (:recursion=)", "R"),

		Sort: b("o", "sort: by flat, cum or name", "o"),

		Expand:      b("→/l", "expand", "right", "l"),
		Collapse:    b("←/h", "collapse: or go to the parent", "left", "h"),
		Toggle:      b("space", "expand/collapse", " "),
		Heaviest:    b("e", "heaviest: expand the heaviest path", "e"),
		CollapseAll: b("c", "collapse all", "c"),
		Invert:      b("b", "invert: toggle the bottom-up tree (and flame graph)", "b"),

		FramePrev:   b("←/h", "previous frame on the row", "left", "h"),
		FrameNext:   b("→/l", "next frame on the row", "right", "l"),
		FrameParent: b("↑/k", "frame above: the caller (inverted: the callee)", "up", "k"),
		FrameChild:  b("↓/j", "heaviest frame below: a callee (inverted: a caller)", "down", "j"),
		Zoom:        b("enter", "zoom: the frame fills the width (double click too); in a pivot, pivot on it", "enter"),
		ZoomOut:     b("⌫/esc", "zoom out: back through the zooms, and the pivots", "backspace", "esc"),
		Widths:      b("w", "widths: in a diff, frames as wide as the new profile's values or the base's", "w"),

		Walk:   b("enter", "walk: select the caller/callee under the cursor (double click too)", "enter"),
		Center: b("c", "center: back to the selected function", "c"),

		Hottest:     b("e", "hottest: go to the hottest line", "e"),
		ScrollLeft:  b("←/h", "scroll left (long lines)", "left", "h"),
		ScrollRight: b("→/l", "scroll right (long lines)", "right", "l"),

		Follow: b("enter", "follow: a call selects the callee in every view, a jump moves to its target", "enter"),
		Return: b("backspace", "return: back from the last call or jump followed", "backspace"),

		SelectFrame: b("enter", "select: the function of the frame under the cursor, in every view", "enter"),
	}
}

// KeyGroup is a titled group of bindings, for help and the docs.
type KeyGroup struct {
	Title    string
	Bindings []key.Binding
}

// ViewGroups lists the bindings of each view's own, grouped as the full
// help shows them after the root's.
func (k *KeyMap) ViewGroups() []KeyGroup {
	return []KeyGroup{
		{"Top", []key.Binding{k.Sort}},
		{"Tree", []key.Binding{k.Expand, k.Collapse, k.Toggle, k.Heaviest, k.CollapseAll, k.Invert}},
		{"Labels", k.LabelBindings()},
		{"Flame graph", []key.Binding{k.FramePrev, k.FrameNext, k.FrameParent, k.FrameChild, k.Zoom, k.ZoomOut, k.Widths, withHelp(k.Invert, "invert: the leaf functions on top, their callers below")}},
		{"Peek", []key.Binding{k.Walk, k.Center}},
		{"Source", []key.Binding{k.Hottest, k.ScrollLeft, k.ScrollRight}},
		{"Disassembly", []key.Binding{withHelp(k.Hottest, "hottest: go to the hottest instruction"), k.Follow, k.Return}},
		{"Traces", []key.Binding{k.SelectFrame}},
		{"Graph", []key.Binding{withHelp(k.FrameParent, "re-centre on a caller: the aimed one, else the heaviest"), withHelp(k.FrameChild, "re-centre on a callee: the aimed one, else the heaviest"), withHelp(k.FramePrev, "aim at the previous caller or callee"), withHelp(k.FrameNext, "aim at the next caller or callee")}},
	}
}

// LabelBindings are the row keys as the Labels view uses them.
func (k *KeyMap) LabelBindings() []key.Binding {
	return []key.Binding{
		withHelp(k.Drill, "tagfocus: keep the samples with this value"),
		withHelp(k.Focus, "tagfocus: the same"),
		withHelp(k.Ignore, "tagignore: drop the samples with this value"),
		withHelp(k.Hide, "taghide: hide the label key"),
	}
}
