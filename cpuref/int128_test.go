package cpuref

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// big128 is the value of an int128, read independently through math/big.
func big128(a int128) *big.Int {
	v := new(big.Int).Lsh(big.NewInt(a.hi), 64)
	return v.Add(v, new(big.Int).SetUint64(a.lo))
}

var (
	min128 = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))
	max128 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
)

func fits128(v *big.Int) bool { return v.Cmp(min128) >= 0 && v.Cmp(max128) <= 0 }

// edge64 draws int64 values that hit the ends of the range often.
func edge64(r *rand.Rand) int64 {
	switch r.IntN(6) {
	case 0:
		return []int64{0, 1, -1, 1<<63 - 1, -1 << 63, 1 << 62, -1 << 62, 1<<31 - 1, -1 << 31}[r.IntN(9)]
	case 1:
		return r.Int64N(1<<16) - 1<<15
	}
	return int64(r.Uint64())
}

func rand128(r *rand.Rand) int128 {
	if r.IntN(3) == 0 {
		return i128(edge64(r))
	}
	return int128{hi: edge64(r), lo: r.Uint64()}
}

func TestInt128AgainstBig(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 20000; n++ {
		a, b := rand128(r), rand128(r)
		x := edge64(r)
		ba, bb, bx := big128(a), big128(b), big.NewInt(x)

		if got, want := big128(mul64(x, a.hi)), new(big.Int).Mul(bx, big.NewInt(a.hi)); got.Cmp(want) != 0 {
			t.Fatalf("mul64(%d, %d) = %v, want %v", x, a.hi, got, want)
		}
		s, ok := a.add(b)
		want := new(big.Int).Add(ba, bb)
		if ok != fits128(want) || (ok && big128(s).Cmp(want) != 0) {
			t.Fatalf("add(%v, %v) = %v %v, want %v", ba, bb, big128(s), ok, want)
		}
		d, ok := a.sub(b)
		want = new(big.Int).Sub(ba, bb)
		if ok != fits128(want) || (ok && big128(d).Cmp(want) != 0) {
			t.Fatalf("sub(%v, %v) = %v %v, want %v", ba, bb, big128(d), ok, want)
		}
		p, ok := a.mul(x)
		want = new(big.Int).Mul(ba, bx)
		if ok != fits128(want) || (ok && big128(p).Cmp(want) != 0) {
			t.Fatalf("mul(%v, %d) = %v %v, want %v", ba, x, big128(p), ok, want)
		}
		sh := uint(r.IntN(128))
		// ⌊a / 2^s⌋: big.Int.Rsh rounds toward −∞ like an arithmetic shift,
		// so check against Div (Euclidean, = floor for a positive divisor).
		want = new(big.Int).Div(ba, new(big.Int).Lsh(big.NewInt(1), sh))
		if got := big128(a.shr(sh)); got.Cmp(want) != 0 {
			t.Fatalf("shr(%v, %d) = %v, want %v", ba, sh, got, want)
		}
		if got, want := a.cmp(b), ba.Cmp(bb); got != want {
			t.Fatalf("cmp(%v, %v) = %d, want %d", ba, bb, got, want)
		}
		if got, want := a.fitsI64(), ba.IsInt64(); got != want {
			t.Fatalf("fitsI64(%v) = %v", ba, got)
		}
		if !a.neg() && x > 0 {
			want = new(big.Int).Div(ba, bx)
			if got := big128(a.divU64(uint64(x))); got.Cmp(want) != 0 {
				t.Fatalf("divU64(%v, %d) = %v, want %v", ba, x, got, want)
			}
		}
		if !a.neg() {
			h, l := a.magnitude()
			root := new(big.Int).Sqrt(ba) // big's Sqrt is ⌊√n⌋
			if got := isqrt128(h, l); new(big.Int).SetUint64(got).Cmp(root) != 0 {
				t.Fatalf("isqrt(%v) = %d, want %v", ba, got, root)
			}
		}
	}
}

func TestInt128Edges(t *testing.T) {
	minI := int128{hi: -1 << 63}
	if _, ok := minI.negate(); ok {
		t.Error("−(−2^127) claimed to fit")
	}
	if _, ok := minI.mul(-1); ok {
		t.Error("(−2^127)·(−1) claimed to fit")
	}
	// ⌊−2^127 / 2^64⌋ = −2^63; times 2^62 it is −2^125, whose high word is −2^61.
	if p, ok := minI.shr(64).mul(1 << 62); !ok || p.hi != -1<<61 || p.lo != 0 {
		t.Errorf("−2^63·2^62 = %v %v", big128(p), ok)
	}
	// isqrt(2^128 − 1) = 2^64 − 1.
	if got := isqrt128(^uint64(0), ^uint64(0)); got != ^uint64(0) {
		t.Errorf("isqrt(2^128−1) = %d", got)
	}
	// isqrt(15) = 3, isqrt(16) = 4.
	if isqrt128(0, 15) != 3 || isqrt128(0, 16) != 4 || isqrt128(0, 0) != 0 {
		t.Error("isqrt small values")
	}
}
