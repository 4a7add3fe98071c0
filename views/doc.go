// Package views holds one component per view of the interactive explorer
// (Top, Tree, Labels, Flame, Peek, Source, Disasm, Traces), each
// rendering analysis results with lipgloss, plus what they share: the
// styles (every colour of the program, as adaptive pairs) and the key map
// (the source of the key hint, the help and the key table in
// docs/explorer.md). Views know analysis and
// lipgloss; they do not read files or run the program (that is tui's
// job), and they render only the rows on screen.
package views
