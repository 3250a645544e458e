//go:build race

package norm

// raceEnabled: under the race detector the random suites run 10^4 cases
// instead of 10^5.
const raceEnabled = true
