package main

import "time"

// The goldens show times in UTC. time.Local is set once, before any test
// starts a goroutine: a test that sets it races with the timers and
// programs other tests leave running.
func init() { time.Local = time.UTC }
