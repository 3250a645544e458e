package certify

import (
	"math/big"

	"github.com/waiops/waiops/whg1"
)

// §8.3 igdn. igdn.x2 is [0, max(l², h²)] if l ≤ 0 ≤ h, else
// [min(l², h²), max(l², h²)]. For output channel i and input channel j,
// gx2_ij is the corner hull of [γ[i][j], γ[i][j]] and igdn.x2, and
// term_ij = [⌊gx2_lo / 2^gf⌋, ⌊gx2_hi / 2^gf⌋]. igdn.N = A({term_ij}, β_i).
// The final norm Nf_i folds β_i + Σ_j term_ij at each end; igdn.r =
// [isqrt(max(0, Nf_lo)), isqrt(max(0, Nf_hi))]; igdn.xr is the corner hull
// of [l, h] and igdn.r; the result is [⌊xr_lo / 2^frac⌋, ⌊xr_hi / 2^frac⌋].
func boundsIGDN(a *arith, op *whg1.Op, in []Interval, channels int) *nodeBounds {
	p := op.Params.(*whg1.IGDN)
	x := in[0]
	zero := new(big.Int)
	l2, h2 := a.mul(x.Lo, x.Lo), a.mul(x.Hi, x.Hi)
	x2 := Interval{minBig(l2, h2), maxBig(l2, h2)}
	if x.Lo.Sign() <= 0 && x.Hi.Sign() >= 0 {
		x2 = Interval{zero, maxBig(l2, h2)}
	}
	var gx2, term, nAcc, rAcc, xrAcc, out hullAcc
	for i := 0; i < channels; i++ {
		beta := bi(p.Beta[i])
		nLo, nHi := minBig(zero, beta), maxBig(zero, beta) // igdn.N
		fLo, fHi := beta, beta                             // Nf_i
		for j := 0; j < channels; j++ {
			g := a.mulIv(point(bi(p.Gamma[i*channels+j])), x2)
			gx2.add(g)
			tm := Interval{a.shr(g.Lo, uint(p.GF)), a.shr(g.Hi, uint(p.GF))}
			term.add(tm)
			nLo, nHi = a.add(nLo, minBig(zero, tm.Lo)), a.add(nHi, maxBig(zero, tm.Hi))
			fLo, fHi = a.add(fLo, tm.Lo), a.add(fHi, tm.Hi)
		}
		nAcc.add(Interval{nLo, nHi})
		r := Interval{a.isqrt(maxBig(zero, fLo)), a.isqrt(maxBig(zero, fHi))}
		rAcc.add(r)
		xr := a.mulIv(x, r)
		xrAcc.add(xr)
		out.add(Interval{a.shr(xr.Lo, uint(p.Frac)), a.shr(xr.Hi, uint(p.Frac))})
	}
	nb := newNodeBounds(out.iv)
	nb.set("igdn.x2", x2)
	nb.set("igdn.gx2", gx2.iv)
	nb.set("igdn.term", term.iv)
	nb.set("igdn.N", nAcc.iv)
	nb.set("igdn.r", rAcc.iv)
	nb.set("igdn.xr", xrAcc.iv)
	return nb
}

var (
	two16 = pow2(16)
	two32 = pow2(32)
)

