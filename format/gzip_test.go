package format

import (
	"bufio"
	"bytes"
	stdgzip "compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/pprof-tui/pprof-tui/format/internal/pinflate"
	"github.com/pprof-tui/pprof-tui/internal/synth"
)

// smallChunks makes parallelGzip split even small inputs, so tests reach
// chunk boundaries, back-references across them and wrong guesses.
func smallChunks(size int) pinflate.Config {
	return pinflate.Config{ChunkSize: size, Procs: 2, MaxChunkOut: 1 << 20}
}

// referenceGunzip reads data as parse does without pinflate (at most
// limit bytes of output).
func referenceGunzip(data []byte, limit int64) ([]byte, error) {
	gz, err := newGzipErrReader(bufio.NewReaderSize(bytes.NewReader(data), 64<<10))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(gz, limit))
}

// parallelGunzip reads data with parallelGzip; ok is false if it does
// not take the input (its header).
func parallelGunzip(data []byte, cfg pinflate.Config, limit int64) (out []byte, stats pinflate.Stats, err error, ok bool) {
	g, ok := newParallelGzip(bytes.NewReader(data), int64(len(data)), cfg, nil)
	if !ok {
		return nil, stats, nil, false
	}
	defer g.Close()
	out, err = io.ReadAll(io.LimitReader(g, limit))
	return out, g.z.Stats(), err, true
}

