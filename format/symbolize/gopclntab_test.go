package symbolize

import (
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestGoTableSweep checks that symbolizing the sorted addresses of a
// function together (framesRange) gives what symbolizing each alone
// (frames) does, over the go command's code, with and without inline
// frames.
func TestGoTableSweep(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	b, err := Open(filepath.Join(strings.TrimSpace(string(out)), "bin", "go"))
	if err != nil {
		t.Skip(err)
	}
	defer b.Close()
	gt, err := b.goTab()
	if err != nil || gt == nil {
		t.Fatalf("no pclntab: %v", err)
	}
	text := b.ef.Section(".text")
	var addrs []uint64
	for a := text.Addr; a < text.Addr+text.Size; a += 251 {
		addrs = append(addrs, a)
	}
	inlined := 0
	for _, noInlines := range []bool{false, true} {
		got := make([][]Frame, len(addrs))
		gt.framesRange(addrs, got, noInlines, newScratch())
		s := newScratch()
		for i, a := range addrs {
			want := gt.frames(a, noInlines, s)
			if !reflect.DeepEqual(got[i], want) {
				t.Fatalf("%#x noInlines=%v: %+v, alone %+v", a, noInlines, got[i], want)
			}
			if len(want) > 1 {
				inlined++
			}
		}
	}
	if inlined == 0 {
		t.Error("no inline frames seen")
	}
}
