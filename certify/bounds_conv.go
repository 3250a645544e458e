package certify

import (
	"math/big"

	"github.com/waiops/waiops/whg1"
)

// taps is the term and partial-sum computation of §8.2 for sets of
// constant weights over one input interval x.
type taps struct {
	a    *arith
	x    Interval
	xMax *big.Int // max(|l|, |h|)
	fold bool     // fold term by term even where the sums are exact
}

func newTaps(a *arith, x Interval, fold bool) *taps {
	return &taps{a: a, x: x, xMax: maxBig(a.abs(x.Lo), a.abs(x.Hi)), fold: fold}
}

// exact reports whether no term of a set with these weights can pass
// 2^255: then no product saturates (§8.2, informative).
func (t *taps) exact(s *wsum) bool {
	return !t.fold && new(big.Int).Mul(s.maxAbs(), t.xMax).Cmp(satHi) <= 0
}

// termHull is the hull of the term intervals of the set: for a fixed end
// w·l is monotone in w, so it is the corner hull of [w_min, w_max] and
// [l, h] (§8.2). Called only when t.exact(s).
func (t *taps) termHull(s *wsum) Interval {
	return t.a.mulIv(Interval{bi(s.min), bi(s.max)}, t.x)
}

// partial is A(K, b) of §8.2 from the sums, for a set where t.exact(s):
// [min(0, b) + min(0, l)·S⁺ + max(0, h)·S⁻, max(0, b) + max(0, h)·S⁺ + min(0, l)·S⁻].
// The left fold adds terms of one sign, so its result is sat of the exact
// sum, and sat changes it exactly when it changes that sum.
func (t *taps) partial(s *wsum, b *big.Int) Interval {
	zero := new(big.Int)
	l0, h0 := minBig(zero, t.x.Lo), maxBig(zero, t.x.Hi)
	lo := new(big.Int).Mul(l0, s.sPos())
	lo.Add(lo, new(big.Int).Mul(h0, s.sNeg()))
	lo.Add(lo, minBig(zero, b))
	hi := new(big.Int).Mul(h0, s.sPos())
	hi.Add(hi, new(big.Int).Mul(l0, s.sNeg()))
	hi.Add(hi, maxBig(zero, b))
	return Interval{t.a.sat(lo), t.a.sat(hi)}
}

// foldAcc folds A(K, b) term by term (§8.1, §8.2): lo starts at min(0, b)
// and adds min(0, lo_k), hi starts at max(0, b) and adds max(0, hi_k), with
// sat after each addition. It also gathers the hull of the term intervals.
type foldAcc struct {
	lo, hi *big.Int
	term   hullAcc
}

func newFoldAcc(b *big.Int) *foldAcc {
	zero := new(big.Int)
	return &foldAcc{lo: minBig(zero, b), hi: maxBig(zero, b)}
}

func (f *foldAcc) add(t *taps, w int64) {
	tv := t.a.scaleIv(bi(w), t.x)
	f.term.add(tv)
	zero := new(big.Int)
	f.lo = t.a.add(f.lo, minBig(zero, tv.Lo))
	f.hi = t.a.add(f.hi, maxBig(zero, tv.Hi))
}

// §8.3 conv: for output channel o, K_o is its cg·kh·kw taps; conv.term is
// the hull of their term intervals; conv.acc = A(K_o, b_pre[o]); rq.t is
// conv.acc; then the rq rules.
func boundsConv(a *arith, op *whg1.Op, in []Interval, fold bool) *nodeBounds {
	cv := op.Params.(*whg1.Conv)
	cout := int(cv.Cout)
	n := len(cv.W) / cout // cg·kh·kw
	t := newTaps(a, in[0], fold)
	var term, acc, out hullAcc
	var r rqHulls
	for o := 0; o < cout; o++ {
		ws := cv.W[o*n : (o+1)*n]
		b := bi(cv.RQ.PreOf(o))
		var s wsum
		for _, w := range ws {
			s.add(w)
		}
		var ac Interval
		if t.exact(&s) {
			term.add(t.termHull(&s))
			ac = t.partial(&s, b)
		} else {
			f := newFoldAcc(b)
			for _, w := range ws {
				f.add(t, w)
			}
			term.add(f.term.iv)
			ac = Interval{f.lo, f.hi}
		}
		acc.add(ac)
		out.add(r.rqOut(a, &cv.RQ, o, ac))
	}
	nb := newNodeBounds(out.iv)
	nb.set("conv.term", term.iv)
	nb.set("conv.acc", acc.iv)
	r.record(nb)
	return nb
}

// §8.3 conv_transpose: for output channel o, convT.term is the hull of the
// term intervals of all cin·kh·kw taps of o. For each residue
// ρ = (i mod sh, j mod sw), K_ρ is that residue's taps, and convT.acc is
// the hull over ρ of A(K_ρ, b_pre[o]). A residue with no tap (sh > kh or
// sw > kw) gives [min(0, b), max(0, b)], which every other A(K_ρ, b)
// contains, so only the residues below min(sh, kh) × min(sw, kw) are formed.
func boundsConvT(a *arith, op *whg1.Op, in []Interval, cin int, fold bool) *nodeBounds {
	ct := op.Params.(*whg1.ConvT)
	cout, kh, kw := int(ct.Cout), int(ct.KH), int(ct.KW)
	rh, rw := min(int(ct.SH), kh), min(int(ct.SW), kw)
	t := newTaps(a, in[0], fold)
	var term, acc, out hullAcc
	var r rqHulls
	sums := make([]wsum, rh*rw)
	// weight returns Wt[ci][o][i][j].
	weight := func(ci, o, i, j int) int64 { return ct.W[((ci*cout+o)*kh+i)*kw+j] }
	for o := 0; o < cout; o++ {
		b := bi(ct.RQ.PreOf(o))
		clear(sums)
		for ci := 0; ci < cin; ci++ {
			for i := 0; i < kh; i++ {
				for j := 0; j < kw; j++ {
					sums[(i%int(ct.SH))*rw+j%int(ct.SW)].add(weight(ci, o, i, j))
				}
			}
		}
		var all wsum // the taps of o: w_min, w_max over every residue
		exact := true
		for k := range sums {
			all.add(sums[k].min)
			all.add(sums[k].max)
			exact = exact && t.exact(&sums[k])
		}
		var ac hullAcc
		if exact {
			term.add(t.termHull(&all))
			for k := range sums {
				ac.add(t.partial(&sums[k], b))
			}
		} else {
			for ry := 0; ry < rh; ry++ {
				for rx := 0; rx < rw; rx++ {
					f := newFoldAcc(b)
					for ci := 0; ci < cin; ci++ {
						for i := ry; i < kh; i += int(ct.SH) {
							for j := rx; j < kw; j += int(ct.SW) {
								f.add(t, weight(ci, o, i, j))
							}
						}
					}
					term.add(f.term.iv)
					ac.add(Interval{f.lo, f.hi})
				}
			}
		}
		acc.add(ac.iv)
		out.add(r.rqOut(a, &ct.RQ, o, ac.iv))
	}
	nb := newNodeBounds(out.iv)
	nb.set("convT.term", term.iv)
	nb.set("convT.acc", acc.iv)
	r.record(nb)
	return nb
}
