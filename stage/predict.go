package stage

import (
	"math/bits"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
)

// avg4 is ⌊(a + b + c + d + 2) / 4⌋, the rounded mean of docs/READINGS.md D-C's
// half-pel and Up2 predictions. Sample values are not range-checked
// (D-C), so it is formed without the sum: each value is 4q + r with
// r ∈ [0, 4); the q's sum lies in [−2^63, 2^63 − 4] and the r's part adds
// ⌊(Σr + 2)/4⌋ ∈ [0, 3]. For samples in [0, 255], as §5E's capabilities
// have, every value formed is at most 4·255 + 2.
func avg4(a, b, c, d int64) int64 {
	q := a>>2 + b>>2 + c>>2 + d>>2
	r := a&3 + b&3 + c&3 + d&3
	return q + (r+2)>>2
}

// MCPredict is E10 mc_predict (integer-payloads §3, D-C): the
// prediction of channel c of pixel (y, x) of frame [3, h, w] moved by
// (dy, dx) at mv_precision 1 (whole-pel) or 2 (half-pel units). Each
// coordinate is clamped into the frame when its sample is read.
// Conditions (model_mismatch at −1): the frame has 3 channels, c ∈ {0,1,2},
// (y, x) lies in the frame, precision is 1 or 2, and dy, dx fit i32 (E10's
// width).
func MCPredict(frame *tensor.T, y, x, c, dy, dx, precision int64) (int64, error) {
	sh := frame.Shape
	if sh.C != 3 || c < 0 || c > 2 || y < 0 || y >= int64(sh.H) || x < 0 || x >= int64(sh.W) ||
		(precision != 1 && precision != 2) || !fitsI32(dy) || !fitsI32(dx) {
		return 0, cond(refusal.ModelMismatch, "mc_predict: needs a [3, h, w] frame, c in 0..2, (y, x) in it, precision 1 or 2, dy and dx in i32")
	}
	at := func(yy, xx int64) int64 {
		yy, xx = clamp(yy, 0, int64(sh.H-1)), clamp(xx, 0, int64(sh.W-1))
		return frame.Data[(c*int64(sh.H)+yy)*int64(sh.W)+xx]
	}
	if precision == 1 {
		return at(y+dy, x+dx), nil
	}
	// Half-pel: iy = ⌊dy/2⌋, ry = dy mod 2 (arithmetic shift and mask are
	// floor and mod for a negative dy); y1 = y0 + ry formed before clamping.
	y0, x0 := y+dy>>1, x+dx>>1
	y1, x1 := y0+dy&1, x0+dx&1
	return avg4(at(y0, x0), at(y0, x1), at(y1, x0), at(y1, x1)), nil
}

// Up2Predict is E11 up2_predict (staged-delivery A.4, D-C): prev
// [c, h′, w′] predicts [c, d0, d1]. d0, d1 ≥ 1, h′ = ⌈d0/2⌉ and w′ = ⌈d1/2⌉
// (else geometry_mismatch at −1); an output past 2^26 elements is then
// too_large.
func Up2Predict(prev *tensor.T, d0, d1 int64) (*tensor.T, error) {
	sh := prev.Shape
	if d0 < 1 || d1 < 1 {
		return nil, cond(refusal.GeometryMismatch, "up2_predict: d0 = %d, d1 = %d must be at least 1", d0, d1)
	}
	if int64(sh.H) != d0/2+d0%2 || int64(sh.W) != d1/2+d1%2 {
		return nil, cond(refusal.GeometryMismatch, "up2_predict: prev %v is not [c, ⌈%d/2⌉, ⌈%d/2⌉]", sh, d0, d1)
	}
	// prev holds at most 2^26 elements, so d0, d1 ≤ 2^27 and this fits.
	if int64(sh.C)*d0*d1 > maxElems {
		return nil, cond(refusal.TooLarge, "up2_predict: output [%d, %d, %d] passes 2^26 elements", sh.C, d0, d1)
	}
	out := tensor.New(tensor.Shape{C: sh.C, H: int(d0), W: int(d1)})
	h, w := sh.H, sh.W
	i := 0
	for ch := 0; ch < sh.C; ch++ {
		p := prev.Data[ch*h*w : (ch+1)*h*w]
		for y := 0; y < int(d0); y++ {
			y0 := y / 2
			y1 := min(y0+y%2, h-1)
			for x := 0; x < int(d1); x++ {
				x0 := x / 2
				x1 := min(x0+x%2, w-1)
				out.Data[i] = avg4(p[y0*w+x0], p[y0*w+x1], p[y1*w+x0], p[y1*w+x1])
				i++
			}
		}
	}
	return out, nil
}

