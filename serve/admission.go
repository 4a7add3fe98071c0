package serve

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Startups is OpenSSH's MaxStartups, start:rate:full: once Start
// connections are authenticating, a new one is dropped with
// probability Rate percent, rising linearly to 100 at Full. Dropping
// early and at random keeps a flood of silent connections from
// holding every slot: a real client's retry gets in.
type Startups struct{ Start, Rate, Full int }

// DefaultStartups is OpenSSH's default.
var DefaultStartups = Startups{10, 30, 100}

// ParseStartups reads "start:rate:full", or a lone "full" (no early
// drop), as sshd_config does.
func ParseStartups(v string) (Startups, error) {
	parts := strings.Split(v, ":")
	nums := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return Startups{}, fmt.Errorf("max startups %q: want start:rate:full or full", v)
		}
		nums[i] = n
	}
	var st Startups
	switch len(nums) {
	case 1:
		st = Startups{nums[0], 100, nums[0]}
	case 3:
		st = Startups{nums[0], nums[1], nums[2]}
	default:
		return Startups{}, fmt.Errorf("max startups %q: want start:rate:full or full", v)
	}
	return st, st.check()
}

func (st Startups) check() error {
	if st.Start < 1 || st.Full < st.Start || st.Rate < 0 || st.Rate > 100 {
		return fmt.Errorf("max startups %s: want 1 <= start <= full and 0 <= rate <= 100", st)
	}
	return nil
}

func (st Startups) String() string { return fmt.Sprintf("%d:%d:%d", st.Start, st.Rate, st.Full) }

// dropChance is the probability that a new connection is dropped when
// n are authenticating.
func (st Startups) dropChance(n int) float64 {
	switch {
	case n >= st.Full:
		return 1
	case n < st.Start:
		return 0
	}
	rate := float64(st.Rate) / 100
	return rate + (1-rate)*float64(n-st.Start)/float64(st.Full-st.Start)
}

// sourceOf is the address a connection's PerSource count goes to: its
// IP, without the port.
func sourceOf(a net.Addr) string {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// admitUnauth takes an unauthenticated slot for a connection from src,
// or says why not.
func (s *Server) admitUnauth(src string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.cfg.Startups
	switch {
	case s.closing:
		return "shutting down"
	case s.unauth >= st.Full:
		return fmt.Sprintf("%d connections are authenticating (max startups %s)", s.unauth, st)
	case s.perAddr[src] >= s.cfg.PerSource:
		return fmt.Sprintf("%d connections from this address are authenticating (per-source max startups)", s.perAddr[src])
	case s.cfg.random() < st.dropChance(s.unauth):
		return fmt.Sprintf("dropped early at random: %d connections are authenticating (max startups %s)", s.unauth, st)
	}
	s.unauth++
	s.perAddr[src]++
	return ""
}
