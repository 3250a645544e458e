package gen

import (
	"fmt"

	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/whg1"
)

// The cases an audit of §14.1 items 1–5 found missing from the other
// families (vectors/COVERAGE.md maps each item to its vectors).
func init() {
	families = append(families, genShift127, genRQWidths, genConvWidths, genConvTResidue, genIGDNNorm, genOtherChecks, genPlanes)
}

// rounds are the three rounding modes of §2, in a fixed order.
var rounds = []whg1.Round{whg1.Floor, whg1.HalfUp, whg1.HalfEven}

// genShift127 is §14.1 item 2 at shift 127 under every rounding mode, for
// every rq operator. No tie k·2^126 (k odd) decodes there: −2^126 = t·m
// needs an operand of 2^63, and 2^126 plus half_up's addend 2^126 passes
// i128 (rq.p, class product). So the product reaches ±(2^126 − 2^63), the
// largest magnitudes that load (acc64 only, §7.2 rq.shift), and ±1 and 0.
// gram and apply take t itself (m = 1, a second operand of 1s), whose
// term and acc must fit i64: all of i64.
func genShift127(g *gen) {
	for _, code := range rqOps {
		m, t := int64(i64min), []int64{i64min + 1, -1, 0, 1, i64max}
		if code == whg1.OpGram || code == whg1.OpApply {
			m, t = 1, []int64{i64min, -1, 0, 1, i64max}
		}
		for _, round := range rounds {
			gr, d := rqGraph(code, round, 127, m, t)
			g.add(op(code), fmt.Sprintf("%s_round_%s_shift127_no_tie_m%d", code, roundNames[round], m), gr, d)
		}
	}
}

// genRQWidths is §14.1 item 4 for the rq operators other than rescale
// (genRQEdges): the multiplier at i32's ends and one past (§7.2 rq.mult)
// for conv, conv_transpose and mul; the post bias with rq.y at each i32
// end and one past (§7.2 rq.post_bias) for conv and conv_transpose (mul,
// gram and apply have no bias); item 6's q past i64 with y fitting for conv
// and conv_transpose; chscale's q at i32's ends; and mul.p, gram.acc and
// apply.acc at ±(2^31 − 1).
func genRQWidths(g *gen) {
	full := []int64{i32min, -1, 1, i32max}
	for _, code := range []whg1.Opcode{whg1.OpConv, whg1.OpConvTranspose, whg1.OpMul} {
		for _, m := range []int64{i32max, i32min, i32max + 1, i32min - 1} {
			gr, d := rqGraph(code, whg1.Floor, 32, m, full)
			g.add(op(code), fmt.Sprintf("%s_mult%d_shift32_t_i32", code, m), gr, d)
		}
	}
	// chscale's rq.q (= rq.y, no bias) at exactly −2^31 and ±(2^31 − 1):
	// M = 1 over all of i32, M = −1 over [−(2^31 − 1), 2^31 − 1]; M = −1
	// over all of i32 gives 2^31, one past (acc64 only).
	for _, c := range []struct {
		m int64
		t []int64
	}{{1, []int64{i32min, 0, i32max}}, {-1, []int64{-i32max, 0, i32max}}, {-1, []int64{i32min, 0, i32max}}} {
		gr, d := rqGraph(whg1.OpChscale, whg1.Floor, 0, c.m, c.t)
		g.add(op(whg1.OpChscale), fmt.Sprintf("chscale_m%d_shift0_t_%s", c.m, ints(c.t[0], c.t[2])), gr, d)
	}
	for _, code := range []whg1.Opcode{whg1.OpConv, whg1.OpConvTranspose} {
		// t in [−2^31 + 7, 2^31 − 8]: with b = 7 rq.y's top is exactly
		// 2^31 − 1, with b = −7 its bottom is −2^31; b = ±8 is one past.
		for _, b := range []int64{7, -7, 8, -8} {
			rq := whg1.RQ{Bias: whg1.PostBias, SKind: 1, Shift: []uint8{0}, BiasV: []int64{b}}
			gr, d := rqGraphWith(code, rq, []int64{i32min + 7, 0, i32max - 7})
			g.add(op(code), fmt.Sprintf("%s_post_bias%d_rq_y_i32_ends", code, b), gr, d)
		}
		// §14.1 item 6: q = 2·2^62 = 2^63 passes i64 while y = q − 1 fits:
		// refused at load under acc64; at t = 2^62 − 1 it loads.
		rq := whg1.RQ{Bias: whg1.PostBias, MKind: 1, SKind: 1, Mult: []int64{2}, Shift: []uint8{0}, BiasV: []int64{-1}}
		gr, d := rqGraphWith(code, rq, []int64{1 << 62})
		g.add(op(code), fmt.Sprintf("%s_q_passes_i64_y_fits", code), gr, d)
		gr, d = rqGraphWith(code, rq, []int64{1<<62 - 1})
		g.add(op(code), fmt.Sprintf("%s_q_fits_i64", code), gr, d)
	}
	// a in [−(2^31 − 1), 2^31 − 1] and b in [−1, 1]: the product is at
	// exactly ±(2^31 − 1), within i32 (acc32).
	a, b := ten(1, 1, 3, i32max, i32max, -i32max), ten(1, 1, 3, 1, -1, -1)
	ins := []whg1.Tensor{chk(1, -i32max, i32max), chk(1, -1, 1)}
	g.add(op(whg1.OpMul), "mul_p_a_-2147483647_2147483647_b_-1_1",
		one(whg1.OpMul, &whg1.Rescale{RQ: rqPlain(0)}, ins, []whg1.Tensor{der(1)}, 0, 0), dec(nil, a, b))
	for _, code := range []whg1.Opcode{whg1.OpGram, whg1.OpApply} {
		var h uint32
		if code == whg1.OpGram {
			h = 1
		}
		g.add(op(code), fmt.Sprintf("%s_acc_a_-2147483647_2147483647_b_-1_1", code),
			one(code, &whg1.Contraction{Groups: 1, RQ: rqPlain(0)}, ins, []whg1.Tensor{der(1)}, h, h),
			dec(nil, ten(1, 1, 1, i32max), ten(1, 1, 1, -1)), dec(nil, ten(1, 1, 1, -i32max), ten(1, 1, 1, -1)))
	}
}

