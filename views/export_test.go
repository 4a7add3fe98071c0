package views

import "github.com/pprof-tui/pprof-tui/analysis"

// Accessors only the tests use.

// HotLine returns the source line under the cursor.
func (s *Source) HotLine() (analysis.ListingRow, bool) {
	if !s.HasResult() || len(s.rows) == 0 || s.rows[s.l.cursor].kind != srcLine {
		return analysis.ListingRow{}, false
	}
	return s.rows[s.l.cursor].line, true
}
