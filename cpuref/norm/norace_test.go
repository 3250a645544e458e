//go:build !race

package norm

const raceEnabled = false
