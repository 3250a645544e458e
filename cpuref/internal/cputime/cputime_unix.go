//go:build unix

// Package cputime reads the CPU time the process has used, for cpuref's
// benchmarks: on a machine other jobs share, work divided by CPU time is
// what the code does with the cores it gets, which the wall clock hides.
package cputime

import (
	"syscall"
	"time"
)

// Process is the CPU time the process has used, user and system, or 0 when
// it cannot be read.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
