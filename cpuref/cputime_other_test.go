//go:build !unix

package cpuref

import "time"

// cpuTime is 0 where the process's CPU time is not read: the benchmarks
// then report wall-clock figures only.
func cpuTime() time.Duration { return 0 }
