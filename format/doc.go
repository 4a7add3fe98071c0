// Package format turns profile bytes into a validated, analysis-ready
// Profile: gzipped or plain profile.proto, legacy gperftools CPU profiles,
// pprof's legacy text formats, Linux perf script output and perf.data, V8
// .cpuprofile files and Brendan Gregg's folded stacks, from a file, stdin
// or a net/http/pprof URL. Load symbolizes, as pprof does,
// the addresses of mappings that lack functions, in-process from their
// binaries (format/symbolize), and demangles C++ names. It also writes
// profiles back as gzipped profile.proto.
//
// format knows bytes and nothing above them: it must not import analysis,
// views, tui or any terminal package.
package format
