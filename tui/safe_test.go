package tui

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"google.golang.org/protobuf/encoding/protowire"
)

// evilProfile writes a profile whose function, file, label, comment and
// sample type names carry escape sequences and other control characters.
func evilProfile(t *testing.T) string {
	t.Helper()
	return evilProfileAt(t, t.TempDir(), "evil.pb.gz")
}

// evilProfileAt writes evilProfile's profile as dir/name.
func evilProfileAt(t *testing.T, dir, name string) string {
	t.Helper()
	msg := func(b []byte, num protowire.Number, m []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), m)
	}
	num := func(b []byte, n protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(b, n, protowire.VarintType), v)
	}
	strs := []string{"", "samples\x1b[5m", "count", "main.ok",
		"evil\x1b[2J\x1b[31mRED\x1b]0;pwned\x07\rX\x08tail", "file\x1b[5m.go", "key\x1b[1m", "val\r\x1b[K",
		"note\x1b]52;c;Zm5hbWU=\x07\x1bP+q\x1b\\\u009d0;t\u009c\u00ad"}
	var p []byte
	p = msg(p, 1, num(num(nil, 1, 1), 2, 2))
	label := num(num(nil, 1, 6), 2, 7)
	p = msg(p, 2, msg(msg(msg(nil, 1, []byte{1}), 2, []byte{5}), 3, label))
	p = msg(p, 2, msg(msg(nil, 1, []byte{2}), 2, []byte{3}))
	for id := uint64(1); id <= 2; id++ {
		p = msg(p, 4, msg(num(nil, 1, id), 4, num(num(nil, 1, id), 2, 10+id)))
	}
	p = msg(p, 5, num(num(num(nil, 1, 1), 2, 4), 4, 5))
	p = msg(p, 5, num(num(num(nil, 1, 2), 2, 3), 4, 5))
	for _, s := range strs {
		p = msg(p, 6, []byte(s))
	}
	p = num(p, 13, 8) // a comment
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(p)
	zw.Close()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestControlCharactersNotDrawn: names from the profile reach the
// terminal without their control characters, on every view; the names
// are still there, drawn as symbols.
func TestControlCharactersNotDrawn(t *testing.T) {
	t.Parallel()
	h := start(t, testConfig(evilProfile(t)))
	for _, k := range []string{"1", "2", "3", "4", "5", "6"} {
		h.keys(k)
		h.settle()
		screen := h.screen()
		if i := strings.IndexFunc(screen, func(r rune) bool { return r < 0x20 && r != '\n' || r == 0x7f }); i >= 0 {
			t.Errorf("view %s: control character %q drawn:\n%s", k, screen[i], screen)
		}
		want := map[string]string{"1": "evil␛[2J␛[31mRED", "3": "val␍␛[K", "6": "file␛[5m.go"}[k]
		if want != "" && !strings.Contains(screen, want) {
			t.Errorf("view %s: %q not drawn:\n%s", k, want, screen)
		}
	}
}
