//go:build cgo

package gpu

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// randInts is n values drawn uniformly from [lo, hi], with the ends first.
func randInts(r *rand.Rand, n int, lo, hi int64) []int64 {
	v := make([]int64, n)
	for i := range v {
		switch i {
		case 0:
			v[i] = lo
		case 1:
			v[i] = hi
		default:
			v[i] = lo + int64(r.Uint64N(uint64(hi-lo)+1))
		}
	}
	return v
}

// edgeRQ is a per-channel rq whose channels reach §14.1's rq edges on an
// input spanning all of i32 (items 2 and 4): shifts 0, 1, 31, 32, 62 and
// 63; ties on both signs (t = ±1, ±3 at s = 1; t = ±2^30 with
// m = 2^31 − 1 at s = 31; t = −2^31 with m = ±(2^31 − 1) at s = 32;
// p = ±2^61 at s = 62; p = 2^62 at s = 63 under floor); products at
// ±(2^62 − 2^31) and 2^62; every q within i32.
func edgeRQ(round whg1.Round) (whg1.RQ, int) {
	ch := []struct {
		m int64
		s uint8
	}{{1, 0}, {1, 1}, {-1, 1}, {i32max, 31}, {-i32max, 31}, {i32max, 32}, {-i32max, 32},
		{-1 << 30, 62}, {1 << 30, 62}, {i32min, 62}, {i32min, 63}, {i32max, 63}}
	if round != whg1.Floor {
		// rq.p covers p + 2^62 at s = 63 (§5.1), so p = 2^62 passes i64:
		// under acc32 no rounding but floor meets a tie at 63.
		ch[10].m = -i32max
	}
	q := whg1.RQ{Round: round, MKind: 2, SKind: 2}
	for _, c := range ch {
		q.Mult = append(q.Mult, c.m)
		q.Shift = append(q.Shift, c.s)
	}
	return q, len(ch)
}

// randomRQ is 64 channels of random multipliers and shifts over an input
// spanning i32, each |m| < 2^min(s, 31), so that every q fits i32.
func randomRQ(r *rand.Rand, round whg1.Round) whg1.RQ {
	q := whg1.RQ{Round: round, MKind: 2, SKind: 2}
	for range 64 {
		s := r.IntN(64)
		lim := int64(1)<<min(s, 31) - 1
		q.Mult = append(q.Mult, randInts(r, 3, -lim, lim)[2])
		q.Shift = append(q.Shift, uint8(s))
	}
	return q
}

func TestRescaleMulChscale(t *testing.T) { forEachForm(t, testRescaleMulChscale) }