// genConvWidths is §14.1 item 4 for conv's and conv_transpose's weights
// (§7.2 weights): two 1×1 taps, cin = 1 and cout = 2, so output channel o
// is Wt_o·x. Weights 2^31 − 1 and −2^31 over x in [0, 1] put conv.term and
// conv.acc at exactly i32's ends; 2^31 − 1 over [−1, 1] at ±(2^31 − 1);
// −2^31 over [−1, 1] one past (2^31), and a weight of 2^31 one past the
// weight condition: both acc64 only.
func genConvWidths(g *gen) {
	for _, c := range []struct {
		w      []int64
		lo, hi int64
	}{
		{[]int64{i32max, i32min}, 0, 1}, {[]int64{i32max, 1}, -1, 1}, {[]int64{i32min, 1}, -1, 1}, {[]int64{i32max + 1, 1}, 0, 1},
	} {
		x := ten(1, 1, 3, c.lo, 0, c.hi)
		id := fmt.Sprintf("weights_%s_x_%s", ints(c.w...), ints(c.lo, c.hi))
		p := &whg1.Conv{Cout: 2, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, RQ: rqPlain(0), W: c.w}
		g.add(op(whg1.OpConv), convID(p, id), one(whg1.OpConv, p, []whg1.Tensor{chk(1, c.lo, c.hi)}, []whg1.Tensor{der(2)}, 0, 0), dec(nil, x))
		pt := &whg1.ConvT{Cout: 2, KH: 1, KW: 1, SH: 1, SW: 1, RQ: rqPlain(0), W: c.w}
		g.add(op(whg1.OpConvTranspose), convTID(pt, id),
			one(whg1.OpConvTranspose, pt, []whg1.Tensor{chk(1, c.lo, c.hi)}, []whg1.Tensor{der(2)}, 0, 0), dec(nil, x))
	}
}

