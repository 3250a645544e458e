package certify

import (
	"math"
	"reflect"
	"testing"

	"github.com/waiops/waiops/whg1"
)

// A rescale with pre bias 1 over [0, 2^31 − 1]: rq.t, rq.p, rq.q, rq.y and
// the result are all [1, 2^31], one unit past i32 (33 bits). The tie among
// them goes to the smallest key in byte order: "out.0" < "rq.p".
func TestFailsAcc32ByOneUnit(t *testing.T) {
	b := newGraph(1, 0, math.MaxInt32, 4, 4)
	b.op(whg1.OpRescale, &whg1.Rescale{RQ: rqFloor(0, 1)}, 1, 0)
	c := certOne(t, b)
	wantFailure(t, c.Verdict.Acc32Failure, &Failure{Graph: "g", Where: "node", Index: 0, Key: "out.0", Bits: 33})
	if !c.Verdict.Acc64 || c.Verdict.Acc64Failure != nil {
		t.Errorf("acc64 = %v (%v), want true", c.Verdict.Acc64, c.Verdict.Acc64Failure)
	}
	if !reflect.DeepEqual(c.Verdict.NPUReasons, []string{"acc32"}) {
		t.Errorf("npu_reasons %v, want [acc32]", c.Verdict.NPUReasons)
	}
	// With input hi one lower, every value fits i32.
	b = newGraph(1, 0, math.MaxInt32-1, 4, 4)
	b.op(whg1.OpRescale, &whg1.Rescale{RQ: rqFloor(0, 1)}, 1, 0)
	if c := certOne(t, b); !c.Verdict.Acc32 {
		t.Errorf("acc32 fails: %v", c.Verdict.Acc32Failure)
	}
}

// An rq whose q passes 64 bits while y fits: input [2^62, 2^62], mult 3,
// shift 0, post bias −2^63. q = 3·2^62 (65 bits, class acc), y = 2^62. Under
// acc32 the input's declared range fails first (64 bits).
func TestFailsAcc64RQ(t *testing.T) {
	b := newGraph(1, 1<<62, 1<<62, 4, 4)
	rq := whg1.RQ{Round: whg1.Floor, MKind: 1, Mult: []int64{3}, SKind: 1, Shift: []uint8{0},
		Bias: whg1.PostBias, BiasV: []int64{math.MinInt64}}
	b.op(whg1.OpRescale, &whg1.Rescale{RQ: rq}, 1, 0)
	c := certOne(t, b)
	n := &c.Graphs[0].Nodes[0]
	q := bigS("13835058055282163712") // 3·2^62
	wantIv(t, "rq.q", n.Intermediates["rq.q"], q, q)
	wantIv(t, "rq.y", n.Intermediates["rq.y"], big2(62), big2(62))
	wantFailure(t, c.Verdict.Acc64Failure, &Failure{Graph: "g", Where: "node", Index: 0, Key: "rq.q", Bits: 65})
	wantFailure(t, c.Verdict.Acc32Failure, &Failure{Graph: "g", Where: "input", Index: 0, Key: "range", Bits: 64})
	// post bias −2^63 fails rq.post_bias, mult fits: the node's acc32_params.
	if !reflect.DeepEqual(n.Acc32Params, []string{"rq.post_bias"}) {
		t.Errorf("acc32_params %v, want [rq.post_bias]", n.Acc32Params)
	}
	if want := []string{"rq_floor_mult", "rq_post_bias"}; !reflect.DeepEqual(n.NPUFlags, want) {
		t.Errorf("npu_flags %v, want %v", n.NPUFlags, want)
	}
}

// A chain that reaches [0, 2^255] exactly, then an igdn on it:
// [−2^63, 0] ·(−2^63) → [0, 2^126] ·(−2^63) → [−2^189, 0] ·(−2^63) →
// [0, 2^252] ·8 → [0, 2^255]; none saturates. igdn.x2 forms (2^255)² = 2^510,
// which sat changes to 2^255: the igdn is saturated.
func TestSaturatedIGDN(t *testing.T) {
	b := newGraph(1, math.MinInt64, 0, 4, 4)
	x := uint32(0)
	for _, w := range []int64{math.MinInt64, math.MinInt64, math.MinInt64, 8} {
		x = b.op(whg1.OpConv, &whg1.Conv{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, RQ: rqFloor(0), W: []int64{w}}, 1, x)
	}
	b.op(whg1.OpIGDN, &whg1.IGDN{GF: 0, Frac: 0, Gamma: []int64{1}, Beta: []int64{0}}, 1, x)
	c := certOne(t, b)
	nodes := c.Graphs[0].Nodes
	for i := 0; i < 4; i++ {
		if nodes[i].Saturated {
			t.Errorf("node %d is saturated", i)
		}
	}
	wantIv(t, "conv 3 out", nodes[3].Out[0], bi(0), big2(255))
	ig := &nodes[4]
	if !ig.Saturated {
		t.Fatal("igdn is not saturated")
	}
	wantIv(t, "igdn.x2", ig.Intermediates["igdn.x2"], bi(0), big2(255))
	if len(ig.Fits) != 0 {
		t.Errorf("a saturated node fits %v", ig.Fits)
	}
	// The failure key of a saturated node is "saturated", with no bits.
	for _, p := range Profiles {
		if k, bits := ig.failure(c.Graphs[0].Graph, p); k != "saturated" || bits != 0 {
			t.Errorf("%s: failure %q (%d bits), want saturated", p, k, bits)
		}
	}
	// Node 0 already fails acc64: rq.t = [0, 2^126] is class acc.
	wantFailure(t, c.Verdict.Acc64Failure, &Failure{Graph: "g", Where: "node", Index: 0, Key: "conv.acc", Bits: 128})
}

