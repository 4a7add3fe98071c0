package format

import (
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/pprof-tui/pprof-tui/format/internal/pinflate"
)

// BenchmarkInflate inflates the 1M-sample profile of each shape
// (synth.BenchShapes; PPROF_TUI_SHAPES=distinct,wide,zipf) round by
// round, alternating: klauspost's gzip.Reader on one core, pinflate on
// one core and on GOMAXPROCS cores, and `gunzip -c FILE >/dev/null`
// when gunzip is installed. It reports each one's median MB/s of output,
// the median ratio of its time over klauspost's in the same round, and
// for pinflate its CPU time (all threads) over klauspost's and the MB of
// output it decoded as markers (pinflate.Stats.Marked):
//
//	PPROF_TUI_SHAPES=distinct,wide,zipf go test ./format -run XXX -bench Inflate -benchtime 6x
func BenchmarkInflate(b *testing.B) { forEachShape(b, benchInflate) }

func benchInflate(b *testing.B, path string) {
	size := uncompressedSize(b, path)
	one := pinflate.DefaultConfig()
	one.Procs = 1
	all := pinflate.DefaultConfig()
	type side struct {
		name string
		run  func() time.Duration
		cfg  *pinflate.Config // pinflate's, nil for the others
		mbs  []float64
		rel  []float64
		cpu  time.Duration
		// marked is pinflate's output decoded as markers, last round.
		marked int64
	}
	sides := []*side{
		{name: "klauspost"},
		{name: "pinflate-1", cfg: &one},
		{name: "pinflate", cfg: &all},
	}
	for _, s := range sides {
		s.run = func() time.Duration {
			d, st := timeInflate(b, path, size, s.cfg)
			s.marked = st.Marked
			return d
		}
	}
	if gunzip, err := exec.LookPath("gunzip"); err == nil {
		sides = append(sides, &side{name: "gunzip", run: func() time.Duration {
			t0 := time.Now()
			cmd := exec.Command(gunzip, "-c", path)
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
			return time.Since(t0)
		}})
	}
	for i := 0; i < b.N; i++ {
		var base time.Duration
		for k := range sides {
			s := sides[(i+k)%len(sides)] // alternate who goes first
			c0 := cpuTime()
			d := s.run()
			s.cpu += cpuTime() - c0
			s.mbs = append(s.mbs, float64(size)/1e6/d.Seconds())
			s.rel = append(s.rel, d.Seconds())
		}
		base = time.Duration(sides[0].rel[i] * 1e9)
		for _, s := range sides {
			s.rel[i] /= base.Seconds()
		}
	}
	median := func(v []float64) float64 {
		v = slices.Clone(v)
		slices.Sort(v)
		return v[len(v)/2]
	}
	for _, s := range sides {
		b.ReportMetric(median(s.mbs), s.name+"-MB/s")
		if s != sides[0] {
			b.ReportMetric(median(s.rel), s.name+"/klauspost")
		}
		if s != sides[0] && s.name != "gunzip" {
			b.ReportMetric(float64(s.cpu)/float64(sides[0].cpu), s.name+"-cpu/klauspost")
			b.ReportMetric(float64(s.marked)/1e6, s.name+"-marked-MB")
		}
	}
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "procs")
}

// timeInflate inflates the file at path to io.Discard: with klauspost's
// reader (cfg nil) or with parallelGzip, whose pinflate.Stats it returns.
func timeInflate(b *testing.B, path string, want int64, cfg *pinflate.Config) (time.Duration, pinflate.Stats) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	t0 := time.Now()
	var r io.Reader
	var stats func() pinflate.Stats
	if cfg == nil {
		zr, err := gzip.NewReader(f)
		if err != nil {
			b.Fatal(err)
		}
		r = zr
	} else {
		st, _ := f.Stat()
		g, ok := newParallelGzip(f, st.Size(), *cfg, nil)
		if !ok {
			b.Fatal("not a gzip file pinflate takes")
		}
		defer g.Close()
		r, stats = g, g.z.Stats
	}
	n, err := io.Copy(io.Discard, r)
	d := time.Since(t0)
	if err != nil || n != want {
		b.Fatalf("%d bytes, %v", n, err)
	}
	var st pinflate.Stats
	if stats != nil {
		st = stats()
	}
	return d, st
}