// genConvTResidue is §14.1 item 1 for conv_transpose with a stride, where
// convT.acc is the hull over residues (§8.3). Kernel 3, stride 2 on a 2×2
// input: residue (0, 0) holds taps (0,0) 5, (0,2) −6, (2,0) −7, (2,2) 4
// (S⁺ = 9, S⁻ = −13), so over x in [−60, 40] its A is [−60·9 + 40·(−13),
// 40·9 + (−60)·(−13)] = [−1060, 1140]; the other residues, (0, 1) with taps
// 1 and 3, (1, 0) with 1 and 2, (1, 1) with −1, give [−240, 160], [−180,
// 120] and [−40, 60], inside it. Output (2, 2) reads those four taps, tap (i, j) on x[1 − i/2][1 − j/2],
// once each, so the two extreme inputs attain −1060 and 1140.
func genConvTResidue(g *gen) {
	p := &whg1.ConvT{Cout: 1, KH: 3, KW: 3, SH: 2, SW: 2, RQ: rqPlain(0), W: []int64{5, 1, -6, 1, -1, 2, -7, 3, 4}}
	const l, h = -60, 40
	w4, idx := []int64{5, -6, -7, 4}, []int{3, 2, 1, 0}
	g.add(op(whg1.OpConvTranspose), convTID(p, "residue_acc_ends"),
		one(whg1.OpConvTranspose, p, []whg1.Tensor{chk(1, l, h)}, []whg1.Tensor{der(1)}, 0, 0),
		dec(nil, ten(1, 2, 2, extreme(w4, idx, 4, l, h, true)...)), dec(nil, ten(1, 2, 2, extreme(w4, idx, 4, l, h, false)...)))
}

// genIGDNNorm is §14.1 items 1 and 4 for igdn.N, the partial sums of
// β_i + Σ terms: with gf = 63 every term of x in [−9, 9] floors to 0, so
// igdn.N = A({[0, 0]}, β) = [min(0, β), max(0, β)], attained by N = β.
// β = 2^31 − 1 and −2^31 fit i32 (acc32); 2^31 and −2^31 − 1 are one past.
// Then igdn.term (and N, with β = 0) at exactly 2^31 − 1 and −2^31: γ at
// i32's ends, gf = 0 and x in [−1, 1], so x² = 1 gives the term γ itself;
// with β = −1 the term −2^31 takes N one past (acc64 only).
func genIGDNNorm(g *gen) {
	for _, beta := range []int64{i32max, i32min, i32max + 1, i32min - 1} {
		p := &whg1.IGDN{GF: 63, Frac: 0, Gamma: []int64{1}, Beta: []int64{beta}}
		g.add(op(whg1.OpIGDN), fmt.Sprintf("igdn_gf63_beta%d_N_i32_ends", beta),
			one(whg1.OpIGDN, p, []whg1.Tensor{chk(1, -9, 9)}, []whg1.Tensor{der(1)}, 0, 0),
			dec(nil, ten(1, 1, 3, -9, 0, 9)))
	}
	for _, c := range [][2]int64{{i32max, 0}, {i32min, 0}, {i32min, -1}} {
		p := &whg1.IGDN{Gamma: []int64{c[0]}, Beta: []int64{c[1]}}
		g.add(op(whg1.OpIGDN), fmt.Sprintf("igdn_gf0_gamma%d_beta%d_term_i32_ends", c[0], c[1]),
			one(whg1.OpIGDN, p, []whg1.Tensor{chk(1, -1, 1)}, []whg1.Tensor{der(1)}, 0, 0),
			dec(nil, ten(1, 1, 3, -1, 0, 1)))
	}
}