// sigmoid on [−2^63, 0]: u = [0, 2^63], so exp.negx passes i64 (65 bits)
// and acc64 fails; on [−(2^63 − 1), 0] it fits, and acc64 holds.
// exp.nl = [0, 45426·⌊(2^63 − 1)/45426⌋]; sig.num = [2^32, 2^32] ∪
// [0, 65553·2^16] = [0, 65553·2^16] (65553 > 2^16).
func TestSigmoidInputEnds(t *testing.T) {
	b := newGraph(1, math.MinInt64, 0, 4, 4)
	b.op(whg1.OpSigmoid, nil, 1, 0)
	c := certOne(t, b)
	wantFailure(t, c.Verdict.Acc64Failure, &Failure{Graph: "g", Where: "node", Index: 0, Key: "exp.negx", Bits: 65})

	b = newGraph(1, -math.MaxInt64, 0, 4, 4)
	b.op(whg1.OpSigmoid, nil, 1, 0)
	c = certOne(t, b)
	if !c.Verdict.Acc64 {
		t.Fatalf("acc64 fails: %v", c.Verdict.Acc64Failure)
	}
	n := &c.Graphs[0].Nodes[0]
	wantKeys(t, n, map[string][2]int64{
		"exp.negx": {0, math.MaxInt64}, "exp.nl": {0, 45426 * (math.MaxInt64 / 45426)},
		"exp.t2": {43245 * 43245, 88670 * 88670}, "exp.c": {0, 23495 * (88670 * 88670 >> 16)},
		"sig.num": {0, 65553 << 16},
	})
	wantIv(t, "out", n.Results[0], bi(0), bi(1<<16))
	// exp.t2 (34 bits) is the widest acc32 failure; the input's range
	// (64 bits) comes first.
	wantFailure(t, c.Verdict.Acc32Failure, &Failure{Graph: "g", Where: "input", Index: 0, Key: "range", Bits: 64})
}

// Each first-failure key kind not covered above: a scalar's range, a
// parameter condition, and "policy.check".
func TestFailureKeyKinds(t *testing.T) {
	// A scalar whose range passes i32.
	b := newGraph(1, -4, 4, 4, 4)
	b.g.Scalars = []whg1.Scalar{{Lo: 0, Hi: 0}, {Lo: 0, Hi: 1 << 31}}
	b.op(whg1.OpRelu, nil, 1, 0)
	c := certOne(t, b)
	wantFailure(t, c.Verdict.Acc32Failure, &Failure{Graph: "g", Where: "scalar", Index: 1, Key: "range", Bits: 33})

	// A multiplier past i32 over [0, 0]: every interval is [0, 0], and the
	// first acc32_params entry is the failure.
	b = newGraph(1, 0, 0, 4, 4)
	rq := whg1.RQ{Round: whg1.Floor, MKind: 1, Mult: []int64{-1 << 40}, SKind: 1, Shift: []uint8{64}}
	b.op(whg1.OpRescale, &whg1.Rescale{RQ: rq}, 1, 0)
	c = certOne(t, b)
	wantFailure(t, c.Verdict.Acc32Failure, &Failure{Graph: "g", Where: "node", Index: 0, Key: "rq.mult"})
	n := &c.Graphs[0].Nodes[0]
	if !reflect.DeepEqual(n.Acc32Params, []string{"rq.mult", "rq.shift"}) {
		t.Errorf("acc32_params %v, want [rq.mult rq.shift]", n.Acc32Params)
	}
	if want := []string{"rq_floor_mult", "rq_neg_mult", "rq_shift_range"}; !reflect.DeepEqual(n.NPUFlags, want) {
		t.Errorf("npu_flags %v, want %v", n.NPUFlags, want)
	}

	// A check policy inside the graph.
	b = newGraph(1, -4, 4, 4, 4)
	b.opPolicy(whg1.OpRelu, nil, 1, whg1.Check, 0, 3, 0)
	c = certOne(t, b)
	wantFailure(t, c.Verdict.Acc32Failure, &Failure{Graph: "g", Where: "node", Index: 0, Key: "policy.check"})
	wantIv(t, "checked out", c.Graphs[0].Nodes[0].Out[0], bi(0), bi(3))
	if !reflect.DeepEqual(c.Graphs[0].Nodes[0].Fits, []Profile{Acc64}) {
		t.Errorf("fits %v, want [acc64]", c.Graphs[0].Nodes[0].Fits)
	}
}

