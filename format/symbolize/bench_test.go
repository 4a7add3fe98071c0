package symbolize_test

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"debug/gosym"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/format/symbolize"
	"github.com/pprof-tui/pprof-tui/internal/cputime"
)

// benchAddrs is how many distinct addresses a benchmark symbolizes.
const benchAddrs = 50000

// goToolBinary is the Go toolchain's own go command: ~15 MB, a symbol
// table and a pclntab, no DWARF.
func goToolBinary(tb testing.TB) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Skipf("go env GOROOT: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "bin", "go")
}

// bigCFunctions and bigCFiles size the generated C program: 12,000
// functions, each with two static inline helpers, give a 13.5 MB binary
// (4.6 MB .debug_info, 2.1 MB .debug_line) at gcc -O2 -g.
const (
	bigCFunctions = 12000
	bigCFiles     = 8
)

func bigCSource(file int) string {
	var b strings.Builder
	b.WriteString("#include <stdint.h>\n")
	per := bigCFunctions / bigCFiles
	for k := 0; k < per; k++ {
		n := file*per + k
		fmt.Fprintf(&b, `static inline uint32_t h%[1]da(uint32_t x) { return (x << 3) ^ (x >> 5) ^ %[1]du; }
static inline uint32_t h%[1]db(uint32_t x, uint32_t y) { uint32_t t = h%[1]da(x + y); return t * 2654435761u + h%[1]da(t); }
__attribute__((noinline)) uint32_t f%[1]d(const uint32_t *v, int n) {
	uint32_t s = %[1]du;
	for (int i = 0; i < n; i++) {
		s = h%[1]db(s, v[i]);
		if (s & 1)
			s = h%[1]da(s ^ v[(i * 7) %% n]);
	}
	return s;
}
`, n)
	}
	return b.String()
}

// bigDWARFBinary builds (once; it is kept in the temporary directory) a
// C program with full DWARF, over 10 MB. The first build takes a few
// minutes of CPU.
func bigDWARFBinary(tb testing.TB) string {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		tb.Skip("gcc is not installed: no large DWARF binary to benchmark")
	}
	h := sha256.New()
	for f := 0; f < bigCFiles; f++ {
		h.Write([]byte(bigCSource(f)))
	}
	dir := filepath.Join(os.TempDir(), "pprof-tui-bench", "dwarfbig-"+hex.EncodeToString(h.Sum(nil))[:12])
	bin := filepath.Join(dir, "dwarfbig")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("building %s (gcc -O2 -g, %d functions)", bin, bigCFunctions)
	var wg sync.WaitGroup
	errs := make([]error, bigCFiles)
	sem := make(chan bool, runtime.NumCPU())
	objs := []string{}
	for f := 0; f < bigCFiles; f++ {
		src := filepath.Join(dir, fmt.Sprintf("g%d.c", f))
		obj := strings.TrimSuffix(src, ".c") + ".o"
		objs = append(objs, obj)
		if err := os.WriteFile(src, []byte(bigCSource(f)), 0o644); err != nil {
			tb.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- true
			defer func() { <-sem }()
			if out, err := exec.Command(gcc, "-O2", "-g", "-c", "-o", obj, src).CombinedOutput(); err != nil {
				errs[f] = fmt.Errorf("%v: %s", err, out)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			tb.Fatal(err)
		}
	}
	main := filepath.Join(dir, "main.c")
	if err := os.WriteFile(main, []byte("int main(void) { return 0; }\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	tmp := bin + ".tmp"
	if out, err := exec.Command(gcc, append([]string{"-O2", "-g", "-o", tmp, main}, objs...)...).CombinedOutput(); err != nil {
		tb.Fatalf("link: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, bin); err != nil {
		tb.Fatal(err)
	}
	return bin
}

// functionRanges lists the code of the binary's functions: from the Go
// pclntab (debug/gosym) when it has one, else the ELF function symbols.
func functionRanges(tb testing.TB, bin string) [][2]uint64 {
	f, err := elf.Open(bin)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var ranges [][2]uint64
	if s := f.Section(".gopclntab"); s != nil {
		data, err := s.Data()
		if err != nil {
			tb.Fatal(err)
		}
		tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, f.Section(".text").Addr))
		if err != nil {
			tb.Fatal(err)
		}
		for _, fn := range tab.Funcs {
			if fn.End > fn.Entry {
				ranges = append(ranges, [2]uint64{fn.Entry, fn.End})
			}
		}
		return ranges
	}
	syms, err := f.Symbols()
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 && s.Value != 0 {
			ranges = append(ranges, [2]uint64{s.Value, s.Value + s.Size})
		}
	}
	return ranges
}

