// Package format turns profile bytes into a validated, analysis-ready
// Profile: gzipped or plain profile.proto, legacy gperftools CPU profiles,
// pprof's legacy text formats, Linux perf script output and perf.data, V8
// .cpuprofile files and Brendan Gregg's folded stacks, from a file, stdin
// or a net/http/pprof URL. Load symbolizes, as pprof does,
// the addresses of mappings that lack functions, in-process from their
// binaries (format/symbolize), and demangles C++ names. It also writes
// profiles back as gzipped profile.proto.
//
// Every load is bounded: the decompressed input by Options.MaxBytes, and
// the memory the decoded profile takes by a Budget that decoders charge
// before they allocate, so that a small input claiming a huge profile
// fails with ErrBudget instead of exhausting memory.
//
// format knows bytes and nothing above them: it must not import analysis,
// views, tui or any terminal package.
package format
