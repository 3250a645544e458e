package gen

import (
	"fmt"

	"github.com/waiops/waiops/whg1"
)

func init() { families = append(families, genElementwise, genLut16) }

// exp is a tensor record with exponent e.
func exp(t whg1.Tensor, e int8) whg1.Tensor {
	t.Exponent = e
	return t
}

// genElementwise is the specific cases of add, chunk_add, clamp, relu,
// leaky and abs: the acc32 ends (item 4), the exponent rules (§3), the
// shape rules at run time and at load (item 5), and leaky's floor (item 6).
func genElementwise(g *gen) {
	r := pcg(4)
	// add: the sum at exactly [−2^31, 2^31 − 1], then one past each end.
	for _, b := range [][2]int64{{-1 << 30, 1 << 30}, {-1<<30 - 1, 1 << 30}, {-1 << 30, 1<<30 + 1}} {
		ins := []whg1.Tensor{chk(1, -1<<30, 1<<30-1), chk(1, b[0], b[1])}
		g.add(op(whg1.OpAdd), fmt.Sprintf("add_sum_b_%s", ints(b[0], b[1])), one(whg1.OpAdd, nil, ins, []whg1.Tensor{der(1)}, 0, 0),
			dec(nil, ten(1, 1, 2, -1<<30, 1<<30-1), ten(1, 1, 2, b[0], b[1])))
	}
	ins := []whg1.Tensor{chk(2, -9, 9), chk(2, -9, 9)}
	g.add(op(whg1.OpAdd), "add_saturating_clamp_out", one(whg1.OpAdd, nil, ins, []whg1.Tensor{clp(2, -5, 5)}, 0, 0),
		dec(nil, rnd(r, 2, 3, 3, -9, 9), rnd(r, 2, 3, 3, -9, 9)))
	g.add(op(whg1.OpAdd), "add_plan_shapes_disagree", one(whg1.OpAdd, nil, ins, []whg1.Tensor{der(2)}, 0, 0),
		dec(nil, rnd(r, 2, 3, 3, -9, 9), rnd(r, 2, 3, 3, -9, 9)),
		dec(nil, rnd(r, 2, 3, 3, -9, 9), rnd(r, 2, 3, 4, -9, 9)),
		dec(nil, rnd(r, 2, 2, 3, -9, 9), rnd(r, 2, 3, 3, -9, 9)))
	// §3 exponents: all equal loads; one absent, or one different, is refused.
	for _, e := range [][3]int8{{4, 4, 4}, {4, 4, whg1.NoExponent}, {4, 3, 4}} {
		ins := []whg1.Tensor{exp(chk(1, -9, 9), e[0]), exp(chk(1, -9, 9), e[1])}
		g.add(op(whg1.OpAdd), fmt.Sprintf("add_exponents_%s", ints(int64(e[0]), int64(e[1]), int64(e[2]))),
			one(whg1.OpAdd, nil, ins, []whg1.Tensor{exp(der(1), e[2])}, 0, 0), dec(nil, ten(1, 1, 2, 3, -9), ten(1, 1, 2, 9, 4)))
	}

	// chunk_add: [2l, 2h]; 2^31 − 1 is odd, so the top end is 2^31 − 2.
	for _, rg := range [][2]int64{{-1 << 30, 1<<30 - 1}, {-1<<30 - 1, 1<<30 - 1}, {-1 << 30, 1 << 30}} {
		g.add(op(whg1.OpChunkAdd), fmt.Sprintf("chunk_add_in_%s", ints(rg[0], rg[1])),
			one(whg1.OpChunkAdd, nil, []whg1.Tensor{chk(2, rg[0], rg[1])}, []whg1.Tensor{der(1)}, 0, 0),
			dec(nil, ten(2, 1, 2, rg[0], rg[1], rg[0], rg[1])))
	}
	g.add(op(whg1.OpChunkAdd), "chunk_add_load_odd_channels",
		one(whg1.OpChunkAdd, nil, []whg1.Tensor{chk(3, -9, 9)}, []whg1.Tensor{der(1)}, 0, 0))
	g.add(op(whg1.OpChunkAdd), "chunk_add_exponents_4_none",
		one(whg1.OpChunkAdd, nil, []whg1.Tensor{exp(chk(2, -9, 9), 4)}, []whg1.Tensor{der(1)}, 0, 0))

	// clamp: one-sided forms, lo = hi, and lo > hi (a parameter range,
	// refused at load).
	for _, c := range [][2]int64{{i64min, 7}, {-7, i64max}, {3, 3}, {4, 3}} {
		g.add(op(whg1.OpClamp), fmt.Sprintf("clamp_%s", ints(c[0], c[1])),
			one(whg1.OpClamp, &whg1.ClampParams{Lo: c[0], Hi: c[1]}, []whg1.Tensor{chk(1, i64min, i64max)}, []whg1.Tensor{der(1)}, 0, 0),
			dec(nil, ten(1, 1, 5, i64min, -8, 3, 8, i64max)))
	}

	// relu and abs over all of i64 and i32: abs(−2^63) and abs(−2^31)
	// pass their widths (acc64 refuses at load; acc32 drops the vector).
	for _, code := range []whg1.Opcode{whg1.OpRelu, whg1.OpAbs} {
		for _, rg := range [][2]int64{{i64min, i64max}, {i64min + 1, i64max}, {i32min + 1, i32max}} {
			g.add(op(code), fmt.Sprintf("%s_in_%s", code, ints(rg[0], rg[1])),
				one(code, nil, []whg1.Tensor{chk(1, rg[0], rg[1])}, []whg1.Tensor{der(1)}, 0, 0),
				dec(nil, ten(1, 1, 4, rg[0], -1, 0, rg[1])))
		}
	}

	// leaky: item 6, negatives that floor away from zero (⌊−1·3/4⌋ = −1);
	// leaky.p at i32's ends and one past; a at i32's ends and one past
	// (§7.2 leaky.a); f = 63, and f = 64 refused at load.
	neg := ten(1, 1, 8, -1, -2, -3, -4, -5, -7, 0, 5)
	for _, c := range []struct {
		a      int64
		f      uint32
		lo, hi int64
	}{
		{3, 2, -7, 5}, {-3, 2, -7, 5}, {1, 0, i32min, i32max}, {-1, 0, i32min + 1, i32max}, {-1, 0, i32min, i32max},
		{i32max, 31, -1, 5}, {i32min, 31, -1, 5}, {i32max + 1, 31, -1, 5}, {i64max, 63, -7, 5}, {3, 64, -7, 5},
	} {
		x := neg
		if c.lo < -7 {
			x = ten(1, 1, 3, c.lo, 0, c.hi)
		} else if c.lo == -1 {
			x = ten(1, 1, 3, -1, 0, 5)
		}
		g.add(op(whg1.OpLeaky), fmt.Sprintf("leaky_a%d_f%d_in_%s", c.a, c.f, ints(c.lo, c.hi)),
			one(whg1.OpLeaky, &whg1.Leaky{A: c.a, F: c.f}, []whg1.Tensor{chk(1, c.lo, c.hi)}, []whg1.Tensor{der(1)}, 0, 0),
			dec(nil, x))
	}
}

