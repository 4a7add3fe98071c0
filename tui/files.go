package tui

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/pprof-tui/pprof-tui/format"
)

// Files is where a served explorer's profiles come from: the picker
// lists it and the loader opens Config.Sources (names in it) through
// it, and nothing else is read (no stdin, URLs, binaries or source
// files). `pprof-tui serve` points it at its directory, opened as an
// os.Root; without it the explorer reads the local file system.
type Files interface {
	// ReadDir lists a directory of it ("." is the top) for the picker;
	// Open opens a file for reading.
	fs.ReadDirFS
	// Load reads the named profile; it returns promptly once ctx ends.
	Load(ctx context.Context, name string, opt format.Options) (*format.Profile, error)
}

// loadFiles loads src through files: one profile, no base.
func loadFiles(ctx context.Context, files Files, src format.Sources, opt format.Options) (*format.Profile, error) {
	if len(src.Sources) != 1 || len(src.Base)+len(src.DiffBase) > 0 || src.Binary != "" {
		return nil, fmt.Errorf("one profile at a time here")
	}
	return files.Load(ctx, src.Sources[0], opt)
}
