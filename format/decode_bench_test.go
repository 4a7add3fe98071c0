package format

import (
	"github.com/klauspost/compress/gzip"
	"io"
	"os"
	"testing"
)

func BenchmarkDecodeBigFile(b *testing.B) {
	path := os.Getenv("BIGPROF")
	if path == "" {
		b.Skip("BIGPROF not set")
	}
	for i := 0; i < b.N; i++ {
		f, _ := os.Open(path)
		if _, err := Parse(f, Options{}); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

func BenchmarkGunzipBigFile(b *testing.B) {
	path := os.Getenv("BIGPROF")
	if path == "" {
		b.Skip("BIGPROF not set")
	}
	for i := 0; i < b.N; i++ {
		f, _ := os.Open(path)
		zr, _ := gzip.NewReader(f)
		io.Copy(io.Discard, zr)
		f.Close()
	}
}
