package symbolize_test

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ianlancetaylor/demangle"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/format/symbolize"
)

// addr2line runs binutils' addr2line -f -i -C on the addresses and returns
// each address's frames, innermost first, as pprof's binutils path reads
// them: "??" is no function, "??:0" and "??:?" no file and line.
func addr2line(t *testing.T, bin string, addrs []uint64) [][]symbolize.Frame {
	t.Helper()
	tool, err := exec.LookPath("addr2line")
	if err != nil {
		t.Skip("addr2line (binutils) is not installed")
	}
	var in bytes.Buffer
	for _, a := range addrs {
		fmt.Fprintf(&in, "%#x\n", a)
	}
	cmd := exec.Command(tool, "-a", "-f", "-i", "-C", "-e", bin)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("addr2line: %v", err)
	}
	var res [][]symbolize.Frame
	sc := bufio.NewScanner(bytes.NewReader(out))
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	for i := 0; i < len(lines); {
		if !strings.HasPrefix(lines[i], "0x") {
			t.Fatalf("addr2line output: unexpected line %q", lines[i])
		}
		i++
		var frames []symbolize.Frame
		for i+1 < len(lines) && !strings.HasPrefix(lines[i], "0x") {
			fn, fl := lines[i], lines[i+1]
			i += 2
			if fn == "??" {
				fn = ""
			}
			if j := strings.Index(fl, " (discriminator"); j >= 0 {
				fl = fl[:j]
			}
			file, line := fl, int64(0)
			if j := strings.LastIndex(fl, ":"); j >= 0 {
				file = fl[:j]
				line, _ = strconv.ParseInt(fl[j+1:], 10, 64)
			}
			if file == "??" {
				file = ""
			}
			frames = append(frames, symbolize.Frame{Func: fn, File: file, Line: line})
		}
		res = append(res, frames)
	}
	if len(res) != len(addrs) {
		t.Fatalf("addr2line answered %d addresses of %d", len(res), len(addrs))
	}
	return res
}

