package views

import "testing"

func TestSafeText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"main.fib", "main.fib"},
		{"héllo 世界", "héllo 世界"},
		{"evil\x1b[2J\x1b]0;x\x07\rX\x08tail\x7f", "evil␛[2J␛]0;x␇␍X␈tail␡"},
		{"tab\there", "tab␉here"},
		{"c1\u0085\u009bend", "c1��end"},
		{"bad\xff\xfeutf8", "bad��utf8"},
		{"admin\u202e\u2066txt.go", "admin��txt.go"},
		{"zw\u200b\u200dj\ufeff", "zw��j�"},
		{"\U0001F642 ok", "\U0001F642 ok"},
		{"", ""},
	} {
		if got := SafeText(c.in); got != c.want {
			t.Errorf("SafeText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
