package views

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text is a string that is safe to draw: made only by Safe or Textf,
// which pass it through SafeText. The explorer's chrome takes Text where
// it draws outside data (file names, URLs, errors, notes, the profile's
// strings), so a string from a file cannot reach the screen unsanitised
// by forgetting a call: it does not compile.
type Text struct{ s string }

// Safe makes s safe to draw (SafeText).
func Safe(s string) Text { return Text{SafeText(s)} }

// Textf formats as fmt.Sprintf does and makes the result safe to draw;
// a Text argument is already safe and comes out unchanged.
func Textf(format string, args ...any) Text { return Safe(fmt.Sprintf(format, args...)) }

// String returns the text to draw.
func (t Text) String() string { return t.s }

// IsEmpty reports whether there is nothing to draw.
func (t Text) IsEmpty() bool { return t.s == "" }

// SafeText makes text from outside the explorer (a profile, a source
// file, a file name, an error) safe to draw, and as wide on a terminal as
// ansi.StringWidth measures it, which lays out every row:
//
//   - A control character would act on the terminal (ESC starts an
//     escape sequence that can set the window title or the clipboard, CR
//     returns the cursor, BEL rings): each is drawn as its symbol from
//     Unicode's Control Pictures (ESC as ␛, DEL as ␡).
//   - A C1 control, a byte that is not UTF-8, and any character whose
//     width terminals and ansi.StringWidth disagree on, or which is
//     invisible and changes how the text around it is laid out, is drawn
//     as �: format characters (soft hyphen, zero-width and bidirectional
//     controls, tags), line and paragraph separators, unassigned code
//     points, variation selectors, emoji modifiers, regional indicators,
//     spacing combining marks, conjoining Hangul vowels and finals, and a
//     combining mark with nothing before it to combine with.
//
// Text without them is returned as it is, without copying.
func SafeText(s string) string {
	i := asciiPrefix(s)
	for i < len(s) {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			break
		}
		if c < 0x80 {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafeRune(r, i == 0) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for j, r := range s[i:] { // a byte that is not UTF-8 comes as RuneError
		switch {
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune(0x2421)
		case unsafeRune(r, i+j == 0):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unsafeRune reports whether r, a character other than a C0 control or
// DEL, is drawn as � (see SafeText); first says that nothing precedes it.
func unsafeRune(r rune, first bool) bool {
	switch {
	case r < 0xa0:
		return r >= 0x80 // C1 controls
	case r < 0x300:
		return r == 0xad // soft hyphen: 0 columns to ansi.StringWidth, 1 to terminals
	case r >= 0x1160 && r <= 0x11ff, r >= 0xd7b0 && r <= 0xd7ff:
		// Conjoining Hangul vowels and finals: 0 columns to terminals, 1
		// to ansi.StringWidth on their own.
		return true
	case r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0100 && r <= 0xe01ef:
		// Variation selectors: ☺ with VS16 is 2 columns to
		// ansi.StringWidth, 1 to terminals.
		return true
	case r >= 0x1f1e6 && r <= 0x1f1ff: // regional indicators
		return true
	case r >= 0x1f3fb && r <= 0x1f3ff: // emoji modifiers: joined to the emoji before by ansi.StringWidth only
		return true
	case r == utf8.RuneError:
		return false // U+FFFD itself is what replaces the others
	}
	switch {
	case unicode.In(r, unicode.Cf, unicode.Cc, unicode.Cs, unicode.Zl, unicode.Zp, unicode.Mc):
		return true
	case unicode.In(r, unicode.Mn, unicode.Me):
		return first
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Co) // unassigned
}

// SafeFrame is the last guard on a whole frame before it is written: the
// only escape sequences it lets through are SGR's (colours and
// attributes, ESC [ digits ; m), which is all the styles emit, and the
// only control character line feed. Anything else is drawn as its
// Control Pictures symbol, as SafeText does, so that a string that
// reached the screen without SafeText still cannot act on the terminal.
// A frame without any is returned as it is, without copying.
func SafeFrame(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\x1b':
			n := sgrLen(s[i:])
			if n == 0 {
				goto slow
			}
			i += n
		case c == '\n' || c >= 0x20 && c < 0x7f:
			i++
		case c < 0x80:
			goto slow
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 || r >= 0x80 && r < 0xa0 {
				goto slow
			}
			i += n
		}
	}
	return s
slow:
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c == '\x1b' {
			if n := sgrLen(s[i:]); n > 0 {
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			b.WriteByte('\n')
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune(0x2421)
		case r >= 0x80 && r < 0xa0:
			b.WriteRune(utf8.RuneError)
		default: // RuneError for a byte that is not UTF-8
			b.WriteRune(r)
		}
		i += n
	}
	return b.String()
}

// sgrLen is the length of the SGR sequence s starts with, 0 if it does
// not start with one.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != '\x1b' || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9' || c == ';' || c == ':':
		case c == 'm':
			return i + 1
		default:
			return 0
		}
	}
	return 0
}

// SafeLines is SafeText line by line, keeping the line feeds: for text
// of several lines printed outside the explorer, an error with a stack.
func SafeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = SafeText(l)
	}
	return strings.Join(lines, "\n")
}

// asciiPrefix is how many bytes of s, in whole eight-byte words, are
// printable ASCII (0x20 to 0x7e), read a word at a time: a profile's
// names are checked on every load (wide's 100,000 functions: 20 ms a
// byte at a time).
func asciiPrefix(s string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		// A byte below 0x20, 0x7f (DEL) or from 0x80 up sets its high
		// bit in one of the three terms.
		below := (x - 0x20*ones) &^ x
		del := ((x ^ 0x7f*ones) - ones) &^ (x ^ 0x7f*ones)
		if (below|del|x)&highs != 0 {
			break
		}
	}
	return i
}
