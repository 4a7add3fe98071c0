// Package radix sorts by a 64-bit key in passes over its 11-bit digits,
// skipping the digits that are the same in every element: several times
// faster than a comparison sort on long slices (a label's million values,
// a binary's addresses).
package radix

// Sort sorts xs by key, stably, using tmp (at least as long as xs).
func Sort[T any](xs, tmp []T, key func(T) uint64) {
	const bits = 11
	if len(xs) < 2 {
		return
	}
	var count [1 << bits]int
	src, dst := xs, tmp[:len(xs)]
	for shift := 0; shift < 64; shift += bits {
		clear(count[:])
		for _, x := range src {
			count[key(x)>>shift&(1<<bits-1)]++
		}
		if count[key(src[0])>>shift&(1<<bits-1)] == len(src) {
			continue // one digit for all
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, x := range src {
			d := key(x) >> shift & (1<<bits - 1)
			dst[count[d]] = x
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &xs[0] {
		copy(xs, src)
	}
}
