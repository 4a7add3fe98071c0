package format

import (
	"errors"
	"io"
	"strings"
	"testing"
)

type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("boom in the decompressor") }

// TestPipePanicIsAnError: a panic on the decompressing goroutine reaches
// the reader as an internal error, with its stack, instead of killing the
// process.
func TestPipePanicIsAnError(t *testing.T) {
	p := newPipeReader(panicReader{}, 1<<20)
	defer p.Close()
	_, err := io.ReadAll(p)
	var ie *internalError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "boom in the decompressor") || !strings.Contains(err.Error(), "crash_test.go") {
		t.Fatalf("err = %v, want the panic as an internal error with its stack", err)
	}
}
