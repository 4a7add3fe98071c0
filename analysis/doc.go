// Package analysis turns a decoded profile into what a person reads: flat
// and cumulative tables, call trees, callers and callees, label summaries
// and traces, with pprof's options and pprof's numbers. pprof is the
// specification: every result here must equal what `go tool pprof` prints
// for the same file and options.
//
// analysis imports format and the standard library only; it knows nothing
// of terminals (no views, tui or lipgloss).
package analysis
