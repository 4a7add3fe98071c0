// Package views holds one component per view of the interactive explorer
// (Top, Tree, Labels, Flame, Peek, Source, Disasm, Traces), each
// rendering analysis results with lipgloss, plus what they share: the
// View interface and its messages (view.go), the styles (every colour
// of the program, as adaptive pairs), the key map (the source of the
// key hint, the help and the key table in docs/explorer.md), the cursor
// and scroll of a list of rows, the search's matches, how values and
// shares print, how a row's text is laid out, and the sanitiser that
// makes a profile's strings safe to draw (safe.go). Views know analysis
// and lipgloss; they do not read files or run the program (that is
// tui's job), and they render only the rows on screen.
package views
