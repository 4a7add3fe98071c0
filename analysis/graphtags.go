package analysis

// A visual graph's label tags (-dot's nodelets): summed per node from
// the samples' label sets and numeric "bytes" labels, trimmed, and
// counted when nodecount chooses the nodes.

import (
	"slices"
	"sort"
	"strings"

	"github.com/pprof-tui/pprof-tui/format"
)

// tags sums the label tags of g's nodes over the samples, as pprof's
// graph keeps them for -dot's nodelets: each node's samples by label set,
// and by numeric "bytes" label value, where the node is the leaf (flat)
// and anywhere (cum, once per sample).
//
// Only the first limit nodes get their tags; with flatOnly, only the
// tags' flat values are summed (one node a sample, its leaf). A label tag is found by
// its node and its name's number, not by its name: on a million samples
// with hundreds of label sets, looking names up took a third of the
// Graph view's time.
func (b *graphBuild) tags(g *ggraph, limit int, flatOnly bool) {
	q := b.q
	p := q.e.p
	hasLabels := len(p.LabelSets.Pairs) > 0 || p.Samples.NumOff != nil
	if !hasLabels {
		return
	}
	limit = min(limit, len(g.nodes))
	units := q.e.NumLabelUnits()
	unit := q.opt.Unit
	if unit == "" {
		unit = "minimum"
	}
	// Each label set's name, as a number (-1: no name).
	var names interner[string]
	setIdx := make([]int32, p.LabelSets.Len())
	var parts []string
	for set := range setIdx {
		parts = parts[:0]
		for _, l := range p.LabelSets.At(int32(set)) {
			k := p.Strings[l.Key]
			if k == format.BaseLabel {
				continue
			}
			parts = append(parts, k+":"+p.Strings[l.Value])
		}
		if len(parts) == 0 {
			setIdx[set] = -1
			continue
		}
		sort.Strings(parts)
		name := strings.Join(parts, `\n`)
		setIdx[set] = names.id(name)
	}
	lt := newLabelTags(limit, len(names.keys))

	vals := p.Samples.Values[q.vi]
	nn := q.nodes.len()
	stamp := make([]int32, nn)
	fold := q.folder()
	var path []int32
	pathOf, pathOK := int32(-1), false // the stack path (or leaf) holds
	// A graph's tags count only its first limit nodes: its flat tags
	// need only the stack's leaf, whose node folding keeps (leafOnly);
	// without folding, its tags need only the frames of the locations
	// with one of those nodes (limited), which on a million distinct
	// stacks are a few of each stack's (byLoc).
	leafOnly := flatOnly && g.child == nil
	byLoc := !flatOnly && g.child == nil && fold == nil
	off, nodes := q.locOff, q.locNodes
	var limited []bool
	if byLoc {
		limited = make([]bool, len(off)-1)
		for l := range limited {
			for j := off[l]; j < off[l+1]; j++ {
				if gi := g.where[nodes[j]]; gi >= 0 && int(gi) < limit {
					limited[l] = true
					break
				}
			}
		}
	}
	// counted, when the tags are only counted (the Graph view's, at
	// nodefraction 0: selectTop counts at most MaxNodelets of a node's)
	// and no sample's weight is negative (so that a tag made has a flat
	// value other than 0): per first node, the tags made for it; a node
	// with MaxNodelets of them takes no more samples.
	var counted []int32
	if b.noTags && leafOnly && !q.mean && !slices.ContainsFunc(vals, func(v int64) bool { return v < 0 }) {
		counted = make([]int32, limit)
	}
	// A flat tag's node is its stack's leaf (stackLeaf): leafGI has, per
	// stack, the leaf's index among the first limit nodes (-1: another
	// node, or none), so that a sample whose leaf is not among them is
	// passed over with one look-up, before its labels are read (a
	// million samples of 20,000 stacks look up 20,000 leaves).
	var leafGI []int32
	if leafOnly {
		leafGI = make([]int32, p.Stacks.Len())
		splitAt(stacksHalf(&p.Stacks), len(leafGI), func(_, lo, hi int) {
			for s := lo; s < hi; s++ {
				leafGI[s] = -1
				if _, leaf := q.stackLeaf(p.Stacks.At(int32(s))); leaf >= 0 {
					if gi := g.where[leaf]; gi >= 0 && int(gi) < limit {
						leafGI[s] = gi
					}
				}
			}
		})
	}
	isBytes := make([]bool, len(p.Samples.NumKinds)) // per numeric kind: its key is "bytes"
	for k, kind := range p.Samples.NumKinds {
		isBytes[k] = p.Strings[kind.Key] == "bytes"
	}
	var locs []int32 // the stack's locations under the filters
	leaf := int32(-1)
	bytesUnit := units["bytes"]
	var nums []int64 // the sample's "bytes" values
	for i, s := range p.Samples.Stack {
		if q.keep != nil && !q.keep(i) {
			continue
		}
		w := vals[i]
		var dw int64
		if q.mean {
			dw = p.Samples.Values[0][i]
		}
		if w == 0 && dw == 0 {
			continue
		}
		if leafOnly {
			if gi := leafGI[s]; gi < 0 || counted != nil && counted[gi] >= MaxNodelets {
				continue // a leaf not among the first nodes, or counted enough
			}
		}
		ni := setIdx[p.Samples.Labels[i]]
		nums = nums[:0]
		if p.Samples.NumOff != nil {
			for j := p.Samples.NumOff[i]; j < p.Samples.NumOff[i+1]; j++ {
				if isBytes[p.Samples.NumKind[j]] {
					nums = append(nums, p.Samples.NumValue[j])
				}
			}
		}
		if ni < 0 && len(nums) == 0 {
			continue
		}
		// Samples of one stack often follow each other.
		if s != pathOf && !leafOnly {
			pathOf = s
			if byLoc {
				locs, leaf = q.stackLeaf(p.Stacks.At(s))
			} else {
				path, pathOK = q.appendPath(fold, path[:0], nil, p.Stacks.At(s))
			}
		}
		if byLoc && leaf < 0 || !leafOnly && !byLoc && (!pathOK || len(path) == 0) {
			continue
		}
		mark := int32(i + 1)
		add := func(gi int32, flat bool) {
			if gi < 0 || int(gi) >= limit || counted != nil && counted[gi] >= MaxNodelets {
				return
			}
			made := len(lt.tags) + len(lt.nums)
			if ni >= 0 {
				lt.at(gi, ni).add(w, dw, flat)
			}
			for _, v := range nums {
				lt.num(gi, ni, v).add(w, dw, flat)
			}
			if counted != nil {
				counted[gi] += int32(len(lt.tags) + len(lt.nums) - made)
			}
		}
		if flatOnly {
			gi := int32(-1)
			if leafOnly {
				gi = leafGI[s]
			} else {
				parent := int32(-1)
				for _, n := range path {
					orig, ok := g.child[[2]int32{parent, n}]
					if !ok {
						gi = -1
						break
					}
					gi, parent = g.where[orig], orig
				}
			}
			add(gi, true)
			continue
		}
		if g.child != nil {
			// A tree: the path's nodes, each once.
			parent, gi := int32(-1), int32(-1)
			for _, n := range path {
				orig, ok := g.child[[2]int32{parent, n}]
				if !ok {
					gi = -1
					break
				}
				gi = g.where[orig]
				add(gi, false)
				parent = orig
			}
			add(gi, true)
			continue
		}
		if byLoc {
			for _, l := range locs {
				if !limited[l] {
					continue
				}
				for j := off[l]; j < off[l+1]; j++ {
					if n := nodes[j]; stamp[n] != mark {
						stamp[n] = mark
						add(g.where[n], false)
					}
				}
			}
			add(g.where[leaf], true)
			continue
		}
		for _, n := range path {
			if stamp[n] != mark {
				stamp[n] = mark
				add(g.where[n], false)
			}
		}
		// The leaf has the flat value only when it is kept (a dropped
		// leaf leaves none, as in build).
		add(g.where[path[len(path)-1]], true)
	}
	for k := range lt.tags {
		gn, t := &g.nodes[lt.node[k]], &lt.tags[k]
		if gn.labelTags == nil {
			gn.labelTags = map[string]*GraphTag{}
		}
		t.Name = names.keys[lt.name[k]]
		gn.labelTags[t.Name] = t
	}
	scaled := map[int64]string{} // a value's name: values recur across nodes
	for k, key := range lt.numIDs.keys {
		gn, t := &g.nodes[key.node], &lt.nums[k]
		labels := ""
		if key.name >= 0 {
			labels = names.keys[key.name]
		}
		if gn.numTags == nil {
			gn.numTags = map[string]map[string]*GraphTag{}
		}
		m := gn.numTags[labels]
		if m == nil {
			m = map[string]*GraphTag{}
			gn.numTags[labels] = m
		}
		name, ok := scaled[key.v]
		if !ok {
			name = ScaledLabel(key.v, bytesUnit, unit)
			scaled[key.v] = name
		}
		t.Name, t.Unit, t.Value = name, bytesUnit, key.v
		if o := m[t.Name]; o != nil {
			// Values that scale to one name are one tag.
			o.Flat, o.FlatDiv, o.Cum, o.CumDiv = o.Flat+t.Flat, o.FlatDiv+t.FlatDiv, o.Cum+t.Cum, o.CumDiv+t.CumDiv
			continue
		}
		m[t.Name] = t
	}
}

