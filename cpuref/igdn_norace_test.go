//go:build !race

package cpuref

// igdnCases is the 32-bit igdn suite's count: 10^5 cases.
const igdnCases = 100_000
