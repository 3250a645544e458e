package cpuref

import (
	"math/bits"

	"github.com/waiops/waiops/cpuref/dot"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// outside is the refusal for a value that passes the width its class has
// under acc64 (§7.1). A graph that the certifier passes for acc64 never forms
// one (§8), so this only answers graphs that were loaded without a
// certificate: they are outside the profile this fabric implements.
func outside(what string) error {
	return refusal.New(refusal.ModelMismatch, "%s: a value passes its acc64 width (§7.1); the graph is outside acc64", what)
}

// roundShift is R_round(p, s) of §2 for 0 ≤ s ≤ 127, on the exact 128-bit p.
// With q = ⌊p / 2^s⌋ and r = p − q·2^s (the low s bits of p):
// R_half_up = ⌊(p + 2^(s−1)) / 2^s⌋ = q + [r ≥ 2^(s−1)], and R_half_even is
// q + 1 when r > 2^(s−1), or r = 2^(s−1) and q is odd. Forming r instead of
// p + 2^(s−1) gives the same integers without the wider addend.
func roundShift(p int128, s uint, round whg1.Round) int128 {
	q := p.shr(s)
	if s == 0 || round == whg1.Floor {
		return q
	}
	rh, rl := p.lowBits(s)
	var hh, hl uint64 // h = 2^(s−1)
	if s-1 < 64 {
		hl = 1 << (s - 1)
	} else {
		hh = 1 << (s - 1 - 64)
	}
	c := 0
	switch {
	case rh > hh || (rh == hh && rl > hl):
		c = 1
	case rh == hh && rl == hl:
		c = 0
	default:
		c = -1
	}
	up := c > 0 || (c == 0 && (round == whg1.HalfUp || q.lo&1 == 1))
	if up {
		// q ≤ p / 2 for s ≥ 1, so q + 1 cannot pass 128 bits.
		q, _ = q.add64(1)
	}
	return q
}

// rqOf is rq_o(v) of §5.1 on an exact value v (conv.acc and friends):
//
//	t = v + pre bias         rq.t
//	p = t · mult[o]          rq.p, exact in 128 bits
//	q = R_round(p, shift[o]) rq.q, kept in 128 bits until the post bias (§5.1
//	                         forbids narrowing q before it)
//	y = q + post bias        rq.y, narrowed to int64
//
// ok is false when y (or an intermediate formed on the way) passes its
// acc64 width: the graph is then outside acc64.
func rqOf(r *whg1.RQ, o int, v int128) (int64, bool) {
	t, ok := v.add64(r.PreOf(o))
	if !ok {
		return 0, false
	}
	p, ok := t.mul(r.MultOf(o))
	if !ok {
		return 0, false
	}
	y, ok := roundShift(p, r.ShiftOf(o), r.Round).add64(r.PostOf(o))
	if !ok || !y.fitsI64() {
		return 0, false
	}
	return int64(y.lo), true
}

// rqRow writes rq_o(v) (rqOf) of each sum v in src into dst, for one
// channel o, where X ≥ every |v|; ok is false when one of them is outside
// acc64. With T = X + |pre bias|, when T·|mult| ≤ 2^62 and shift ≤ 62 every t and
// p lies in [−2^62, 2^62] (§6: "rq.p MAY be formed in 64 bits wherever its
// interval fits i64"), and p + 2^(s−1) < 2^63: the whole row is formed in
// int64 by cpuref/dot's RQRowStrided (vectorised where the CPU has a 64-bit
// multiply), with only y = q + post bias checked for overflow. Otherwise
// each value goes through rqOf.
func rqRow(r *whg1.RQ, o int, X uint64, src, dst []int64) bool {
	return rqRowStrided(r, o, X, src, dst, 1, nil)
}

// rqRowStrided is rqRow writing the rq of src[i] to dst[stride·i], as a
// conv_transpose phase row lands in every sw-th output column (§9.3), and,
// when c is not nil, each y clamped to [c.lo, c.hi] once it is formed (a
// relu or clamp folded in, §5.5).
func rqRowStrided(r *whg1.RQ, o int, X uint64, src, dst []int64, stride int, c *postStage) bool {
	if len(src) == 0 {
		return true
	}
	dst = dst[:stride*(len(src)-1)+1]
	if !rqFits64(r, o, X) {
		for i, v := range src {
			y, ok := rqOf(r, o, i128(v))
			if !ok {
				return false
			}
			if c != nil {
				y = min(max(y, c.lo), c.hi)
			}
			dst[stride*i] = y
		}
		return true
	}
	// §2's rounding modes are dot's, value for value.
	q := &dot.RQ64{Pre: r.PreOf(o), Mult: r.MultOf(o), Post: r.PostOf(o), Shift: r.ShiftOf(o), Round: uint8(r.Round)}
	if c != nil {
		q.Clamp, q.Lo, q.Hi = true, c.lo, c.hi
	}
	return dot.RQRowStrided(dst, stride, src, q)
}

// absU is |v| as an unsigned value (2^63 for −2^63).
func absU(v int64) uint64 {
	if v < 0 {
		return -uint64(v)
	}
	return uint64(v)
}

// rqFits64 says whether rqRow may form rq_o in int64 for sums of magnitude
// at most X: T = X + |pre| ≤ 2^62, T·|mult| ≤ 2^62 and shift ≤ 62.
func rqFits64(r *whg1.RQ, o int, X uint64) bool {
	P := absU(r.PreOf(o))
	hi, lo := bits.Mul64(X+P, absU(r.MultOf(o))) // X + P ≤ 2^63: no wrap when both are ≤ 2^62
	return X <= 1<<62 && P <= 1<<62 && X+P <= 1<<62 && hi == 0 && lo <= 1<<62 && r.ShiftOf(o) <= 62
}
