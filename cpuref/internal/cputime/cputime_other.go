//go:build !unix

// Package cputime reads the CPU time the process has used, for cpuref's
// benchmarks; this build cannot read it.
package cputime

import "time"

// Process is 0: the benchmarks then report wall-clock figures only.
func Process() time.Duration { return 0 }