// labelTags are the label tags of a graph's first nodes, by node index
// and label name number: in a table when it is small enough, else in a
// map; and their numeric tags, by node, label name number and value.
type labelTags struct {
	names  int
	dense  []int32         // node*names + name → tag index + 1
	where  map[int64]int32 // the same, when the table would be too big
	tags   []GraphTag
	node   []int32 // per tag: its node, and its name in name
	name   []int32
	numIDs interner[numKey] // → index into nums
	nums   []GraphTag
}

// numKey is a numeric tag: its node, label name number (-1: none) and
// value.
type numKey struct {
	node, name int32
	v          int64
}

// num returns node gi's numeric tag for name ni and value v, adding it.
func (lt *labelTags) num(gi, ni int32, v int64) *GraphTag {
	id := lt.numIDs.id(numKey{gi, ni, v})
	if int(id) == len(lt.nums) {
		lt.nums = append(lt.nums, GraphTag{})
	}
	return &lt.nums[id]
}

// maxDenseTags bounds the table labelTags uses (16 MiB).
const maxDenseTags = 1 << 22

func newLabelTags(nodes, names int) *labelTags {
	lt := &labelTags{names: names}
	if nodes*names <= maxDenseTags {
		lt.dense = make([]int32, nodes*names)
	} else {
		lt.where = map[int64]int32{}
	}
	return lt
}

