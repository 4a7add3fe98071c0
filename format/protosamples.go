package format

// Samples are decoded in two stages on two goroutines: the protoDecoder
// parses sample messages into batches, an interner stores each batch's
// stacks and label sets once and appends the columns. Interning is mostly
// waiting on cache misses, so overlapping it with parsing (and with
// decompression on a third goroutine) is what keeps a million-sample
// profile's decode close to the time gunzip needs.

const batchSize = 512

// sampleBatch carries parsed samples between the two stages.
type sampleBatch struct {
	first   int32 // index of the batch's first sample
	reserve int   // if > 0, size the columns for this many samples first
	nv      int   // values per sample
	locOff  []int32
	locs    []int32
	vals    []int64
	pairOff []int32
	pairs   []StrLabel
	numOff  []int32
	nums    []NumLabel
}

func (bt *sampleBatch) reset(first int32, nv int) {
	bt.first, bt.reserve, bt.nv = first, 0, nv
	bt.locOff = append(bt.locOff[:0], 0)
	bt.pairOff = append(bt.pairOff[:0], 0)
	bt.numOff = append(bt.numOff[:0], 0)
	bt.locs, bt.vals, bt.pairs, bt.nums = bt.locs[:0], bt.vals[:0], bt.pairs[:0], bt.nums[:0]
}

func (bt *sampleBatch) len() int { return len(bt.locOff) - 1 }

// endSample closes the sample whose fields were just appended.
func (bt *sampleBatch) endSample() {
	bt.locOff = append(bt.locOff, int32(len(bt.locs)))
	bt.pairOff = append(bt.pairOff, int32(len(bt.pairs)))
	bt.numOff = append(bt.numOff, int32(len(bt.nums)))
}

// interner is the second stage.
type interner struct {
	b        *builder
	setFirst []int32 // label set → first sample using it, for errors
	in       chan *sampleBatch
	free     chan *sampleBatch
	done     chan error
}

func newInterner(b *builder) *interner {
	it := &interner{
		b:        b,
		setFirst: []int32{-1},
		in:       make(chan *sampleBatch, 4),
		free:     make(chan *sampleBatch, 6),
		done:     make(chan error, 1),
	}
	go it.run()
	return it
}

func (it *interner) run() {
	var err error
	for bt := range it.in {
		if err == nil {
			err = it.add(bt)
		}
		select {
		case it.free <- bt:
		default:
		}
	}
	it.done <- err
}

func (it *interner) add(bt *sampleBatch) error {
	s := &it.b.p.Samples
	if s.Values == nil {
		s.Values = make([][]int64, bt.nv)
	}
	if bt.reserve > 0 {
		numPer := 0.0
		if it.b.anyNum && s.Len() > 0 {
			numPer = float64(len(s.Num)) / float64(s.Len()) * 1.02
		}
		it.b.reserve(bt.reserve, numPer)
	}
	for k := 0; k < bt.len(); k++ {
		si := bt.first + int32(k)
		st, err := it.b.stack(bt.locs[bt.locOff[k]:bt.locOff[k+1]])
		if err != nil {
			return err
		}
		set, err := it.b.labelSet(bt.pairs[bt.pairOff[k]:bt.pairOff[k+1]])
		if err != nil {
			return err
		}
		if int(set) == len(it.setFirst) {
			it.setFirst = append(it.setFirst, si)
		}
		err = it.b.sample(st, bt.vals[k*bt.nv:(k+1)*bt.nv], set, bt.nums[bt.numOff[k]:bt.numOff[k+1]])
		if err != nil {
			return err
		}
	}
	return nil
}

// batch returns an empty batch for the parser to fill.
func (it *interner) batch(first int32, nv int) *sampleBatch {
	var bt *sampleBatch
	select {
	case bt = <-it.free:
	default:
		bt = &sampleBatch{}
	}
	bt.reset(first, nv)
	return bt
}

// close sends the last batch and waits for the interner to finish.
func (it *interner) close(last *sampleBatch) error {
	if last != nil && last.len() > 0 {
		it.in <- last
	}
	close(it.in)
	return <-it.done
}
