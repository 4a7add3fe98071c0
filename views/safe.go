package views

import (
	"strings"
	"unicode/utf8"
)

// SafeText makes text from a profile or a source file safe to draw: a
// control character would act on the terminal (ESC starts an escape
// sequence, CR returns the cursor, BEL rings), so each is drawn as its
// symbol from Unicode's Control Pictures (ESC as ␛, DEL as ␡); a C1
// control, a byte that is not UTF-8, and the invisible characters that
// change how the text around them is laid out (bidirectional overrides,
// zero-width joiners) as �. Text without them is returned as it is,
// without copying.
func SafeText(s string) string {
	i := 0
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
		if r == utf8.RuneError && n == 1 || invisible(r) {
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
	for _, r := range s[i:] { // a byte that is not UTF-8 comes as RuneError
		switch {
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune(0x2421)
		case invisible(r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// invisible reports whether r is a C1 control or an invisible character
// that reorders or joins the text around it.
func invisible(r rune) bool {
	switch {
	case r >= 0x80 && r < 0xa0: // C1 controls
	case r == 0x061c: // Arabic letter mark
	case r >= 0x200b && r <= 0x200f: // zero-width space, (non-)joiner, LRM, RLM
	case r >= 0x202a && r <= 0x202e: // bidirectional embeddings and overrides
	case r >= 0x2060 && r <= 0x2069: // word joiner, invisible operators, isolates
	case r == 0xfeff: // zero-width no-break space
	default:
		return false
	}
	return true
}
