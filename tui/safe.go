package tui

import (
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/views"
)

// accept takes a profile just loaded (or the error loading it) into the
// explorer: one whose columns' sums overflow is refused, and the strings
// of the rest are made safe to draw. The first load and every live
// refresh come through it, so that neither can skip a step.
func accept(p *format.Profile, err error) (*format.Profile, error) {
	if err == nil {
		err = p.CheckSums()
	}
	if err != nil {
		return nil, err
	}
	safeProfile(p)
	return p, nil
}

// safeProfile makes every string of p the explorer may draw safe for the
// terminal (views.SafeText): a profile is data from anywhere, and a
// function named with an escape sequence would otherwise clear the screen
// or recolour it. Names without control characters, all of them in
// practice, are left as they are. Reports (-top and the others) print
// the names as they are, as pprof does.
func safeProfile(p *format.Profile) {
	safe := func(s *string) { *s = views.SafeText(*s) }
	for i := range p.Strings {
		safe(&p.Strings[i])
	}
	for i := range p.SampleTypes {
		safe(&p.SampleTypes[i].Type)
		safe(&p.SampleTypes[i].Unit)
	}
	safe(&p.PeriodType.Type)
	safe(&p.PeriodType.Unit)
	safe(&p.DefaultSampleType)
	for i := range p.Comments {
		safe(&p.Comments[i])
	}
	safe(&p.DocURL)
	for i := range p.Mappings {
		safe(&p.Mappings[i].File)
		safe(&p.Mappings[i].BuildID)
	}
	for i := range p.Functions {
		f := &p.Functions[i]
		safe(&f.Name)
		safe(&f.SystemName)
		safe(&f.Filename)
	}
}
