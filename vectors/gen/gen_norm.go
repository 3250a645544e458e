package gen

import (
	"fmt"

	"github.com/waiops/waiops/whg1"
)

func init() { families = append(families, genIGDN, genLayerNorm, genExp) }

// genIGDN: §14.1 item 6 (flooring each term differs from flooring the
// sum, on positive and negative γ), item 4 (igdn.x2 at i32's edge and past
// it; γ at i32's ends and one past, §7.2 igdn.gamma; gf and frac at 63 and
// 64, §7.2 igdn.shift).
func genIGDN(g *gen) {
	file := op(whg1.OpIGDN)
	// γ = 1 everywhere, gf = 1, x = (1, 1): each term is ⌊1/2⌋ = 0, so N = β
	// = 0 and r = 0; flooring the sum would give N = 1 and r = 1. With γ =
	// −1 each term is ⌊−1/2⌋ = −1.
	for _, gm := range []int64{1, -1} {
		p := &whg1.IGDN{GF: 1, Frac: 0, Gamma: []int64{gm, gm, gm, gm}, Beta: []int64{0, 3}}
		g.add(file, fmt.Sprintf("igdn_floor_each_term_gamma%d", gm),
			one(whg1.OpIGDN, p, []whg1.Tensor{chk(2, -9, 9)}, []whg1.Tensor{der(2)}, 0, 0),
			dec(nil, ten(2, 1, 3, 1, 3, -3, 1, -1, 3)))
	}
	for _, c := range []struct {
		x        int64
		gamma    int64
		gf, frac uint32
	}{
		{46340, 1, 0, 16}, {46341, 1, 0, 16}, {7, i32max, 31, 4}, {7, i32min, 31, 4}, {7, i32max + 1, 31, 4},
		{7, 3, 63, 63}, {7, 3, 64, 0}, {7, 3, 0, 64},
	} {
		p := &whg1.IGDN{GF: c.gf, Frac: c.frac, Gamma: []int64{c.gamma}, Beta: []int64{1}}
		g.add(file, fmt.Sprintf("igdn_x%d_gamma%d_gf%d_frac%d", c.x, c.gamma, c.gf, c.frac),
			one(whg1.OpIGDN, p, []whg1.Tensor{chk(1, -c.x, c.x)}, []whg1.Tensor{der(1)}, 0, 0),
			dec(nil, ten(1, 1, 3, -c.x, 0, c.x)))
	}
}

// genLayerNorm: §14.1 item 6 for layernorm_c (odd C, whose rounded mean
// rounds a third either way on each sign; even C with a mean that is
// exactly a half on each sign, rounded away from zero; ε = 2^64 − 1, where
// V + ε passes 64 bits) and l2norm (ε at 1 and 2^64 − 1; no declared
// sizes, refused at load).
func genLayerNorm(g *gen) {
	file := op(whg1.OpLayerNormC)
	ln := func(c int, eps uint64) *whg1.Graph {
		gm, bt := make([]int64, c), make([]int64, c)
		for i := range gm {
			gm[i], bt[i] = 1<<16+int64(i)*1000, int64(i)-1
		}
		return one(whg1.OpLayerNormC, &whg1.LayerNorm{Eps: eps, Gamma: gm, Beta: bt}, []whg1.Tensor{chk(uint32(c), -100, 100)}, []whg1.Tensor{der(uint32(c))}, 0, 0)
	}
	// C = 3: S = 1, 2, −1, −2 (mean ±1/3, ±2/3); C = 2: S = ±1, ±3 (mean ±1/2, ±3/2).
	g.add(file, "layernorm_c_C3_mean_thirds", ln(3, 1), dec(nil, ten(3, 1, 4, 1, 2, -1, -2, 0, 0, 0, 0, 0, 0, 0, 0)),
		dec(nil, ten(3, 1, 2, 5, -5, -2, 2, -2, 1)))
	g.add(file, "layernorm_c_C2_mean_half", ln(2, 1), dec(nil, ten(2, 1, 4, 1, -1, 3, -3, 0, 0, 0, 0)),
		dec(nil, ten(2, 1, 2, 100, -100, -99, 99)))
	g.add(file, "layernorm_c_C3_eps_2p64_minus_1", ln(3, ^uint64(0)), dec(nil, ten(3, 1, 2, 100, -100, -100, 100, 0, 7)))
	g.add(file, "layernorm_c_C1", ln(1, 5), dec(nil, ten(1, 2, 2, -100, 0, 3, 100)))

	l2 := op(whg1.OpL2Norm)
	for _, eps := range []uint64{1, ^uint64(0)} {
		g.add(l2, fmt.Sprintf("l2norm_eps%d", eps),
			one(whg1.OpL2Norm, &whg1.L2Norm{Eps: eps}, []whg1.Tensor{chk(2, -1000, 1000)}, []whg1.Tensor{der(2)}, 2, 3),
			dec(nil, ten(2, 2, 3, 1000, -1000, 0, 1, 2, 3, -1, 0, 0, 0, 0, 0)), dec(nil, ten(2, 1, 1, 0, 1)))
	}
	g.add(l2, "l2norm_load_no_declared_sizes",
		one(whg1.OpL2Norm, &whg1.L2Norm{Eps: 1}, []whg1.Tensor{chk(2, -9, 9)}, []whg1.Tensor{der(2)}, 0, 0))
}