// genOtherChecks is §14.1 item 5 for the check range of every data input
// after input 0 (genBasics varies input 0's): that input at both ends, then
// one past each (field_range, §4 run step 4). crop_to's ref included: its
// values are never read by the operator, but its policy applies.
func genOtherChecks(g *gen) {
	bs := basics()
	for _, code := range whg1.Opcodes {
		b := bs[code]
		if b == nil || len(b.others) == 0 {
			continue
		}
		r := pcg(uint64(code) + 200)
		s := b.shapes[0]
		gr := b.graph(code, chk(uint32(s.C), -100, 300))
		for i, rec := range b.others {
			var ds []vectors.Decode
			for _, e := range [][2]int64{{rec.Lo, rec.Hi}, {rec.Lo - 1, rec.Hi}, {rec.Lo, rec.Hi + 1}} {
				ins := b.inputs(r, rnd(r, s.C, s.H, s.W, -100, 300))
				t := ins[i+1]
				t.Data[0], t.Data[len(t.Data)-1] = e[0], e[1]
				ds = append(ds, dec(b.values, ins...))
			}
			g.add(op(code), fmt.Sprintf("%s_check_in%d_ends_and_one_past", code, i+1), gr, ds...)
		}
	}
}

// genPlanes is §14.1 item 3 where the basic instance cannot take a 1×1
// plane or odd sizes at its input (planeSizes): pixel_unshuffle (r = 2)
// and subpos_split give 1×1 and odd output planes from 2×2, 6×10 and 2×14
// inputs; the check ranges of subpos_split's outputs 1 to 3; add refuses
// inputs whose channels differ, at load.
func genPlanes(g *gen) {
	r := pcg(11)
	n9 := chk(1, -9, 9)
	x := func(h, w int) vectors.Decode { return dec(nil, rnd(r, 1, h, w, -9, 9)) }
	g.add(op(whg1.OpPixelUnshuffle), "pixel_unshuffle_r2_out_plane_1x1_and_odd_sizes",
		one(whg1.OpPixelUnshuffle, &whg1.Factor{N: 2}, []whg1.Tensor{n9}, []whg1.Tensor{der(4)}, 0, 0), x(2, 2), x(6, 10), x(2, 14))
	g.add(op(whg1.OpSubposSplit), "subpos_split_out_plane_1x1_and_odd_sizes",
		one(whg1.OpSubposSplit, &whg1.Subpos{Order: [4]uint8{2, 0, 3, 1}}, []whg1.Tensor{n9}, []whg1.Tensor{der(1), der(1), der(1), der(1)}, 0, 0),
		x(2, 2), x(6, 10), x(2, 14))
	// Each output of subpos_split after output 0 (genOutputCheck checks
	// output 0) with the check range [−8, 8]: order (0, 1, 2, 3) puts
	// in[2y + a_k][2x + b_k] in output k, so on a 4×4 input in[a_k][b_k]
	// and in[a_k + 2][b_k + 2] are its ends, then one past each (§14.1
	// item 5; a check inside the graph, so acc64 only, §7.2).
	for k := 1; k < 4; k++ {
		outs := []whg1.Tensor{der(1), der(1), der(1), der(1)}
		outs[k] = chk(1, -8, 8)
		ab := (k/2)*4 + k%2
		var ds []vectors.Decode
		for _, e := range [][2]int64{{-8, 8}, {-9, 8}, {-8, 9}} {
			x := ten(1, 4, 4, 0)
			x.Data[ab], x.Data[ab+10] = e[0], e[1]
			ds = append(ds, dec(nil, x))
		}
		g.add(op(whg1.OpSubposSplit), fmt.Sprintf("subpos_split_check_out%d_-8_8_ends_and_one_past", k),
			one(whg1.OpSubposSplit, &whg1.Subpos{Order: [4]uint8{0, 1, 2, 3}}, []whg1.Tensor{chk(1, -9, 9)}, outs, 0, 0), ds...)
	}
	g.add(op(whg1.OpAdd), "add_load_channels_2_1", one(whg1.OpAdd, nil, []whg1.Tensor{chk(2, -9, 9), n9}, []whg1.Tensor{der(2)}, 0, 0))
}
