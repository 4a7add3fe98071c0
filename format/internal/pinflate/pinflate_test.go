package pinflate

import (
	"bytes"
	stdflate "compress/flate"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/flate"
)

// inflate decodes data with r and returns the output, the end of the
// stream and the error Read ended with.
func inflate(data []byte, cfg Config) ([]byte, int64, error) {
	r := NewReader(bytes.NewReader(data), 0, int64(len(data)), cfg)
	defer r.Close()
	out, err := io.ReadAll(r)
	return out, r.End(), err
}

// reference is klauspost's decode of data.
func reference(data []byte) ([]byte, error) {
	return io.ReadAll(flate.NewReader(bytes.NewReader(data)))
}

// sample returns n bytes that compress the way profiles do: records
// repeating with variations, so that matches reach far back.
func sample(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	words := make([][]byte, 3000)
	for i := range words {
		w := make([]byte, 3+rng.IntN(20))
		for j := range w {
			w[j] = byte(rng.IntN(256))
		}
		words[i] = w
	}
	var b bytes.Buffer
	for b.Len() < n {
		switch rng.IntN(8) {
		case 0:
			b.WriteByte(byte(rng.Uint32()))
		case 1:
			b.Write(bytes.Repeat([]byte{byte(rng.IntN(3))}, rng.IntN(600)))
		default:
			b.Write(words[int(rng.ExpFloat64()*400)%len(words)])
		}
	}
	return b.Bytes()[:n]
}

type compressor struct {
	name string
	fn   func(data []byte) []byte
}

func compressors() []compressor {
	var cs []compressor
	add := func(name string, newWriter func(io.Writer) (io.WriteCloser, error), chunked bool) {
		cs = append(cs, compressor{name, func(data []byte) []byte {
			var b bytes.Buffer
			w, err := newWriter(&b)
			if err != nil {
				panic(err)
			}
			for len(data) > 0 {
				k := len(data)
				if chunked {
					// Sync flushes make empty stored blocks and short fixed ones.
					k = min(len(data), 1+len(data)/7)
				}
				w.Write(data[:k])
				if chunked {
					w.(interface{ Flush() error }).Flush()
				}
				data = data[k:]
			}
			w.Close()
			return b.Bytes()
		}})
	}
	for level := -2; level <= 9; level++ {
		if level == 0 {
			continue
		}
		add(fmt.Sprintf("stdlib%d", level), func(w io.Writer) (io.WriteCloser, error) { return stdflate.NewWriter(w, level) }, false)
		add(fmt.Sprintf("klauspost%d", level), func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, level) }, false)
	}
	add("stored", func(w io.Writer) (io.WriteCloser, error) { return stdflate.NewWriter(w, stdflate.NoCompression) }, false)
	add("flushes", func(w io.Writer) (io.WriteCloser, error) { return stdflate.NewWriter(w, 6) }, true)
	return cs
}

func TestInflateMatchesKlauspost(t *testing.T) {
	sizes := []int{0, 1, 100, 40 << 10, 300 << 10}
	chunks := []int{64, 1 << 10, 16 << 10, 1 << 20}
	if raceEnabled {
		sizes, chunks = []int{100, 40 << 10}, []int{1 << 10}
	}
	for _, c := range compressors() {
		for _, n := range sizes {
			data := sample(n, uint64(n))
			comp := c.fn(data)
			for _, chunk := range chunks {
				t.Run(fmt.Sprintf("%s/%d/%d", c.name, n, chunk), func(t *testing.T) {
					got, end, err := inflate(comp, Config{ChunkSize: chunk, Procs: 2, MaxChunkOut: 1 << 24})
					if err != io.EOF && err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, data) {
						t.Fatalf("%d bytes out, want %d", len(got), len(data))
					}
					if end != int64(len(comp)) {
						t.Errorf("end %d, want %d", end, len(comp))
					}
				})
			}
		}
	}
}

// TestNextCandidateFindsBlocks: the search accepts every non-final
// dynamic block of real streams at its exact offset (missing one would
// only cost a sequential decode, so a broken filter would pass the
// other tests).
func TestNextCandidateFindsBlocks(t *testing.T) {
	data := sample(600<<10, 9)
	if raceEnabled {
		data = data[:100<<10]
	}
	for _, c := range compressors() {
		comp := c.fn(data)
		d := &decoder[byte]{bitReader: newBitReader(comp, 0), limit: 1 << 30}
		var scratch tables
		found := 0
		for !d.final {
			at := d.offset()
			if d.nb < 3 {
				d.refill()
			}
			if d.b&7 == 4 {
				if got := nextCandidate(comp, at, at+1, &scratch); got != at {
					t.Errorf("%s: dynamic block at bit %d not found", c.name, at)
				}
				found++
			}
			if err := d.block(); err != nil {
				t.Fatal(err)
			}
		}
		if c.name == "stdlib6" && found == 0 {
			t.Errorf("%s: only %d dynamic blocks", c.name, found)
		}
	}
}

// TestGuessAfterStoredBlock: a chunk that starts with a stored block
// (which the search does not look for) is guessed at the dynamic block
// after it; the reader decodes the stored block from the verified
// offset and then uses the guess, output buffers and all.
func TestGuessAfterStoredBlock(t *testing.T) {
	// After the flush's empty stored block, random bytes (stored too),
	// then data that refers to none before it, so that the guess's
	// output soon holds no marker and continues as bytes.
	noise := make([]byte, 20<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	data := append(append(sample(200<<10, 11), noise...), sample(400<<10, 12)...)
	var b bytes.Buffer
	w, _ := stdflate.NewWriter(&b, 6)
	w.Write(data[:200<<10])
	w.Flush()
	w.Write(data[200<<10:])
	w.Close()
	comp := b.Bytes()
	d := &decoder[byte]{bitReader: newBitReader(comp, 0), limit: 1 << 30}
	stored := int64(-1)
	for !d.final && stored < 0 {
		at := d.offset()
		if d.nb < 3 {
			d.refill()
		}
		if d.b>>1&3 == 0 {
			stored = at
		}
		if err := d.block(); err != nil {
			t.Fatal(err)
		}
	}
	if stored < 0 {
		t.Fatal("no stored block")
	}
	// The second chunk starts ten bytes before the stored block (the
	// first chunk is an eighth of the others).
	size := int((stored/8 - 10) * 8 / 9)
	cfg := Config{ChunkSize: size, Procs: 1, MaxChunkOut: 1 << 24}
	r := NewReader(bytes.NewReader(comp), 0, int64(len(comp)), cfg)
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("%d bytes, %v; want %d", len(got), err, len(data))
	}
	if st := r.Stats(); st.Decoded == 0 || st.Chunks < 2 {
		t.Errorf("%+v: want the stored block decoded, then the guess after it used", st)
	}
}