// §8.3 layernorm_c, with lemma L1 for ln.dk and ln.n.
func boundsLayerNorm(a *arith, op *whg1.Op, in []Interval, channels int) *nodeBounds {
	p := op.Params.(*whg1.LayerNorm)
	l, h := in[0].Lo, in[0].Hi
	zero := new(big.Int)
	c := bi(int64(channels))
	half := bi(int64(channels / 2))
	eps := new(big.Int).SetUint64(p.Eps)
	nb := newNodeBounds()
	// ln.S = [C·min(0, l), C·max(0, h)].
	nb.set("ln.S", Interval{a.mul(c, minBig(zero, l)), a.mul(c, maxBig(zero, h))})
	// ln.m = [C·l − ⌊C/2⌋, C·h + ⌊C/2⌋].
	nb.set("ln.m", Interval{a.sub(a.mul(c, l), half), a.add(a.mul(c, h), half)})
	// The mean lies in [l, h], so ln.d = [l − h, h − l].
	span := a.sub(h, l)
	nb.set("ln.d", Interval{a.sub(l, h), span})
	// ln.T = [0, C·(h − l)²]; ln.v = [ε, (h − l)² + ε].
	sq := a.mul(span, span)
	nb.set("ln.T", Interval{zero, a.mul(c, sq)})
	nb.set("ln.v", Interval{eps, a.add(sq, eps)})
	nb.set("rsq.num", point(two32))
	// ln.k = [0, ⌊2^32 / r0⌋], r0 = isqrt(ε) ≥ 1.
	r0 := a.isqrt(eps)
	k := a.floorDiv(two32, r0)
	nb.set("ln.k", Interval{zero, k})
	// ln.dk = [−D, D], D = min((h − l)·⌊2^32/r0⌋, ⌈isqrt_ceil(C)·2^32·(r0 + 1) / r0⌉).
	sc := a.isqrtCeil(c)
	r1 := a.add(r0, one)
	d := minBig(a.mul(span, k), a.ceilDiv(a.mul(a.mul(sc, two32), r1), r0))
	nb.set("ln.dk", Interval{a.neg(d), d})
	// ln.n = [−N, N], N = min(⌊(h − l)·⌊2^32/r0⌋ / 2^16⌋ + 1, N_max),
	// N_max = ⌊isqrt_ceil(C)·2^16·(r0 + 1) / r0⌋ + 1.
	nMax := a.add(a.floorDiv(a.mul(a.mul(sc, two16), r1), r0), one)
	n := minBig(a.add(a.shr(a.mul(span, k), 16), one), nMax)
	ln := Interval{a.neg(n), n}
	nb.set("ln.n", ln)
	// For channel c, ln.ng is the corner hull of ln.n and [γ[c], γ[c]], and
	// the result is [⌊ng_lo / 2^16⌋ + β[c], ⌊ng_hi / 2^16⌋ + β[c]].
	var ng, out hullAcc
	for ch := 0; ch < channels; ch++ {
		g := a.mulIv(ln, point(bi(p.Gamma[ch])))
		ng.add(g)
		b := bi(p.Beta[ch])
		out.add(Interval{a.add(a.shr(g.Lo, 16), b), a.add(a.shr(g.Hi, 16), b)})
	}
	nb.set("ln.ng", ng.iv)
	nb.results = []Interval{out.iv}
	return nb
}

// §8.3 l2norm, with lemma L2: l2.T = [0, L·X² + ε]; rsq.num = [2^32, 2^32];
// l2.k = [0, ⌊2^32 / isqrt(ε)⌋]; l2.vk = [−2^32, 2^32]; the result is
// [−2^16, 2^16].
func boundsL2Norm(a *arith, op *whg1.Op, in []Interval, L int64) *nodeBounds {
	eps := new(big.Int).SetUint64(op.Params.(*whg1.L2Norm).Eps)
	x := maxBig(a.abs(in[0].Lo), a.abs(in[0].Hi))
	nb := newNodeBounds(Interval{a.neg(two16), two16})
	nb.set("l2.T", Interval{new(big.Int), a.add(a.mul(a.mul(bi(L), x), x), eps)})
	nb.set("rsq.num", point(two32))
	nb.set("l2.k", Interval{new(big.Int), a.floorDiv(two32, a.isqrt(eps))})
	nb.set("l2.vk", Interval{a.neg(two32), two32})
	return nb
}

// §8.3 softmax: sm.diff = [l − h, 0]; u = [0, h − l], then the exp_neg_q16
// rule; sm.sum = [0, W_max·65553]; sm.num = [0, 65553·2^16 + ⌊W_max·65553 / 2⌋];
// the result is [0, 2^16].
func boundsSoftmax(a *arith, in []Interval, wMax int64) *nodeBounds {
	zero := new(big.Int)
	nb := newNodeBounds(Interval{zero, two16})
	nb.set("sm.diff", Interval{a.sub(in[0].Lo, in[0].Hi), zero})
	expNeg(a, nb, Interval{zero, a.sub(in[0].Hi, in[0].Lo)})
	s := a.mul(bi(wMax), bi(expMax))
	nb.set("sm.sum", Interval{zero, s})
	nb.set("sm.num", Interval{zero, a.add(a.mul(bi(expMax), two16), a.shr(s, 1))})
	return nb
}