// genLut16 is lut16's cases, kept few because each graph holds a 65,536-
// entry table: the input range at ±32767 with every table end read (items 1
// and 5), matching exponents; and the load refusals of §5.6 (an input range
// reaching −32768, an exponent that differs) and of §10.4 (T[0] ≠ 0).
func genLut16(g *gen) {
	r := pcg(5)
	t := make([]int16, 65536)
	for i := range t {
		t[i] = int16(r.Uint32())
	}
	t[0] = 0
	// T(v) = v for 3 ≤ |v| ≤ 9, and −101, −100, 7, 99, 100 for v = −2 … 2:
	// the entries the clamp and check case below reads.
	for v := -9; v <= 9; v++ {
		t[32768+v] = int16(v)
	}
	copy(t[32768-2:], []int16{-101, -100, 7, 99, 100})
	file := op(whg1.OpLut16)
	x := ten(1, 2, 4, -32767, 32767, -1, 0, 1, 12345, -12345, 2)
	// e_in = e and e_out = −e, or none for both.
	lut := func(e int8, in whg1.Tensor, tab []int16) *whg1.Graph {
		eOut := whg1.NoExponent
		if e != whg1.NoExponent {
			eOut = -e
		}
		return one(whg1.OpLut16, &whg1.Lut16{EIn: e, EOut: eOut, T: tab}, []whg1.Tensor{exp(in, e)}, []whg1.Tensor{exp(der(1), eOut)}, 0, 0)
	}
	// A 1×1 plane, odd sizes, and the input check range one past each end.
	g.add(file, "lut16_in_-32767_32767_exponents_5_-5", lut(5, chk(1, -32767, 32767), t), dec(nil, x), dec(nil, ten(1, 1, 1, -32767)),
		dec(nil, rnd(r, 1, 3, 5, -32767, 32767)), dec(nil, ten(1, 1, 1, -32768)), dec(nil, ten(1, 1, 1, 32768)))
	// §14.1 item 5 (acc64 only: a check inside the graph): input clamp
	// [−2, 2], output check [−100, 99]. v = −1 and 1 give the check's ends
	// −100 and 99; v = −2 and 2 give −101 and 100, one past each; v = −9
	// and 9 clamp to −2 and 2 and are refused, where T(±9) = ±9 would pass.
	g.add(file, "lut16_clamp_in_-2_2_check_out_-100_99", one(whg1.OpLut16, &whg1.Lut16{EIn: whg1.NoExponent, EOut: whg1.NoExponent, T: t},
		[]whg1.Tensor{clp(1, -2, 2)}, []whg1.Tensor{chk(1, -100, 99)}, 0, 0),
		dec(nil, ten(1, 1, 3, -1, 0, 1)), dec(nil, ten(1, 1, 1, -2)), dec(nil, ten(1, 1, 1, 2)),
		dec(nil, ten(1, 1, 1, -9)), dec(nil, ten(1, 1, 1, 9)))
	g.add(file, "lut16_load_in_-32768_32767", lut(whg1.NoExponent, chk(1, -32768, 32767), t))
	bad := lut(5, chk(1, -9, 9), t)
	bad.Tensors[0].Exponent = 4
	g.add(file, "lut16_load_e_in_5_tensor_4", bad)
	t0 := append([]int16{}, t...)
	t0[0] = 1
	g.add(file, "lut16_load_t0_nonzero", lut(whg1.NoExponent, chk(1, -9, 9), t0))
}
