package cpuref

import (
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// The contractions of §5.9. Each sum is formed exactly: products by mul64,
// partial sums in 128 bits with overflow checked, then the rq (no multiplier,
// no bias, one shift), which narrows the result to i64.

// gram: out[g·d + i][0][j] = R_round(Σ_{y,x} A[g·d + i][y][x]·B[g·d + j][y][x], s),
// d = C / groups; the output is [C, 1, d].
func gram(p *whg1.Contraction, a, b, out *tensor.T) error {
	C := a.Shape.C
	d := C / int(p.Groups)
	for ch := range C {
		g := ch / d
		pa := plane(a, ch)
		for j := range d {
			pb := plane(b, g*d+j)
			var s int128
			var ok bool
			for k, v := range pa {
				if s, ok = s.add(mul64(v, pb[k])); !ok {
					return outside("gram")
				}
			}
			y, ok := rqOf(&p.RQ, ch, s)
			if !ok {
				return outside("gram")
			}
			out.Data[ch*d+j] = y
		}
	}
	return nil
}

// apply: out[g·d + i][y][x] = R_round(Σ_{j<d} A[g·d + i][0][j]·V[g·d + j][y][x], s),
// with A [C, 1, d] and V [C, H, W].
func apply(p *whg1.Contraction, a, v, out *tensor.T) error {
	C, n := v.Shape.C, v.Shape.H*v.Shape.W
	d := C / int(p.Groups)
	acc := make([]int128, n)
	for ch := range C {
		g := ch / d
		clear(acc)
		for j, w := range a.Data[ch*d : (ch+1)*d] {
			var ok bool
			for k, x := range plane(v, g*d+j) {
				if acc[k], ok = acc[k].add(mul64(w, x)); !ok {
					return outside("apply")
				}
			}
		}
		dst := plane(out, ch)
		for k, s := range acc {
			y, ok := rqOf(&p.RQ, ch, s)
			if !ok {
				return outside("apply")
			}
			dst[k] = y
		}
	}
	return nil
}
