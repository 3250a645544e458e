//go:build !race

package dcz

const raceEnabled = false
