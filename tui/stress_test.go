package tui

import (
	"math/rand"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// The stress tests send keys without waiting for their results, so that
// results arrive out of order with the keys, superseded by later ones,
// and under -race every path between the UI goroutine and the background
// computations is run concurrently. They check that the program lives and
// ends settled on a consistent screen.

// stressKeys are keys that start computations or change what they are
// for: views, sample types, drill and back, sort, search, folding.
var stressKeys = []string{"1", "2", "3", "4", "5", "6", "7", "8", "s", "j", "k", "<enter>", "b", "o", "G", "g", "<down>", "<up>", "f", "i", "<esc>"}

// switchKeys leave no prompt open for P to be typed into, and no Esc for
// the picker, where it quits.
var switchKeys = []string{"1", "2", "3", "4", "5", "6", "7", "8", "s", "j", "k", "o", "G", "g"}

func stressRounds(n int) int {
	if raceEnabled || testing.Short() {
		return n / 4
	}
	return n
}

// TestStressLiveKeys: keys and window sizes sent as fast as the program
// takes them while a live source refreshes every few milliseconds,
// alternating two profiles, and the flame graph lays itself out.
func TestStressLiveKeys(t *testing.T) {
	t.Parallel()
	a, b := testdata("cpu_labels.pb.gz"), testdata("cpu_labels_no_w0.pb.gz")
	srv := &liveServer{files: []string{a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	cfg := testConfig(ts.URL + "/debug/pprof/heap")
	cfg.Refresh = 5 * time.Millisecond
	h := start(t, cfg)
	r := rand.New(rand.NewSource(1))
	for i := range stressRounds(400) {
		switch {
		case i%37 == 0:
			h.tm.Send(tea.WindowSizeMsg{Width: 40 + r.Intn(120), Height: 10 + r.Intn(40)})
		case i%53 == 0:
			h.tm.Send(keyMsg("4")) // the flame graph, then a resize during its layout
			h.tm.Send(tea.WindowSizeMsg{Width: 60 + r.Intn(100), Height: 12 + r.Intn(30)})
		case i%71 == 0:
			h.tm.Send(keyMsg("p")) // pause or resume
		default:
			h.tm.Send(keyMsg(stressKeys[r.Intn(len(stressKeys))]))
		}
		if i%50 == 0 {
			h.do(func(*Model) {}) // the program still answers
		}
	}
	h.tm.Send(tea.WindowSizeMsg{Width: testW, Height: testH})
	h.do(func(m *Model) {
		if m.live.paused {
			m.live.pause()
		}
		m.cfg.Refresh = time.Hour
		m.live.every = time.Hour
	})
	h.settle()
	if s := h.screen(); !strings.Contains(s, "Top") {
		t.Errorf("no tab bar after the keys:\n%s", s)
	}
}

// TestStressPickerSwitches: a profile opened from the picker, keys sent
// to it without waiting, and P back to the picker before they finish,
// over and over: results, completions and prefetches of a closed profile
// arrive in the picker or in the next profile.
func TestStressPickerSwitches(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyTo(t, testdata("cpu_labels.pb.gz"), filepath.Join(dir, "a.pb.gz"))
	copyTo(t, testdata("heap.pb.gz"), filepath.Join(dir, "b.pb.gz"))
	cfg := testConfig()
	cfg.Dir = dir
	h := start(t, cfg)
	h.waitFor("the picker", func(m *Model) bool { return m.picker != nil })
	r := rand.New(rand.NewSource(2))
	for i := range stressRounds(60) {
		want := []string{"a.pb.gz", "b.pb.gz"}[i%2]
		h.waitFor("the picker", func(m *Model) bool {
			if m.phase != phasePicking {
				return false
			}
			for k, e := range m.picker.shown {
				if m.picker.entries[e].name == want {
					m.picker.moveTo(k)
				}
			}
			return true
		})
		h.tm.Send(keyMsg("<enter>"))
		// P is taken once the profile is up (keys are dropped while it
		// opens): its first table's completion and the prefetch are
		// still to come.
		h.waitFor("the profile", func(m *Model) bool { return m.phase == phaseReady })
		for range r.Intn(6) {
			h.tm.Send(keyMsg(switchKeys[r.Intn(len(switchKeys))]))
		}
		h.tm.Send(keyMsg("P"))
	}
	h.do(func(*Model) {})
}