// randomAddrs picks n distinct addresses inside the functions.
func randomAddrs(ranges [][2]uint64, n int) []uint64 {
	r := rand.New(rand.NewSource(1))
	seen := map[uint64]bool{}
	var addrs []uint64
	for len(addrs) < n {
		rg := ranges[r.Intn(len(ranges))]
		a := rg[0] + uint64(r.Int63n(int64(rg[1]-rg[0])))
		if !seen[a] {
			seen[a] = true
			addrs = append(addrs, a)
		}
	}
	return addrs
}

// BenchmarkSymbolize opens a binary and symbolizes 50,000 addresses in
// its functions, inline frames included, as loading a profile does: the
// go command (the pclntab path) and a generated C program with full DWARF
// (the DWARF path). testdata/bench-symbolize.sh sets these next to go
// tool pprof on the same inputs.
//
//	go test ./format/symbolize -run XXX -bench Symbolize -benchtime 5x
func BenchmarkSymbolize(b *testing.B) {
	for _, c := range []struct {
		name string
		bin  func(testing.TB) string
	}{
		{"pclntab-go-command", goToolBinary},
		{"dwarf-13MB-C", bigDWARFBinary},
	} {
		b.Run(c.name, func(b *testing.B) {
			bin := c.bin(b)
			addrs := randomAddrs(functionRanges(b, bin), benchAddrs)
			b.ResetTimer()
			cpu0, cpuOK := cputime.Now()
			for i := 0; i < b.N; i++ {
				f, err := symbolize.Open(bin)
				if err != nil {
					b.Fatal(err)
				}
				frames, err := f.Symbolize(addrs, symbolize.Mode{})
				if err != nil {
					b.Fatal(err)
				}
				if frames[0] == nil || frames[len(frames)-1] == nil {
					b.Fatal("address not symbolized")
				}
				f.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchAddrs, "ns/addr")
			if cpu1, ok := cputime.Now(); ok && cpuOK {
				b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}

// TestWriteBenchInputs writes, for testdata/bench-symbolize.sh, a profile
// whose 50,000 addresses fall in the functions of each benchmark binary,
// with the binary's path next to it. It runs only when asked:
//
//	PPROF_TUI_BENCH_DIR=DIR go test ./format/symbolize -run TestWriteBenchInputs
func TestWriteBenchInputs(t *testing.T) {
	dir := os.Getenv("PPROF_TUI_BENCH_DIR")
	if dir == "" {
		t.Skip("PPROF_TUI_BENCH_DIR is not set")
	}
	for name, bin := range map[string]string{"go": goToolBinary(t), "dwarf": bigDWARFBinary(t)} {
		addrs := randomAddrs(functionRanges(t, bin), benchAddrs)
		p, err := profileAt(bin, addrs)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := format.Write(&buf, p); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".pb.gz"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		var list strings.Builder
		for _, a := range addrs {
			fmt.Fprintf(&list, "%#x\n", a)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".addrs"), []byte(list.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".binary"), []byte(bin+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// profileAt makes a CPU profile without functions whose samples are
// stacks of five of the addresses (each address once), in a mapping of
// the binary's executable segment; a position-independent binary is
// placed where Linux puts one.
func profileAt(bin string, addrs []uint64) (*format.Profile, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var text *elf.Prog
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			text = p
			break
		}
	}
	if text == nil {
		return nil, fmt.Errorf("%s: no executable segment", bin)
	}
	var bias uint64
	if f.Type == elf.ET_DYN {
		bias = 0x555555554000
	}
	const page = 4096
	p := &format.Profile{
		SampleTypes: []format.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:  format.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:      10000000,
		Strings:     []string{""},
		Mappings: []format.Mapping{{
			ID:     1,
			Start:  bias + text.Vaddr&^(page-1),
			Limit:  bias + (text.Vaddr+text.Memsz+page-1)&^(page-1),
			Offset: text.Off &^ (page - 1),
			File:   bin,
		}},
		LabelSets: format.LabelSets{Off: []int32{0, 0}},
	}
	p.Samples.Values = make([][]int64, 2)
	p.Stacks.Off = []int32{0}
	for i, a := range addrs {
		p.Locations = append(p.Locations, format.Location{ID: uint64(i + 1), Mapping: 0, Address: bias + a})
		p.Stacks.Locs = append(p.Stacks.Locs, int32(i))
		if (i+1)%5 == 0 || i == len(addrs)-1 {
			p.Stacks.Off = append(p.Stacks.Off, int32(len(p.Stacks.Locs)))
			p.Samples.Stack = append(p.Samples.Stack, int32(len(p.Stacks.Off)-2))
			p.Samples.Values[0] = append(p.Samples.Values[0], 1)
			p.Samples.Values[1] = append(p.Samples.Values[1], 10000000)
			p.Samples.Labels = append(p.Samples.Labels, 0)
		}
	}
	return p, nil
}
