// Command walk drives the built explorer in tmux through what a person
// waits for and prints, per step, the time from the key press
// to the redrawn screen and the process's RSS and peak RSS. Run it through
// tui/testdata/walk.sh, which builds the binary and writes the profile:
//
//	go run ./tui/testdata/walk [-rounds N] [-tag worker=w1] [-first] [-steps RE] [-heapprofile FILE] [-cpuprofile FILE] BINARY PROFILE
//
// -heapprofile has the explorer write its heap's profile when the walk
// quits it (PPROF_TUI_HEAPPROFILE), with everything it holds then: what
// the RSS after the walk is made of (FILE.N per round with -rounds).
// -cpuprofile has it profile its CPU from its start to then
// (PPROF_TUI_CPUPROFILE): where the time waited for went, the load
// included.
//
// The screen is read through one tmux control-mode connection
// (capture-pane, about 0.2-1 ms a capture) each time the pane has new
// output (tmux's %output notifications), until it differs from the
// screen before the key, matches the step's pattern and shows no
// "computing" spinner; a step whose result is counted in the background
// is timed twice, drawn (spinner or not) and counted (no spinner).
// Polling every millisecond instead would take CPU time, on two cores,
// from the explorer it times. The first screen is timed from the launch,
// beside `gunzip -c` of the same file timed just before it.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

func main() {
	rounds := flag.Int("rounds", 1, "walks, each in a new process")
	tag := flag.String("tag", "worker=w1", "the tagfocus step's filter")
	first := flag.Bool("first", false, "time the first screen only")
	only := flag.String("steps", "", "take only the steps whose names match this regexp")
	think := flag.Duration("think", 0, "wait this long on each screen before the next step's key, as a person reading it (0: press it at once)")
	var out profiles
	flag.StringVar(&out.heap, "heapprofile", "", "have the explorer write its heap's profile here when the walk quits it")
	flag.StringVar(&out.cpu, "cpuprofile", "", "have the explorer profile its CPU from its start into this file until the walk quits it")
	flag.Parse()
	re, err := regexp.Compile(*only)
	if flag.NArg() != 2 || err != nil {
		fmt.Fprintln(os.Stderr, "usage: walk [-rounds N] [-tag K=V] [-first] [-steps RE] [-think D] [-heapprofile FILE] [-cpuprofile FILE] BINARY PROFILE")
		os.Exit(2)
	}
	all := slices.DeleteFunc(steps(*tag), func(s step) bool { return !re.MatchString(s.name) })
	if *first {
		all = nil
	}
	if err := run(flag.Arg(0), flag.Arg(1), *rounds, *think, out, all); err != nil {
		fmt.Fprintln(os.Stderr, "walk:", err)
		os.Exit(1)
	}
}

// step is one thing a person does: keys (a tmux send-keys list), or
// text typed after a prompt, and the pattern the redrawn screen shows.
// On the : line (prompt ":") the text is typed and the time runs from
// its enter; on the / line the time runs from typing the text, which
// searches as it is typed. then, when set, is a second pattern the same
// screen comes to show later, timed from the same key press: what the
// explorer counts in the background (what filters keep, a search's
// share of the total).
type step struct {
	name, pattern string
	keys          string
	prompt        string
	then          string
	body          bool // with then: drawn is when the screen above the status bar changes
	// refused is what the screen says when the profile gives the key
	// nothing to act on (a pivot with no frame to select below the
	// root); the steps that need this one (needs, its name) are then
	// passed over, as are those that need a step that changed nothing
	// or was passed over itself.
	refused, needs string
}

// countedTotal is the status bar's total once what the filters keep is
// counted: "4.1s of 5.2s total", or "total 5.2s" when they keep all
// ("… of 5.2s total" while it is counted).
const countedTotal = `\d\S* of \S+ total|total \d`

// noPivot is what S says in a flame graph whose cursor is on the root:
// on the wide shape every frame below the root is narrower than a cell.
const noPivot = "select a function to pivot on"

// pivoted makes s a step taken in the pivot of "Flame: pivot (S)".
func pivoted(s step) step {
	s.needs = "Flame: pivot (S)"
	return s
}

