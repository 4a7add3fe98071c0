package tui

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pprof-tui/pprof-tui/analysis"
	"github.com/pprof-tui/pprof-tui/analysis/report"
	"github.com/pprof-tui/pprof-tui/format"
	"github.com/pprof-tui/pprof-tui/views"
)

// What leaves the explorer: :save writes what the settings select,
// :cmd shows the command lines that reopen this view, and y copies text
// to the terminal's clipboard with OSC 52 (which travels over SSH).

// saveKinds are the files :save writes, by name ending.
var saveKinds = []struct{ suffix, what string }{
	{".pb.gz", "the filtered profile, as go tool pprof -proto writes it"},
	{".folded", "collapsed stacks, as -folded"},
	{".txt", "the top table, as -top"},
	{".dot", "the call graph (the Graph view's), as -dot"},
	{".svg", "the call graph drawn by Graphviz's dot, as -svg"},
	{".callgrind", "the call graph for KCachegrind, as -callgrind"},
}

// savedMsg reports a finished :save.
type savedMsg struct {
	path  string
	bytes int64
	err   error
}

// save writes what the current settings select to path; force allows
// overwriting a file. The work runs in the background.
func (m *Model) save(path string, force bool) (tea.Cmd, error) {
	if m.cfg.NoSave {
		return nil, fmt.Errorf("save: this explorer is served over SSH and writes nothing on the server; y copies to your clipboard")
	}
	if path == "" {
		return nil, fmt.Errorf("save needs a file name: :save cpu.pb.gz (or .folded, .txt, .dot, .svg, .callgrind)")
	}
	kind := ""
	for _, k := range saveKinds {
		if strings.HasSuffix(path, k.suffix) {
			kind = k.suffix
		}
	}
	if kind == "" {
		return nil, fmt.Errorf("save: %s must end in .pb.gz, .folded, .txt, .dot, .svg or .callgrind", path)
	}
	if _, err := os.Lstat(path); err == nil && !force {
		return nil, fmt.Errorf("%s exists; :save! %s overwrites it", path, path)
	}
	e, opt := m.engine, m.opts
	write := func() tea.Msg {
		n, err := writeSaved(path, kind, e, opt)
		return savedMsg{path, n, err}
	}
	m.setNote(views.Safe("saving "+path+"…"), false)
	return guard(write), nil
}

