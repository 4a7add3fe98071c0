package views

import (
	"time"
)

// DoubleClick tells a second press on the same row (or frame) soon
// after the first. The root uses one for the views that leave clicks to
// it; Flame and Peek keep their own.
type DoubleClick struct {
	row  int
	at   time.Time
	now  func() time.Time // time.Now; tests replace it
	last bool             // a first click is pending
}

// DoubleClickTime is the longest gap between the clicks of a double click.
const DoubleClickTime = 400 * time.Millisecond

// Press records a click on row and reports whether it completes a
// double click.
func (d *DoubleClick) Press(row int) bool {
	now := time.Now
	if d.now != nil {
		now = d.now
	}
	t := now()
	double := d.last && d.row == row && t.Sub(d.at) <= DoubleClickTime
	d.row, d.at, d.last = row, t, !double
	return double
}

// Reset forgets the pending click (the rows changed under it).
func (d *DoubleClick) Reset() { d.last = false }
