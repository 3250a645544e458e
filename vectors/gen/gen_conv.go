package gen

import (
	"fmt"
	"math/rand/v2"

	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/whg1"
)

func init() { families = append(families, genConv, genConvT) }

// convID names a conv case by its parameters (docs/CONVENTIONS.md §3).
func convID(p *whg1.Conv, what string) string {
	return fmt.Sprintf("conv_k%dx%d_s%dx%d_p%dx%d_g%d_%s_shift%d_%s", p.KH, p.KW, p.SH, p.SW, p.PH, p.PW, p.Groups,
		roundNames[p.RQ.Round], p.RQ.Shift[0], what)
}

func convTID(p *whg1.ConvT, what string) string {
	return fmt.Sprintf("conv_transpose_k%dx%d_s%dx%d_p%dx%d_op%dx%d_%s_shift%d_%s", p.KH, p.KW, p.SH, p.SW, p.PH, p.PW,
		p.OPH, p.OPW, roundNames[p.RQ.Round], p.RQ.Shift[0], what)
}

// weights draws n weights from [−k, k], none zero, so every tap counts.
func weights(r *rand.Rand, n int, k int64) []int64 {
	w := make([]int64, n)
	for i := range w {
		for w[i] == 0 {
			w[i] = r.Int64N(2*k+1) - k
		}
	}
	return w
}

// extreme is the input that drives the sum Σ w·x to an end of its
// partial-sum interval (§8.2) over an input range [l, h]: x = h where the
// weight is positive, l where it is negative (top), or the reverse
// (bottom). idx maps each weight to the input element it multiplies.
func extreme(w []int64, idx []int, n int, l, h int64, top bool) []int64 {
	x := make([]int64, n)
	for k, wk := range w {
		if (wk > 0) == top {
			x[idx[k]] = h
		} else {
			x[idx[k]] = l
		}
	}
	return x
}

