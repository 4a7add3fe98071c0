package views

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pprof-tui/pprof-tui/analysis"
)

// percentWidth skips the shares that cannot widen the column; it must
// size it as measuring every share does.
func TestPercentWidth(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 20000; trial++ {
		total := r.Int64N(1 + r.Int64N(math.MaxInt64))
		if trial%4 == 0 {
			total = r.Int64N(2000) - 1000
		}
		vs := make([]int64, r.IntN(8))
		for i := range vs {
			switch r.IntN(4) {
			case 0: // a share in a random decade below the total
				vs[i] = int64(float64(abs(total)) * math.Pow(10, -r.Float64()*12))
			case 1:
				vs[i] = r.Int64N(math.MaxInt64) // above the total, often
			default:
				vs[i] = r.Int64N(1 + abs(total))
			}
			if r.IntN(5) == 0 {
				vs[i] = -vs[i]
			}
		}
		want := 6
		for _, v := range vs {
			want = max(want, analysis.PercentageWidth(v, total))
		}
		if got := percentWidth(vs, total); got != want {
			t.Fatalf("percentWidth(%v, %d) = %d, want %d", vs, total, got, want)
		}
	}
}
