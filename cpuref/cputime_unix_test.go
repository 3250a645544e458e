//go:build unix

package cpuref

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, user and system, or 0
// when it cannot be read. Benchmarks divide work by it as well as by the
// wall clock: on a machine other jobs share, the CPU-time figure is what
// the code does with the cores it gets.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
