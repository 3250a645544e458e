//go:build race

package cpuref

// raceEnabled: the race detector multiplies the random suites' cost many
// times over, so they run 10^4 cases under it instead of 10^5.
const raceEnabled = true
