// Package serve is `pprof-tui serve`: the explorer served over SSH to a
// team, one tui program per session, each in its own terminal size and
// colours, reading profiles from one directory and nothing else.
//
// The security model: public-key authentication only, against an
// authorized_keys file; a session is a PTY running the explorer and
// nothing more (no shell, exec, subsystems, port, agent or X11
// forwarding); files are read only through an os.Root of the served
// directory, must be regular files under a size cap, and are opened
// without blocking; nothing is written on the server; limits bound the
// connections, sessions, loads and idle time of each client.
//
// serve imports tui (which it runs through tui.Config), analysis and
// format; only main imports serve.
package serve
