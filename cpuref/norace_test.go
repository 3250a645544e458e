//go:build !race

package cpuref

const raceEnabled = false
