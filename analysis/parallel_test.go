package analysis

import "testing"

func TestBothRaisesPanicsOnTheCaller(t *testing.T) {
	ran := false
	defer func() {
		if r := recover(); r != "boom" || !ran {
			t.Errorf("recovered %v (a ran: %v), want b's panic after a ran", r, ran)
		}
	}()
	both(func() { ran = true }, func() { panic("boom") })
	t.Fatal("both returned after a panic")
}
