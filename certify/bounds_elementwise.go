package certify

import (
	"math/big"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// §8.3 add: [la + lb, ha + hb].
func boundsAdd(a *arith, in []Interval) *nodeBounds {
	return newNodeBounds(Interval{a.add(in[0].Lo, in[1].Lo), a.add(in[0].Hi, in[1].Hi)})
}

// §8.3 chunk_add: [2l, 2h].
func boundsChunkAdd(a *arith, in []Interval) *nodeBounds {
	return newNodeBounds(Interval{a.mul(bi(2), in[0].Lo), a.mul(bi(2), in[0].Hi)})
}

// §8.3 clamp: [clamp(l, lo, hi), clamp(h, lo, hi)].
func boundsClamp(op *whg1.Op, in []Interval) *nodeBounds {
	p := op.Params.(*whg1.ClampParams)
	return newNodeBounds(clampIv(in[0], bi(p.Lo), bi(p.Hi)))
}

func clampIv(x Interval, lo, hi *big.Int) Interval {
	return Interval{minBig(maxBig(x.Lo, lo), hi), minBig(maxBig(x.Hi, lo), hi)}
}

// §8.3 relu: [max(l, 0), max(h, 0)].
func boundsRelu(in []Interval) *nodeBounds {
	zero := new(big.Int)
	return newNodeBounds(Interval{maxBig(in[0].Lo, zero), maxBig(in[0].Hi, zero)})
}

// §8.3 abs, restored by docs/READINGS.md D-A2.
func boundsAbs(a *arith, in []Interval) *nodeBounds { return newNodeBounds(a.absIv(in[0])) }

// §8.3 leaky: if l < 0, leaky.p is the corner hull of [l, min(h, −1)] and
// [a, a], and the negative part is [⌊p_lo / 2^f⌋, ⌊p_hi / 2^f⌋]; if l ≥ 0,
// leaky.p = [0, 0] and there is no negative part. The non-negative part is
// [max(l, 0), h] when h ≥ 0. The producer result is the hull of the parts.
func boundsLeaky(a *arith, op *whg1.Op, in []Interval) *nodeBounds {
	lk := op.Params.(*whg1.Leaky)
	l, h := in[0].Lo, in[0].Hi
	zero := new(big.Int)
	var res hullAcc
	p := Interval{zero, zero}
	if l.Sign() < 0 {
		p = a.mulIv(Interval{l, minBig(h, bi(-1))}, point(bi(lk.A)))
		res.add(Interval{a.shr(p.Lo, uint(lk.F)), a.shr(p.Hi, uint(lk.F))})
	}
	if h.Sign() >= 0 {
		res.add(Interval{maxBig(l, zero), h})
	}
	nb := newNodeBounds(res.iv)
	nb.set("leaky.p", p)
	return nb
}

// lut16Span is the input range a lut16 accepts (§5.6).
const lut16Span = 32767

// §5.6 load check and §8.3 lut16: the input's certified range lies within
// [−32767, 32767] (else model_mismatch), and the result is [min, max] of
// T[u + 32768] over u ∈ [l, h].
func boundsLut16(op *whg1.Op, in []Interval) (*nodeBounds, error) {
	lt := op.Params.(*whg1.Lut16)
	lo, hi, ok := in[0].Int64()
	if !ok || lo < -lut16Span || hi > lut16Span {
		return nil, refusal.New(refusal.ModelMismatch, "lut16 input range %v is not within [-32767, 32767]", in[0])
	}
	mn, mx := lt.T[lo+32768], lt.T[lo+32768]
	for u := lo + 1; u <= hi; u++ {
		mn, mx = min(mn, lt.T[u+32768]), max(mx, lt.T[u+32768])
	}
	return newNodeBounds(iv64(int64(mn), int64(mx))), nil
}

// §8.3 movement: the input's interval for each output; concat and
// subpos_merge take the hull of their inputs; crop_to takes its first
// input's; fill takes [v, v] for a constant or its scalar's range.
func boundsMovement(g *whg1.Graph, op *whg1.Op, in []Interval) *nodeBounds {
	switch op.Code {
	case whg1.OpConcat, whg1.OpSubposMerge:
		h := in[0]
		for _, x := range in[1:] {
			h = hull(h, x)
		}
		return newNodeBounds(h)
	case whg1.OpFill:
		f := op.Params.(*whg1.Fill)
		if f.Scalar {
			s := g.Scalars[f.Value]
			return newNodeBounds(iv64(s.Lo, s.Hi))
		}
		return newNodeBounds(point(bi(f.Value)))
	}
	res := make([]Interval, len(op.Out))
	for k := range res {
		res[k] = in[0]
	}
	return newNodeBounds(res...)
}
