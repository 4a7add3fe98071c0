// Package analysis turns a decoded profile into what a person reads: flat
// and cumulative tables, call trees, callers and callees, label summaries,
// traces, source and disassembly listings, with pprof's options and
// pprof's numbers. pprof is the specification: every result here must
// equal what `go tool pprof` prints for the same file and options.
//
// analysis imports format (with format/symbolize, for disassembly),
// internal/radix and the standard library; it knows nothing of terminals
// (no views, tui or lipgloss).
package analysis
