package analysis

// recent is a short most-recently-used list: what an Engine keeps of its
// last results, most recent last. The Engine's mutex guards it.
type recent[K comparable, V any] struct {
	keys []K
	vals []V
}

// get returns k's value and makes it the most recent.
func (r *recent[K, V]) get(k K) (v V, ok bool) {
	for i, rk := range r.keys {
		if rk == k {
			v = r.vals[i]
			copy(r.keys[i:], r.keys[i+1:])
			copy(r.vals[i:], r.vals[i+1:])
			r.keys[len(r.keys)-1], r.vals[len(r.vals)-1] = k, v
			return v, true
		}
	}
	return v, false
}

// add keeps v as the most recent, first dropping the oldest while there
// are max values or full says the kept ones and v are too big.
func (r *recent[K, V]) add(k K, v V, max int, full func(kept []V, v V) bool) {
	for n := len(r.keys); n > 0 && (n >= max || full != nil && full(r.vals, v)); n = len(r.keys) {
		// Shift rather than reslice, so the dropped value is not kept
		// alive by the backing array.
		copy(r.keys, r.keys[1:])
		copy(r.vals, r.vals[1:])
		var zk K
		var zv V
		r.keys[n-1], r.vals[n-1] = zk, zv
		r.keys, r.vals = r.keys[:n-1], r.vals[:n-1]
	}
	r.keys, r.vals = append(r.keys, k), append(r.vals, v)
}