// compareWithAddr2line symbolizes the addresses with inline frames and
// checks every frame against addr2line's.
func compareWithAddr2line(t *testing.T, bin string, addrs []uint64) {
	t.Helper()
	want := addr2line(t, bin, addrs)
	b, err := symbolize.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := b.Symbolize(addrs, symbolize.Mode{})
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i, a := range addrs {
		g := got[i]
		if len(g) == 0 {
			g = []symbolize.Frame{{}} // addr2line prints ?? for an unknown address
		}
		ok := len(g) == len(want[i])
		for j := 0; ok && j < len(g); j++ {
			f := g[j]
			f.Func = demangle.Filter(f.Func)
			f.StartLine = 0
			ok = f == want[i][j]
		}
		if !ok {
			bad++
			if bad <= 10 {
				t.Errorf("%s %#x: got %+v\naddr2line %+v", filepath.Base(bin), a, g, want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d addresses differ from addr2line", bad, len(addrs))
	}
}

// profileAddrs returns the binary addresses of the locations of mapping 0
// of a profile.
func profileAddrs(t *testing.T, prof, bin string) []uint64 {
	t.Helper()
	p, err := format.Open(context.Background(), prof, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := symbolize.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	m := p.Mappings[0]
	var addrs []uint64
	for _, l := range p.Locations {
		if l.Mapping != 0 {
			continue
		}
		a, err := b.ObjAddr(m.Start, m.Limit, m.Offset, l.Address)
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, a)
	}
	return addrs
}

// textAddrs returns every step-th address of the binary's .text.
func textAddrs(t *testing.T, bin string, step uint64) []uint64 {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".text")
	if s == nil {
		t.Fatalf("%s has no .text", bin)
	}
	var addrs []uint64
	for a := s.Addr; a < s.Addr+s.Size; a += step {
		addrs = append(addrs, a)
	}
	return addrs
}

// TestAddr2lineGperftools compares the frames of every address of the
// gperftools profiles, and of every third byte of the binaries' code,
// with addr2line's. cpubench.c's static inline helpers (swap_u32,
// dot_column) must come out as frames of their own.
func TestAddr2lineGperftools(t *testing.T) {
	for _, c := range []struct{ bin, prof string }{
		{"../../testdata/legacy/cpubench", "../../testdata/legacy/cpu.prof"},
		{"../../testdata/legacy/cpubench32", "../../testdata/legacy/cpu32.prof"},
	} {
		t.Run(filepath.Base(c.bin), func(t *testing.T) {
			addrs := profileAddrs(t, c.prof, c.bin)
			compareWithAddr2line(t, c.bin, addrs)
			compareWithAddr2line(t, c.bin, textAddrs(t, c.bin, 3))

			b, err := symbolize.Open(c.bin)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			frames, _ := b.Symbolize(addrs, symbolize.Mode{})
			inlined := map[string]string{}
			for _, fs := range frames {
				if len(fs) == 2 {
					inlined[fs[0].Func] = fs[1].Func
				}
			}
			for callee, caller := range map[string]string{"swap_u32": "partition", "dot_column": "matmul"} {
				if inlined[callee] != caller {
					t.Errorf("%s is not an inline frame in %s (inline frames: %v)", callee, caller, inlined)
				}
			}
		})
	}
}

// inlineC has static inline functions nested three deep, a recursive
// function, and functions in a second file, for gcc -O2 -g.
const inlineC = `#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "helper.h"

static inline uint32_t rot(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }

static inline uint32_t mix(uint32_t a, uint32_t b) {
	a ^= rot(b, 7);
	a += rot(a, 13);
	return a * 0x9e3779b1u;
}

static inline uint32_t round3(uint32_t s, const uint32_t *v, int i) {
	s = mix(s, v[i]);
	s = mix(s, v[i + 1]);
	return mix(s, helper_scale(v[i + 2]));
}

__attribute__((noinline)) uint32_t hash(const uint32_t *v, int n) {
	uint32_t s = 17;
	for (int i = 0; i + 2 < n; i += 3)
		s = round3(s, v, i);
	return s;
}

__attribute__((noinline)) uint64_t walk(int depth, uint64_t acc) {
	if (depth == 0)
		return acc;
	return walk(depth - 1, acc * 31 + (uint64_t)depth) + 1;
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 300;
	uint32_t *v = malloc(sizeof *v * (size_t)n);
	for (int i = 0; i < n; i++)
		v[i] = (uint32_t)i * 2654435761u;
	printf("%u %llu\n", hash(v, n), (unsigned long long)walk(n % 50, 1));
	free(v);
	return 0;
}
`

const inlineH = `#include <stdint.h>
static inline uint32_t helper_scale(uint32_t x) {
	uint32_t y = x * 3u;
	if (y & 1u)
		y ^= 0x5bd1e995u;
	return y >> 1;
}
`

// inlineCPP has methods, templates and a namespace, inlined into each
// other: names come from DW_AT_linkage_name through abstract origins and
// specifications.
const inlineCPP = `#include <cstdio>
#include <vector>
namespace ns {
template <typename T> struct Acc {
	T sum = 0;
	inline void add(T v) { sum += v * 3 + (sum >> 2); }
	T get() const { return sum; }
};
struct Walker {
	std::vector<int> v;
	__attribute__((noinline)) long run(int n);
};
long Walker::run(int n) {
	Acc<long> a;
	for (int i = 0; i < n; i++)
		a.add(v[i % v.size()]);
	return a.get();
}
} // namespace
int main(int argc, char **) {
	ns::Walker w;
	for (int i = 0; i < 100; i++)
		w.v.push_back(i * argc);
	std::printf("%ld\n", w.run(1000));
}
`

// TestAddr2lineGPP builds a C++ program with g++ and compares the frames
// of every address of its code with addr2line -C's.
func TestAddr2lineGPP(t *testing.T) {
	gpp, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("g++ is not installed: skipping the C++ program")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "prog.cc")
	if err := os.WriteFile(src, []byte(inlineCPP), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "prog")
	if out, err := exec.Command(gpp, "-O2", "-g", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	compareWithAddr2line(t, bin, textAddrs(t, bin, 1))
}

// TestAddr2lineGCC builds a C program with inlined functions (three deep,
// one from a header) with gcc and compares the frames of every address of
// its code with addr2line's.
func TestAddr2lineGCC(t *testing.T) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc is not installed: skipping the C program with inlined functions")
	}
	dir := t.TempDir()
	for name, src := range map[string]string{"prog.c": inlineC, "helper.h": inlineH} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The last is a relocatable object (ET_REL), its DWARF relocated as
	// it is read; main stays in .text, which starts at 0.
	for _, flags := range [][]string{{"-O2", "-g"}, {"-O2", "-g", "-gdwarf-4"}, {"-O1", "-g", "-fPIE", "-pie"}, {"-O2", "-g", "-c", "-fno-reorder-functions"}} {
		t.Run(strings.Join(flags, ""), func(t *testing.T) {
			bin := filepath.Join(dir, "prog"+strings.Join(flags, ""))
			args := append(append([]string{}, flags...), "-o", bin, filepath.Join(dir, "prog.c"))
			if out, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
				t.Fatalf("gcc: %v\n%s", err, out)
			}
			addrs := textAddrs(t, bin, 1)
			compareWithAddr2line(t, bin, addrs)

			b, err := symbolize.Open(bin)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			frames, _ := b.Symbolize(addrs, symbolize.Mode{})
			deepest := 0
			for _, fs := range frames {
				deepest = max(deepest, len(fs))
			}
			if deepest < 3 {
				t.Errorf("no address with three or more frames: inlining not seen")
			}
		})
	}
}
