package analysis

// ForgetTops drops the Engine's kept Top tables, so that a benchmark's
// next Top aggregates the stacks again (its location views and node
// tables stay, as they do when a person changes the sample type).
func ForgetTops(e *Engine) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.tops = recent[Options, *Top]{}
}
