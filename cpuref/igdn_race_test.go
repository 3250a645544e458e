//go:build race

package cpuref

// igdnCases is the 32-bit igdn suite's count: the race detector
// multiplies its cost, so under it the suite runs 10^4 cases.
const igdnCases = 10_000
