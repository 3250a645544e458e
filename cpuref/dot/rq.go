package dot

import "math"

// The rounding modes of RQ64, those of integer-operators §2.
const (
	RoundFloor    = 0
	RoundHalfUp   = 1
	RoundHalfEven = 2
)

// RQ64 is one output channel's rq of §5.1 in the 64-bit form §6 permits
// ("rq.p MAY be formed in 64 bits wherever its interval fits i64"):
//
//	y = R_round((v + Pre)·Mult, Shift) + Post
//
// for sums v whose every t = v + Pre and p = t·Mult lie in [−2^62, 2^62],
// with Shift ≤ 62. The caller proves those bounds (cpuref's rqFits64);
// RQRowStrided relies on them.
//
// With Clamp set, each y is then clamped to [Lo, Hi] (Lo ≤ Hi): a relu or
// clamp (§5.5) folded into the epilogue; the wrap check is on y itself.
type RQ64 struct {
	Pre, Mult, Post int64
	Shift           uint
	Round           uint8
	Clamp           bool
	Lo, Hi          int64
}

// RQRowStrided writes rq (*q, RQ64) of each sum src[i] into dst[stride·i]
// (stride ≥ 1, as a conv_transpose phase's row lands in every sw-th output
// column, §9.3; dst holds at least stride·(len(src) − 1) + 1 elements, and
// those between are left as they are), and reports whether every y = q +
// Post fitted i64 (false: some y wrapped, and dst holds garbage where it
// did). Every rounding is one
// formula, q = (p + a + e·bit_s(p)) >> s with an arithmetic shift:
//
//	floor, or s = 0:  a = 0,          e = 0
//	half up:          a = 2^(s−1),    e = 0   ⌊(p + 2^(s−1))/2^s⌋ (§2)
//	half even:        a = 2^(s−1) − 1, e = 1
//
// For half even write p = Q·2^s + r, 0 ≤ r < 2^s, h = 2^(s−1), b = Q mod 2
// = bit s of p: r + h − 1 + b reaches 2^s exactly when r > h, or r = h and
// b = 1, and stays below 2^(s+1), so the shift gives Q + 1 in those cases
// and Q otherwise: §2's R_half_even. |p| + 2^(s−1) + 1 ≤ 2^62 + 2^61 + 1
// < 2^63, so no addition wraps.
func RQRowStrided(dst []int64, stride int, src []int64, q *RQ64) bool {
	if len(src) == 0 {
		return true
	}
	dst = dst[:stride*(len(src)-1)+1]
	add, even, s, lo, hi := q.formed()
	return bestRQ.rq(dst, stride, src, q.Pre, q.Mult, add, q.Post, s, even, lo, hi)
}

// formed is q's constants as the rq loops take them: the rounding's add and
// even bit (RQRowStrided's formula), the shift, and Clamp's ends or the
// whole int64 range.
func (q *RQ64) formed() (add, even int64, s uint, lo, hi int64) {
	s = q.Shift & 63 // ≤ 62 (RQ64); the mask lets the shifts compile plain
	if s > 0 && q.Round != RoundFloor {
		add = 1 << (s - 1)
		if q.Round == RoundHalfEven {
			add, even = add-1, 1
		}
	}
	lo, hi = math.MinInt64, math.MaxInt64
	if q.Clamp {
		lo, hi = q.Lo, q.Hi
	}
	return add, even, s, lo, hi
}

// rqGeneric is RQRowStrided in Go: the formula above, branch-free, with
// y's wrap found from signs (y = q + post wrapped iff its sign differs
// from both q's and post's), and y clamped to [lo, hi] (the whole int64
// range when RQ64 has no Clamp).
func rqGeneric(dst []int64, stride int, src []int64, pre, mult, add, post int64, s uint, even, lo, hi int64) bool {
	if stride != 1 {
		return rqStridedGeneric(dst, stride, src, pre, mult, add, post, s, even, lo, hi)
	}
	dst = dst[:len(src)]
	s &= 63
	var bad int64
	for i, v := range src {
		p := (v + pre) * mult
		q := (p + add + (p>>s)&even) >> s
		y := q + post
		bad |= (q ^ y) & (post ^ y)
		dst[i] = min(max(y, lo), hi)
	}
	return bad >= 0
}

// rqStridedGeneric is rqGeneric's loop for a stride past 1.
func rqStridedGeneric(dst []int64, stride int, src []int64, pre, mult, add, post int64, s uint, even, lo, hi int64) bool {
	s &= 63
	var bad int64
	for i, v := range src {
		p := (v + pre) * mult
		q := (p + add + (p>>s)&even) >> s
		y := q + post
		bad |= (q ^ y) & (post ^ y)
		dst[stride*i] = min(max(y, lo), hi)
	}
	return bad >= 0
}
