package analysis

// both runs a and b at once, b on a new goroutine, and returns when both
// are done. A panic in b is raised again on the caller's goroutine, so
// that it reaches whoever guards the caller (the explorer restores the
// terminal) instead of killing the process from a goroutine nobody
// watches.
func both(a, b func()) {
	var crash any
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { crash = recover() }()
		b()
	}()
	a()
	<-done
	if crash != nil {
		panic(crash)
	}
}
