package format

import (
	"fmt"
	"runtime/debug"
)

// internalError is a panic in one of the decoder's goroutines (a bug of
// ours, whatever the input), turned into the decode's error so that it
// ends up where errors go (the explorer's footer, the command's stderr)
// instead of killing the process from a goroutine nobody watches.
type internalError struct {
	value any
	stack []byte
}

func (e *internalError) Error() string {
	return fmt.Sprintf("internal error (a bug in pprof-tui; please report it with this text): %v\n\n%s", e.value, e.stack)
}

// catch turns a panic into *err; use it deferred: defer catch(&err).
func catch(err *error) {
	if r := recover(); r != nil {
		*err = &internalError{r, debug.Stack()}
	}
}
