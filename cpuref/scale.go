package cpuref

import (
	"math/bits"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// rescale is §5.4 rescale: out[c][y][x] = rq_c(in[c][y][x]), a plane at a
// time (rqRow: int64 where its bound holds), then post (what fuse folded
// in, nil for none) on the plane while it is in cache. X bounds every
// |in| (the certified max, §8.5), or is 0 for none known: each plane's
// max|v| is then measured, as it is where the certified max is too wide for
// rqRow's int64 form and a plane's own may not be.
func rescale(p *whg1.Rescale, post *rowPost, X uint64, in, out *tensor.T) error {
	for c := range in.Shape.C {
		src, dst := plane(in, c), plane(out, c)
		x := X
		if x == 0 || !rqFits64(&p.RQ, c, x) {
			x = maxAbs(src)
		}
		if !rqRow(&p.RQ, c, x, src, dst) {
			return outside("rescale")
		}
		post.row(dst)
	}
	return nil
}

// chscale is §5.4 chscale: out[c][y][x] = R_round(in[c][y][x] · M[r][c], s),
// r the value of scalar k (its declared range lies in [0, n_rows − 1], a load
// check, and step 2 of §4 held the value to that range). That is rq_c of
// §5.1 with multipliers M[r], shift s and no bias, so it runs as one
// (rescale): the product exact in 128 bits, or in int64 where its bound
// holds, and post (what fuse folded in, nil for none) on each plane.
func chscale(p *whg1.Chscale, post *rowPost, r int64, X uint64, in, out *tensor.T) error {
	C := in.Shape.C
	rq := whg1.RQ{Round: p.Round, MKind: 2, Mult: p.M[int(r)*C:][:C], SKind: 1, Shift: []uint8{p.Shift}}
	if err := rescale(&whg1.Rescale{RQ: rq}, post, X, in, out); err != nil {
		return outside("chscale")
	}
	return nil
}

// mul is §5.4 mul: out[c][y][x] = rq_c(a[c][y][x] · b[c′][y][x]), c′ = c when
// b has C channels and 0 when it has one. mul.p is exact in 128 bits, or in
// int64 when max|a|·max|b| ≤ 2^63 − 1 bounds every product: the products
// of a plane then go into out and rqRow turns them into outputs in place.
// post (what fuse folded in, nil for none) follows on each plane. XA
// and XB bound |a| and |b| (the certified maxima, §8.5), or are 0 for none
// known: the inputs' own maxima are then measured.
func mul(p *whg1.Rescale, post *rowPost, XA, XB uint64, a, b, out *tensor.T) error {
	if XA == 0 || XB == 0 || !productFits(XA, XB) {
		XA, XB = maxAbs(a.Data), maxAbs(b.Data)
	}
	hi, P := bits.Mul64(XA, XB)
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
