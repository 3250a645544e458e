package cpuref

import (
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// convTKernel is §5.3 conv_transpose in the gather form:
//
//	acc[o][y][x] = Σ Wt[ci][o][i][j] · X[ci][ty/sh][tx/sw]
//	over ci < cin, i < kh, j < kw with ty = y + ph − i ≥ 0, ty mod sh = 0,
//	ty/sh < H, and likewise tx = x + pw − j for the columns
//	out[o][y][x] = rq_o(acc[o][y][x])
//
// A position that no tap reaches holds rq_o(0). When B = max_o Σ|Wt[·][o]|·max|x|
// fits i64, every term and partial sum lies in [−B, B] and the sum is formed
// in int64; otherwise each product is exact (mul64) and the sum is 128-bit
// with overflow checked.
type convTKernel struct {
	p    *whg1.ConvT
	cin  int
	wsum []int128 // Σ over ci, i, j of |Wt[ci][o][i][j]|, for each o
}

func newConvT(p *whg1.ConvT, cin int) *convTKernel {
	k := &convTKernel{p: p, cin: cin, wsum: make([]int128, p.Cout)}
	taps := int(p.KH * p.KW)
	for i, w := range p.W {
		o := i / taps % int(p.Cout)
		k.wsum[o] = addAbs(k.wsum[o], w)
	}
	return k
}

// gatherRange gives, for one output coordinate y, the kernel taps that reach
// it: i = first, first + stride, …, up to last (none when first > last),
// each reading input row u = (t − i) / stride with t = y + pad. These are
// the i ≤ k − 1 with i ≡ t mod stride, t − i ≥ 0 and (t − i) / stride < n.
func gatherRange(y, pad, stride, k, n int) (first, last, t int) {
	t = y + pad
	lo := max(0, t-stride*(n-1))
	return lo + (t-lo)%stride, min(k-1, t), t
}

func (k *convTKernel) run(x, out *tensor.T) error {
	p := k.p
	H, W := x.Shape.H, x.Shape.W
	kh, kw, cout, sh, sw := int(p.KH), int(p.KW), int(p.Cout), int(p.SH), int(p.SW)
	Ho, Wo := out.Shape.H, out.Shape.W
	_, fast := maxScaled(k.wsum, maxAbs(x.Data))
	for oy := range Ho {
		i0, i1, ty := gatherRange(oy, int(p.PH), sh, kh, H)
		for o := range cout {
			for ox := range Wo {
				j0, j1, tx := gatherRange(ox, int(p.PW), sw, kw, W)
				var s int128
				var f int64
				for ci := range k.cin {
					for i := i0; i <= i1; i += sh {
						wrow := p.W[((ci*cout+o)*kh+i)*kw:][:kw]
						xrow := x.Data[(ci*H+(ty-i)/sh)*W:][:W]
						for j := j0; j <= j1; j += sw {
							w, v := wrow[j], xrow[(tx-j)/sw]
							if fast {
								f += w * v // |partial sums| ≤ B ≤ 2^63 − 1
								continue
							}
							var ok bool
							if s, ok = s.add(mul64(w, v)); !ok {
								return outside("conv_transpose")
							}
						}
					}
				}
				if fast {
					s = i128(f)
				}
				y, ok := rqOf(&p.RQ, o, s)
				if !ok {
					return outside("conv_transpose")
				}
				out.Data[(o*Ho+oy)*Wo+ox] = y
			}
		}
	}
	return nil
}
