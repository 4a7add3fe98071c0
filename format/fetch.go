package format

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Fetch downloads and parses a profile from a net/http/pprof endpoint.
// As pprof does, opt.Seconds adds ?seconds=N to the request (CPU and trace
// endpoints sample for that long) and the timeout defaults to the sampling
// time plus a minute.
func Fetch(ctx context.Context, rawURL string, opt Options) (*Profile, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%s: not a valid URL: %v", rawURL, err)
	}
	seconds := opt.Seconds
	if seconds > 0 {
		q := u.Query()
		q.Set("seconds", strconv.Itoa(seconds))
		u.RawQuery = q.Encode()
	} else if IsCPUEndpoint(u) {
		seconds = 30 // net/http/pprof's own default for /profile
		if s, err := strconv.Atoi(u.Query().Get("seconds")); err == nil && s > 0 {
			seconds = s
		}
	}
	timeout := time.Duration(opt.Timeout) * time.Second
	if timeout <= 0 {
		timeout = time.Duration(seconds)*time.Second + time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if opt.Status != nil {
		if seconds > 0 {
			opt.Status(fmt.Sprintf("Fetching profile over HTTP from %s (sampling for %ds)", u, seconds))
		} else {
			opt.Status(fmt.Sprintf("Fetching profile over HTTP from %s", u))
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", u, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %s", u, networkError(err, timeout))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// The first line of the server's explanation, read from at most
		// errorBodyMax bytes: an answer without a newline can be endless.
		msg, _ := bufio.NewReader(io.LimitReader(resp.Body, errorBodyMax)).ReadString('\n')
		msg = strings.TrimSpace(msg)
		if msg != "" {
			msg = ": " + trimForError(msg)
		}
		return nil, fmt.Errorf("fetching %s: server answered %s%s", u, resp.Status, msg)
	}
	p, err := Parse(resp.Body, opt)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("fetching %s: %s", u, networkError(ctx.Err(), timeout))
		}
		return nil, fmt.Errorf("%s: %w", u, err)
	}
	return p, nil
}

// IsCPUEndpoint reports whether u is a net/http/pprof endpoint that
// samples for ?seconds= (the CPU profile, the execution trace).
func IsCPUEndpoint(u *url.URL) bool {
	return strings.HasSuffix(u.Path, "/profile") || strings.HasSuffix(u.Path, "/trace")
}

// networkError turns a transport error into one short sentence.
func networkError(err error, timeout time.Duration) string {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("no complete answer within %s (raise -timeout)", timeout)
	case errors.As(err, &dnsErr):
		return fmt.Sprintf("cannot resolve host %q", dnsErr.Name)
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return fmt.Sprintf("cannot connect to %s: %v", opErr.Addr, opErr.Err)
	}
	return err.Error()
}

// errorBodyMax bounds how much of an error answer is read for its message.
const errorBodyMax = 4 << 10
