package cpuref

import (
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// The data-movement operators of §5.10. Each output shape was planned by the
// run-time plan (§4 step 3), so every index below is in range; a kernel only
// moves values.

// plane is channel c of t.
func plane(t *tensor.T, c int) []int64 {
	n := t.Shape.H * t.Shape.W
	return t.Data[c*n : (c+1)*n]
}

// concat: the inputs' channels, in input order. CHW makes that the inputs'
// data one after the other.
func concat(in []*tensor.T, out *tensor.T) {
	off := 0
	for _, t := range in {
		off += copy(out.Data[off:], t.Data)
	}
}

// split: out[c] = in[start + c].
func split(p *whg1.Split, in, out *tensor.T) {
	n := in.Shape.H * in.Shape.W
	copy(out.Data, in.Data[int(p.Start)*n:])
}

// pixelShuffle: out[c][h·r + i][w·r + j] = in[c·r² + i·r + j][h][w].
func pixelShuffle(p *whg1.Factor, in, out *tensor.T) {
	r := int(p.N)
	H, W, Wo := in.Shape.H, in.Shape.W, out.Shape.W
	for c := range out.Shape.C {
		for i := range r {
			for j := range r {
				src := plane(in, c*r*r+i*r+j)
				for h := range H {
					dst := out.Data[(c*out.Shape.H+h*r+i)*Wo:]
					for w, v := range src[h*W : (h+1)*W] {
						dst[w*r+j] = v
					}
				}
			}
		}
	}
}

// pixelUnshuffle: out[c·r² + i·r + j][h][w] = in[c][h·r + i][w·r + j].
func pixelUnshuffle(p *whg1.Factor, in, out *tensor.T) {
	r := int(p.N)
	Ho, Wo, W := out.Shape.H, out.Shape.W, in.Shape.W
	for c := range in.Shape.C {
		for i := range r {
			for j := range r {
				dst := plane(out, c*r*r+i*r+j)
				for h := range Ho {
					src := in.Data[(c*in.Shape.H+h*r+i)*W:]
					for w := range Wo {
						dst[h*Wo+w] = src[w*r+j]
					}
				}
			}
		}
	}
}

// padRep: out[c][y][x] = in[c][min(y, H−1)][min(x, W−1)].
func padRep(in, out *tensor.T) {
	H, W, Ho, Wo := in.Shape.H, in.Shape.W, out.Shape.H, out.Shape.W
	for c := range out.Shape.C {
		src, dst := plane(in, c), plane(out, c)
		for y := range Ho {
			row := src[min(y, H-1)*W:][:W]
			d := dst[y*Wo:][:Wo]
			copy(d, row)
			for x := W; x < Wo; x++ {
				d[x] = row[W-1]
			}
		}
	}
}

// window copies in[c][y0 + y][x0 + x] into out for every (c, y, x): crop_to
// (y0 = x0 = 0) and crop. For crop the plan checked that y0, x0 ≥ 0 and that
// the window fits (§5.10).
func window(in, out *tensor.T, y0, x0 int) {
	W, Ho, Wo := in.Shape.W, out.Shape.H, out.Shape.W
	for c := range out.Shape.C {
		src, dst := plane(in, c), plane(out, c)
		for y := range Ho {
			copy(dst[y*Wo:][:Wo], src[(y0+y)*W+x0:])
		}
	}
}

// subposSplit: out_k[c][y][x] = in[c][2y + a_k][2x + b_k], (a_k, b_k) = order[k]
// with order[k] = 2a + b.
func subposSplit(p *whg1.Subpos, in *tensor.T, out []*tensor.T) {
	W, Ho, Wo := in.Shape.W, out[0].Shape.H, out[0].Shape.W
	for k, o := range out {
		a, b := int(p.Order[k]>>1), int(p.Order[k]&1)
		for c := range in.Shape.C {
			src, dst := plane(in, c), plane(o, c)
			for y := range Ho {
				row := src[(2*y+a)*W:]
				for x := range Wo {
					dst[y*Wo+x] = row[2*x+b]
				}
			}
		}
	}
}

// subposMerge is the inverse of subposSplit with the same order:
// out[c][2y + a_k][2x + b_k] = in_k[c][y][x].
func subposMerge(p *whg1.Subpos, in []*tensor.T, out *tensor.T) {
	H, W, Wo := in[0].Shape.H, in[0].Shape.W, out.Shape.W
	for k, t := range in {
		a, b := int(p.Order[k]>>1), int(p.Order[k]&1)
		for c := range out.Shape.C {
			src, dst := plane(t, c), plane(out, c)
			for y := range H {
				row := dst[(2*y+a)*Wo:]
				for x := range W {
					row[2*x+b] = src[y*W+x]
				}
			}
		}
	}
}

// fill: every element is v, the constant or the scalar's value.
func fill(v int64, out *tensor.T) {
	for i := range out.Data {
		out.Data[i] = v
	}
}
