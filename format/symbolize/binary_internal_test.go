package symbolize

import (
	"cmp"
	"math/rand"
	"slices"
	"testing"
)

// TestSortByAddr compares the radix sort with a stable comparison sort,
// on addresses that differ in few or many digits, with repeats.
func TestSortByAddr(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{1, 2, 3, 100, 5000} {
		for _, spread := range []uint64{1, 1 << 12, 1 << 30, 1 << 62} {
			addrs := make([]uint64, n)
			for i := range addrs {
				addrs[i] = 0x555555554000 + uint64(r.Int63n(int64(spread)))
				if i > 0 && r.Intn(5) == 0 {
					addrs[i] = addrs[r.Intn(i)]
				}
			}
			idx := make([]int32, n)
			for i := range idx {
				idx[i] = int32(n - 1 - i)
			}
			want := slices.Clone(idx)
			slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(addrs[a], addrs[b]) })
			sortByAddr(idx, addrs)
			if !slices.Equal(idx, want) {
				t.Fatalf("n=%d spread=%#x: sorted %v, want %v", n, spread, idx[:min(n, 10)], want[:min(n, 10)])
			}
		}
	}
}
