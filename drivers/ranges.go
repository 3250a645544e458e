package drivers

import (
	"math/big"
)

var (
	bigI64  = new(big.Int).SetUint64(1<<63 - 1)                           // I64 = 2^63 − 1
	bigI128 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), one) // I128 = 2^127 − 1
	big2p63 = new(big.Int).Lsh(big.NewInt(1), 63)
	one     = big.NewInt(1)
)

// maxAbs is the largest magnitude among v, exactly (|−2^63| = 2^63).
func maxAbs(v []int64) *big.Int {
	m := new(big.Int)
	for _, x := range v {
		a := new(big.Int).Abs(big.NewInt(x))
		if a.Cmp(m) > 0 {
			m = a
		}
	}
	return m
}

// predicate is P_ℓ of §13.2 for one layer: it reports whether P_ℓ(X) holds.
// It is evaluated exactly in math/big (every value stays below 2^255).
type predicate func(x *big.Int) bool

// layerPredicate returns P_ℓ for layer l of net whose input has c channels,
// or nil for a relu, which has no range check.
func layerPredicate(net *Network, l *Layer, c uint32) predicate {
	bc := new(big.Int).SetUint64(uint64(c))
	switch l.Tag {
	case TagConvT, TagConv:
		// §13.2 tags 0, 1: c·k·k·Wm·X ≤ I64 and
		// ⌊c·k·k·Wm·X·Mm / 2^shift⌋ + 1 + Bm ≤ I64. §13.3: a WAM1
		// kernel is one-dimensional, so its term count is c·k (we apply
		// that to tag 1 as well as tag 0: both kernels are [..][..][k]).
		terms := new(big.Int).Mul(bc, new(big.Int).SetUint64(uint64(l.K)))
		if !net.OneD {
			terms.Mul(terms, new(big.Int).SetUint64(uint64(l.K)))
		}
		cw := terms.Mul(terms, maxAbs(l.W))
		mm, bm, shift := maxAbs(l.Mult), maxAbs(l.Bias), uint(net.Shift)
		return func(x *big.Int) bool {
			a := new(big.Int).Mul(cw, x)
			if a.Cmp(bigI64) > 0 {
				return false
			}
			a.Mul(a, mm).Rsh(a, shift) // a ≥ 0, so Rsh is the floor
			a.Add(a, one).Add(a, bm)
			return a.Cmp(bigI64) <= 0
		}
	case TagIGDN:
		// §13.2 tag 2.
		g, bb := maxAbs(l.Gamma), maxAbs(l.Beta)
		gf, afrac := uint(net.GF), uint(net.Afrac)
		return func(x *big.Int) bool {
			gx2 := new(big.Int).Mul(x, x)
			gx2.Mul(gx2, g)
			if gx2.Cmp(bigI128) > 0 {
				return false
			}
			n := gx2.Rsh(gx2, gf)
			n.Add(n, one).Mul(n, bc).Add(n, bb)
			if n.Cmp(bigI128) > 0 {
				return false
			}
			r := n.Sqrt(n) // isqrt
			if r.Cmp(bigI64) > 0 {
				return false
			}
			xr := r.Mul(r, x)
			xr.Rsh(xr, afrac).Add(xr, one)
			return xr.Cmp(bigI64) <= 0
		}
	case TagLeaky:
		// §13.2 tag 4, restored by docs/READINGS.md D-A4: X·|slope_q| ≤ I64.
		s := maxAbs([]int64{l.SlopeQ})
		return func(x *big.Int) bool {
			return new(big.Int).Mul(x, s).Cmp(bigI64) <= 0
		}
	}
	return nil
}

// largestX is X_ℓ of §13.2: the largest X in [0, 2^63] for which p holds,
// found by a binary search, which is exact because p holds at X whenever
// it holds at a larger X. It reports false when p(0) fails, which refuses
// the set (model_mismatch).
func largestX(p predicate) (*big.Int, bool) {
	lo := new(big.Int)
	if !p(lo) {
		return nil, false
	}
	hi := new(big.Int).Set(big2p63)
	if p(hi) {
		return hi, true
	}
	// Invariant: p(lo) holds, p(hi) fails.
	for new(big.Int).Sub(hi, lo).Cmp(one) > 0 {
		mid := new(big.Int).Add(lo, hi)
		mid.Rsh(mid, 1)
		if p(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, true
}

// checkRange is the policy check range of x_ℓ (§13.2): [−X_ℓ, min(X_ℓ, I64)].
// X_ℓ ≤ 2^63, so −X_ℓ fits i64.
func checkRange(x *big.Int) (lo, hi int64) {
	lo = new(big.Int).Neg(x).Int64()
	if x.Cmp(bigI64) > 0 {
		return lo, 1<<63 - 1
	}
	return lo, x.Int64()
}
