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
		if w < 0 {
			k.wsum[o], _ = k.wsum[o].sub(i128(w)) // ≤ 2^32·2^63: no overflow
		} else {
			k.wsum[o], _ = k.wsum[o].add64(w)
		}
	}
	return k
}

// gatherTaps lists, for one output coordinate y, the kernel rows i and input
// rows u = (y + pad − i) / stride that reach it.
func gatherTaps(y, pad, stride, k, n int) (taps []int, rows []int) {
	for i := range k {
		t := y + pad - i
		if t >= 0 && t%stride == 0 && t/stride < n {
			taps = append(taps, i)
			rows = append(rows, t/stride)
		}
	}
	return taps, rows
}

func (k *convTKernel) run(x, out *tensor.T) error {
	p := k.p
	H, W := x.Shape.H, x.Shape.W
	kh, kw, cout := int(p.KH), int(p.KW), int(p.Cout)
	Ho, Wo := out.Shape.H, out.Shape.W
	X := maxAbs(x.Data)
	fast := X <= 1<<63-1
	for _, s := range k.wsum {
		b, ok := s.mul(int64(min(X, 1<<63-1)))
		fast = fast && ok && b.fitsI64()
	}
	colTaps := make([][]int, Wo)
	colIn := make([][]int, Wo)
	for ox := range Wo {
		colTaps[ox], colIn[ox] = gatherTaps(ox, int(p.PW), int(p.SW), kw, W)
	}
	for oy := range Ho {
		is, us := gatherTaps(oy, int(p.PH), int(p.SH), kh, H)
		for o := range cout {
			for ox := range Wo {
				var s int128
				var f int64
				for ci := range k.cin {
					wbase := (ci*cout + o) * kh
					xbase := ci * H
					for a, i := range is {
						wrow := p.W[(wbase+i)*kw:][:kw]
						xrow := x.Data[(xbase+us[a])*W:][:W]
						for b, j := range colTaps[ox] {
							w, v := wrow[j], xrow[colIn[ox][b]]
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
