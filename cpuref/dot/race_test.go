//go:build race

package dot

// raceEnabled: the race detector multiplies the random suites' cost about
// twentyfold, so under it they run 10^4 cases; scripts/test.sh runs the
// package again without it, at 10^5.
const raceEnabled = true
