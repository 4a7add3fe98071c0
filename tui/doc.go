// Package tui is the interactive explorer's root program: loading (with
// progress), the options and their history, background recomputation of
// the views, routing of messages, the command line, search, the status
// bar, help and the file picker. It composes the components of views and
// runs them with bubbletea; main starts it with Run.
//
// tui imports views, analysis and format; nothing imports tui but main
// and serve.
package tui
