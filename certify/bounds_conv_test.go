package certify

import (
	"testing"

	"github.com/waiops/waiops/whg1"
)

// A conv of one input channel in [−3, 5], cout 2, a 1×2 kernel, pre bias
// (10, −7), floor, shift 1.
//
//	o = 0, W = (2, −1): terms [−6, 10] and [−5, 3]; hull [−6, 10];
//	  A = [min(0, 10) − 6 − 5, max(0, 10) + 10 + 3] = [−11, 23];
//	  q = [⌊−11/2⌋, ⌊23/2⌋] = [−6, 11].
//	o = 1, W = (−4, 0): terms [−20, 12] and [0, 0]; hull [−20, 12];
//	  A = [−7 − 20 + 0, 0 + 12 + 0] = [−27, 12]; q = [−14, 6].
//
// conv.term = [−20, 12], conv.acc = rq.t = rq.p = [−27, 23],
// rq.q = rq.y = out = [−14, 11]. K_c = ⌊(2^31 − 1)/20⌋ = 107374182.
// mac: a_bits = bits([−3, 5]) = 4, w_bits = bits([−4, 2]) = 3.
func TestConvSmall(t *testing.T) {
	b := newGraph(1, -3, 5, 4, 4)
	b.op(whg1.OpConv, &whg1.Conv{Cout: 2, KH: 1, KW: 2, SH: 1, SW: 1, Groups: 1,
		RQ: rqFloor(1, 10, -7), W: []int64{2, -1, -4, 0}}, 2, 0)
	c := certOne(t, b)
	n := &c.Graphs[0].Nodes[0]
	wantKeys(t, n, map[string][2]int64{
		"conv.term": {-20, 12}, "conv.acc": {-27, 23}, "rq.t": {-27, 23},
		"rq.p": {-27, 23}, "rq.q": {-14, 11}, "rq.y": {-14, 11},
	})
	wantIv(t, "out", n.Results[0], bi(-14), bi(11))
	if n.KC == nil || n.KC.Int64() != 107374182 {
		t.Errorf("k_c = %v, want 107374182", n.KC)
	}
	if n.Mac == nil || len(n.Mac.ABits) != 1 || n.Mac.ABits[0] != 4 || n.Mac.WBits != 3 {
		t.Errorf("mac = %+v, want a_bits [4], w_bits 3", n.Mac)
	}
	if !c.Verdict.Acc32 || !c.Verdict.Acc64 || !c.Verdict.NPU {
		t.Errorf("verdict %+v, want acc32, acc64 and npu", c.Verdict)
	}
}

// A conv_transpose with stride 2 over one input channel in [−1, 2], cout 1,
// a 1×3 kernel W = (3, −2, 5), no bias, shift 0. Residue ρx = 0 holds taps
// j = 0 and 2 (weights 3 and 5), ρx = 1 holds tap j = 1 (weight −2).
//
//	terms: 3 → [−3, 6], −2 → [−4, 2], 5 → [−5, 10]; convT.term = [−5, 10].
//	A(K_0, 0) = [−3 − 5, 6 + 10] = [−8, 16]; A(K_1, 0) = [−4, 2].
//	convT.acc = hull = [−8, 16]. All taps in one sum would give [−12, 18].
func TestConvTransposeResidues(t *testing.T) {
	b := newGraph(1, -1, 2, 4, 4)
	b.op(whg1.OpConvTranspose, &whg1.ConvT{Cout: 1, KH: 1, KW: 3, SH: 1, SW: 2,
		RQ: rqFloor(0), W: []int64{3, -2, 5}}, 1, 0)
	c := certOne(t, b)
	n := &c.Graphs[0].Nodes[0]
	wantKeys(t, n, map[string][2]int64{
		"convT.term": {-5, 10}, "convT.acc": {-8, 16}, "rq.t": {-8, 16},
		"rq.p": {-8, 16}, "rq.q": {-8, 16}, "rq.y": {-8, 16},
	})
	// K_c = ⌊(2^31 − 1) / 10⌋.
	if n.KC == nil || n.KC.Int64() != 214748364 {
		t.Errorf("k_c = %v, want 214748364", n.KC)
	}
}

// A 2×2 conv_transpose with stride 2 in both directions over [−1, 2], one
// channel, W = [[1, −2], [3, 4]], pre bias 5: each residue holds one tap.
//
//	terms: 1 → [−1, 2], −2 → [−4, 2], 3 → [−3, 6], 4 → [−4, 8]; convT.term = [−4, 8].
//	A(K_ρ, 5) = [min(0, 5) + lo⁻, max(0, 5) + hi⁺]: [−1, 7], [−4, 7], [−3, 11], [−4, 13];
//	convT.acc = [−4, 13]. One sum over all four taps would be [−12, 23].
func TestConvTransposeStride2x2(t *testing.T) {
	b := newGraph(1, -1, 2, 4, 4)
	b.op(whg1.OpConvTranspose, &whg1.ConvT{Cout: 1, KH: 2, KW: 2, SH: 2, SW: 2,
		RQ: rqFloor(0, 5), W: []int64{1, -2, 3, 4}}, 1, 0)
	n := &certOne(t, b).Graphs[0].Nodes[0]
	wantIv(t, "convT.term", n.Intermediates["convT.term"], bi(-4), bi(8))
	wantIv(t, "convT.acc", n.Intermediates["convT.acc"], bi(-4), bi(13))
}