func steps(tag string) []step {
	key := func(name, pattern, keys string) step { return step{name: name, pattern: pattern, keys: keys} }
	cmd := func(name, pattern, text string) step {
		return step{name: name, pattern: pattern, keys: text, prompt: ":"}
	}
	filter := func(pattern, text string) step {
		s := cmd(text, pattern, text)
		s.then, s.body = countedTotal, true
		return s
	}
	return []step{
		key("Top: key j", "▶", "j"),
		key("next sample type (s)", "samples", "s"),
		key("back to cpu (s)", "cpu", "s"),
		{name: "search /json as typed", pattern: `/json  (\S*\d|no match)`, keys: "json", prompt: "/", then: `focus would keep \d`},
		key("cancel the search (esc)", "sum%", "Escape"),
		filter("focus=json", "focus=json"),
		cmd("clear filters (:)", "sum%", ""),
		filter("ignore=json", "ignore=json"),
		cmd("clear filters (:)", "sum%", ""),
		filter("hide=", "hide=runtime|json"),
		cmd("clear filters (:)", "sum%", ""),
		filter("tagfocus=", "tagfocus="+tag),
		cmd("clear filters (:)", "sum%", ""),
		cmd("granularity=lines", "lines", "granularity=lines"),
		cmd("granularity=functions", "sum%", "granularity=functions"),
		key("Tree (2)", "top-down call tree", "2"),
		key("Tree: key j", "▶", "j"),
		key("invert tree (b)", "inverted tree", "b"),
		key("Tree: key j", "▶", "j"),
		key("Labels (3)", "Total|no labels", "3"),
		key("Labels: key j", "▶", "j"),
		key("Flame (4): first layout", "root", "4"),
		key("Flame: key j", "▶", "j"),
		key("Flame: zoom (enter)", "▶", "Enter"),
		// The detail line says "inverted" too, and "zoomed" with no
		// "inverted ·" before it once back: the root row scrolls away
		// when the cursor's frame is deep.
		key("Flame: invert (b)", "inverted", "b"),
		key("Flame: invert back (b)", `root \d|  zoomed ×`, "b"),
		{name: "Flame: pivot (S)", pattern: "callers ↑|" + noPivot, keys: "S", refused: noPivot},
		// Down to a callee: the function pivoted on may have no caller (on
		// the zipf shape it is runtime.goexit, a root).
		pivoted(key("Flame: pivot: key j", "▶", "j")),
		pivoted(key("Flame: re-pivot (enter)", "callers ↑", "Enter")),
		// Back to the first pivot: only after a re-pivot (on a profile
		// whose pivoted function has no callee, j and enter change
		// nothing, and ⌫ would leave the pivot).
		// The cursor comes back to the frame it was on, which may be off
		// the pivot's row: the top line then names the function.
		{name: "Flame: pivot back (⌫)", pattern: "callers ↑|pivot on ", keys: "BSpace", needs: "Flame: re-pivot (enter)"},
		pivoted(key("Flame: out of the pivot (⌫)", "root", "BSpace")),
		key("fold all recursion (R)", "recursion=all", "R"),
		key("fold direct recursion (R)", "recursion=direct", "R"),
		key("unfold recursion (R)", "root", "R"),
		key("Peek (5)", "callers", "5"),
		key("Source (6)", "Source", "6"),
		key("Graph (9)", "graph of \\d+ nodes|not among the graph", "9"),
		key("Top (1)", "sum%", "1"),
	}
}

