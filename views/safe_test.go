package views

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

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
		{"e\u0301", "e\u0301"},
		{"\u0301e", "�e"},
		{"", ""},
	} {
		if got := SafeText(c.in); got != c.want {
			t.Errorf("SafeText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSafeTextWidth: for every class of code point, sanitised text is as
// wide to ansi.StringWidth, which lays out every row, as a terminal draws
// it. term is the width tmux 3.3 (wcwidth, as xterm) gives the sanitised
// text, measured by its cursor position after printing it.
func TestSafeTextWidth(t *testing.T) {
	for _, c := range []struct {
		class, in string
		term      int
	}{
		{"ASCII", "ab", 2},
		{"Latin", "é", 1},
		{"CJK", "一", 2},
		{"emoji", "\U0001F600", 2},
		{"private use", "\ue000", 1},
		{"ideographic space", "\u3000", 2},
		{"combining mark after a letter", "e\u0301", 1},
		{"combining mark first", "\u0301", 1},
		{"enclosing mark first", "\u20e3", 1},
		{"soft hyphen (Cf)", "a\u00adb", 3},
		{"zero-width space (Cf)", "a\u200bb", 3},
		{"zero-width joiner (Cf)", "\U0001F468\u200d\U0001F469", 5},
		{"bidi override (Cf)", "a\u202eb", 3},
		{"bidi isolate (Cf)", "\u2066a\u2069", 3},
		{"word joiner (Cf)", "a\u2060b", 3},
		{"byte order mark (Cf)", "\ufeffa", 2},
		{"interlinear annotation (Cf)", "\ufff9a\ufffbb", 4},
		{"Arabic number sign (Cf)", "\u0600a", 2},
		{"Arabic end of ayah (Cf)", "\u06dd", 1},
		{"tag characters (Cf)", "a\U000e0001\U000e0041", 3},
		{"musical formatting (Cf)", "\U0001d173", 1},
		{"line separator (Zl)", "a\u2028b", 3},
		{"paragraph separator (Zp)", "a\u2029b", 3},
		{"unassigned (Cn)", "\u0378", 1},
		{"variation selector 16", "\u263a\ufe0f", 2},
		{"variation selector 15", "\U0001F600\ufe0e", 3},
		{"variation selector 17", "一\U000e0100", 3},
		{"emoji modifier", "\U0001F44D\U0001F3FD", 3},
		{"regional indicators", "\U0001F1FA\U0001F1F8", 2},
		{"spacing combining mark (Mc)", "\u0915\u093f", 2},
		{"Hangul vowel jamo", "\u1100\u1161", 3},
		{"C1 control", "a\u009bb", 3},
		{"not UTF-8", "a\xffb", 3},
		{"C0 control", "a\x1bb", 3},
	} {
		got := SafeText(c.in)
		if w := ansi.StringWidth(got); w != c.term {
			t.Errorf("%s: SafeText(%+q) = %+q, %d columns to ansi.StringWidth, %d on a terminal", c.class, c.in, got, w, c.term)
		}
	}
}

func TestSafeFrame(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain\nlines", "plain\nlines"},
		{"\x1b[1;38;5;12mbold\x1b[0m\n\x1b[m", "\x1b[1;38;5;12mbold\x1b[0m\n\x1b[m"},
		{"title\x1b]0;PWNED\x07", "title␛]0;PWNED␇"},
		{"clip\x1b]52;c;eA==\x1b\\", "clip␛]52;c;eA==␛\\"},
		{"dcs\x1bPq\x1b_apc\x1b^pm", "dcs␛Pq␛_apc␛^pm"},
		{"csi\x1b[2J\x1b[6n", "csi␛[2J␛[6n"},
		{"c1\u009d0;x\u009c", "c1�0;x�"},
		{"raw\x9d", "raw�"},
		{"cr\r\ttab", "cr␍␉tab"},
	} {
		if got := SafeFrame(c.in); got != c.want {
			t.Errorf("SafeFrame(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.ContainsAny(SafeFrame(c.in), "\x07\r") {
			t.Errorf("SafeFrame(%q) keeps a control", c.in)
		}
	}
}

func TestSafeLines(t *testing.T) {
	if got, want := SafeLines("open n\x1b]0;x\x07.pb.gz\n\tstack"), "open n␛]0;x␇.pb.gz\n␉stack"; got != want {
		t.Errorf("SafeLines = %q, want %q", got, want)
	}
}

// TestASCIIPrefix compares the word-at-a-time scan with a byte-at-a-time
// one over strings of the bytes at the edges of printable ASCII, each
// at every position of a word.
func TestASCIIPrefix(t *testing.T) {
	edges := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, 0x41, 0x7e, 0x7f, 0x80, 0x81, 0xa0, 0xc3, 0xfe, 0xff}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = 'a' + byte(rng.IntN(26))
			if rng.IntN(12) == 0 {
				b[i] = edges[rng.IntN(len(edges))]
			}
		}
		want := 0
		for want+8 <= len(b) && !slices.ContainsFunc(b[want:want+8], func(c byte) bool { return c < 0x20 || c > 0x7e }) {
			want += 8
		}
		if got := asciiPrefix(string(b)); got != want {
			t.Fatalf("asciiPrefix(%q) = %d, want %d", b, got, want)
		}
	}
}

// FuzzSafeText: whatever the bytes, SafeText's result has no control
// character or byte that is not UTF-8, is unchanged by a second pass,
// and is the input itself when that is printable ASCII; asciiPrefix
// agrees with a byte-at-a-time scan.
//
//	go test ./views -run XXX -fuzz FuzzSafeText -fuzztime 1m
func FuzzSafeText(f *testing.F) {
	for _, s := range []string{"main.fib", "a\x1b]0;title\x07b", "github.com/acme/shop/internal/catalog.FilterPrices", "é\u200bx\x7f\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := SafeText(s)
		for _, r := range out {
			if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
				t.Fatalf("SafeText(%q) = %q keeps %U", s, out, r)
			}
		}
		if !utf8.ValidString(out) {
			t.Fatalf("SafeText(%q) = %q is not UTF-8", s, out)
		}
		if again := SafeText(out); again != out {
			t.Fatalf("SafeText(SafeText(%q)) = %q, not %q", s, again, out)
		}
		printable := !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r > 0x7e })
		if printable && out != s {
			t.Fatalf("SafeText(%q) = %q changed printable ASCII", s, out)
		}
		want := 0
		for want+8 <= len(s) && !strings.ContainsFunc(s[want:want+8], func(r rune) bool { return r < 0x20 || r > 0x7e }) {
			want += 8
		}
		if got := asciiPrefix(s); got != want {
			t.Fatalf("asciiPrefix(%q) = %d, want %d", s, got, want)
		}
	})
}