// genConv is conv's specific cases: §14.1 item 1 (each output channel's
// partial-sum interval attained at both ends), item 3 (a kernel larger than
// its input, a stride larger than the kernel, a 1×1 plane, odd sizes,
// grouped and depthwise), and item 5's run-time plan refusals (§4 run step
// 3): a kernel larger than the padded input, a padded side past 2^26, an
// output past max_elems; and the channel rule, refused at load.
func genConv(g *gen) {
	r := pcg(2)
	file := op(whg1.OpConv)
	const l, h = -50, 70
	// Item 1: a 3×3 kernel over a 3×3 input without padding, so the one
	// output position reads every tap.
	p := &whg1.Conv{Cout: 2, KH: 3, KW: 3, SH: 1, SW: 1, Groups: 1, RQ: whg1.RQ{SKind: 1, Shift: []uint8{0},
		Bias: whg1.PreBias, BiasV: []int64{3, -4}}, W: weights(r, 36, 9)}
	var ds []vectors.Decode
	for o := 0; o < 2; o++ {
		idx := make([]int, 18)
		for k := range idx {
			idx[k] = k // Wt[o][ci][i][j] multiplies x[ci][i][j]
		}
		for _, top := range []bool{true, false} {
			ds = append(ds, dec(nil, ten(2, 3, 3, extreme(p.W[o*18:o*18+18], idx, 18, l, h, top)...)))
		}
	}
	g.add(file, convID(p, "acc_ends"), one(whg1.OpConv, p, []whg1.Tensor{chk(2, l, h)}, []whg1.Tensor{der(2)}, 0, 0), ds...)
	for _, b := range []int64{1, 2, -1} {
		a := &whg1.Conv{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, W: []int64{1, 1}, RQ: accRQ(b)}
		g.add(file, convID(a, fmt.Sprintf("pre_bias%d_acc_i32", b)),
			one(whg1.OpConv, a, []whg1.Tensor{chk(2, -1<<30, 1<<30-1)}, []whg1.Tensor{der(1)}, 0, 0), accDecodes()...)
	}

	// Item 3, each on random data.
	for _, c := range []struct {
		p       *whg1.Conv
		cin     int
		hh, ww  int
		explain string
	}{
		{&whg1.Conv{Cout: 1, KH: 5, KW: 5, SH: 1, SW: 1, PH: 2, PW: 2, Groups: 1, RQ: rqPlain(1)}, 1, 2, 3, "kernel_larger_than_input"},
		{&whg1.Conv{Cout: 2, KH: 2, KW: 2, SH: 3, SW: 3, Groups: 1, RQ: whg1.RQ{Round: whg1.HalfEven, SKind: 1, Shift: []uint8{1}}}, 1, 7, 8, "stride_larger_than_kernel"},
		{&whg1.Conv{Cout: 2, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, RQ: rqPlain(0)}, 3, 1, 1, "plane_1x1"},
		{&whg1.Conv{Cout: 2, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: 1, RQ: rqPlain(1)}, 1, 1, 1, "plane_1x1_padded"},
		{&whg1.Conv{Cout: 4, KH: 3, KW: 3, SH: 2, SW: 2, PH: 1, PW: 1, Groups: 2, RQ: whg1.RQ{Round: whg1.HalfUp, SKind: 2, Shift: []uint8{0, 1, 2, 63}}}, 2, 5, 7, "odd_sizes"},
		{&whg1.Conv{Cout: 3, KH: 3, KW: 1, SH: 1, SW: 2, PH: 1, PW: 0, Groups: 3, RQ: whg1.RQ{Round: whg1.HalfEven, MKind: 2, SKind: 1,
			Mult: []int64{3, -7, 11}, Shift: []uint8{3}, Bias: whg1.PostBias, BiasV: []int64{-1, 0, 1}}}, 3, 5, 5, "depthwise"},
		{&whg1.Conv{Cout: 2, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: 1, RQ: whg1.RQ{Round: whg1.HalfEven, MKind: 2, SKind: 2,
			Mult: []int64{1 << 40, -(1 << 35)}, Shift: []uint8{64, 127}}}, 2, 3, 3, "wide_mult_shift64_127"},
	} {
		c.p.W = weights(r, int(c.p.Cout)*c.cin/int(c.p.Groups)*int(c.p.KH*c.p.KW), 7)
		gr := one(whg1.OpConv, c.p, []whg1.Tensor{chk(uint32(c.cin), -40, 40)}, []whg1.Tensor{der(c.p.Cout)}, 0, 0)
		g.add(file, convID(c.p, c.explain), gr, dec(nil, rnd(r, c.cin, c.hh, c.ww, -40, 40)), dec(nil, rnd(r, c.cin, c.hh, c.ww, -40, 40)))
	}

	// Item 5: the run-time plan (§4 run step 3). No sizes are declared, so
	// the load plans channels only.
	k3 := &whg1.Conv{Cout: 1, KH: 3, KW: 3, SH: 1, SW: 1, Groups: 1, RQ: rqPlain(0), W: weights(r, 9, 3)}
	gr := one(whg1.OpConv, k3, []whg1.Tensor{chk(1, -9, 9)}, []whg1.Tensor{der(1)}, 0, 0)
	g.add(file, convID(k3, "plan_kernel_larger_than_padded_input"), gr,
		dec(nil, rnd(r, 1, 3, 3, -9, 9)), dec(nil, rnd(r, 1, 2, 5, -9, 9)), dec(nil, rnd(r, 1, 5, 2, -9, 9)))
	big := &whg1.Conv{Cout: 1, KH: 1, KW: 1, SH: 1 << 20, SW: 1, PH: 1 << 25, PW: 0, Groups: 1, RQ: rqPlain(0), W: []int64{1}}
	g.add(file, convID(big, "plan_padded_side_past_2p26"),
		one(whg1.OpConv, big, []whg1.Tensor{chk(1, -9, 9)}, []whg1.Tensor{der(1)}, 0, 0), dec(nil, ten(1, 1, 1, 5)))
	big.PH = 1<<25 - 1
	g.add(file, convID(big, "plan_padded_side_2p26_minus_1"),
		one(whg1.OpConv, big, []whg1.Tensor{chk(1, -9, 9)}, []whg1.Tensor{der(1)}, 0, 0), dec(nil, ten(1, 1, 1, 5)))
	wide := &whg1.Conv{Cout: 4, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, RQ: rqPlain(0), W: []int64{1, 2, 3, 4}}
	gr = one(whg1.OpConv, wide, []whg1.Tensor{chk(1, -9, 9)}, []whg1.Tensor{der(4)}, 0, 0)
	gr.MaxElems = 16
	g.add(file, convID(wide, "plan_output_past_max_elems16"), gr, dec(nil, rnd(r, 1, 2, 2, -9, 9)), dec(nil, rnd(r, 1, 4, 4, -9, 9)))
	// The channel rule (cin a multiple of groups) is a load check (§10.5 step 7).
	bad := &whg1.Conv{Cout: 2, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 2, RQ: rqPlain(0), W: []int64{1, 1, 1}}
	g.add(file, convID(bad, "load_cin3_not_multiple_of_groups"),
		one(whg1.OpConv, bad, []whg1.Tensor{chk(3, -9, 9)}, []whg1.Tensor{der(2)}, 0, 0))
	// Declared sizes that do not plan: refused at load (§10.5 step 7).
	g.add(file, convID(k3, "load_declared_2x2_smaller_than_kernel"),
		one(whg1.OpConv, k3, []whg1.Tensor{chk(1, -9, 9)}, []whg1.Tensor{der(1)}, 2, 2))
}

