package cpuref

import (
	"math/bits"

	"github.com/waiops/waiops/certify"
)

// bounds are the certified intervals of one operator's inputs (§8.5:
// Tensors[t] is tensor t's interval after its policy), in input order; nil
// when the graph was loaded without its certificate. A decode of a
// certified graph keeps every value inside them (§8), which is what lets a
// kernel skip a check they make impossible; each such kernel cites the
// bound it uses.
type bounds []certify.Interval

// first is input 0's interval, or nil.
func (b bounds) first() *certify.Interval {
	if len(b) == 0 {
		return nil
	}
	return &b[0]
}

// maxAbs is max|v| over input k's interval as an unsigned value (2^63 for
// −2^63); ok is false without a certificate or when an end passes i64.
func (b bounds) maxAbs(k int) (uint64, bool) {
	if k >= len(b) {
		return 0, false
	}
	lo, hi, ok := b[k].Int64()
	return max(absU(lo), absU(hi)), ok
}

// low is input k's lower end; ok as for maxAbs.
func (b bounds) low(k int) (int64, bool) {
	if k >= len(b) {
		return 0, false
	}
	lo, _, ok := b[k].Int64()
	return lo, ok
}

// productFits says whether x·y ≤ 2^63 − 1 for magnitudes x and y, so that
// a product of values bounded by them is formed in int64 without wrapping.
func productFits(x, y uint64) bool {
	hi, lo := bits.Mul64(x, y)
	return hi == 0 && lo <= 1<<63-1
}
