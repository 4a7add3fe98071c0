// Package views holds one component per view of the interactive explorer
// (top table, call tree, labels, flame graph), each rendering analysis results with
// lipgloss, plus what they share: the styles (every colour of the
// program, as adaptive pairs) and the key map (the source of the key
// hint, the help and the README's key table). Views know analysis and
// lipgloss; they do not read files or run the program (that is tui's
// job), and they render only the rows on screen.
package views
