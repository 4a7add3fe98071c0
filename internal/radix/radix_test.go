package radix

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSort compares the radix sort with a stable comparison sort over
// keys that differ in a few digits, in all, or not at all.
func TestSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	type item struct {
		key uint64
		at  int
	}
	for _, gen := range []func() uint64{
		func() uint64 { return rng.Uint64() },
		func() uint64 { return rng.Uint64N(50) << 30 },
		func() uint64 { return 7 },
		func() uint64 { return uint64(rng.Int64N(2000)-1000) ^ 1<<63 },
	} {
		for _, n := range []int{0, 1, 2, 100, 5000} {
			xs := make([]item, n)
			for i := range xs {
				xs[i] = item{gen(), i}
			}
			want := slices.Clone(xs)
			slices.SortStableFunc(want, func(a, b item) int {
				switch {
				case a.key < b.key:
					return -1
				case a.key > b.key:
					return 1
				}
				return 0
			})
			Sort(xs, make([]item, n), func(x item) uint64 { return x.key })
			if !slices.Equal(xs, want) {
				t.Fatalf("n %d: sorted %v, want %v", n, xs[:min(n, 8)], want[:min(n, 8)])
			}
		}
	}
}
