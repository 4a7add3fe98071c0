package format

import (
	"context"
	"fmt"
	"sync"
)

// Sources names what to load, as pprof's command line does: several
// sources are merged into one profile; Base profiles are subtracted
// (-base); DiffBase profiles are subtracted and give the percentage
// denominator (-diff_base). Normalize scales the sources to the base's
// totals first. Binary is the profiled executable (pprof's BINARY
// argument): it replaces the file name of each profile's first mapping,
// for symbolization.
type Sources struct {
	Sources   []string
	Base      []string
	DiffBase  []string
	Normalize bool
	Binary    string
}

// Load reads, merges and subtracts the sources.
func Load(ctx context.Context, s Sources, opt Options) (*Profile, error) {
	if len(s.Sources) == 0 {
		return nil, fmt.Errorf("no profile source")
	}
	if len(s.Base) > 0 && len(s.DiffBase) > 0 {
		return nil, fmt.Errorf("-base and -diff_base cannot be used together")
	}
	all := append(append(append([]string(nil), s.Sources...), s.Base...), s.DiffBase...)
	profiles := make([]*Profile, len(all))
	errs := make([]error, len(all))
	crashes := make([]any, len(all))
	var wg sync.WaitGroup
	for i, src := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A panic (a bug) is raised again on the caller's goroutine,
			// whose guard (the explorer's) can restore the terminal.
			defer func() { crashes[i] = recover() }()
			o := opt
			if i > 0 {
				o.Progress = nil // one progress report: the first source
			}
			profiles[i], errs[i] = Open(ctx, src, o)
		}()
	}
	wg.Wait()
	for _, c := range crashes {
		if c != nil {
			panic(c)
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	sym := newSymbolizer(opt)
	defer sym.close()
	for _, p := range profiles {
		sym.locateBinaries(p, s.Binary)
	}
	p, err := Merge(profiles[:len(s.Sources)])
	if err != nil {
		return nil, err
	}
	bases := profiles[len(s.Sources):]
	if len(bases) == 0 {
		sym.symbolize(p)
		return p, nil
	}
	merged, err := Subtract(p, bases, len(s.DiffBase) > 0, s.Normalize)
	if err != nil {
		return nil, err
	}
	sym.symbolize(merged)
	return merged, nil
}

// Subtract returns p minus the bases (merged), as pprof's -base does, or
// -diff_base when diffBase is set (the base's samples marked, so that
// percentages are of the new profile's total); normalize first scales p
// to the base's total, as -normalize. It changes the bases.
func Subtract(p *Profile, bases []*Profile, diffBase, normalize bool) (*Profile, error) {
	base, err := Merge(bases)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	if normalize {
		if err := Normalize(p, base); err != nil {
			return nil, fmt.Errorf("normalize: %w", err)
		}
	}
	Scale(base, -1)
	if diffBase {
		if err := MarkBase(base); err != nil {
			return nil, err
		}
	}
	merged, err := Merge([]*Profile{p, base})
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	return merged, nil
}
