//go:build race

package pinflate

const raceEnabled = true
