package format

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestFetch(t *testing.T) {
	heap, err := os.ReadFile("../testdata/go/heap.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	var gotSeconds string
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/heap", func(w http.ResponseWriter, r *http.Request) { w.Write(heap) })
	mux.HandleFunc("/debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) {
		gotSeconds = r.URL.Query().Get("seconds")
		w.Write(heap)
	})
	mux.HandleFunc("/debug/pprof/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	// An error answer that never ends: only its start is read.
	var endlessSent atomic.Int64
	mux.HandleFunc("/debug/pprof/endless", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		chunk := []byte(strings.Repeat("x", 64<<10))
		for endlessSent.Load() < 1<<30 {
			n, err := w.Write(chunk)
			endlessSent.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()

	p, err := Open(ctx, srv.URL+"/debug/pprof/heap", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Samples.Len() != 140 {
		t.Errorf("%d samples", p.Samples.Len())
	}

	var status []string
	if _, err := Open(ctx, srv.URL+"/debug/pprof/profile", Options{Seconds: 3, Status: func(s string) { status = append(status, s) }}); err != nil {
		t.Fatal(err)
	}
	if gotSeconds != "3" {
		t.Errorf("server saw seconds=%q, want 3", gotSeconds)
	}
	if len(status) != 1 || !strings.Contains(status[0], "sampling for 3s") {
		t.Errorf("status %q", status)
	}

	for _, c := range []struct {
		url  string
		opt  Options
		want string
	}{
		{srv.URL + "/debug/pprof/nothing", Options{}, "server answered 404 Not Found: 404 page not found"},
		{srv.URL + "/debug/pprof/slow", Options{Timeout: 1}, "no complete answer within 1s (raise -timeout)"},
		{"http://127.0.0.1:1/debug/pprof/heap", Options{}, "cannot connect to 127.0.0.1:1"},
		{srv.URL + "/debug/pprof/endless", Options{}, "server answered 500 Internal Server Error: xxx"},
	} {
		_, err := Open(ctx, c.url, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %.200v, want one line containing %q", c.url, err, c.want)
		}
	}
	// Socket buffers hold a few megabytes; reading the whole answer would
	// have taken the full gigabyte.
	if n := endlessSent.Load(); n > 64<<20 {
		t.Errorf("the client read %d bytes of an endless error answer", n)
	}
}
