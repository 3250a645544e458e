package cpuref

import "math/bits"

// isqrt64 is isqrt(n) of §2 for n < 2^64: the largest q with q² ≤ n. It
// uses integer arithmetic only (§6: no floating point, not even as a
// seed): an overestimate from a table, three Newton steps and one
// correction, with no data-dependent branch past the table's range test.
//
// Seed. For n ≥ 2^10 with L = bits.Len64(n), take k = ⌊(L − 9) / 2⌋, so
// that n' = ⌊n / 4^k⌋ lies in [2^8, 2^10), and s = (isqrt(n') + 1)·2^k
// from isqrtTab. Then s > √n, because n < (n' + 1)·4^k ≤ (isqrt(n') +
// 1)²·4^k; and s/√n ≤ (isqrt(n') + 1)/√n' ≤ 1 + 1/√n' ≤ 1 + 2^−4, as
// n ≥ n'·4^k.
//
// Steps. x' = ⌊(x + ⌊n/x⌋) / 2⌋ from x > √n never goes below q (the
// floor of the mean of x and n/x, which lie on either side of √n) and is
// at most the real step g(x) = (x + n/x)/2, which is increasing for
// x ≥ √n; from x = q it gives q or q + 1 (⌊n/q⌋ ≤ q + 2 as n < (q + 1)²),
// and from q + 1 > √n it gives q. So every step stays in [q, max(q + 1,
// g^k(s))]. With x = √n·(1 + e), g leaves relative error e²/(2(1 + e)) ≤
// e²/2: from e ≤ 2^−4, three steps give e ≤ 2^−9, 2^−19, 2^−39, so x₃ <
// √n·(1 + 2^−39) < √n + 2^−7 (√n < 2^32) < q + 1 + 2^−7: x₃ ≤ q + 1. One
// correction, subtracting 1 when x² > n (x² formed in 128 bits, as x ≤
// 2^32), ends at q.
//
// Bounds. s ≤ 32·2^27 = 2^32 (k ≤ 27 for L ≤ 64); every x ≥ q ≥ 32, so no
// step divides by zero, and x + ⌊n/x⌋ < 2^34.
func isqrt64(n uint64) uint64 {
	if n < uint64(len(isqrtTab)) {
		return uint64(isqrtTab[n])
	}
	k := uint(bits.Len64(n)-9) / 2
	x := (uint64(isqrtTab[n>>(2*k)]) + 1) << k
	x = (x + n/x) >> 1
	x = (x + n/x) >> 1
	x = (x + n/x) >> 1
	hi, lo := bits.Mul64(x, x)
	return x - b2u(hi != 0 || lo > n)
}

// b2u is 1 for true and 0 for false.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// isqrtTab[v] is isqrt(v) for v < 2^10: isqrt64's seed table.
var isqrtTab = func() (t [1024]uint8) {
	for v := range t {
		for (int(t[v])+1)*(int(t[v])+1) <= v {
			t[v]++
		}
	}
	return t
}()