// rdiv is E12's rdiv(n, d): 0 for d < 1, otherwise
// sgn(n)·⌊(2|n| + d) / (2d)⌋. Callers keep |n| < 2^47 and d < 2^32 (E12),
// so 2|n| + d < 2^49.
func rdiv(n, d int64) int64 {
	if d < 1 {
		return 0
	}
	q := (2*abs(n) + d) / (2 * d)
	if n < 0 {
		return -q
	}
	return q
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// RatePredict is E12 rate_predict (staged-delivery A.4 Rate, D-C):
// prev [c, 1, n′] of i16 samples predicts [c, 1, d0]. Conditions: rate_num
// and rate_den are u32 fields and the samples fit i16 (model_mismatch);
// rate_num, rate_den and d0 are at least 1 and prev is [c, 1, n′] with
// n′ = ⌈d0·rate_den / rate_num⌉ (geometry_mismatch); an output past 2^26 is
// then too_large. All at −1.
func RatePredict(prev *tensor.T, rateNum, rateDen, d0 int64) (*tensor.T, error) {
	if rateNum > 1<<32-1 || rateDen > 1<<32-1 {
		return nil, cond(refusal.ModelMismatch, "rate_predict: rate_num %d or rate_den %d passes u32", rateNum, rateDen)
	}
	for i, v := range prev.Data {
		if v < minI16 || v > maxI16 {
			return nil, cond(refusal.ModelMismatch, "rate_predict: sample %d = %d does not fit i16", i, v)
		}
	}
	if rateNum < 1 || rateDen < 1 || d0 < 1 {
		return nil, cond(refusal.GeometryMismatch, "rate_predict: rate_num %d, rate_den %d and d0 %d must be at least 1", rateNum, rateDen, d0)
	}
	sh := prev.Shape
	// n′ = ⌈d0·rate_den / rate_num⌉, formed in 128 bits: d0 is any i64 here.
	hi, lo := bits.Mul64(uint64(d0), uint64(rateDen))
	lo, carry := bits.Add64(lo, uint64(rateNum-1), 0)
	hi += carry
	if sh.H != 1 || hi >= uint64(rateNum) {
		return nil, cond(refusal.GeometryMismatch, "rate_predict: prev %v is not [c, 1, ⌈%d·%d/%d⌉]", sh, d0, rateDen, rateNum)
	}
	if np, _ := bits.Div64(hi, lo, uint64(rateNum)); uint64(sh.W) != np {
		return nil, cond(refusal.GeometryMismatch, "rate_predict: prev %v is not [c, 1, %d]", sh, np)
	}
	// n′ ≥ d0·rate_den/rate_num and prev holds at most 2^26 elements, so
	// d0 < 2^58 here and i·rate_den below fits i64; now the cap.
	if int64(sh.C)*d0 > maxElems {
		return nil, cond(refusal.TooLarge, "rate_predict: output [%d, 1, %d] passes 2^26 elements", sh.C, d0)
	}
	out := tensor.New(tensor.Shape{C: sh.C, H: 1, W: int(d0)})
	n := sh.W
	for ch := 0; ch < sh.C; ch++ {
		p := prev.Data[ch*n : (ch+1)*n]
		for i := int64(0); i < d0; i++ {
			// t = i·rate_den < 2^26·2^32 fits i64; k = ⌊t/rate_num⌋,
			// ρ = t mod rate_num (t ≥ 0, so / and % are floor and mod).
			t := i * rateDen
			k, rho := t/rateNum, t%rateNum
			a := p[min(k, int64(n-1))]
			b := p[min(k+1, int64(n-1))]
			// |a·rate_num|, |(b − a)·ρ| < 2^48 (E12).
			out.Data[ch*int(d0)+int(i)] = rdiv(a*rateNum+(b-a)*rho, rateNum)
		}
	}
	return out, nil
}