// Values of u = −x where exp_neg_q16 has n = 62 and n = 63 (§2): n =
// ⌊u / 45426⌋, and the result is 0 from n = 63 on.
const (
	u62    = 45426 * 62
	u63    = 45426 * 63
	u63m1  = u63 - 1
	q16one = 1 << 16
)

// genExp: §14.1 item 6 for the operators built on exp_neg_q16: softmax
// rows that do not sum to 2^16 and differences at n = 62 and 63; sigmoid
// and elu at n = 62 and 63, elu(0), and both on an input range reaching
// −2^63 (refused at load under acc64) and one stopping at −(2^63 − 1);
// softmax without declared sizes (refused at load).
func genExp(g *gen) {
	sm := op(whg1.OpSoftmax)
	gr := one(whg1.OpSoftmax, nil, []whg1.Tensor{chk(1, -u63-5, u63+5)}, []whg1.Tensor{der(1)}, 3, 4)
	g.add(sm, "softmax_rows", gr,
		dec(nil, ten(1, 3, 3, 0, 0, 0, 5, 5, 5, -7, 0, 7)),
		dec(nil, ten(1, 3, 4, 0, -u62, -u63m1, -u63, u62, 0, 1, 2, 0, 0, 0, 1)),
		dec(nil, ten(1, 1, 1, 9)))
	g.add(sm, "softmax_load_no_declared_sizes", one(whg1.OpSoftmax, nil, []whg1.Tensor{chk(1, -9, 9)}, []whg1.Tensor{der(1)}, 0, 0))

	x := ten(1, 1, 9, 0, -u62, u62, -u63m1, u63m1, -u63, u63, -1, 1)
	g.add(op(whg1.OpSigmoid), "sigmoid_n62_n63",
		one(whg1.OpSigmoid, nil, []whg1.Tensor{chk(1, -u63, u63)}, []whg1.Tensor{der(1)}, 0, 0), dec(nil, x))
	for _, alpha := range []int64{1000, -7 * q16one, i64max, i64min} {
		g.add(op(whg1.OpElu), fmt.Sprintf("elu_alpha%d_n62_n63_and_0", alpha),
			one(whg1.OpElu, &whg1.Elu{Alpha: alpha}, []whg1.Tensor{chk(1, -u63, u63)}, []whg1.Tensor{der(1)}, 0, 0), dec(nil, x))
	}
	for _, code := range []whg1.Opcode{whg1.OpSigmoid, whg1.OpElu} {
		var p any
		if code == whg1.OpElu {
			p = &whg1.Elu{Alpha: 3}
		}
		for _, lo := range []int64{i64min, i64min + 1} {
			g.add(op(code), fmt.Sprintf("%s_in_%s", code, ints(lo, i64max)),
				one(code, p, []whg1.Tensor{chk(1, lo, i64max)}, []whg1.Tensor{der(1)}, 0, 0),
				dec(nil, ten(1, 1, 4, lo, 0, -1, i64max)))
		}
	}
}