func testRescaleMulChscale(t *testing.T) {
	var cases []opCase
	r := rand.New(rand.NewPCG(13, 14))
	for _, round := range []whg1.Round{whg1.Floor, whg1.HalfUp, whg1.HalfEven} {
		cases = append(cases, opCase{name: fmt.Sprintf("rescale_random_round%d", round), code: whg1.OpRescale,
			params: &whg1.Rescale{RQ: randomRQ(r, round)}, ins: []in{full(64, 4, 8)}, outC: []uint32{64}})
		q, c := edgeRQ(round)
		cases = append(cases, opCase{name: fmt.Sprintf("rescale_edges_round%d", round), code: whg1.OpRescale,
			params: &whg1.Rescale{RQ: q}, ins: []in{full(uint32(c), 4, 5)}, outC: []uint32{uint32(c)}})
		// A pre bias that takes rq.t to both i32 ends; no multiplier.
		cases = append(cases, opCase{name: fmt.Sprintf("rescale_pre_bias_round%d", round), code: whg1.OpRescale,
			params: &whg1.Rescale{RQ: whg1.RQ{Round: round, Bias: whg1.PreBias, SKind: 2, Shift: []uint8{0, 1, 31, 32},
				BiasV: []int64{1<<30 - 1, -1 << 30, -7, 1<<30 - 1}}},
			ins: []in{{4, -1 << 30, 1 << 30, 3, 5}}, outC: []uint32{4}})
		// One multiplier, one shift and a post bias that takes y to both
		// i32 ends (the bias joins the two-word q, §5.1).
		cases = append(cases, opCase{name: fmt.Sprintf("rescale_post_bias_round%d", round), code: whg1.OpRescale,
			params: &whg1.Rescale{RQ: whg1.RQ{Round: round, Bias: whg1.PostBias, MKind: 1, SKind: 1, Mult: []int64{i32max}, Shift: []uint8{31},
				BiasV: []int64{i32max - 1<<20, -i32max + 1<<20 - 1, 3}}},
			ins: []in{{3, -1 << 20, 1 << 20, 4, 4}}, outC: []uint32{3}})
		cases = append(cases, opCase{name: fmt.Sprintf("mul_bc1_round%d", round), code: whg1.OpMul,
			params: &whg1.Rescale{RQ: whg1.RQ{Round: round, MKind: 2, SKind: 2, Mult: []int64{i32max, -3, 1}, Shift: []uint8{32, 1, 0}}},
			ins:    []in{{3, -1 << 15, 1 << 15, 3, 4}, {1, -1 << 15, 1<<15 - 1, 3, 4}}, outC: []uint32{3}})
		cases = append(cases, opCase{name: fmt.Sprintf("chscale_round%d", round), code: whg1.OpChscale,
			params: &whg1.Chscale{Scalar: 0, NRows: 3, Round: round, Shift: 31,
				M: []int64{1, 2, 3, i32max, i32min, -5, i32min, i32max, 1 << 30}},
			scalars: []whg1.Scalar{{Lo: 0, Hi: 2}}, values: []int64{int64(round)},
			ins: []in{{3, -i32max, i32max, 3, 3}}, outC: []uint32{3}})
	}
	cases = append(cases, opCase{name: "mul_bc", code: whg1.OpMul,
		params: &whg1.Rescale{RQ: whg1.RQ{SKind: 1, Shift: []uint8{0}}},
		ins:    []in{{2, -1 << 15, 1 << 15, 3, 4}, {2, -1 << 15, 1<<15 - 1, 3, 4}}, outC: []uint32{2}})
	runCases(t, cases)
}

func TestLut16(t *testing.T) { forEachForm(t, testLut16) }

func testLut16(t *testing.T) {
	tab := make([]int16, 65536)
	for i := 1; i < len(tab); i++ {
		tab[i] = int16(i * 7919) // wraps by design: any i16 table will do
	}
	runCases(t, []opCase{{name: "lut16", code: whg1.OpLut16, params: &whg1.Lut16{EIn: whg1.NoExponent, EOut: whg1.NoExponent, T: tab},
		ins: []in{{2, -32767, 32767, 5, 7}}, outC: []uint32{2}}})
}

// conv is a conv case with random weights in [-wmax, wmax].
func conv(r *rand.Rand, name string, x in, cout, kh, kw, sh, sw, ph, pw, groups uint32, wmax int64, q whg1.RQ) opCase {
	n := int(cout) * int(x.c/groups) * int(kh*kw)
	return opCase{name: name, code: whg1.OpConv, ins: []in{x}, outC: []uint32{cout},
		params: &whg1.Conv{Cout: cout, KH: kh, KW: kw, SH: sh, SW: sw, PH: ph, PW: pw, Groups: groups, RQ: q, W: randInts(r, n, -wmax, wmax)}}
}

func TestConv(t *testing.T) { forEachForm(t, testConv) }