// at returns node gi's tag for name ni, adding it.
func (lt *labelTags) at(gi, ni int32) *GraphTag {
	k := int64(gi)*int64(lt.names) + int64(ni)
	var id int32
	if lt.dense != nil {
		id = lt.dense[k]
	} else {
		id = lt.where[k]
	}
	if id == 0 {
		lt.tags = append(lt.tags, GraphTag{})
		lt.node, lt.name = append(lt.node, gi), append(lt.name, ni)
		id = int32(len(lt.tags))
		if lt.dense != nil {
			lt.dense[k] = id
		} else {
			lt.where[k] = id
		}
	}
	return &lt.tags[id-1]
}

func (t *GraphTag) add(w, dw int64, flat bool) {
	if flat {
		t.Flat += w
		t.FlatDiv += dw
	} else {
		t.Cum += w
		t.CumDiv += dw
	}
}

// copyTags gives g's nodes the tags they have in from: a node's tags do
// not depend on which other nodes are kept.
func (g *ggraph) copyTags(from *ggraph) {
	for i := range g.nodes {
		gn := &g.nodes[i]
		if j := from.where[gn.orig]; j >= 0 {
			gn.labelTags, gn.numTags = from.nodes[j].labelTags, from.nodes[j].numTags
		}
	}
}

// trimTags drops the tags whose flat and cum are both below cutoff.
func (g *ggraph) trimTags(cutoff int64) {
	trim := func(m map[string]*GraphTag) {
		for k, t := range m {
			if abs64(t.Flat) < cutoff && abs64(t.Cum) < cutoff {
				delete(m, k)
			}
		}
	}
	for i := range g.nodes {
		trim(g.nodes[i].labelTags)
		for _, m := range g.nodes[i].numTags {
			trim(m)
		}
	}
}

// countTags is how many of n's tags have a flat value (pprof counts
// them as nodes when choosing a visual graph's nodes).
func (gn *gnode) countTags() int {
	c := 0
	for _, t := range gn.labelTags {
		if t.Flat != 0 {
			c++
		}
	}
	for _, m := range gn.numTags {
		for _, t := range m {
			if t.Flat != 0 {
				c++
			}
		}
	}
	return c
}
