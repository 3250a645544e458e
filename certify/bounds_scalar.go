package certify

import (
	"math/big"

	"github.com/waiops/waiops/whg1"
)

// expMax is exp_neg_q16(0) = 65553, the largest value exp_neg_q16 takes (§2).
const expMax = 65553

// expNeg records the exp_neg_q16 rule of §8.3 for u = −x in [u_lo, u_hi]:
// exp.negx = u; exp.nl = [45426·⌊u_lo/45426⌋, 45426·⌊u_hi/45426⌋];
// exp.t2 = [43245², 88670²]; exp.c = [0, 23495·⌊88670²/2^16⌋].
func expNeg(a *arith, nb *nodeBounds, u Interval) {
	k := bi(45426)
	nb.set("exp.negx", u)
	nb.set("exp.nl", Interval{a.mul(k, a.floorDiv(u.Lo, k)), a.mul(k, a.floorDiv(u.Hi, k))})
	nb.set("exp.t2", Interval{a.mul(bi(43245), bi(43245)), a.mul(bi(88670), bi(88670))})
	nb.set("exp.c", Interval{new(big.Int), a.mul(bi(23495), a.shr(a.mul(bi(88670), bi(88670)), 16))})
}

// §8.3 sigmoid with docs/READINGS.md D-A3: u is the image of [l, h] under |·|, then
// the exp_neg_q16 rule; sig.num is the hull of [2^32, 2^32] (when h ≥ 0)
// and [0, 65553·2^16] (when l < 0); the result is [0, 2^16].
func boundsSigmoid(a *arith, in []Interval) *nodeBounds {
	zero := new(big.Int)
	nb := newNodeBounds(Interval{zero, two16})
	expNeg(a, nb, a.absIv(in[0]))
	var num hullAcc
	if in[0].Hi.Sign() >= 0 {
		num.add(point(two32))
	}
	if in[0].Lo.Sign() < 0 {
		num.add(Interval{zero, a.mul(bi(expMax), two16)})
	}
	nb.set("sig.num", num.iv)
	return nb
}

// §8.3 elu: u = [max(0, −h), max(0, −l)], then the exp_neg_q16 rule;
// elu.p is the corner hull of [α, α] and [−2^16, 17]; the result is the
// hull of [max(l, 1), h] (when h > 0) and [⌊elu.p_lo / 2^16⌋,
// ⌊elu.p_hi / 2^16⌋] (when l ≤ 0).
func boundsElu(a *arith, op *whg1.Op, in []Interval) *nodeBounds {
	alpha := bi(op.Params.(*whg1.Elu).Alpha)
	l, h := in[0].Lo, in[0].Hi
	zero := new(big.Int)
	nb := newNodeBounds()
	expNeg(a, nb, Interval{maxBig(zero, a.neg(h)), maxBig(zero, a.neg(l))})
	p := a.mulIv(point(alpha), Interval{a.neg(two16), bi(17)})
	nb.set("elu.p", p)
	var out hullAcc
	if h.Sign() > 0 {
		out.add(Interval{maxBig(l, one), h})
	}
	if l.Sign() <= 0 {
		out.add(Interval{a.shr(p.Lo, 16), a.shr(p.Hi, 16)})
	}
	nb.results = []Interval{out.iv}
	return nb
}