func testConv(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	i8 := func(c uint32, h, w int) in { return in{c, -128, 127, h, w} }
	perCh := func(c int, m, b int64, s uint8) whg1.RQ {
		q := whg1.RQ{MKind: 2, SKind: 1, Shift: []uint8{s}, Bias: whg1.PostBias}
		for o := range c {
			q.Mult = append(q.Mult, m-int64(o))
			q.BiasV = append(q.BiasV, b*int64(o%3-1))
		}
		return q
	}
	one := whg1.RQ{SKind: 1, Shift: []uint8{0}}
	runCases(t, []opCase{
		conv(r, "conv_k3_s1_p1_g1", i8(3, 6, 7), 5, 3, 3, 1, 1, 1, 1, 1, 127, perCh(5, 1<<20, 1000, 12)),
		conv(r, "conv_k3_s2_p1_g2_half_even_shift31", i8(4, 7, 9), 6, 3, 3, 2, 2, 1, 1, 2, 127,
			whg1.RQ{Round: whg1.HalfEven, MKind: 1, SKind: 2, Mult: []int64{i32max}, Shift: []uint8{31, 32, 33, 40, 62, 63}, Bias: whg1.PreBias, BiasV: []int64{1, -1, 0, 5, -5, 1 << 20}}),
		conv(r, "conv_dw_k5_p2_half_up", i8(3, 5, 6), 3, 5, 5, 1, 1, 2, 2, 3, 127,
			whg1.RQ{Round: whg1.HalfUp, SKind: 1, Shift: []uint8{3}}),
		conv(r, "conv_kernel_over_input", i8(2, 2, 3), 3, 5, 5, 1, 1, 2, 2, 1, 100, one),
		conv(r, "conv_1x1_plane_cout9", i8(2, 1, 1), 9, 1, 1, 1, 1, 0, 0, 1, 127, one),
		conv(r, "conv_1d_k5", i8(4, 1, 70), 3, 1, 5, 1, 1, 0, 2, 1, 127, perCh(3, 1<<16, 7, 16)),
		conv(r, "conv_stride_over_kernel_odd", i8(3, 9, 11), 4, 2, 2, 3, 3, 0, 1, 1, 127, one),
		conv(r, "conv_tiles_edges", i8(8, 19, 21), 16, 3, 3, 1, 1, 1, 1, 1, 127, perCh(16, 1<<10, 1, 10)),
		// 11 input channels staged 8 at a time, 20 outputs in blocks of 16.
		conv(r, "conv_partial_runs_cin11_cout20", i8(11, 9, 17), 20, 3, 3, 1, 1, 1, 1, 1, 127, perCh(20, 1<<10, 1, 12)),
		// A kernel too large for the shared budget runs with global reads.
		conv(r, "conv_direct_k3000", in{1, -1, 1, 1, 3000}, 2, 1, 3000, 1, 1, 0, 2, 1, 1, one),
		// conv.acc at −2^31 (two taps of −2^30) and at ±(2^31 − 1).
		{name: "conv_acc_min", code: whg1.OpConv, ins: []in{{2, -1 << 30, 1<<30 - 1, 2, 2}}, outC: []uint32{1},
			params: &whg1.Conv{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, RQ: one, W: []int64{1, 1}}},
		{name: "conv_acc_pm_max", code: whg1.OpConv, ins: []in{{1, -i32max, i32max, 2, 3}}, outC: []uint32{2},
			params: &whg1.Conv{Cout: 2, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, RQ: one, W: []int64{1, -1}}},
	})
}

// convT is a conv_transpose case on input x with weights drawn from
// [−127, 127].
func convT(r *rand.Rand, name string, x in, cout, kh, kw, sh, sw, ph, pw, oph, opw uint32, q whg1.RQ) opCase {
	n := int(x.c*cout) * int(kh*kw)
	return opCase{name: name, code: whg1.OpConvTranspose, ins: []in{x}, outC: []uint32{cout},
		params: &whg1.ConvT{Cout: cout, KH: kh, KW: kw, SH: sh, SW: sw, PH: ph, PW: pw, OPH: oph, OPW: opw, RQ: q, W: randInts(r, n, -127, 127)}}
}

func TestConvTranspose(t *testing.T) { forEachForm(t, testConvTranspose) }

