//go:build race

package analysis

// raceEnabled: the race detector slows the engine ten times or more; the
// exhaustive comparisons run on smaller inputs under it (raceSamples,
// raceSets, skipUnderRace).
const raceEnabled = true
