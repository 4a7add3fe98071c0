// Package tui is the interactive explorer's root program: loading,
// state, routing between views, the command line, history, the status
// bar and the key map. It composes views; main starts it.
package tui
