package certify

import (
	"testing"

	"github.com/waiops/waiops/whg1"
)

// Corners of §8.3 the other tests leave out, each worked by hand from the
// spec's text over an input [1, H, W] in [−7, −5].
func TestRuleCorners(t *testing.T) {
	b := newGraph(1, -7, -5, 4, 4)
	// 0. rescale, mult −1, shift 1, half_even: P = [−1·−5, −1·−7] = [5, 7];
	//    rq.p = [5, 7 + 2^0] = [5, 8]; R(5, 1): q = 2, r = 1 = h, q even → 2;
	//    R(7, 1): q = 3, r = 1 = h, q odd → 4; rq.q = rq.y = [2, 4].
	b.op(whg1.OpRescale, &whg1.Rescale{RQ: whg1.RQ{Round: whg1.HalfEven, MKind: 1, Mult: []int64{-1},
		SKind: 1, Shift: []uint8{1}}}, 1, 0)
	// 1. relu gives [0, 0]; a clamp policy [20, 30] makes the tensor
	//    [clamp(0, 20, 30), clamp(0, 20, 30)] = [20, 20] (§8.1), while the
	//    producer result stays [0, 0].
	b.opPolicy(whg1.OpRelu, nil, 1, whg1.Clamp, 20, 30, 0)
	// 2. abs: h ≤ 0 gives [−h, −l] = [5, 7] (docs/READINGS.md D-A2).
	s := b.op(whg1.OpAbs, nil, 1, 0)
	// 3. sigmoid on [5, 7]: u = [5, 7], exp.nl = [0, 0]; h ≥ 0 and l ≥ 0, so
	//    sig.num = [2^32, 2^32] alone (D-A3).
	b.op(whg1.OpSigmoid, nil, 1, s)
	// 4. elu(−3) on [5, 7]: u = [max(0, −7), max(0, −5)] = [0, 0]; h > 0 and
	//    l > 0, so the result is [max(5, 1), 7] alone.
	b.op(whg1.OpElu, &whg1.Elu{Alpha: -3}, 1, s)
	// 5. leaky(3, 1) on [5, 7]: l ≥ 0, so leaky.p = [0, 0] and the result is
	//    the non-negative part [5, 7].
	b.op(whg1.OpLeaky, &whg1.Leaky{A: 3, F: 1}, 1, s)
	// 6. conv_transpose, 1×2 kernel W = (3, 2), stride 3 > kw, pre bias −4,
	//    over [−7, −5]: residue 0 = {3}: term [−21, −15], A = [−4 − 21, 0 + 0]
	//    = [−25, 0]; residue 1 = {2}: term [−14, −10], A = [−4 − 14, 0] =
	//    [−18, 0]; residue 2 has no tap: A(∅, −4) = [−4, 0]. convT.term =
	//    [−21, −10], convT.acc = [−25, 0] (one sum over both taps would be
	//    [−39, 0]); k_c = ⌊(2^31 − 1)/21⌋ = 102261126.
	b.op(whg1.OpConvTranspose, &whg1.ConvT{Cout: 1, KH: 1, KW: 2, SH: 1, SW: 3, RQ: rqFloor(0, -4),
		W: []int64{3, 2}}, 1, 0)
	n := certOne(t, b).Graphs[0].Nodes

	wantKeys(t, &n[0], map[string][2]int64{"rq.t": {-7, -5}, "rq.p": {5, 8}, "rq.q": {2, 4}, "rq.y": {2, 4}})
	wantIv(t, "relu result", n[1].Results[0], bi(0), bi(0))
	wantIv(t, "relu clamped tensor", n[1].Out[0], bi(20), bi(20))
	wantIv(t, "abs", n[2].Results[0], bi(5), bi(7))
	wantIv(t, "sigmoid exp.negx", n[3].Intermediates["exp.negx"], bi(5), bi(7))
	wantIv(t, "sigmoid exp.nl", n[3].Intermediates["exp.nl"], bi(0), bi(0))
	wantIv(t, "sigmoid sig.num", n[3].Intermediates["sig.num"], big2(32), big2(32))
	wantIv(t, "elu exp.negx", n[4].Intermediates["exp.negx"], bi(0), bi(0))
	wantIv(t, "elu", n[4].Results[0], bi(5), bi(7))
	wantKeys(t, &n[5], map[string][2]int64{"leaky.p": {0, 0}})
	wantIv(t, "leaky", n[5].Results[0], bi(5), bi(7))
	wantKeys(t, &n[6], map[string][2]int64{"convT.term": {-21, -10}, "convT.acc": {-25, 0},
		"rq.t": {-25, 0}, "rq.p": {-25, 0}, "rq.q": {-25, 0}, "rq.y": {-25, 0}})
	if n[6].KC == nil || n[6].KC.Int64() != 102261126 {
		t.Errorf("k_c = %v, want 102261126", n[6].KC)
	}
}
