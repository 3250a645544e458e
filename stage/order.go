package stage

import "github.com/waiops/waiops/refusal"

// Coding orders of E13.
const (
	OrderRaster       = "raster"
	OrderCheckerboard = "checkerboard"
)

// CodingOrder is E13 coding_order: each element's CHW position
// (c·H + y)·W + x, in coding order. raster is channel, then row, then
// column; checkerboard(anchor) is the elements with (row + col) mod 2 = 0
// when anchor is set, the rest otherwise, each in raster order. Each
// dimension must be at least 1 and the order known (model_mismatch at −1);
// C·H·W past 2^26 is too_large (§3), checked before anything is allocated.
func CodingOrder(c, h, w int64, order string, anchor bool) ([]int64, error) {
	if c < 1 || h < 1 || w < 1 {
		return nil, cond(refusal.ModelMismatch, "coding_order: shape [%d, %d, %d] has a dimension under 1", c, h, w)
	}
	if order != OrderRaster && order != OrderCheckerboard {
		return nil, cond(refusal.ModelMismatch, "coding_order: unknown order %q", order)
	}
	if c > maxElems || h > maxElems || w > maxElems || c*h > maxElems || c*h*w > maxElems {
		return nil, cond(refusal.TooLarge, "coding_order: shape [%d, %d, %d] passes 2^26 elements", c, h, w)
	}
	n := c * h * w
	if order == OrderRaster {
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(i)
		}
		return out, nil
	}
	out := make([]int64, 0, (n+1)/2)
	want := int64(1)
	if anchor {
		want = 0
	}
	for i := range n {
		y, x := (i/w)%h, i%w
		if (y+x)%2 == want {
			out = append(out, i)
		}
	}
	return out, nil
}