// accRQ is a pre bias b and nothing else. Over two unit taps of an input
// in [−2^30, 2^30 − 1] the partial-sum interval A(K, b) of §8.2 is
// [min(0, b) − 2^31, 2^31 − 2 + max(0, b)]: exactly i32's ends at b = 1
// (where the sum −2^31 + 1 is also −(2^31 − 1)), one past the top at b = 2
// and past the bottom at b = −1 (§14.1 item 4).
func accRQ(b int64) whg1.RQ {
	return whg1.RQ{Bias: whg1.PreBias, SKind: 1, Shift: []uint8{0}, BiasV: []int64{b}}
}

// accDecodes attain both ends of that interval: both taps at −2^30 (the
// partial sum −2^31), then both at 2^30 − 1 (with the bias, 2^31 − 2 + b).
func accDecodes() []vectors.Decode {
	return []vectors.Decode{dec(nil, ten(2, 1, 1, -1<<30, -1<<30)), dec(nil, ten(2, 1, 1, 1<<30-1, 1<<30-1))}
}

// genConvT is conv_transpose's specific cases: item 1 at the position that
// reads every tap, item 3 (a kernel larger than its input, output padding
// equal to and past the stride, a stride larger than the kernel, a 1×1
// plane, odd sizes, the one-dimensional form), and item 5's run-time plan
// refusals: an output side below 1, an uncropped side past 2^26, an
// uncropped output past 2^26 and an output past max_elems.
func genConvT(g *gen) {
	r := pcg(3)
	file := op(whg1.OpConvTranspose)
	const l, h = -60, 40
	// Item 1: stride 1, no padding: output (2, 2) of a 3×3 input reads
	// Wt[0][o][i][j]·x[2−i][2−j], every tap.
	p := &whg1.ConvT{Cout: 2, KH: 3, KW: 3, SH: 1, SW: 1, RQ: whg1.RQ{SKind: 1, Shift: []uint8{0}}, W: weights(r, 18, 9)}
	var ds []vectors.Decode
	for o := 0; o < 2; o++ {
		idx := make([]int, 9)
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				idx[i*3+j] = (2-i)*3 + (2 - j)
			}
		}
		for _, top := range []bool{true, false} {
			ds = append(ds, dec(nil, ten(1, 3, 3, extreme(p.W[o*9:o*9+9], idx, 9, l, h, top)...)))
		}
	}
	g.add(file, convTID(p, "acc_ends"), one(whg1.OpConvTranspose, p, []whg1.Tensor{chk(1, l, h)}, []whg1.Tensor{der(2)}, 0, 0), ds...)
	for _, b := range []int64{1, 2, -1} {
		a := &whg1.ConvT{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, W: []int64{1, 1}, RQ: accRQ(b)}
		g.add(file, convTID(a, fmt.Sprintf("pre_bias%d_acc_i32", b)),
			one(whg1.OpConvTranspose, a, []whg1.Tensor{chk(2, -1<<30, 1<<30-1)}, []whg1.Tensor{der(1)}, 0, 0), accDecodes()...)
	}

	for _, c := range []struct {
		p       *whg1.ConvT
		cin     int
		hh, ww  int
		explain string
	}{
		{&whg1.ConvT{Cout: 1, KH: 5, KW: 5, SH: 2, SW: 2, PH: 1, PW: 1, RQ: rqPlain(1)}, 1, 1, 2, "kernel_larger_than_input"},
		{&whg1.ConvT{Cout: 2, KH: 3, KW: 3, SH: 2, SW: 2, PH: 1, PW: 1, OPH: 2, OPW: 3, RQ: whg1.RQ{Round: whg1.HalfEven, SKind: 1, Shift: []uint8{2}}}, 1, 2, 3, "output_padding_ge_stride"},
		{&whg1.ConvT{Cout: 1, KH: 2, KW: 2, SH: 3, SW: 3, RQ: whg1.RQ{Round: whg1.HalfUp, SKind: 1, Shift: []uint8{1}}}, 2, 3, 2, "stride_larger_than_kernel"},
		{&whg1.ConvT{Cout: 2, KH: 1, KW: 1, SH: 1, SW: 1, RQ: rqPlain(0)}, 2, 1, 1, "plane_1x1"},
		{&whg1.ConvT{Cout: 3, KH: 3, KW: 5, SH: 2, SW: 3, PH: 1, PW: 2, OPH: 1, RQ: whg1.RQ{Round: whg1.HalfUp, MKind: 2, SKind: 2,
			Mult: []int64{5, -3, 1 << 20}, Shift: []uint8{1, 31, 32}, Bias: whg1.PreBias, BiasV: []int64{7, -7, 1}}}, 2, 3, 5, "odd_sizes"},
		{&whg1.ConvT{Cout: 2, KH: 1, KW: 4, SH: 1, SW: 2, PW: 1, RQ: rqPlain(2)}, 2, 1, 7, "one_dimensional"},
	} {
		c.p.W = weights(r, c.cin*int(c.p.Cout*c.p.KH*c.p.KW), 7)
		gr := one(whg1.OpConvTranspose, c.p, []whg1.Tensor{chk(uint32(c.cin), -40, 40)}, []whg1.Tensor{der(c.p.Cout)}, 0, 0)
		g.add(file, convTID(c.p, c.explain), gr, dec(nil, rnd(r, c.cin, c.hh, c.ww, -40, 40)), dec(nil, rnd(r, c.cin, c.hh, c.ww, -40, 40)))
	}

	// Item 5: the run-time plan.
	crop := &whg1.ConvT{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, PH: 1, PW: 0, RQ: rqPlain(0), W: []int64{2}}
	g.add(file, convTID(crop, "plan_output_side_below_1"),
		one(whg1.OpConvTranspose, crop, []whg1.Tensor{chk(1, -9, 9)}, []whg1.Tensor{der(1)}, 0, 0),
		dec(nil, rnd(r, 1, 3, 2, -9, 9)), dec(nil, rnd(r, 1, 2, 2, -9, 9)))
	side := &whg1.ConvT{Cout: 1, KH: 1, KW: 1, SH: 1 << 26, SW: 1, PH: 1 << 25, RQ: rqPlain(0), W: []int64{1}}
	g.add(file, convTID(side, "plan_uncropped_side_past_2p26"),
		one(whg1.OpConvTranspose, side, []whg1.Tensor{chk(1, -9, 9)}, []whg1.Tensor{der(1)}, 0, 0),
		dec(nil, ten(1, 2, 1, 3, 4)))
	planes := &whg1.ConvT{Cout: 1024, KH: 1, KW: 1, SH: 512, SW: 512, PH: 256, PW: 256, RQ: rqPlain(0), W: weights(r, 1024, 3)}
	g.add(file, convTID(planes, "cout1024_plan_uncropped_output_past_2p26"),
		one(whg1.OpConvTranspose, planes, []whg1.Tensor{chk(1, -9, 9)}, []whg1.Tensor{der(1024)}, 0, 0),
		dec(nil, ten(1, 2, 2, 1, 2, 3, 4)))
	grow := &whg1.ConvT{Cout: 1, KH: 3, KW: 3, SH: 2, SW: 2, RQ: rqPlain(0), W: weights(r, 9, 3)}
	gr := one(whg1.OpConvTranspose, grow, []whg1.Tensor{chk(1, -9, 9)}, []whg1.Tensor{der(1)}, 0, 0)
	gr.MaxElems = 24
	g.add(file, convTID(grow, "plan_output_past_max_elems24"), gr, dec(nil, rnd(r, 1, 1, 2, -9, 9)), dec(nil, rnd(r, 1, 2, 2, -9, 9)))
}
