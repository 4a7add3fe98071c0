package serve

import (
	"sync"
	"testing"
	"time"
)

// TestStressSessionsComeAndGo: sessions opened side by side, each sending
// keys without waiting for the screen and then ending, by q or by the
// client dropping the connection mid-load or mid-computation, round after
// round. Under -race this runs the programs of many sessions, their
// loads and their teardown concurrently. Every slot comes back, and the
// server still serves.
func TestStressSessionsComeAndGo(t *testing.T) {
	t.Parallel()
	ts := startServer(t, func(c *Config) { c.MaxSessionsPerKey = 8 })
	rounds, width := 6, 6
	if testing.Short() {
		rounds = 2
	}
	for round := range rounds {
		var wg sync.WaitGroup
		for i := range width {
			tm, err := ts.tryOpen(termOpt{w: 60 + 7*i, h: 16 + 2*i})
			if err != nil {
				t.Fatalf("round %d, session %d: %v", round, i, err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				switch (round + i) % 3 {
				case 0: // gone while the profile loads
					tm.send("j\r")
					tm.client.Close()
				case 1: // keys, then q before their results
					tm.waitFor(0, "choose a profile")
					tm.send("j\r")
					tm.waitFor(0, "main.fib")
					tm.send("24s2j5o")
					tm.send("q")
					tm.wait()
				default: // gone in the middle of the keys
					tm.waitFor(0, "choose a profile")
					tm.send("j\r4s3")
					time.Sleep(time.Duration(i) * 5 * time.Millisecond)
					tm.client.Close()
				}
			}()
		}
		wg.Wait()
		waitUntil(t, 20*time.Second, "every session to end", func() bool { return ts.srv.Sessions() == 0 })
	}
	tm := ts.open(termOpt{})
	tm.waitFor(0, "choose a profile")
	tm.press("j\r", "main.fib")
}
