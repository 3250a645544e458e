package certify

import "math/big"

// §8.1: sat(v) = clamp(v, −2^255, 2^255).
var (
	satHi = new(big.Int).Lsh(big.NewInt(1), 255)
	satLo = new(big.Int).Neg(satHi)
)

// Interval is a closed integer interval [Lo, Hi]. Every interval the pass
// records lies within [−2^255, 2^255] (§8.1). Its values are never changed
// after it is made, so intervals may share their *big.Int.
type Interval struct{ Lo, Hi *big.Int }

// Int64 returns the interval's ends when both fit i64.
func (iv Interval) Int64() (lo, hi int64, ok bool) {
	if !iv.Lo.IsInt64() || !iv.Hi.IsInt64() {
		return 0, 0, false
	}
	return iv.Lo.Int64(), iv.Hi.Int64(), true
}

// Bits is bits([lo, hi]) of §2: the smallest N ≥ 1 such that both ends fit iN.
func (iv Interval) Bits() int { return max(bitsOf(iv.Lo), bitsOf(iv.Hi)) }

func (iv Interval) String() string { return "[" + iv.Lo.String() + ", " + iv.Hi.String() + "]" }

// bitsOf is the smallest N ≥ 1 with −2^(N−1) ≤ v ≤ 2^(N−1) − 1.
func bitsOf(v *big.Int) int {
	if v.Sign() >= 0 {
		return v.BitLen() + 1
	}
	m := new(big.Int).Neg(v)
	return m.Sub(m, one).BitLen() + 1
}

var one = big.NewInt(1)

func bi(v int64) *big.Int { return big.NewInt(v) }

func pow2(n uint) *big.Int { return new(big.Int).Lsh(one, n) }

func point(v *big.Int) Interval { return Interval{v, v} }

func iv64(lo, hi int64) Interval { return Interval{bi(lo), bi(hi)} }

// hull is the smallest interval holding a and b (§8.1). min and max cannot
// leave [−2^255, 2^255], so sat never changes them and they skip arith.
func hull(a, b Interval) Interval {
	lo, hi := a.Lo, a.Hi
	if b.Lo.Cmp(lo) < 0 {
		lo = b.Lo
	}
	if b.Hi.Cmp(hi) > 0 {
		hi = b.Hi
	}
	return Interval{lo, hi}
}

// hullAcc gathers the hull over channels (§8.1) of one recorded interval.
type hullAcc struct {
	iv  Interval
	set bool
}

func (h *hullAcc) add(iv Interval) {
	if !h.set {
		h.iv, h.set = iv, true
		return
	}
	h.iv = hull(h.iv, iv)
}

func minBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) <= 0 {
		return a
	}
	return b
}

func maxBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

// arith performs the primitive operations of §8.1, each exact then
// saturated, and records whether sat changed any result: the node is then
// saturated. big.Int holds every exact result (at most 2^510 in magnitude).
type arith struct{ saturated bool }

func (a *arith) sat(v *big.Int) *big.Int {
	if v.Cmp(satHi) > 0 {
		a.saturated = true
		return v.Set(satHi)
	}
	if v.Cmp(satLo) < 0 {
		a.saturated = true
		return v.Set(satLo)
	}
	return v
}

func (a *arith) add(x, y *big.Int) *big.Int { return a.sat(new(big.Int).Add(x, y)) }
func (a *arith) sub(x, y *big.Int) *big.Int { return a.sat(new(big.Int).Sub(x, y)) }
func (a *arith) mul(x, y *big.Int) *big.Int { return a.sat(new(big.Int).Mul(x, y)) }
func (a *arith) neg(x *big.Int) *big.Int    { return a.sat(new(big.Int).Neg(x)) }

// floorDiv is ⌊x / y⌋ for y > 0 (big's Euclidean Div is the floor then).
func (a *arith) floorDiv(x, y *big.Int) *big.Int { return a.sat(new(big.Int).Div(x, y)) }

// shr is ⌊x / 2^s⌋ (big's Rsh is the arithmetic, flooring shift).
func (a *arith) shr(x *big.Int, s uint) *big.Int { return a.sat(new(big.Int).Rsh(x, s)) }

// ceilDiv is ⌈x / y⌉ = −⌊−x / y⌋ (§2), three primitive operations.
func (a *arith) ceilDiv(x, y *big.Int) *big.Int { return a.neg(a.floorDiv(a.neg(x), y)) }

// isqrt is §2's isqrt(n), n ≥ 0.
func (a *arith) isqrt(n *big.Int) *big.Int { return new(big.Int).Sqrt(n) }

// isqrtCeil is §2's isqrt_ceil(n), n ≥ 0.
func (a *arith) isqrtCeil(n *big.Int) *big.Int {
	r := new(big.Int).Sqrt(n)
	if new(big.Int).Mul(r, r).Cmp(n) < 0 {
		r.Add(r, one)
	}
	return r
}

func (a *arith) abs(x *big.Int) *big.Int { return new(big.Int).Abs(x) }

// mulIv is the corner hull of two intervals (§8.2): [min(C), max(C)] of the
// four corner products.
func (a *arith) mulIv(x, y Interval) Interval {
	c := [4]*big.Int{a.mul(x.Lo, y.Lo), a.mul(x.Lo, y.Hi), a.mul(x.Hi, y.Lo), a.mul(x.Hi, y.Hi)}
	lo, hi := c[0], c[0]
	for _, v := range c[1:] {
		lo, hi = minBig(lo, v), maxBig(hi, v)
	}
	return Interval{lo, hi}
}

// scaleIv is the term interval of a constant w over [l, h] (§8.2).
func (a *arith) scaleIv(w *big.Int, x Interval) Interval {
	p, q := a.mul(w, x.Lo), a.mul(w, x.Hi)
	return Interval{minBig(p, q), maxBig(p, q)}
}

// absIv is the image of [l, h] under |·| (docs/READINGS.md D-A2).
func (a *arith) absIv(x Interval) Interval {
	switch {
	case x.Lo.Sign() >= 0:
		return x
	case x.Hi.Sign() <= 0:
		return Interval{a.neg(x.Hi), a.neg(x.Lo)}
	}
	return Interval{new(big.Int), maxBig(a.neg(x.Lo), x.Hi)}
}