// run walks all steps rounds times; before each step's key it waits
// think on the screen (-think): the explorer's background work
// (completing the first table, the next sample type's, the folded
// stacks) runs in such pauses.
func run(bin, prof string, rounds int, think time.Duration, out profiles, all []step) error {
	dir, err := os.MkdirTemp("", "walk")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "tmux.sock")
	defer exec.Command("tmux", "-S", sock, "kill-server").Run()

	load, _ := os.ReadFile("/proc/loadavg")
	st, err := os.Stat(prof)
	if err != nil {
		return err
	}
	fmt.Printf("profile: %s (%.1f MB), load %s\n", prof, float64(st.Size())/1e6, strings.Join(strings.Fields(string(load))[:3], " "))
	// A row of times per step and per step's then, after the first screen.
	names := []string{"first Top screen"}
	for _, s := range all {
		names = append(names, s.name)
		if s.then != "" {
			names = append(names, s.name+": counted")
		}
	}
	times := make([][]time.Duration, len(names))
	for r := 1; r <= rounds; r++ {
		gz, gzErr := gunzip(prof) // a legacy profile is not gzipped
		w, err := launch(sock, bin, prof, out.round(r, rounds))
		if err != nil {
			return err
		}
		first, err := w.wait(done(regexp.MustCompile("sum%")), "/sum%/", "", w.started)
		if err != nil {
			w.close()
			return err
		}
		times[0] = append(times[0], first)
		if gzErr != nil {
			fmt.Printf("round %d: not gzip; first Top screen %d ms   %s\n", r, first.Milliseconds(), w.mem())
		} else {
			fmt.Printf("round %d: gunzip -c %d ms; first Top screen %d ms (%.2f×)   %s\n",
				r, gz.Milliseconds(), first.Milliseconds(), first.Seconds()/gz.Seconds(), w.mem())
		}
		time.Sleep(300 * time.Millisecond)
		row := 1
		refused := map[string]bool{}
		for _, s := range all {
			if refused[s.needs] {
				fmt.Printf("  %-28s  passed over (%s was not taken)\n", s.name, s.needs)
				refused[s.name] = true
				row++
				continue
			}
			time.Sleep(think)
			d, counted, err := w.do(s)
			if err == nil && s.refused != "" {
				if sc, _ := w.screen(); strings.Contains(sc, s.refused) {
					fmt.Printf("  %-28s  refused: %q\n", s.name, s.refused)
					refused[s.name] = true
					row++
					continue
				}
			}
			i := row
			if row++; s.then != "" {
				row++
			}
			if errors.Is(err, errUnchanged) {
				fmt.Printf("  %-28s  no redraw in %v (the key changed nothing)\n", s.name, unchanged)
				refused[s.name] = true
				continue
			}
			if err != nil {
				w.close()
				return fmt.Errorf("%s: %w", s.name, err)
			}
			times[i] = append(times[i], d)
			if s.then == "" {
				fmt.Printf("  %-28s %6.1f ms   %s\n", s.name, ms(d), w.mem())
				continue
			}
			times[i+1] = append(times[i+1], counted)
			fmt.Printf("  %-28s %6.1f ms, counted %6.1f ms   %s\n", s.name, ms(d), ms(counted), w.mem())
		}
		fmt.Printf("  after the walk: %s\n", w.mem())
		w.close()
	}
	if rounds > 1 {
		fmt.Printf("over %d rounds (min–max):\n", rounds)
		for i, ts := range times {
			if len(ts) == 0 {
				fmt.Printf("  %-37s no redraw in any round\n", names[i])
				continue
			}
			fmt.Printf("  %-37s %6.1f – %6.1f ms\n", names[i], ms(slices.Min(ts)), ms(slices.Max(ts)))
		}
	}
	return nil
}

// ms is d in milliseconds, to a tenth.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func gunzip(prof string) (time.Duration, error) {
	t0 := time.Now()
	c := exec.Command("gunzip", "-c", prof)
	c.Stdout = io.Discard
	err := c.Run()
	return time.Since(t0), err
}

// walker is one explorer process in tmux and a control-mode connection.
type walker struct {
	sock    string
	pid     string
	out     profiles // what the explorer writes as it exits
	ctl     *exec.Cmd
	in      io.WriteCloser
	lines   chan string // the control connection's output, a line at a time; closed at its end
	started time.Time
	seq     int
	outputs int // %output notifications read
}

// profiles are the files the explorer writes its profiles to as it
// exits ("": none).
type profiles struct{ heap, cpu string }

// round is where round r of rounds writes them: FILE.r when more than one.
func (p profiles) round(r, rounds int) profiles {
	if rounds == 1 {
		return p
	}
	for _, f := range []*string{&p.heap, &p.cpu} {
		if *f != "" {
			*f = fmt.Sprintf("%s.%d", *f, r)
		}
	}
	return p
}

func launch(sock, bin, prof string, files profiles) (*walker, error) {
	w := &walker{sock: sock, out: files}
	w.started = time.Now()
	args := []string{"-S", sock, "new-session", "-d", "-s", "walk", "-x", "120", "-y", "35"}
	if files.heap != "" {
		args = append(args, "-e", "PPROF_TUI_HEAPPROFILE="+files.heap)
	}
	if files.cpu != "" {
		args = append(args, "-e", "PPROF_TUI_CPUPROFILE="+files.cpu)
	}
	if out, err := exec.Command("tmux", append(args, "TERM=xterm-256color exec "+bin+" "+prof)...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("tmux: %v: %s", err, out)
	}
	w.ctl = exec.Command("tmux", "-S", sock, "-C", "attach", "-t", "walk")
	var err error
	if w.in, err = w.ctl.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := w.ctl.StdoutPipe()
	if err != nil {
		return nil, err
	}
	w.lines = make(chan string, 1024)
	if err := w.ctl.Start(); err != nil {
		return nil, err
	}
	go func() {
		defer close(w.lines)
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			w.lines <- line
		}
	}()
	pid, err := w.cmd("display -p -t walk '#{pane_pid}'")
	w.pid = strings.TrimSpace(pid)
	return w, err
}

