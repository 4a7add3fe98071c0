package tui

import (
	"context"
	"fmt"
	"io/fs"
	"slices"

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

// readSources reads src into the explorer (accept): through files when
// the explorer is served, else as format.Load reads them. The first
// load, a base set later and a diff's two sides all come through it.
func readSources(ctx context.Context, files Files, src format.Sources, opt format.Options) (*format.Profile, error) {
	if files != nil {
		return accept(loadFiles(ctx, files, src, opt))
	}
	return accept(format.Load(ctx, src, opt))
}

// loadFiles loads src through files: one profile, less a base of one
// or more (-base or -diff_base) as format.Load does.
func loadFiles(ctx context.Context, files Files, src format.Sources, opt format.Options) (*format.Profile, error) {
	if len(src.Sources) != 1 || src.Binary != "" {
		return nil, fmt.Errorf("one profile at a time here")
	}
	if len(src.Base) > 0 && len(src.DiffBase) > 0 {
		return nil, fmt.Errorf("-base and -diff_base cannot be used together")
	}
	p, err := files.Load(ctx, src.Sources[0], opt)
	bases := append(slices.Clone(src.Base), src.DiffBase...)
	if err != nil || len(bases) == 0 {
		return p, err
	}
	opt.Progress = nil
	profiles := make([]*format.Profile, len(bases))
	for i, b := range bases {
		if profiles[i], err = files.Load(ctx, b, opt); err != nil {
			return nil, err
		}
	}
	return format.Subtract(p, profiles, len(src.DiffBase) > 0, src.Normalize)
}
