package certify

import (
	"testing"

	"github.com/waiops/waiops/whg1"
)

// The elementwise, requantising and movement rules of §8.3 over an input
// [2, H, W] in [−7, 5], each worked by hand.
func TestElementwiseRules(t *testing.T) {
	b := newGraph(2, -7, 5, 4, 4)
	b.g.Scalars = []whg1.Scalar{{Lo: 0, Hi: 1}}
	ops := []struct {
		code   whg1.Opcode
		params any
		c      uint32
		in     []uint32
		inter  map[string][2]int64
		out    [2]int64
	}{
		// add: [−7 − 7, 5 + 5]; chunk_add: [2·−7, 2·5].
		{whg1.OpAdd, nil, 2, []uint32{0, 0}, nil, [2]int64{-14, 10}},
		{whg1.OpChunkAdd, nil, 1, []uint32{0}, nil, [2]int64{-14, 10}},
		// abs (docs/READINGS.md D-A2): l < 0 < h gives [0, max(7, 5)].
		{whg1.OpAbs, nil, 2, []uint32{0}, nil, [2]int64{0, 7}},
		{whg1.OpRelu, nil, 2, []uint32{0}, nil, [2]int64{0, 5}},
		{whg1.OpClamp, &whg1.ClampParams{Lo: -3, Hi: 4}, 2, []uint32{0}, nil, [2]int64{-3, 4}},
		// leaky(3, 1): p = [−7, −1]·3 = [−21, −3]; negative part
		// [⌊−21/2⌋, ⌊−3/2⌋] = [−11, −2]; non-negative part [0, 5].
		{whg1.OpLeaky, &whg1.Leaky{A: 3, F: 1}, 2, []uint32{0}, map[string][2]int64{"leaky.p": {-21, -3}}, [2]int64{-11, 5}},
		// leaky(−2, 0): p = hull{14, 2} = [2, 14]; result hull [0, 14].
		{whg1.OpLeaky, &whg1.Leaky{A: -2, F: 0}, 2, []uint32{0}, map[string][2]int64{"leaky.p": {2, 14}}, [2]int64{0, 14}},
		// elu(−3): u = [0, 7]; elu.p = hull{−3·−2^16, −3·17} = [−51, 196608];
		// result hull of [1, 5] and [⌊−51/2^16⌋, ⌊196608/2^16⌋] = [−1, 3].
		{whg1.OpElu, &whg1.Elu{Alpha: -3}, 2, []uint32{0}, map[string][2]int64{
			"exp.negx": {0, 7}, "exp.nl": {0, 0}, "exp.t2": {43245 * 43245, 88670 * 88670},
			"exp.c": {0, 23495 * (88670 * 88670 >> 16)}, "elu.p": {-51, 196608}}, [2]int64{-1, 5}},
		// mul(x, x), mult (2, −1), shift 1: mul.p = hull{49, −35, 25} = [−35, 49];
		// c0: P = [−70, 98], q = [−35, 49]; c1: P = [−49, 35], q = [−25, 17].
		{whg1.OpMul, &whg1.Rescale{RQ: whg1.RQ{MKind: 2, Mult: []int64{2, -1}, SKind: 1, Shift: []uint8{1}}}, 2,
			[]uint32{0, 0}, map[string][2]int64{"mul.p": {-35, 49}, "rq.t": {-35, 49}, "rq.p": {-70, 98},
				"rq.q": {-35, 49}, "rq.y": {-35, 49}}, [2]int64{-35, 49}},
		// chscale over rows 0..1 of M = [[1, −2], [3, 0]], shift 0:
		// c0: m ∈ {1, 3}: [−7, 5] ∪ [−21, 15]; c1: m ∈ {−2, 0}: [−10, 14] ∪ [0, 0].
		{whg1.OpChscale, &whg1.Chscale{Scalar: 0, NRows: 2, Round: whg1.HalfUp, M: []int64{1, -2, 3, 0}}, 2,
			[]uint32{0}, map[string][2]int64{"rq.t": {-7, 5}, "rq.p": {-21, 15}, "rq.q": {-21, 15},
				"rq.y": {-21, 15}}, [2]int64{-21, 15}},
		// rescale, pre bias (3, −4), half_even, shift 2: c0 t = [−4, 8],
		// p = [−4, 8 + 2], q = [R(−4), R(8)] = [−1, 2]; c1 t = [−11, 1],
		// q = [R(−11), R(1)]: −11/4 = −2.75 → −3, 1/4 → 0.
		{whg1.OpRescale, &whg1.Rescale{RQ: whg1.RQ{Round: whg1.HalfEven, SKind: 1, Shift: []uint8{2},
			Bias: whg1.PreBias, BiasV: []int64{3, -4}}}, 2, []uint32{0}, map[string][2]int64{
			"rq.t": {-11, 8}, "rq.p": {-11, 10}, "rq.q": {-3, 2}, "rq.y": {-3, 2}}, [2]int64{-3, 2}},
		{whg1.OpFill, &whg1.Fill{Value: -9}, 3, []uint32{0}, nil, [2]int64{-9, -9}},
		{whg1.OpFill, &whg1.Fill{Scalar: true, Value: 0}, 1, []uint32{0}, nil, [2]int64{0, 1}},
	}
	for _, o := range ops {
		b.op(o.code, o.params, o.c, o.in...)
	}
	// concat of the clamp output [−3, 4] and the fill [−9, −9]: the hull.
	b.op(whg1.OpConcat, nil, 5, 5, 12)
	c := certOne(t, b)
	for i, o := range ops {
		n := &c.Graphs[0].Nodes[i]
		wantKeys(t, n, o.inter)
		wantIv(t, o.code.String()+" out", n.Results[0], bi(o.out[0]), bi(o.out[1]))
	}
	wantIv(t, "concat out", c.Graphs[0].Nodes[len(ops)].Results[0], bi(-9), bi(4))
	if m := c.Graphs[0].Nodes[9].Mac; m == nil || m.WBits != 3 {
		t.Errorf("chscale mac %+v, want w_bits = bits([−2, 3]) = 3", m)
	}
}
