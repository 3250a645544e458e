//go:build race

package dcz

// raceEnabled: the race detector slows the coder about tenfold, so the
// random suite runs its sample (as under -short).
const raceEnabled = true