// writeSaved writes the file through a temporary file in the same
// directory, so a failure leaves no half-written file.
func writeSaved(path, kind string, e *analysis.Engine, opt analysis.Options) (int64, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pprof-tui-save-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	switch kind {
	case ".pb.gz":
		var fp *format.Profile
		if fp, err = e.Filtered(opt); err == nil {
			err = format.Write(tmp, fp)
		}
	case ".folded":
		var stacks []analysis.FoldedStack
		if stacks, err = e.Folded(opt); err == nil {
			err = report.Folded(tmp, stacks)
		}
	case ".txt":
		var top *analysis.Top
		if top, err = e.Top(opt); err == nil {
			err = report.Top(tmp, e.Profile(), top, opt.Trimmed())
		}
	case ".dot", ".svg", ".callgrind":
		err = writeGraph(tmp, strings.TrimPrefix(kind, "."), e, opt)
	}
	if err != nil {
		tmp.Close()
		return 0, err
	}
	st, err := tmp.Stat()
	if err == nil {
		err = tmp.Close()
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// writeGraph writes the call graph report name (dot, svg, callgrind)
// for the explorer's settings: nodecount, unset, is -dot's 80 as in the
// Graph view.
func writeGraph(w io.Writer, name string, e *analysis.Engine, opt analysis.Options) error {
	opt, kind := report.GraphOptions(name, opt, opt.NodeCount != 0)
	g, err := e.Graph(opt, kind)
	if err != nil {
		return err
	}
	switch name {
	case "callgrind":
		return report.Callgrind(w, g, opt)
	case "svg":
		var dot bytes.Buffer
		if err := report.Dot(&dot, e.Profile(), g, opt); err != nil {
			return err
		}
		return report.RunDot(w, &dot, "svg")
	}
	return report.Dot(w, e.Profile(), g, opt)
}

func (m *Model) saved(msg savedMsg) {
	if msg.err != nil {
		m.setNote(views.Safe("save: "+msg.err.Error()), true)
		return
	}
	m.setNote(views.Textf("saved %s (%s)", msg.path, analysis.ScaledLabel(msg.bytes, "bytes", "auto")), false)
}

// commandLines returns the pprof-tui command line that reopens the
// current view and the go tool pprof one with the same settings.
func (m *Model) commandLines() (ours, pprof string) {
	var flags, pflags []string
	explorer := explorerDefaults()
	pprofDefaults := analysis.DefaultOptions()
	for _, s := range analysis.Settings() {
		v := s.Value(m.opts)
		if v != s.Value(explorer) {
			flags = append(flags, flagArg(s, v))
		}
		if v != s.Value(pprofDefaults) {
			pflags = append(pflags, flagArg(s, v))
		}
	}
	var srcFlags, srcs []string
	for _, b := range m.sources.Base {
		srcFlags = append(srcFlags, "-base="+shellQuote(b))
	}
	for _, b := range m.sources.DiffBase {
		srcFlags = append(srcFlags, "-diff_base="+shellQuote(b))
	}
	if m.sources.Normalize {
		srcFlags = append(srcFlags, "-normalize")
	}
	if m.sources.Binary != "" {
		srcs = append(srcs, shellQuote(m.sources.Binary))
	}
	for _, s := range m.sources.Sources {
		srcs = append(srcs, shellQuote(s))
	}
	join := func(cmd string, parts ...[]string) string {
		all := []string{cmd}
		for _, p := range parts {
			all = append(all, p...)
		}
		return strings.Join(all, " ")
	}
	ours = join("pprof-tui", flags, srcFlags, srcs)
	pprof = join("go tool pprof", pflags, srcFlags, srcs)
	return ours, pprof
}

// flagArg spells a setting as a command-line flag.
func flagArg(s analysis.Setting, v string) string {
	if s.IsBool() && v == "true" {
		return "-" + s.Name
	}
	return "-" + s.Name + "=" + shellQuote(v)
}

// shellQuote quotes s for a POSIX shell when it needs it. A name that
// SafeText would change (a control character, invisible or not UTF-8)
// is quoted as $'...' with its bytes escaped, which bash, zsh and ksh
// read back as the same name: the line then shows as it is and pastes
// safely, escape sequences included.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:@%+") == "" {
		return s
	}
	if views.SafeText(s) == s {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\\' || r == '\'':
			b.WriteString(`\` + string(r))
		case r == utf8.RuneError && n == 1 || views.SafeText(s[i:i+n]) != s[i:i+n]:
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteString("'")
	return b.String()
}

// showCommand is :cmd: the command lines in the help overlay; y there
// copies ours.
func (m *Model) showCommand() {
	st := m.c.Styles
	ours, pprof := m.commandLines()
	lines := []string{st.HelpTitle.Render("Reopen this view")}
	// shellQuote leaves nothing for Safe to change; it is the type that
	// says so.
	for _, l := range wrap(views.Safe(ours).String(), m.width-4) {
		lines = append(lines, "  "+st.HelpKey.Render(l))
	}
	lines = append(lines, "", st.HelpTitle.Render("The same settings in go tool pprof"))
	for _, l := range wrap(views.Safe(pprof).String(), m.width-4) {
		lines = append(lines, "  "+st.HelpDesc.Render(l))
	}
	lines = append(lines, "", st.HelpTitle.Render("The same settings in go tool pprof -http's web UI (after its address)"))
	for _, l := range wrap(views.Safe(m.webPath()).String(), m.width-4) {
		lines = append(lines, "  "+st.HelpDesc.Render(l))
	}
	lines = append(lines, "", st.Dim.Render("  y copies the pprof-tui line to the clipboard (OSC 52) · any other key closes"))
	m.help.openCopy(lines, ours)
}

// copyText copies s to the terminal's clipboard with OSC 52: the
// terminal (over SSH too; in tmux with set-clipboard on) sets its
// clipboard. The sequence goes out in one write, between frames.
func (m *Model) copyText(s, what string) tea.Cmd {
	out := m.cfg.Output
	m.setNote(views.Safe("copied "+what), false)
	if out == nil {
		return nil
	}
	seq := "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(s)) + "\a"
	return func() tea.Msg {
		out.Write([]byte(seq))
		return nil
	}
}

// webPages are the pages of pprof's web UI that show what a view does;
// a view without one gets the top table.
var webPages = map[viewID]string{viewFlame: "flamegraph", viewPeek: "peek", viewSource: "source", viewDisasm: "disasm"}

// webPath is the path and query of pprof's web UI page with the current
// settings (pprof's URL parameters), for :cmd.
func (m *Model) webPath() string {
	page, ok := webPages[m.views.active]
	if !ok {
		page = "top"
	}
	path := "/ui/" + page
	if q := analysis.PprofURLQuery(m.opts, explorerDefaults()); q != "" {
		path += "?" + q
	}
	return path
}
