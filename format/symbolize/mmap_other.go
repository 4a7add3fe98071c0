//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package symbolize

import "os"

// mapFile does not map files here: sections are read.
func mapFile(*os.File) []byte { return nil }

func unmapFile([]byte) {}
