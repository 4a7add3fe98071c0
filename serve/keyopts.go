package serve

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"path"
	"strings"
	"time"
)

// keyEntry is what one authorized_keys line lets its key do: log in
// from the addresses its from= list matches, until its expiry-time=.
type keyEntry struct {
	from    []fromList // nil: from anywhere
	expires time.Time
}

// Options that ask nothing the explorer does not already refuse (it
// forwards nothing and runs no rc file) or give nothing it uses.
var harmlessKeyOptions = map[string]bool{
	"no-port-forwarding": true, "no-agent-forwarding": true, "no-x11-forwarding": true,
	"no-user-rc": true, "permitopen": true, "permitlisten": true, "environment": true,
	"no-touch-required": true, "port-forwarding": true, "agent-forwarding": true,
	"x11-forwarding": true, "user-rc": true, "pty": true,
}

// parseKeyOptions reads a line's options. A key limited to a forced
// command, or denied a terminal, was not meant to open an explorer; a
// CA key, a principals list or a verification requirement ask for what
// this server does not check; an option it does not know may limit the
// key in a way it would not honour. All of those skip the line.
func parseKeyOptions(options []string) (keyEntry, error) {
	var e keyEntry
	for _, o := range options {
		name, val, hasVal := strings.Cut(o, "=")
		name = strings.ToLower(name)
		if hasVal {
			v, err := unquoteOption(val)
			if err != nil {
				return e, fmt.Errorf("option %s: %v", name, err)
			}
			val = v
		}
		switch {
		case name == "from" && hasVal:
			list, err := parseFromList(val)
			if err != nil {
				return e, fmt.Errorf("from=%q: %v", val, err)
			}
			e.from = append(e.from, list)
		case name == "expiry-time" && hasVal:
			t, err := parseExpiry(val)
			if err != nil {
				return e, fmt.Errorf("expiry-time=%q: %v", val, err)
			}
			if e.expires.IsZero() || t.Before(e.expires) {
				e.expires = t
			}
		case name == "command", name == "no-pty", name == "restrict":
			return e, fmt.Errorf("option %s limits the key to less than an explorer's terminal; the key is not accepted", name)
		case name == "cert-authority", name == "principals", name == "verify-required", name == "tunnel":
			return e, fmt.Errorf("option %s is not supported here; the key is not accepted", name)
		case harmlessKeyOptions[name]:
		default:
			return e, fmt.Errorf("option %s is not known here; the key is not accepted", name)
		}
	}
	return e, nil
}

// unquoteOption undoes authorized_keys quoting: "..." with \" inside.
func unquoteOption(v string) (string, error) {
	if !strings.HasPrefix(v, `"`) {
		return v, nil
	}
	if len(v) < 2 || !strings.HasSuffix(v, `"`) {
		return "", errors.New("unterminated quote")
	}
	return strings.ReplaceAll(v[1:len(v)-1], `\"`, `"`), nil
}

// allows says why the entry does not let a login from addr at now, or
// "" when it does.
func (e keyEntry) allows(addr net.Addr, now time.Time) string {
	if !e.expires.IsZero() && !now.Before(e.expires) {
		return fmt.Sprintf("the key expired at %s (expiry-time)", e.expires.Format(time.DateTime))
	}
	if len(e.from) == 0 {
		return ""
	}
	ip := sourceOf(addr)
	for _, list := range e.from {
		if !list.match(ip) {
			return fmt.Sprintf("address %s is not in the key's from=%q", ip, list.text)
		}
	}
	return ""
}

// fromList is a from= pattern list, parsed when the file is read so
// that a login only matches against it.
type fromList struct {
	text     string // as the file gives it, for the log
	patterns []fromPattern
}

// fromPattern is one entry: an address block, or else an address with
// sshd's * and ? wildcards as a path.Match pattern (addresses hold no
// '/', and '[' and '\' are quoted).
type fromPattern struct {
	neg    bool
	prefix netip.Prefix
	glob   string
}

var quoteGlob = strings.NewReplacer(`\`, `\\`, `[`, `\[`)

// parseFromList reads a from= list, refusing what sshd would not read:
// empty entries and malformed CIDR blocks (which sshd reports as errors
// and denies).
func parseFromList(list string) (fromList, error) {
	l := fromList{text: list}
	for _, p := range strings.Split(list, ",") {
		var fp fromPattern
		p, fp.neg = strings.CutPrefix(p, "!")
		switch {
		case p == "":
			return l, errors.New("an empty pattern")
		case strings.Contains(p, "/"):
			pre, err := netip.ParsePrefix(p)
			if err != nil {
				return l, fmt.Errorf("%q is not an address block", p)
			}
			fp.prefix = pre
		default:
			fp.glob = quoteGlob.Replace(strings.ToLower(p))
		}
		l.patterns = append(l.patterns, fp)
	}
	return l, nil
}

// match is sshd's from= match for an address (it does not look up host
// names, as sshd with UseDNS no): a negated match refuses whatever else
// matches; otherwise one match admits.
func (l fromList) match(ip string) bool {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	addr = addr.Unmap()
	text := addr.String()
	matched := false
	for _, p := range l.patterns {
		var m bool
		if p.prefix.IsValid() {
			m = p.prefix.Contains(addr)
		} else {
			m, _ = path.Match(p.glob, text)
		}
		if m && p.neg {
			return false
		}
		matched = matched || m
	}
	return matched
}

// parseExpiry reads YYYYMMDD[HHMM[SS]] in local time, or UTC with a
// trailing Z, as sshd does.
func parseExpiry(v string) (time.Time, error) {
	loc := time.Local
	if s, ok := strings.CutSuffix(v, "Z"); ok {
		v, loc = s, time.UTC
	}
	layouts := map[int]string{8: "20060102", 12: "200601021504", 14: "20060102150405"}
	layout, ok := layouts[len(v)]
	if !ok {
		return time.Time{}, errors.New("want YYYYMMDD[HHMM[SS]][Z]")
	}
	t, err := time.ParseInLocation(layout, v, loc)
	if err != nil {
		return time.Time{}, errors.New("want YYYYMMDD[HHMM[SS]][Z]")
	}
	return t, nil
}
