//go:build race

package tree

// raceEnabled: the race detector slows the pure-Go chunk path about
// tenfold, so the sweep runs its sample (as under -short).
const raceEnabled = true