func testConvTranspose(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ct := func(name string, x in, cout, kh, kw, sh, sw, ph, pw, oph, opw uint32, q whg1.RQ) opCase {
		return convT(r, name, x, cout, kh, kw, sh, sw, ph, pw, oph, opw, q)
	}
	post := whg1.RQ{Round: whg1.HalfEven, MKind: 1, SKind: 1, Mult: []int64{3}, Shift: []uint8{1}, Bias: whg1.PostBias, BiasV: []int64{-9, 0, 9, 1}}
	x := in{3, -128, 127, 4, 5}
	runCases(t, []opCase{
		ct("convT_k3_s2_p1_op1", x, 4, 3, 3, 2, 2, 1, 1, 1, 1, post),
		ct("convT_k4_s2_p1", x, 4, 4, 4, 2, 2, 1, 1, 0, 0, post),
		// A stride larger than the kernel leaves positions no tap reaches:
		// they hold rq_o(0), here the post bias.
		ct("convT_k2_s3", x, 4, 2, 2, 3, 3, 0, 0, 0, 0, post),
		ct("convT_op_over_stride", x, 4, 3, 3, 2, 2, 0, 0, 3, 3, post),
		ct("convT_1d", in{2, -128, 127, 1, 9}, 4, 1, 4, 1, 2, 0, 1, 0, 0, post),
		ct("convT_1x1_plane", in{2, -128, 127, 1, 1}, 3, 3, 3, 2, 2, 1, 1, 0, 0, whg1.RQ{SKind: 1, Shift: []uint8{0}}),
		// A stride past Ho + ph on an input side of 2 (ph > kh + oph):
		// only ty = 0 has taps, whatever stride the shader is given.
		ct("convT_stride_past_output", in{2, -128, 127, 2, 3}, 4, 2, 2, 20, 20, 5, 5, 0, 0, post),
	})
}

func TestIGDNGramApply(t *testing.T) { forEachForm(t, testIGDNGramApply) }

func testIGDNGramApply(t *testing.T) {
	igdn := func(name string, gf, frac uint32, gamma []int64, beta []int64) opCase {
		return opCase{name: name, code: whg1.OpIGDN, params: &whg1.IGDN{GF: gf, Frac: frac, Gamma: gamma, Beta: beta},
			ins: []in{{2, -1 << 10, 1 << 10, 4, 5}}, outC: []uint32{2}}
	}
	rq := func(round whg1.Round, s uint8) whg1.RQ { return whg1.RQ{Round: round, SKind: 1, Shift: []uint8{s}} }
	runCases(t, []opCase{
		// §14.1 item 6: negative γ, where flooring each term differs
		// from flooring the sum.
		igdn("igdn_gf4_frac5", 4, 5, []int64{1 << 10, -3, 7, 1 << 9}, []int64{1 << 20, 5}),
		igdn("igdn_gf32_frac40", 32, 40, []int64{i32max, -i32max, i32min, 12345}, []int64{0, 1 << 20}),
		igdn("igdn_gf63_frac31", 63, 31, []int64{i32max, 1, -1, i32min}, []int64{1 << 28, -1}),
		{name: "gram_g2_half_up", code: whg1.OpGram, params: &whg1.Contraction{Groups: 2, RQ: rq(whg1.HalfUp, 3)},
			ins: []in{{4, -1000, 1000, 3, 5}, {4, -1000, 1000, 3, 5}}, outC: []uint32{4}},
		{name: "gram_g1_floor_shift32", code: whg1.OpGram, params: &whg1.Contraction{Groups: 1, RQ: rq(whg1.Floor, 32)},
			ins: []in{{3, i32min, i32max, 1, 1}, {3, 0, 1, 1, 1}}, outC: []uint32{3}},
		{name: "apply_g2_half_even", code: whg1.OpApply, params: &whg1.Contraction{Groups: 2, RQ: rq(whg1.HalfEven, 1)},
			ins: []in{{4, -1000, 1000, 1, 2}, {4, -1000, 1000, 3, 5}}, outC: []uint32{4}},
	})
}