func (w *walker) close() {
	w.cmd("send-keys -t walk q")
	time.Sleep(200 * time.Millisecond)
	if w.out != (profiles{}) {
		// The profiles are written as the explorer exits: wait for it.
		for t0 := time.Now(); time.Since(t0) < 30*time.Second; time.Sleep(50 * time.Millisecond) {
			if _, err := os.Stat("/proc/" + w.pid); err != nil {
				break
			}
		}
		for _, f := range []struct{ what, path string }{{"heap", w.out.heap}, {"CPU", w.out.cpu}} {
			if f.path != "" {
				fmt.Printf("  %s profile: %s\n", f.what, f.path)
			}
		}
	}
	w.cmd("kill-session -t walk")
	w.in.Close()
	w.ctl.Wait()
}

// cmd runs a tmux command on the control connection and returns its
// output. A marker command follows it, and everything read up to the
// marker's answer is skipped but the command's own block: attaching and
// notifications send blocks and lines of their own. A connection that
// answers nothing for cmdTimeout is an error, not a hang (a marker
// that never comes would otherwise hold the walk for good).
func (w *walker) cmd(c string) (string, error) {
	w.seq++
	mark := fmt.Sprintf("WALK-MARK-%d", w.seq)
	if _, err := fmt.Fprintf(w.in, "%s\ndisplay -p %s\n", c, mark); err != nil {
		return "", err
	}
	var b, last strings.Builder
	in, failed := false, false
	timer := time.NewTimer(cmdTimeout)
	defer timer.Stop()
	for {
		var line string
		select {
		case l, ok := <-w.lines:
			if !ok {
				return "", fmt.Errorf("tmux control: the connection ended")
			}
			line = l
		case <-timer.C:
			return "", fmt.Errorf("tmux control: no answer to %q in %v", c, cmdTimeout)
		}
		switch {
		case !in && strings.HasPrefix(line, "%output "):
			w.outputs++
		case strings.HasPrefix(line, "%begin "):
			in = true
			b.Reset()
		case in && (strings.HasPrefix(line, "%end ") || strings.HasPrefix(line, "%error ")):
			in = false
			if b.String() == mark+"\n" {
				if failed {
					return "", fmt.Errorf("tmux: %s: %s", c, last.String())
				}
				return last.String(), nil
			}
			failed = strings.HasPrefix(line, "%error ")
			last.Reset()
			last.WriteString(b.String())
		case in:
			b.WriteString(line)
		}
	}
}

// cmdTimeout is how long a tmux command may go unanswered.
const cmdTimeout = 30 * time.Second

func (w *walker) screen() (string, error) { return w.cmd("capture-pane -p -t walk") }

// output waits up to d for the pane's next output (a %output
// notification; the others are skipped).
func (w *walker) output(d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-w.lines:
			if !ok {
				return fmt.Errorf("tmux control: the connection ended")
			}
			if strings.HasPrefix(l, "%output ") {
				w.outputs++
				return nil
			}
		case <-timer.C:
			return nil
		}
	}
}

// quiet is how long the screen is left between captures when the pane
// shows no output (a fallback: output wakes the walk at once).
const quiet = 50 * time.Millisecond

// next waits for the pane's output since a capture that had read
// outputs notifications, unless some came while it was read.
func (w *walker) next(outputs int) error {
	if w.outputs != outputs {
		return nil
	}
	return w.output(quiet)
}

// done is a screen that matches re and shows no spinner.
func done(re *regexp.Regexp) func(string) bool {
	return func(s string) bool { return !strings.Contains(s, "computing") && re.MatchString(s) }
}

// wait polls the screen until it differs from before and ok says it is
// the one waited for, and returns the time since t0 when it was first
// seen so. The screen must then read the same once more, a millisecond
// later: tmux may show a frame it has only partly received.
func (w *walker) wait(ok func(string) bool, what string, before string, t0 time.Time) (time.Duration, error) {
	deadline := t0.Add(5 * time.Minute)
	var last string
	var at time.Duration
	for time.Now().Before(deadline) {
		seen := w.outputs
		s, err := w.screen()
		if err != nil {
			return 0, err
		}
		// As it was before the key (maybe after a spinner came and
		// went: enter on the frame already pivoted on).
		if s == before && before != "" && time.Since(t0) > unchanged {
			return 0, errUnchanged
		}
		switch {
		case s != before && ok(s):
			if s == last {
				return at, nil
			}
			last, at = s, time.Since(t0)
			time.Sleep(time.Millisecond)
			continue
		default:
			last = ""
		}
		if err := w.next(seen); err != nil {
			return 0, err
		}
	}
	s, _ := w.screen()
	return 0, fmt.Errorf("timed out waiting for %s; the screen:\n%s", what, s)
}

