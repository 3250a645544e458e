package cpuref

import (
	"math/bits"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// rescale is §5.4 rescale: out[c][y][x] = rq_c(in[c][y][x]), a plane at a
// time (rqRow: int64 where its bound holds), then post (a folded relu or
// clamp, nil for none) on the plane while it is in cache.
func rescale(p *whg1.Rescale, post *clampPost, in, out *tensor.T) error {
	for c := range in.Shape.C {
		src, dst := plane(in, c), plane(out, c)
		if !rqRow(&p.RQ, c, maxAbs(src), src, dst) {
			return outside("rescale")
		}
		post.row(dst)
	}
	return nil
}

// chscale is §5.4 chscale: out[c][y][x] = R_round(in[c][y][x] · M[r][c], s),
// r the value of scalar k (its declared range lies in [0, n_rows − 1], a load
// check, and step 2 of §4 held the value to that range). The product is
// formed exactly in 128 bits.
func chscale(p *whg1.Chscale, r int64, in, out *tensor.T) error {
	C := in.Shape.C
	row := p.M[int(r)*C:][:C]
	for c, m := range row {
		src, dst := plane(in, c), plane(out, c)
		for i, v := range src {
			y := roundShift(mul64(v, m), uint(p.Shift), p.Round)
			if !y.fitsI64() {
				return outside("chscale")
			}
			dst[i] = int64(y.lo)
		}
	}
	return nil
}

// mul is §5.4 mul: out[c][y][x] = rq_c(a[c][y][x] · b[c′][y][x]), c′ = c when
// b has C channels and 0 when it has one. mul.p is exact in 128 bits, or in
// int64 when max|a|·max|b| ≤ 2^63 − 1 bounds every product: the products
// of a plane then go into out and rqRow turns them into outputs in place.
// post (a folded relu or clamp, nil for none) follows on each plane.
func mul(p *whg1.Rescale, post *clampPost, a, b, out *tensor.T) error {
	hi, P := bits.Mul64(maxAbs(a.Data), maxAbs(b.Data))
	narrow := hi == 0 && P <= 1<<63-1
	for c := range a.Shape.C {
		cb := 0
		if b.Shape.C == a.Shape.C {
			cb = c
		}
		pa, pb, dst := plane(a, c), plane(b, cb), plane(out, c)
		if narrow {
			pb = pb[:len(pa)]
			for i, v := range pa {
				dst[i] = v * pb[i] // |v·b| ≤ P ≤ 2^63 − 1
			}
			if !rqRow(&p.RQ, c, P, dst, dst) {
				return outside("mul")
			}
			post.row(dst)
			continue
		}
		for i, v := range pa {
			y, ok := rqOf(&p.RQ, c, mul64(v, pb[i]))
			if !ok {
				return outside("mul")
			}
			dst[i] = y
		}
		post.row(dst)
	}
	return nil
}