// A stride past 2^31 − KH reaches the shader only with an input side of 1
// (uh = (H − 1)·sh + kh + oph ≤ 2^26, §5.3). There the gather form keeps
// only ty = y + ph − i = 0, i.e. i = y + ph. Input [1, 1, 1] x = 3,
// Wt = (5, 7, 11) along kh, shift 0: out = (5·3, 7·3, 11·3) = (15, 21, 33)
// for any sh ≥ 3. A stride that wraps as an int (i += SH) or reaches the
// shader negative (sh ≥ 2^31) must not add a tap whose ty is not a
// multiple of sh (y = 2: i = 0 has ty = 2).
func TestConvTransposeHugeStride(t *testing.T) { forEachForm(t, testConvTransposeHugeStride) }

func testConvTransposeHugeStride(t *testing.T) {
	d := openDevice(t)
	for _, s := range []uint32{1<<31 - 1, 1 << 31, 1<<32 - 1} {
		for _, vertical := range []bool{true, false} {
			p := &whg1.ConvT{Cout: 1, KH: 3, KW: 1, SH: s, SW: 1, RQ: whg1.RQ{SKind: 1, Shift: []uint8{0}}, W: []int64{5, 7, 11}}
			want := tensor.Shape{C: 1, H: 3, W: 1}
			if !vertical {
				p.KH, p.KW, p.SH, p.SW = 1, 3, 1, s
				want.H, want.W = 1, 3
			}
			name := fmt.Sprintf("convT_stride_%d_vertical_%v", s, vertical)
			g := oneOp(whg1.OpConvTranspose, p, []in{{1, -128, 127, 1, 1}}, 1)
			x := []*tensor.T{{Shape: tensor.Shape{C: 1, H: 1, W: 1}, Data: []int64{3}}}
			same(t, d, name, g, x, nil)
			prog, err := d.Load(whg1.Encode(g))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, err := prog.Decode(x, nil)
			prog.Close()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got[0].Shape != want || !slices.Equal(got[0].Data, []int64{15, 21, 33}) {
				t.Errorf("%s: got %v %v, want %v [15 21 33]", name, got[0].Shape, got[0].Data, want)
			}
		}
	}
}

// §8.3 rescale: rq.t = [l + b, h + b], which need not contain the pre bias
// b itself, so an acc32 rescale may carry a pre bias past i32 (§7.2's "it
// lies in rq.t's interval" holds for conv and conv_transpose, whose A(K, b)
// contains b). Input [2, 1, 3] in [−2^31, −2^31 + 9], rq half_up, shift 2,
// multipliers (3, 1), pre biases (2^31 + 3, 2^32 − 100):
//
//	ch 0: x − 2^31 → t = 3, 4, 12; p = 3t = 9, 12, 36; ⌊(p + 2)/4⌋ = 2, 3, 9
//	ch 1: t = 2^31 − 100, 2^31 − 95, 2^31 − 91; ⌊(t + 2)/4⌋ =
//	      536870887, 536870888, 536870889
func TestRescalePreBiasPastI32(t *testing.T) {
	d := openDevice(t)
	q := whg1.RQ{Round: whg1.HalfUp, MKind: 2, SKind: 1, MBytes: 4, Mult: []int64{3, 1}, Shift: []uint8{2},
		Bias: whg1.PreBias, BBytes: 8, BiasV: []int64{1<<31 + 3, 1<<32 - 100}}
	g := oneOp(whg1.OpRescale, &whg1.Rescale{RQ: q}, []in{{2, i32min, i32min + 9, 1, 3}}, 2)
	x := []*tensor.T{{Shape: tensor.Shape{C: 2, H: 1, W: 3}, Data: []int64{i32min, i32min + 1, i32min + 9, i32min, i32min + 5, i32min + 9}}}
	same(t, d, "rescale_pre_bias_past_i32", g, x, nil)
	prog, err := d.Load(whg1.Encode(g))
	if err != nil {
		t.Fatalf("an acc32 rescale with a pre bias past i32: %v", err)
	}
	defer prog.Close()
	got, err := prog.Decode(x, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{2, 3, 9, 536870887, 536870888, 536870889}; !slices.Equal(got[0].Data, want) {
		t.Errorf("got %v, want %v", got[0].Data, want)
	}
}
