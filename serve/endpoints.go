package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// An endpoint is a net/http/pprof server the operator names with
// -endpoint NAME=URL. Sessions pick its profiles in the picker as
// live:NAME:KIND; the server builds each request itself, from the
// URL's scheme, host and path and a fixed list of kinds, so a session
// reaches nothing else.
type endpoint struct {
	name string
	base *url.URL // scheme, host, and the path up to /debug/pprof
	// addrs are the host's addresses, resolved once at start: the
	// dialer connects to these only, whatever DNS says later.
	addrs  []net.IP
	port   string
	client *http.Client
	turn   chan struct{} // one fetch at a time
}

// endpointKinds are the profiles offered, by the name the picker shows
// (each holds a word the picker takes for a profile) and the path.
var endpointKinds = []struct{ name, path string }{
	{"cpu", "profile"},
	{"heap", "heap"},
	{"allocs", "allocs"},
	{"goroutine", "goroutine"},
	{"mutex", "mutex"},
	{"block", "block"},
}

const livePrefix = "live:"

// parseEndpoint reads NAME=URL and resolves the URL's host.
func parseEndpoint(spec string, timeout time.Duration) (*endpoint, error) {
	name, raw, ok := strings.Cut(spec, "=")
	if !ok || name == "" || strings.ContainsAny(name, ":/ \t") {
		return nil, fmt.Errorf("endpoint %q: want NAME=URL, NAME without ':', '/' or spaces", spec)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("endpoint %s: want an http(s)://host[:port][/path] URL without user, query or fragment", name)
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/debug/pprof")
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ips, err := net.DefaultResolver.LookupIP(ctx, "ip", u.Hostname())
	if err != nil || len(ips) == 0 {
		return nil, fmt.Errorf("endpoint %s: resolving %s: %v", name, u.Hostname(), err)
	}
	e := &endpoint{name: name, base: u, addrs: ips, port: port, turn: make(chan struct{}, 1)}
	e.client = &http.Client{
		Transport: &http.Transport{
			Proxy:               nil, // the environment's proxy is not the operator's choice here
			DialContext:         e.dial,
			TLSHandshakeTimeout: 10 * time.Second,
			MaxIdleConns:        1,
			IdleConnTimeout:     time.Minute,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return errRedirect },
		Timeout:       timeout,
	}
	return e, nil
}

var errRedirect = errors.New("redirects are not followed")

// dial connects to the addresses resolved at start, whatever address
// it is asked for, and checks the connected address again in Control.
func (e *endpoint) dial(ctx context.Context, network, _ string) (net.Conn, error) {
	d := net.Dialer{
		Timeout: 10 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			if ip := net.ParseIP(host); ip == nil || !slices.ContainsFunc(e.addrs, ip.Equal) {
				return fmt.Errorf("endpoint %s: %s is not an address of %s", e.name, address, e.base.Hostname())
			}
			return nil
		},
	}
	var err error
	for _, ip := range e.addrs {
		var c net.Conn
		if c, err = d.DialContext(ctx, network, net.JoinHostPort(ip.String(), e.port)); err == nil {
			return c, nil
		}
	}
	return nil, err
}

// request is the URL for a kind of profile, seconds clamped for CPU.
func (e *endpoint) request(path string, seconds int) string {
	u := *e.base
	u.Path = strings.TrimSuffix(u.Path, "/") + "/debug/pprof/" + path
	if path == "profile" {
		u.RawQuery = "seconds=" + strconv.Itoa(seconds)
	}
	return u.String()
}

// endpoints is the set of -endpoint entries, with the fetches in
// flight shared by the sessions that ask together.
type endpoints struct {
	list     []*endpoint
	seconds  int   // CPU profile duration, clamped
	maxBytes int64 // the answer's size cap
	mu       sync.Mutex
	flights  map[string]*flight
}

type flight struct {
	done chan struct{}
	data []byte
	err  error
}

