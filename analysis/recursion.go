package analysis

// Folding recursion (Options.Recursion): a transform of each stack's
// path of nodes, applied where paths are read (call trees, the flame
// graph, Peek, traces, folded stacks). It drops no sample and moves no
// value between leaves: a folded path ends in the node the path ended in,
// so flat values stay, and each node is still on the path of every
// sample it was on (direct) or on it once (all).

// folder folds paths, with its own scratch: one per goroutine.
type folder struct {
	mode string
	at   []int32 // "all": node → its index+1 in the path being folded
}

func (q *query) folder() *folder {
	if q.opt.Recursion == "" {
		return nil
	}
	return &folder{mode: q.opt.Recursion}
}

// fold folds path (root first) in place, and inl (a flag per node) with
// it when non-nil. Of the frames merged, the outermost stays: under
// "all", a node met again takes the path back to where the node first
// was, dropping the frames between.
func (f *folder) fold(path []int32, inl []bool, nodes int) ([]int32, []bool) {
	if f == nil || len(path) < 2 {
		return path, inl
	}
	out := 0
	if f.mode == RecursionDirect {
		for k, n := range path {
			if out > 0 && path[out-1] == n {
				continue
			}
			path[out] = n
			if inl != nil {
				inl[out] = inl[k]
			}
			out++
		}
	} else {
		if len(f.at) < nodes {
			f.at = make([]int32, nodes)
		}
		// Folded in place: the folded path is never longer than the
		// part of path read so far.
		folded := path[:0]
		for k, n := range path {
			before := len(folded)
			if folded = foldStep(f.at, folded, n); len(folded) > before && inl != nil {
				inl[before] = inl[k]
			}
		}
		for _, m := range folded {
			f.at[m] = 0
		}
		out = len(folded)
	}
	if inl != nil {
		inl = inl[:out]
	}
	return path[:out], inl
}
