//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package symbolize

import (
	"os"
	"syscall"
)

// mapFile maps the file read-only, so that its sections are used where
// they are (the page cache) instead of copied: most of the time spent
// reading a big binary's tables was copying them. nil when it cannot be
// mapped; then sections are read.
func mapFile(f *os.File) []byte {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() <= 0 || st.Size() != int64(int(st.Size())) {
		return nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return data
}

func unmapFile(data []byte) { syscall.Munmap(data) }