// lookup finds the endpoint and kind a live: name stands for.
func (es *endpoints) lookup(name string) (*endpoint, string, bool) {
	rest, ok := strings.CutPrefix(name, livePrefix)
	if !ok || es == nil {
		return nil, "", false
	}
	ep, kind, ok := strings.Cut(rest, ":")
	if !ok {
		return nil, "", false
	}
	for _, e := range es.list {
		if e.name != ep {
			continue
		}
		for _, k := range endpointKinds {
			if k.name == kind {
				return e, k.path, true
			}
		}
	}
	return nil, "", false
}

// entries are the picker's entries for the endpoints.
func (es *endpoints) entries() []fs.DirEntry {
	if es == nil {
		return nil
	}
	var out []fs.DirEntry
	now := time.Now() // newer than the files: first in the picker, by name
	for _, e := range es.list {
		for _, k := range endpointKinds {
			out = append(out, liveEntry{name: livePrefix + e.name + ":" + k.name, mod: now})
		}
	}
	return out
}

// fetch returns the body of the named profile, fetching it or joining
// a fetch of it already in flight.
func (es *endpoints) fetch(ctx context.Context, e *endpoint, path string, status func(string)) ([]byte, error) {
	u := e.request(path, es.seconds)
	es.mu.Lock()
	f := es.flights[u]
	if f == nil {
		f = &flight{done: make(chan struct{})}
		if es.flights == nil {
			es.flights = map[string]*flight{}
		}
		es.flights[u] = f
		go func() {
			f.data, f.err = es.get(e, u, path)
			es.mu.Lock()
			delete(es.flights, u)
			es.mu.Unlock()
			close(f.done)
		}()
	} else if status != nil {
		status("joined another session's fetch")
	}
	es.mu.Unlock()
	if status != nil && path == "profile" {
		status(fmt.Sprintf("sampling %s for %ds", e.name, es.seconds))
	}
	select {
	case <-f.done:
		return f.data, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// get does one request, one at a time per endpoint. It runs for the
// sessions that wait for it, so it is bounded by the client's timeout,
// not by any one session.
func (es *endpoints) get(e *endpoint, u, path string) ([]byte, error) {
	e.turn <- struct{}{}
	defer func() { <-e.turn }()
	what := e.name + " " + path
	resp, err := e.client.Get(u)
	if err != nil {
		if errors.Is(err, errRedirect) {
			return nil, fmt.Errorf("%s: the endpoint redirects; redirects are not followed", what)
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, fmt.Errorf("%s: no answer within %v", what, e.client.Timeout)
		}
		return nil, fmt.Errorf("%s: the endpoint cannot be reached", what)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// The first line of its explanation, from its first 512 bytes.
		msg, _ := bufio.NewReader(io.LimitReader(resp.Body, 512)).ReadString('\n')
		if msg = strings.TrimSpace(msg); msg != "" {
			msg = ": " + msg
		}
		return nil, fmt.Errorf("%s: the endpoint answered %s%s", what, resp.Status, msg)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, es.maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading the answer: %v", what, err)
	}
	if int64(len(data)) > es.maxBytes {
		return nil, fmt.Errorf("%s: the answer is larger than %d bytes", what, es.maxBytes)
	}
	return data, nil
}

// liveEntry is an endpoint's profile in the picker's listing.
type liveEntry struct {
	name string
	mod  time.Time
}

func (l liveEntry) Name() string               { return l.name }
func (l liveEntry) IsDir() bool                { return false }
func (l liveEntry) Type() fs.FileMode          { return 0 }
func (l liveEntry) Info() (fs.FileInfo, error) { return l, nil }
func (l liveEntry) Size() int64                { return 0 }
func (l liveEntry) Mode() fs.FileMode          { return 0o444 }
func (l liveEntry) ModTime() time.Time         { return l.mod }
func (l liveEntry) Sys() any                   { return nil }

// Kind tells the picker what the entry is without opening it.
func (l liveEntry) Kind() string { return "live endpoint" }
