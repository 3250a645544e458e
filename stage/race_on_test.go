//go:build race

package stage

// raceEnabled: the race detector's instrumentation allocates on its own, so
// the no-allocation tests only hold without it.
const raceEnabled = true
