package cpuref

import (
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// expNegQ16 is exp_neg_q16(x) of §2, given u = −x ≥ 0 (exp.negx) as an
// unsigned value so that every x ≥ −2^64 + 1 — the difference of two i64
// values, as softmax forms — has its exact u. The steps are §2's, in order:
//
//	n = ⌊u / 45426⌋, g = 45426·n          exp.nl (g ≤ u)
//	r = x + g = −(u mod 45426)            r ∈ (−45426, 0]
//	t = r + 88670                         t ∈ [43245, 88670]
//	t2 = t², q = ⌊t2 / 2^16⌋              exp.t2 < 2^33
//	c = 23495·q, y = ⌊c / 2^16⌋ + 22544   exp.c < 2^32
//
// and the result is 0 if n ≥ 63, else ⌊y / 2^n⌋ (in [0, 65553]).
func expNegQ16(u uint64) int64 {
	n := u / 45426
	if n >= 63 {
		return 0
	}
	r := -int64(u % 45426)
	t := r + 88670
	q := (t * t) >> 16
	y := (23495*q)>>16 + 22544
	return y >> n
}

// rsqrtQ16 is rsqrt_q16(v) of §2 for v ≥ 0 given as an unsigned pair: with
// r = isqrt(v), 0 if r = 0, else ⌊2^32 / r⌋ (rsq.num = 2^32).
func rsqrtQ16(vh, vl uint64) int64 {
	r := isqrt128(vh, vl)
	if r == 0 {
		return 0
	}
	return int64((1 << 32) / r)
}

// sigmoid is §5.8 sigmoid: the argument of exp_neg_q16 is −|v|, so
// exp.negx = |v| (exact as an unsigned value, −2^63 included):
//
//	v ≥ 0: ⌊2^32 / (2^16 + e)⌋
//	v < 0: ⌊e·2^16 / (2^16 + e)⌋    (sig.num = e·2^16 ≤ 65553·2^16)
func sigmoid(in, out *tensor.T) {
	for i, v := range in.Data {
		if v >= 0 {
			e := expNegQ16(uint64(v))
			out.Data[i] = (1 << 32) / (1<<16 + e)
		} else {
			e := expNegQ16(-uint64(v))
			out.Data[i] = (e << 16) / (1<<16 + e)
		}
	}
}

// elu is §5.8 elu(α): v for v > 0, else ⌊α·(exp_neg_q16(v) − 2^16) / 2^16⌋.
// elu.p = α·(e − 2^16) is class wide and is formed exactly in 128 bits. As
// e − 2^16 ∈ [−2^16, 17] the result lies between −|α| and |α|, so only
// α = −2^63 with e = 0 gives one past i64 (2^63). At v = 0, e = 65553 and
// the result is ⌊17·α / 2^16⌋.
func elu(p *whg1.Elu, in, out *tensor.T) error {
	for i, v := range in.Data {
		if v > 0 {
			out.Data[i] = v
			continue
		}
		y := mul64(p.Alpha, expNegQ16(-uint64(v))-1<<16).shr(16)
		if !y.fitsI64() {
			return outside("elu")
		}
		out.Data[i] = int64(y.lo)
	}
	return nil
}
