package format

import (
	"os"
	"regexp"
	"testing"
)

// TestLegacyFrameInfo checks that every legacy text profile gets pprof's
// drop_frames and keep_frames for its kind, and that they prune what pprof
// prunes.
func TestLegacyFrameInfo(t *testing.T) {
	for _, c := range []struct {
		file       string
		drop, keep string
	}{
		{"gobench.heap", allocatorFrames, allocatorKeepFrames},
		{"cppbench.heap", allocatorFrames, allocatorKeepFrames},
		{"cppbench.growth", allocatorFrames, allocatorKeepFrames},
		{"java.heap", allocatorFrames, allocatorKeepFrames},
		{"cppbench.contention", lockFrames, ""},
		{"go-mutex.debug1.txt", lockFrames, ""},
		{"java.contention", lockFrames, ""},
		{"cppbench.thread", cpuProfilerFrames, ""},
		{"1.pprof.lookup.goroutine.debug1.txt", cpuProfilerFrames, ""},
	} {
		data, err := os.ReadFile("../testdata/legacytext/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		p, err := parseLegacyText(data, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if p.DropFrames != c.drop || p.KeepFrames != c.keep {
			t.Errorf("%s: drop_frames %.30q… keep_frames %q", c.file, p.DropFrames, p.KeepFrames)
		}
	}

	drop := regexp.MustCompile("^(" + allocatorFrames + ")$")
	keep := regexp.MustCompile("^(" + allocatorKeepFrames + ")$")
	for name, pruned := range map[string]bool{
		"malloc": true, "tc_realloc": true, "tcmalloc::allocate_full_malloc_oom": true,
		"runtime.mallocgc": true, "operator new[]": true, "__libc_malloc": true,
		"runtime.call32": false, "runtime.panic": false, "runtime.panicmem": true, "main.alloc": false,
		"compress/flate.(*compressor).init": false, "mallocx": false,
	} {
		if got := drop.MatchString(name) && !keep.MatchString(name); got != pruned {
			t.Errorf("%s: pruned %v, pprof %v", name, got, pruned)
		}
	}
}
