// Package symbolize turns instruction addresses into functions, files,
// lines and chains of inlined calls, in-process, from the ELF binary
// itself: the ELF symbol tables, the DWARF line tables and inlined
// subroutine entries, and the Go pclntab (with its inline tree) for Go
// binaries, which need no DWARF. It does what pprof does by running
// addr2line, llvm-symbolizer or nm, without them.
//
// A Binary maps the file into memory (or, where it cannot, reads it),
// touches only the sections it needs, when it first needs them, and
// keeps what it parsed; a Cache keeps Binaries by path, size and
// modification time so that loading a profile again is instant. DWARF
// entries and line tables are decoded by this package's own readers,
// not debug/dwarf, which allocates for every attribute of every entry.
// Corrupt or truncated files give errors, never panics.
//
// It knows binaries and nothing of profiles: it must not import format
// (format imports it), analysis, views, tui or any terminal package.
package symbolize
