package serve

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pprof-tui/pprof-tui/format"
)

// pprofServer is a stand-in net/http/pprof server: heap answers, cpu
// answers after a while and records its seconds, goroutine redirects,
// mutex is slow, block is too large.
type pprofServer struct {
	*httptest.Server
	hits    sync.Map // path → *atomic.Int32
	seconds atomic.Value
}

func (p *pprofServer) count(path string) int32 {
	n, _ := p.hits.LoadOrStore(path, new(atomic.Int32))
	return n.(*atomic.Int32).Load()
}

func newPprofServer(t *testing.T) *pprofServer {
	profile := testProfile(t)
	p := &pprofServer{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := p.hits.LoadOrStore(r.URL.Path, new(atomic.Int32))
		n.(*atomic.Int32).Add(1)
		switch r.URL.Path {
		case "/debug/pprof/heap":
			w.Write(profile)
		case "/debug/pprof/profile":
			p.seconds.Store(r.URL.Query().Get("seconds"))
			time.Sleep(300 * time.Millisecond)
			w.Write(profile)
		case "/debug/pprof/goroutine":
			http.Redirect(w, r, "/debug/pprof/heap", http.StatusFound)
		case "/debug/pprof/mutex":
			select {
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
			}
		case "/debug/pprof/block":
			w.Write(make([]byte, 2<<20))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(p.Close)
	return p
}

func liveFiles(t *testing.T, p *pprofServer) *rootFiles {
	_, files := servedDir(t)
	// localhost: the name is resolved once, here.
	url := strings.Replace(p.URL, "127.0.0.1", "localhost", 1)
	e, err := parseEndpoint("api="+url+"/debug/pprof/", 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	files.live = &endpoints{list: []*endpoint{e}, seconds: 60, maxBytes: files.maxBytes}
	return files
}

func TestEndpoints(t *testing.T) {
	t.Parallel()
	p := newPprofServer(t)
	files := liveFiles(t, p)
	des, err := files.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	if des[0].Name() != "live:api:cpu" || des[1].Name() != "live:api:heap" {
		t.Errorf("the listing starts with %s, %s", des[0].Name(), des[1].Name())
	}
	load := func(name string) error {
		_, err := files.Load(context.Background(), name, format.Options{})
		return err
	}
	if err := load("live:api:heap"); err != nil {
		t.Errorf("live:api:heap: %v", err)
	}
	for _, c := range []struct{ name, why string }{
		{"live:api:goroutine", "redirects are not followed"},
		{"live:api:mutex", "no answer within 1.5s"},
		{"live:api:block", "larger than 1048576 bytes"},
		{"live:other:heap", "not an endpoint this server names"},
		{"live:api:threadcreate", "not an endpoint this server names"},
		{"live:api:../../heap", "not an endpoint this server names"},
	} {
		if err := load(c.name); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: %v, want %q", c.name, err, c.why)
		}
	}
	if n := p.count("/debug/pprof/heap"); n != 1 {
		t.Errorf("the redirect was followed: heap fetched %d times", n)
	}

	// Sessions that ask together share one fetch.
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := load("live:api:cpu"); err != nil {
				t.Errorf("live:api:cpu: %v", err)
			}
		}()
	}
	wg.Wait()
	if n := p.count("/debug/pprof/profile"); n != 1 {
		t.Errorf("3 sessions together made %d fetches, want 1", n)
	}
	if s := p.seconds.Load(); s != "60" {
		t.Errorf("seconds=%v", s)
	}
}

func TestEndpointSecondsClamped(t *testing.T) {
	t.Parallel()
	p := newPprofServer(t)
	ts := startServer(t, func(c *Config) {
		c.Endpoints = []string{"api=" + p.URL}
		c.EndpointSeconds = 3600
	})
	if s := ts.srv.files.live.seconds; s != 60 {
		t.Errorf("EndpointSeconds 3600 became %d, want 60", s)
	}
	tm := ts.open(termOpt{})
	tm.waitFor(0, "live:api:heap")
	// The demo, then the live profiles by name: allocs (which this
	// server does not have), block, cpu, goroutine, heap.
	tm.press("j\r", "api allocs: the endpoint answered 404 Not Found: 404 page not found")
	tm.press("jjjj\r", "main.fib")
	waitUntil(t, 5*time.Second, "the log line", func() bool { return strings.Contains(ts.log.String(), "msg=endpoint name=api url=http://127.0.0.1:") })
}

// TestEndpointDialer: the dialer connects to the addresses resolved at
// start, whatever it is asked for (DNS rebinding, a Host it was not
// given).
func TestEndpointDialer(t *testing.T) {
	t.Parallel()
	p := newPprofServer(t)
	e, err := parseEndpoint("api="+p.URL, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.dial(context.Background(), "tcp", "203.0.113.7:80")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.RemoteAddr().String(); got != p.Listener.Addr().String() {
		t.Errorf("dialed %s, want the pinned %s", got, p.Listener.Addr())
	}
	// The pinned address list is the only one allowed, even at connect.
	e.addrs = []net.IP{net.ParseIP("127.0.0.2")}
	e.port = "1"
	if c, err := e.dial(context.Background(), "tcp", p.Listener.Addr().String()); err == nil {
		c.Close()
		t.Errorf("dialed a non-pinned address")
	}
	// Bad specifications.
	for _, spec := range []string{"api", "=http://x", "a:b=http://x", "api=ftp://x", "api=http://u:p@localhost", "api=http://localhost/?x=1", "api=http://no-such-host.invalid"} {
		if _, err := parseEndpoint(spec, time.Second); err == nil {
			t.Errorf("%q accepted", spec)
		}
	}
}
