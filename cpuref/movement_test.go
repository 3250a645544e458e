package cpuref

import (
	"testing"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

func TestConcatSplit(t *testing.T) {
	out := like(3, 1, 2)
	concat([]*tensor.T{tn(1, 1, 2, 1, 2), tn(2, 1, 2, 3, 4, 5, 6)}, out)
	expect(t, "concat", out, 1, 2, 3, 4, 5, 6)
	s := like(2, 1, 1)
	split(&whg1.Split{Start: 1, Count: 2}, tn(3, 1, 1, 7, 8, 9), s)
	expect(t, "split(1, 2)", s, 8, 9)
}

func TestPixelShuffle(t *testing.T) {
	// r = 2, in [4, 1, 2]: channel k holds (2k, 2k + 1).
	// out[0][i][w·2 + j] = in[i·2 + j][0][w]:
	// row 0 (i = 0): in0[0], in1[0], in0[1], in1[1] = 0, 2, 1, 3;
	// row 1 (i = 1): in2[0], in3[0], in2[1], in3[1] = 4, 6, 5, 7.
	in := tn(4, 1, 2, 0, 1, 2, 3, 4, 5, 6, 7)
	out := like(1, 2, 4)
	pixelShuffle(&whg1.Factor{N: 2}, in, out)
	expect(t, "pixel_shuffle", out, 0, 2, 1, 3, 4, 6, 5, 7)
	back := like(4, 1, 2)
	pixelUnshuffle(&whg1.Factor{N: 2}, out, back)
	expect(t, "pixel_unshuffle", back, 0, 1, 2, 3, 4, 5, 6, 7)
	// r = 1 is the identity both ways.
	id := like(4, 1, 2)
	pixelShuffle(&whg1.Factor{N: 1}, in, id)
	expect(t, "pixel_shuffle r=1", id, 0, 1, 2, 3, 4, 5, 6, 7)
}

func TestPadRep(t *testing.T) {
	// m = 3 on [1, 2, 2] → [1, 3, 3]; the last row and column repeat.
	out := like(1, 3, 3)
	padRep(tn(1, 2, 2, 1, 2, 3, 4), out)
	expect(t, "pad_rep", out, 1, 2, 2, 3, 4, 4, 3, 4, 4)
}

func TestCrops(t *testing.T) {
	in := tn(2, 3, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -2, -3, -4, -5, -6, -7, -8, -9)
	// crop_to a [·, 2, 1] reference: rows 0–1, column 0.
	out := like(2, 2, 1)
	window(in, out, 0, 0)
	expect(t, "crop_to", out, 1, 4, -1, -4)
	// crop y0 = 1, x0 = 1, h = 2, w = 1: (5, 8).
	window(in, out, 1, 1)
	expect(t, "crop", out, 5, 8, -5, -8)
}

func TestSubpos(t *testing.T) {
	// order (1,1), (0,0), (1,0), (0,1), encoded 2a + b = 3, 0, 2, 1.
	// in [1, 2, 4]: row 0 = 0 1 2 3, row 1 = 4 5 6 7.
	// out_k[0][0][x] = in[0][a_k][2x + b_k]:
	// k=0: (5, 7); k=1: (0, 2); k=2: (4, 6); k=3: (1, 3).
	p := &whg1.Subpos{Order: [4]uint8{3, 0, 2, 1}}
	in := tn(1, 2, 4, 0, 1, 2, 3, 4, 5, 6, 7)
	outs := []*tensor.T{like(1, 1, 2), like(1, 1, 2), like(1, 1, 2), like(1, 1, 2)}
	subposSplit(p, in, outs)
	for k, want := range [][]int64{{5, 7}, {0, 2}, {4, 6}, {1, 3}} {
		expect(t, "subpos_split", outs[k], want...)
	}
	back := like(1, 2, 4)
	subposMerge(p, outs, back)
	expect(t, "subpos_merge", back, 0, 1, 2, 3, 4, 5, 6, 7)
}

func TestFill(t *testing.T) {
	out := like(2, 1, 2)
	fill(-9, out)
	expect(t, "fill", out, -9, -9, -9, -9)
}
