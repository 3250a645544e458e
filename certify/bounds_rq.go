package certify

import (
	"math/big"

	"github.com/waiops/waiops/whg1"
)

// roundP is R_round(p, s) of §2, evaluated as §2 writes it, each primitive
// operation saturated (§8.1).
func (a *arith) roundP(p *big.Int, s uint, round whg1.Round) *big.Int {
	if s == 0 || round == whg1.Floor {
		return a.shr(p, s)
	}
	h := pow2(s - 1)
	if round == whg1.HalfUp {
		return a.shr(a.add(p, h), s)
	}
	q := a.shr(p, s)
	r := a.sub(p, a.mul(q, pow2(s)))
	if c := r.Cmp(h); c > 0 || c == 0 && q.Bit(0) == 1 {
		return a.add(q, one)
	}
	return q
}

// rqHulls gathers the rq intermediates of §5.1 over channels.
type rqHulls struct{ t, p, q, y hullAcc }

// channel applies the rq.p, rq.q and rq.y rules of §8.3 to one output
// channel whose rq.t is t, and returns rq.y.
func (r *rqHulls) channel(a *arith, t Interval, m *big.Int, s uint, round whg1.Round, post *big.Int) Interval {
	r.t.add(t)
	_, q := r.pq(a, t, m, s, round)
	y := Interval{a.add(q.Lo, post), a.add(q.Hi, post)}
	r.y.add(y)
	return y
}

// pq adds one multiplier's rq.p and rq.q to the hulls (§8.3): P is the
// term interval of m over t; rq.p = [P_lo, P_hi + a] with a = 2^(s−1) when
// the round is not floor and s ≥ 1; rq.q = [R(P_lo, s), R(P_hi, s)].
func (r *rqHulls) pq(a *arith, t Interval, m *big.Int, s uint, round whg1.Round) (Interval, Interval) {
	P := a.scaleIv(m, t)
	p := P
	if round != whg1.Floor && s >= 1 {
		p = Interval{P.Lo, a.add(P.Hi, pow2(s-1))}
	}
	q := Interval{a.roundP(P.Lo, s, round), a.roundP(P.Hi, s, round)}
	r.p.add(p)
	r.q.add(q)
	return p, q
}

func (r *rqHulls) record(nb *nodeBounds) {
	nb.set("rq.t", r.t.iv)
	nb.set("rq.p", r.p.iv)
	nb.set("rq.q", r.q.iv)
	nb.set("rq.y", r.y.iv)
}

// rqOut applies the rq of a conv, conv_transpose, rescale, mul, gram or
// apply to channel o with rq.t = t, and returns the channel's producer result.
func (r *rqHulls) rqOut(a *arith, rq *whg1.RQ, o int, t Interval) Interval {
	return r.channel(a, t, bi(rq.MultOf(o)), rq.ShiftOf(o), rq.Round, bi(rq.PostOf(o)))
}

// §8.3 rescale: rq.t = [l + b_pre[c], h + b_pre[c]], then the rq rules.
func boundsRescale(a *arith, op *whg1.Op, in []Interval, channels int) *nodeBounds {
	rq := &op.Params.(*whg1.Rescale).RQ
	var r rqHulls
	var out hullAcc
	for c := 0; c < channels; c++ {
		b := bi(rq.PreOf(c))
		out.add(r.rqOut(a, rq, c, Interval{a.add(in[0].Lo, b), a.add(in[0].Hi, b)}))
	}
	nb := newNodeBounds(out.iv)
	r.record(nb)
	return nb
}

// §8.3 chscale: for channel c, rq.t = [l, h]; rq.p and rq.q are the hulls
// over the rows r the scalar's range allows of the rule with m = M[r][c];
// rq.y = rq.q.
func boundsChscale(a *arith, op *whg1.Op, in []Interval, channels int, rows whg1.Scalar) *nodeBounds {
	cs := op.Params.(*whg1.Chscale)
	var r rqHulls
	var out hullAcc
	for c := 0; c < channels; c++ {
		r.t.add(in[0])
		var qc hullAcc
		for row := rows.Lo; row <= rows.Hi; row++ {
			_, q := r.pq(a, in[0], bi(cs.M[int(row)*channels+c]), uint(cs.Shift), cs.Round)
			qc.add(q)
		}
		out.add(qc.iv)
	}
	r.y = r.q
	nb := newNodeBounds(out.iv)
	r.record(nb)
	return nb
}

// §8.3 mul: mul.p is the corner hull of a's and b's intervals; rq.t = mul.p.
func boundsMul(a *arith, op *whg1.Op, in []Interval, channels int) *nodeBounds {
	rq := &op.Params.(*whg1.Rescale).RQ
	mp := a.mulIv(in[0], in[1])
	var r rqHulls
	var out hullAcc
	for c := 0; c < channels; c++ {
		out.add(r.rqOut(a, rq, c, mp))
	}
	nb := newNodeBounds(out.iv)
	nb.set("mul.p", mp)
	r.record(nb)
	return nb
}

// §8.3 gram and apply: term is the corner hull of the two inputs;
// acc = [n·min(0, term_lo), n·max(0, term_hi)] with n = L (gram) or d
// (apply); rq.t = acc; then the rq rules with m = 1 and one shift.
func boundsContraction(a *arith, op *whg1.Op, in []Interval, n int64, prefix string) *nodeBounds {
	rq := &op.Params.(*whg1.Contraction).RQ
	term := a.mulIv(in[0], in[1])
	zero := new(big.Int)
	acc := Interval{a.mul(bi(n), minBig(zero, term.Lo)), a.mul(bi(n), maxBig(zero, term.Hi))}
	var r rqHulls
	y := r.channel(a, acc, one, rq.ShiftOf(0), rq.Round, zero)
	nb := newNodeBounds(y)
	nb.set(prefix+".term", term)
	nb.set(prefix+".acc", acc)
	r.record(nb)
	return nb
}
