package certify

import (
	"testing"

	"github.com/waiops/waiops/whg1"
)

// The reductions whose length depends on the picture use the declared
// sizes (§8.1 Sizes). Input [4, 3, 5] in [−2, 3].
//
//	pixel_shuffle r = 2 → [1, 6, 10]: softmax has W_max = 10:
//	  sm.diff = [−5, 0], u = exp.negx = [0, 5], exp.nl = [0, 0],
//	  sm.sum = [0, 10·65553] = [0, 655530],
//	  sm.num = [0, 65553·2^16 + 327765] = [0, 4296409173].
//	l2norm (ε = 7) on it: L = 60, X = 3: l2.T = [0, 60·9 + 7] = [0, 547],
//	  l2.k = [0, ⌊2^32 / isqrt(7)⌋] = [0, 2^31].
//	pad_rep m = 4 → [4, 4, 8]; gram (groups 1, shift 1, half_up) of it with
//	  itself: L = 32, gram.term = hull{4, −6, −6, 9} = [−6, 9],
//	  gram.acc = [32·−6, 32·9] = [−192, 288], rq.p = [−192, 288 + 1],
//	  rq.q = [⌊(−192 + 1)/2⌋, ⌊(288 + 1)/2⌋] = [−96, 144].
func TestSizedReductions(t *testing.T) {
	b := newGraph(4, -2, 3, 3, 5)
	x := b.op(whg1.OpPixelShuffle, &whg1.Factor{N: 2}, 1, 0)
	b.op(whg1.OpSoftmax, nil, 1, x)
	b.op(whg1.OpL2Norm, &whg1.L2Norm{Eps: 7}, 1, x)
	p := b.op(whg1.OpPadRep, &whg1.Factor{N: 4}, 4, 0)
	b.op(whg1.OpGram, &whg1.Contraction{Groups: 1, RQ: whg1.RQ{Round: whg1.HalfUp, SKind: 1, Shift: []uint8{1}}}, 4, p, p)
	c := certOne(t, b)
	n := c.Graphs[0].Nodes
	wantKeys(t, &n[1], map[string][2]int64{
		"sm.diff": {-5, 0}, "exp.negx": {0, 5}, "exp.nl": {0, 0},
		"exp.t2": {43245 * 43245, 88670 * 88670}, "exp.c": {0, 23495 * (88670 * 88670 >> 16)},
		"sm.sum": {0, 655530}, "sm.num": {0, 4296409173},
	})
	wantKeys(t, &n[2], map[string][2]int64{
		"l2.T": {0, 547}, "rsq.num": {1 << 32, 1 << 32}, "l2.k": {0, 1 << 31}, "l2.vk": {-1 << 32, 1 << 32},
	})
	wantIv(t, "l2norm out", n[2].Results[0], bi(-1<<16), bi(1<<16))
	wantKeys(t, &n[4], map[string][2]int64{
		"gram.term": {-6, 9}, "gram.acc": {-192, 288}, "rq.t": {-192, 288},
		"rq.p": {-192, 289}, "rq.q": {-96, 144}, "rq.y": {-96, 144},
	})
	if n[4].Mac == nil || len(n[4].Mac.ABits) != 2 || n[4].Mac.WBits != 0 {
		t.Errorf("gram mac %+v, want two a_bits and no w_bits", n[4].Mac)
	}
}
