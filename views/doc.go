// Package views holds one component per view of the interactive explorer
// (top table, call tree, labels, ...), each rendering analysis results
// with lipgloss. Views know analysis and styles; they do not read files
// or run the program (that is tui's job).
package views
