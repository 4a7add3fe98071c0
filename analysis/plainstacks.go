package analysis

// plainStacks returns table t's flags of plain stacks (nodeTable.plain),
// or nil when no walk has told them. For a table no walk has told them
// for, they are derived from another table's whose nodes t's refine
// (each node of t is part of one node of the other: lines of functions),
// as a stack with no function twice has no line twice: the first table
// at the lines granularity need not walk those stacks node by node.
func (e *Engine) plainStacks(t *nodeTable) []uint8 {
	if f := t.plainStacks(); f != nil {
		return f
	}
	e.mu.Lock()
	var known []*nodeTable
	for _, o := range e.tables {
		if o != t && o.plainStacks() != nil {
			known = append(known, o)
		}
	}
	e.mu.Unlock()
	for _, o := range known {
		if !refines(t, o) {
			continue
		}
		flags := o.plainStacks()
		derived := make([]uint8, len(flags))
		for s, f := range flags {
			if f == plainStack {
				derived[s] = plainStack // a repeat in o may be none in t
			}
		}
		t.setPlainStacks(derived)
		return t.plainStacks()
	}
	return nil
}

// refines reports whether every node of t is part of one node of o: the
// frame slots of a t node are all of one o node.
func refines(t, o *nodeTable) bool {
	to := make([]int32, t.len())
	for i := range to {
		to[i] = -1
	}
	for slot, n := range t.slotNode {
		m := o.slotNode[slot]
		switch to[n] {
		case -1:
			to[n] = m
		case m:
		default:
			return false
		}
	}
	return true
}

// Values of plainStacks' flags.
const (
	unknownStack uint8 = iota // not walked yet
	plainStack                // no node occurs twice
	repeatStack               // some node occurs twice
)
