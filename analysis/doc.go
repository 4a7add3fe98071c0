// Package analysis turns a decoded profile into what a person reads: flat
// and cumulative tables, call trees, callers and callees, label summaries
// and traces, source and disassembly listings, with pprof's options and
// pprof's numbers. pprof is the specification: every result here must
// equal what `go tool pprof` prints for the same file and options.
//
// An Engine holds one profile and what does not depend on the options
// (node tables, location views, recent results), so that a change of
// filter or sample type re-aggregates without re-reading. The settings
// table (settings.go) declares every option once; the command line, the
// explorer and the reports derive from it.
//
// analysis sits between the decoders and what shows the results: it
// imports format (and format/symbolize, for disassembly), internal/radix
// and the standard library only. It knows nothing of terminals or of
// what shows its results: no lipgloss, views, tui or serve; the text
// reports live in analysis/report.
package analysis