// An empty check interval refuses the graph at load (model_mismatch).
func TestEmptyCheckRefuses(t *testing.T) {
	b := newGraph(1, -4, 4, 4, 4)
	b.opPolicy(whg1.OpRelu, nil, 1, whg1.Check, 5, 9, 0)
	_, err := Certify(nil, "whg1", nil, []Role{b.role(t, "g")})
	wantRefusal(t, err, "model_mismatch")
}

// Each npu reason and the flags of §9.2, over two graphs: the union is
// taken across graphs, deduplicated and sorted.
func TestNPUReasonsAndFlags(t *testing.T) {
	// Graph a: a conv with groups 2 over 4 channels (conv_groups), a crop
	// with a scalar length (crop_scalar), a lut16, and a half_even rescale.
	a := newGraph(4, -3, 3, 4, 4)
	a.g.Scalars = []whg1.Scalar{{Lo: 1, Hi: 2}}
	x := a.op(whg1.OpConv, &whg1.Conv{Cout: 4, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 2, RQ: rqFloor(0),
		W: []int64{1, 1, 1, 1, 1, 1, 1, 1}}, 4, 0)
	x = a.op(whg1.OpCrop, &whg1.Crop{H: whg1.Operand{Scalar: true, Value: 0}, W: whg1.Operand{Value: 2}}, 4, x)
	lut := &whg1.Lut16{EIn: whg1.NoExponent, EOut: whg1.NoExponent, T: make([]int16, 65536)}
	x = a.op(whg1.OpLut16, lut, 4, x)
	a.op(whg1.OpRescale, &whg1.Rescale{RQ: whg1.RQ{Round: whg1.HalfEven, SKind: 1, Shift: []uint8{2}}}, 4, x)
	// Graph b: an add of a state input (state_add), a chscale, an elu.
	bb := newGraph(1, -3, 3, 4, 4)
	bb.g.Scalars = []whg1.Scalar{{Lo: 0, Hi: 0}}
	s := bb.input(1, -3, 3, whg1.StateInput)
	bb.g.Inputs[1].Src = 0
	y := bb.op(whg1.OpAdd, nil, 1, 0, s)
	y = bb.op(whg1.OpChscale, &whg1.Chscale{Scalar: 0, NRows: 1, Round: whg1.Floor, Shift: 0, M: []int64{2}}, 1, y)
	bb.op(whg1.OpElu, &whg1.Elu{Alpha: 3}, 1, y)
	c, err := Certify(nil, "whg1", nil, []Role{a.role(t, "a"), bb.role(t, "b")})
	if err != nil {
		t.Fatal(err)
	}
	v := c.Verdict
	if want := []string{"acc32", "conv_groups", "crop_scalar", "op:elu"}; !reflect.DeepEqual(v.NPUReasons, want) || v.NPU {
		t.Errorf("npu %v, reasons %v, want false, %v", v.NPU, v.NPUReasons, want)
	}
	if want := []string{"chscale", "lut16", "rq_floor_mult", "rq_half_even", "state_add"}; !reflect.DeepEqual(v.NPUFlags, want) {
		t.Errorf("npu_flags %v, want %v", v.NPUFlags, want)
	}
	// elu fails acc32 in graph b; graph a meets it, so the failure names b.
	if v.Acc32Failure == nil || v.Acc32Failure.Graph != "b" {
		t.Errorf("acc32 failure %v, want one in graph b", v.Acc32Failure)
	}
}

// A depthwise conv (groups = cin = cout) is in the subset; groups = cin
// with cout ≠ cin is not.
func TestConvGroupsDepthwise(t *testing.T) {
	for _, tc := range []struct {
		cout uint32
		want bool
	}{{2, true}, {4, false}} {
		b := newGraph(2, -3, 3, 4, 4)
		b.op(whg1.OpConv, &whg1.Conv{Cout: tc.cout, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 2, RQ: rqFloor(0),
			W: make([]int64, tc.cout)}, tc.cout, 0)
		if c := certOne(t, b); c.Verdict.NPU != tc.want {
			t.Errorf("cout %d: npu %v (%v), want %v", tc.cout, c.Verdict.NPU, c.Verdict.NPUReasons, tc.want)
		}
	}
}