// unchanged is how long a step's screen may read as it did before the
// key: a zoom into a frame that already fills the width changes nothing.
const unchanged = 20 * time.Second

var errUnchanged = errors.New("the screen did not change")

// echoed waits until the screen's last line reads text.
func (w *walker) echoed(text string) error {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		seen := w.outputs
		s, err := w.screen()
		if err != nil {
			return err
		}
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		if strings.Contains(lines[len(lines)-1], text) {
			time.Sleep(10 * time.Millisecond) // the rest of the frame
			return nil
		}
		if err := w.next(seen); err != nil {
			return err
		}
	}
	return fmt.Errorf("the command line never read %q", text)
}

// do takes step s and returns the time from its key to the screen it
// asks for and, with s.then, to the screen with what is counted in the
// background. A step with then is first seen drawn while the status
// bar's spinner may still say the count is on its way; a step without,
// only once nothing is on its way.
func (w *walker) do(s step) (drawn, counted time.Duration, err error) {
	keys := s.keys
	open := "" // the : line as typed, until its enter is taken
	if s.prompt != "" {
		if _, err := w.cmd("send-keys -t walk " + s.prompt); err != nil {
			return 0, 0, err
		}
		typed := s.prompt
		if s.prompt == ":" {
			typed += s.keys
			if s.keys != "" {
				if _, err := w.cmd("send-keys -t walk -l '" + s.keys + "'"); err != nil {
					return 0, 0, err
				}
			}
			keys, open = "Enter", typed
		} else {
			keys = "-l '" + s.keys + "'" // a search runs as it is typed
		}
		// The typed command must be on screen before the screen to
		// compare with is taken: a busy explorer echoes it late, and
		// the echo (which matches the step's pattern) would be taken
		// for the step's result.
		if err := w.echoed(typed); err != nil {
			return 0, 0, err
		}
	}
	before, err := w.screen()
	if err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	if _, err := w.cmd("send-keys -t walk " + keys); err != nil {
		return 0, 0, err
	}
	re := regexp.MustCompile(s.pattern)
	lines := func(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }
	// A screen whose : line still reads the command is from before its
	// enter: the echo matches the step's pattern, and a late frame of
	// the step before may change the rest.
	entered := func(ok func(string) bool) func(string) bool {
		return func(sc string) bool {
			l := lines(sc)
			return (open == "" || strings.TrimSpace(l[len(l)-1]) != open) && ok(sc)
		}
	}
	if s.then == "" {
		drawn, err = w.wait(entered(done(re)), "/"+s.pattern+"/", before, t0)
		return drawn, 0, err
	}
	body := func(s string) string { // the screen but the status bar and the footer
		l := lines(s)
		return strings.Join(l[:max(0, len(l)-2)], "\n")
	}
	drew := func(sc string) bool {
		if !re.MatchString(sc) {
			return false
		}
		// A filter's name is in the status bar at once: its view is
		// drawn when the body changes, or when all is done and the
		// filter changed nothing in it.
		return !s.body || body(sc) != body(before) || done(re)(sc)
	}
	if drawn, err = w.wait(entered(drew), "/"+s.pattern+"/ drawn", before, t0); err != nil {
		return 0, 0, err
	}
	counted, err = w.wait(entered(done(regexp.MustCompile(s.then))), "/"+s.then+"/", before, t0)
	return drawn, counted, err
}

// mem is the process's resident and peak resident memory.
func (w *walker) mem() string {
	data, err := os.ReadFile("/proc/" + w.pid + "/status")
	if err != nil {
		return "(gone)"
	}
	var rss, hwm int
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 {
			switch f[0] {
			case "VmRSS:":
				fmt.Sscan(f[1], &rss)
			case "VmHWM:":
				fmt.Sscan(f[1], &hwm)
			}
		}
	}
	return fmt.Sprintf("rss %5d MB  peak %5d MB", rss/1024, hwm/1024)
}