// checkGunzip compares parallelGzip with the reference on data.
func checkGunzip(t *testing.T, data []byte, cfg pinflate.Config) pinflate.Stats {
	t.Helper()
	const limit = 16 << 20
	want, wantErr := referenceGunzip(data, limit)
	got, stats, err, ok := parallelGunzip(data, cfg, limit)
	if !ok {
		if len(data) >= 10 && data[0] == 0x1f && data[1] == 0x8b && data[2] == 8 && data[3] == 0 {
			t.Fatalf("a plain gzip header was not taken")
		}
		return stats
	}
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("error %v, want %v", err, wantErr)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%d bytes out, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	return stats
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// profileBytes returns an uncompressed synthetic profile of about
// 70 bytes a sample, whose matches reach across chunk boundaries.
func profileBytes(t testing.TB, samples int, seed uint64) []byte {
	var gz bytes.Buffer
	if err := synth.Write(&gz, synth.Config{Samples: samples, Seed: seed, Labels: true, Shape: synth.Distinct}); err != nil {
		t.Fatal(err)
	}
	raw, err := gunzip(gz.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func goGzip(data []byte, level int) []byte {
	return compressWith(data, func(w io.Writer) (io.WriteCloser, error) { return stdgzip.NewWriterLevel(w, level) })
}

func klauspostGzip(data []byte, level int) []byte {
	return compressWith(data, func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriterLevel(w, level) })
}

func compressWith(data []byte, newWriter func(io.Writer) (io.WriteCloser, error)) []byte {
	var b bytes.Buffer
	w, err := newWriter(&b)
	if err != nil {
		panic(err)
	}
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// gnuGzip compresses data with GNU gzip, or returns nil without it.
func gnuGzip(t *testing.T, data []byte, flag string) []byte {
	path, err := exec.LookPath("gzip")
	if err != nil {
		return nil
	}
	cmd := exec.Command(path, "-c", flag)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestParallelGzipMatches: parallelGzip returns the bytes and errors of
// the sequential reader for every compressor and level, stored, fixed
// and dynamic blocks, several members, and broken streams, with chunks
// small enough that every stream is split.
func TestParallelGzipMatches(t *testing.T) {
	data := profileBytes(t, 1000, 1)
	if raceEnabled {
		data = data[:40<<10]
	}
	type input struct {
		name string
		gz   []byte
	}
	var inputs []input
	goLevels := []int{stdgzip.HuffmanOnly, stdgzip.NoCompression, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	klauspostLevels := []int{gzip.HuffmanOnly, gzip.ConstantCompression, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	if raceEnabled {
		goLevels, klauspostLevels = []int{6}, []int{1}
	}
	for _, level := range goLevels {
		inputs = append(inputs, input{fmt.Sprintf("go%d", level), goGzip(data, level)})
	}
	for _, level := range klauspostLevels {
		inputs = append(inputs, input{fmt.Sprintf("klauspost%d", level), klauspostGzip(data, level)})
	}
	for _, flag := range []string{"-1", "-6", "-9"} {
		if gz := gnuGzip(t, data, flag); gz != nil {
			inputs = append(inputs, input{"gnu" + flag, gz})
		}
	}
	fixed := goGzip([]byte("short enough for a fixed-Huffman block"), 9)
	one := goGzip(data, 6)
	inputs = append(inputs,
		input{"empty", goGzip(nil, 6)},
		input{"fixed", fixed},
		input{"zeros", goGzip(make([]byte, 1<<20), 6)},
		input{"members", append(append(goGzip(data[:len(data)/2], 1), goGzip(data[len(data)/2:], 9)...), fixed...)},
		input{"trailing garbage", append(bytes.Clone(one), "garbage"...)},
		input{"trailing zeros", append(bytes.Clone(one), 0, 0, 0, 0)},
		input{"second member truncated", append(bytes.Clone(one), fixed[:12]...)},
		input{"crc", flip(one, -8)},
		input{"isize", flip(one, -1)},
		input{"trailer truncated", one[:len(one)-3]},
	)
	for _, cut := range []int{20, len(one) / 3, len(one) / 2, len(one) - 9} {
		inputs = append(inputs, input{fmt.Sprintf("truncated at %d", cut), one[:cut]})
	}
	for _, at := range []int{30, len(one) / 4, len(one) / 2, len(one) - 20} {
		inputs = append(inputs, input{fmt.Sprintf("corrupt at %d", at), flip(one, at)})
	}
	chunks := []int{2 << 10, 64 << 10}
	if raceEnabled {
		chunks = []int{4 << 10}
	}
	for _, in := range inputs {
		for _, chunk := range chunks {
			t.Run(fmt.Sprintf("%s/%d", in.name, chunk), func(t *testing.T) {
				checkGunzip(t, in.gz, smallChunks(chunk))
			})
		}
	}
}

// TestParallelGzipSplits: on a stream of dynamic blocks the workers'
// guesses are used (a test that passes by always falling back to one
// core would prove nothing), and a stream of stored blocks, where no
// chunk has a block start to find, is decoded from the verified offset.
func TestParallelGzipSplits(t *testing.T) {
	data := profileBytes(t, 1000, 3)
	st := checkGunzip(t, goGzip(data, 6), smallChunks(4<<10))
	if st.Chunks < 3 || st.Marked == 0 || st.Out != int64(len(data)) {
		t.Errorf("level 6: %+v: want guesses used, markers resolved, all bytes out", st)
	}
	st = checkGunzip(t, goGzip(data, stdgzip.NoCompression), smallChunks(4<<10))
	if st.Decoded == 0 || st.Out != int64(len(data)) {
		t.Errorf("stored: %+v: want chunks decoded from the verified offset", st)
	}
}

// TestParallelGzipTestdata: every gzipped profile in testdata.
func TestParallelGzipTestdata(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/*/*.pb.gz")
	more, _ := filepath.Glob("../testdata/*.pb.gz")
	deeper, _ := filepath.Glob("../testdata/*/*/*.pb.gz")
	paths = append(append(paths, more...), deeper...)
	if len(paths) < 10 {
		t.Fatalf("only %d profiles found", len(paths))
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(path, func(t *testing.T) { checkGunzip(t, data, smallChunks(1<<10)) })
	}
}

// TestParallelGzipParse: Parse takes the parallel path for a large
// enough file and gives the same profile and errors, refuses a bomb
// with ErrTooLarge, and leaves no goroutine behind.
func TestParallelGzipParse(t *testing.T) {
	defer func(min int64, procs int, cfg func() pinflate.Config) {
		parallelGzipMin, parallelGzipProcs, inflateConfig = min, procs, cfg
	}(parallelGzipMin, parallelGzipProcs, inflateConfig)
	parallelGzipMin, parallelGzipProcs = 0, 1
	inflateConfig = func() pinflate.Config { return smallChunks(2 << 10) }
	before := runtime.NumGoroutine()

	data, err := os.ReadFile("../testdata/synthetic/bigprof_10k.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gunzip(data); err != nil {
		data = goGzip(data, 6)
	}
	if g, ok := parallelGzipSource(bytes.NewReader(data), nil); !ok {
		t.Fatal("Parse would not take the parallel path")
	} else {
		g.Close()
	}
	p, err := Parse(bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Samples.Len() == 0 {
		t.Fatal("no samples")
	}

	var bomb bytes.Buffer
	w, _ := gzip.NewWriterLevel(&bomb, gzip.BestSpeed)
	w.Write([]byte{0x0a, 0x80, 0x80, 0x80, 0x02}) // a 4 MiB string field
	w.Write(make([]byte, 4<<20))
	w.Close()
	_, err = Parse(bytes.NewReader(bomb.Bytes()), Options{MaxBytes: 1 << 20})
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("bomb: %v, want ErrTooLarge", err)
	}
	for _, cut := range []int{len(data) / 2, len(data) - 4} {
		_, err := Parse(bytes.NewReader(data[:cut]), Options{})
		parallelGzipMin = 1 << 62
		_, want := Parse(bytes.NewReader(data[:cut]), Options{})
		parallelGzipMin = 0
		if fmt.Sprint(err) != fmt.Sprint(want) {
			t.Errorf("cut at %d: %v, want %v", cut, err, want)
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines, %d before", n, before)
	}
}

// FuzzInflate compares parallelGzip with the sequential reader (bytes
// and error text) on mutated gzip files, and on arbitrary bytes
// gzipped at a level the input picks, with chunks of 64 bytes to 16 KiB
// so that small inputs are split:
//
//	go test ./format -run XXX -fuzz FuzzInflate -fuzztime 5m -fuzzminimizetime 5s
//
// Crashers land in testdata/fuzz/FuzzInflate and stay as regression cases.
func FuzzInflate(f *testing.F) {
	raw := profileBytes(f, 500, 5)
	seeds := [][]byte{goGzip(raw[:20<<10], 6), goGzip(raw[:5<<10], 1), goGzip(nil, 6),
		append(goGzip([]byte("a"), 9), goGzip([]byte("b"), 1)...), goGzip(raw[:8<<10], stdgzip.NoCompression)}
	for _, s := range seeds {
		f.Add(s, uint16(300), uint8(0))
	}
	f.Add(raw[:30<<10], uint16(1000), uint8(1+2*6))
	f.Add(raw[5<<10:30<<10], uint16(100), uint8(1+2*1))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16, mode uint8) {
		if len(data) > 64<<10 {
			return // big inputs only slow the fuzzer down
		}
		if mode&1 == 1 {
			level := int(mode>>1)%12 - 2 // -2 (Huffman only) to 9
			if mode&2 == 0 {
				data = goGzip(data, level)
			} else {
				data = klauspostGzip(data, max(level, -2))
			}
		}
		checkGunzip(t, data, smallChunks(64+int(chunk)%(16<<10)))
	})
}
