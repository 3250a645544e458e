package cpuref

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestIsqrt64Hand checks hand-computed roots: the table's range, its edge
// (isqrt(1023) = 31, isqrt(1024) = 32), a square and its neighbours, and
// the top: isqrt(2^64 − 1) = 2^32 − 1, isqrt((2^32 − 1)²) = 2^32 − 1 and
// one below it 2^32 − 2.
func TestIsqrt64Hand(t *testing.T) {
	for _, c := range []struct{ n, q uint64 }{
		{0, 0}, {1, 1}, {3, 1}, {4, 2}, {15, 3}, {16, 4}, {1023, 31}, {1024, 32},
		{1 << 20, 1 << 10}, {1<<20 - 1, 1<<10 - 1}, {1<<20 + 1, 1 << 10},
		{1<<64 - 1, 1<<32 - 1}, {(1<<32 - 1) * (1<<32 - 1), 1<<32 - 1},
		{(1<<32-1)*(1<<32-1) - 1, 1<<32 - 2},
	} {
		if got := isqrt64(c.n); got != c.q {
			t.Errorf("isqrt64(%d) = %d, want %d", c.n, got, c.q)
		}
	}
}

// TestIsqrt64AgainstBitwise compares isqrt64 with the bit-by-bit root on
// every n < 2^20 and on 10^5 random n (10^4 under -race) at the sides of
// squares, at every bit length, and uniform; math/big checks both.
func TestIsqrt64AgainstBitwise(t *testing.T) {
	for n := range uint64(1 << 20) {
		if got, want := isqrt64(n), isqrtBitwise(0, n); got != want {
			t.Fatalf("isqrt64(%d) = %d, want %d", n, got, want)
		}
	}
	r := rand.New(rand.NewPCG(51, 52))
	for k := range igdnCases {
		var n uint64
		switch k % 3 {
		case 0: // q² − 1, q², q² + 1
			q := r.Uint64N(1 << 32)
			n = q*q + uint64(r.IntN(3)) - 1
			if q == 0 {
				n = uint64(r.IntN(2))
			}
		case 1:
			n = r.Uint64() >> r.IntN(64)
		default:
			n = r.Uint64()
		}
		got, want := isqrt64(n), isqrtBitwise(0, n)
		root := new(big.Int).Sqrt(new(big.Int).SetUint64(n)).Uint64()
		if got != want || want != root {
			t.Fatalf("isqrt(%d): isqrt64 %d, bitwise %d, big %d", n, got, want, root)
		}
	}
}
