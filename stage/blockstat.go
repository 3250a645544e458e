package stage

import (
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
)

// BlockStat is E6 block_stat(x; b, s, lo, hi): each channel's plane is tiled
// by b × b blocks from (0, 0), the last row and column of blocks possibly
// partial; every position of a block takes clamp(R_half_up(S, s), lo, hi),
// with S the sum over the block's positions in the plane, and s applied
// whatever the number of those positions.
//
// Conditions (model_mismatch at −1): b ≥ 1, s in 0..=127, lo ≤ hi, and every
// element of x fits i32, E6's width (this package's reading: §5E gives
// block_stat the width i32). A sum of at most 2^26 such elements fits i64.
func BlockStat(x *tensor.T, b, s, lo, hi int64) (*tensor.T, error) {
	if b < 1 || s < 0 || s > 127 || lo > hi {
		return nil, cond(refusal.ModelMismatch, "block_stat: needs b ≥ 1, s in 0..127, lo ≤ hi; have b = %d, s = %d, [%d, %d]", b, s, lo, hi)
	}
	for i, v := range x.Data {
		if !fitsI32(v) {
			return nil, cond(refusal.ModelMismatch, "block_stat: element %d = %d does not fit i32", i, v)
		}
	}
	sh := x.Shape
	out := tensor.New(sh)
	bb := int(min(b, maxElems)) // a block wider than the plane is the plane
	for c := 0; c < sh.C; c++ {
		plane := c * sh.H * sh.W
		for y0 := 0; y0 < sh.H; y0 += bb {
			y1 := min(y0+bb, sh.H)
			for x0 := 0; x0 < sh.W; x0 += bb {
				x1 := min(x0+bb, sh.W)
				var sum int64
				for y := y0; y < y1; y++ {
					for _, v := range x.Data[plane+y*sh.W+x0 : plane+y*sh.W+x1] {
						sum += v
					}
				}
				v := clamp(rHalfUp(sum, uint(s)), lo, hi)
				for y := y0; y < y1; y++ {
					row := out.Data[plane+y*sh.W+x0 : plane+y*sh.W+x1]
					for k := range row {
						row[k] = v
					}
				}
			}
		}
	}
	return out, nil
}
