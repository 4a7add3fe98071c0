package analysis

import "strings"

// raceSamples is n, the samples of a synthesized profile, or a tenth of
// it under the race detector: the comparisons walk every node of every
// table, and what races is the sharing, not the size (the parallel
// thresholds are lowered where the sharing is tested).
func raceSamples(n int) int {
	if raceEnabled {
		return max(n/10, 100)
	}
	return n
}

// skipUnderRace reports whether a comparison that walks every node
// leaves out the profile at path under the race detector: the two large
// ones (bigprof_10k, large.cpu), which took it past the test timeout.
// The normal run compares them all.
func skipUnderRace(path string) bool {
	return raceEnabled && (strings.Contains(path, "bigprof_10k") || strings.Contains(path, "large.cpu"))
}

// raceSets is sets, or every other one under the race detector, for the
// comparisons that go through every option set on every profile.
func raceSets[S any](sets []S) []S {
	if !raceEnabled {
		return sets
	}
	var out []S
	for i := 0; i < len(sets); i += 2 {
		out = append(out, sets[i])
	}
	return out
}
