package gen

import (
	"fmt"
	"math"
	"math/big"
	"slices"

	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/whg1"
)

func init() { families = append(families, genRounding, genRQEdges) }

// rqOps are the operators with an rq epilogue (§5.1), chscale included.
var rqOps = []whg1.Opcode{
	whg1.OpConv, whg1.OpConvTranspose, whg1.OpRescale, whg1.OpChscale,
	whg1.OpMul, whg1.OpGram, whg1.OpApply,
}

var roundNames = map[whg1.Round]string{whg1.Floor: "floor", whg1.HalfUp: "half_up", whg1.HalfEven: "half_even"}

// roundShifts are §14.1 item 2's shifts; 64 and 127 pass every acc32 shift
// (§7.2), so the certifier tags them acc64 only.
var roundShifts = []uint8{0, 1, 31, 32, 62, 63, 64, 127}

// genRounding is §14.1 item 2 for every rq operator: for each rounding mode
// and shift, a product that is a tie (k·2^(s−1), k odd) on each sign, with
// an even (k = 1) and an odd (k = 3) floor quotient, each with its
// neighbours one multiplier step away. The product is t·m: t is the value
// the rq reads, m the multiplier (for gram and apply, which have none, the
// second operand). Each multiplier that can express the tie gives a vector,
// so a tie the acc32 operands can reach is covered under acc32 too.
func genRounding(g *gen) {
	for _, code := range rqOps {
		for _, round := range []whg1.Round{whg1.Floor, whg1.HalfUp, whg1.HalfEven} {
			for _, s := range roundShifts {
				for _, sign := range []int64{1, -1} {
					side := "pos"
					if sign < 0 {
						side = "neg"
					}
					for _, k := range []int64{1, 3} {
						for _, m := range tieMultipliers(code, s) {
							t, tie := tieValues(s, sign*k, m)
							if t == nil {
								continue
							}
							id := fmt.Sprintf("%s_round_%s_shift%d_%s_tie%d_m%d", code, roundNames[round], s, side, k, m)
							gr, d := rqGraph(code, round, s, m, t)
							g.add(op(code), id, gr, d)
							// Where a neighbour alone passes i32, the values
							// that fit give an acc32 candidate too (the tie
							// 2^62 = (−2^31)·(−2^31) of shift 63).
							if in32 := fitI32(t); len(in32) < len(t) && slices.Contains(in32, tie) {
								gr, d := rqGraph(code, round, s, m, in32)
								g.add(op(code), id+"_t_i32", gr, d)
							}
						}
					}
				}
			}
		}
	}
}

// tieMultipliers are the multipliers tried for shift s: the largest power
// of two that keeps t small and m within i32, then −2^31 and −2^63, which
// reach the ties of the largest shifts. gram and apply also try m = 1: their
// "multiplier" is a second operand, so the product is a gram.term or
// apply.term (class acc) and only m = 1 keeps the ties whose product fits
// i32 (s = 31, and s = 32 on the negative side) under acc32, and the
// negative tie −2^63 of s = 64 under acc64.
func tieMultipliers(code whg1.Opcode, s uint8) []int64 {
	if s == 0 {
		return []int64{1}
	}
	ms := []int64{1 << min(s-1, 30), math.MinInt32, math.MinInt64}
	if s > 1 && (code == whg1.OpGram || code == whg1.OpApply) {
		ms = append([]int64{1}, ms...)
	}
	return ms
}

// tieValues are the t with t·m = k·2^(s−1) + j·m for j in {−1, 0, 1},
// each kept when it fits i64, and the tie's own t (j = 0); nil when the tie
// cannot be written as t·m. For s = 0 there is no tie: the products are 0
// and k.
func tieValues(s uint8, k, m int64) ([]int64, int64) {
	if s == 0 {
		return []int64{0, k}, k
	}
	p := new(big.Int).Lsh(big.NewInt(k), uint(s-1))
	q, r := new(big.Int).QuoRem(p, big.NewInt(m), new(big.Int))
	if r.Sign() != 0 || !q.IsInt64() {
		return nil, 0
	}
	var t []int64
	for _, j := range []int64{-1, 0, 1} {
		if v := new(big.Int).Add(q, big.NewInt(j)); v.IsInt64() {
			t = append(t, v.Int64())
		}
	}
	return t, q.Int64()
}

// fitI32 is the values of t that fit i32.
func fitI32(t []int64) []int64 {
	var out []int64
	for _, v := range t {
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			out = append(out, v)
		}
	}
	return out
}

// rqGraph is a one-operator graph of code whose rq reads exactly the values
// t (declared as its input's check range hull) with multiplier m, and the
// decode that feeds them. The operator's own arithmetic is an identity:
// a 1×1 kernel of weight 1, a multiplier row [m], a second operand of 1s
// (mul) or of m (gram and apply, whose rq has no multiplier).
func rqGraph(code whg1.Opcode, round whg1.Round, s uint8, m int64, t []int64) (*whg1.Graph, vectors.Decode) {
	return rqGraphWith(code, whg1.RQ{Round: round, MKind: 1, SKind: 1, Mult: []int64{m}, Shift: []uint8{s}}, t)
}

// rqGraphWith is rqGraph for a whole one-channel rq (one multiplier m, one
// shift, any bias). chscale takes its round, shift and M = [m] from it, and
// gram and apply, whose rq has no multiplier or bias, its round and shift.
func rqGraphWith(code whg1.Opcode, rq whg1.RQ, t []int64) (*whg1.Graph, vectors.Decode) {
	n := len(t)
	lo, hi := slices.Min(t), slices.Max(t)
	round, s, m := rq.Round, rq.Shift[0], int64(1)
	if len(rq.Mult) > 0 {
		m = rq.Mult[0]
	}
	x := ten(1, 1, n, t...)
	in := []whg1.Tensor{chk(1, lo, hi)}
	switch code {
	case whg1.OpConv:
		p := &whg1.Conv{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, RQ: rq, W: []int64{1}}
		return one(code, p, in, []whg1.Tensor{der(1)}, 0, 0), dec(nil, x)
	case whg1.OpConvTranspose:
		p := &whg1.ConvT{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, RQ: rq, W: []int64{1}}
		return one(code, p, in, []whg1.Tensor{der(1)}, 0, 0), dec(nil, x)
	case whg1.OpRescale:
		return one(code, &whg1.Rescale{RQ: rq}, in, []whg1.Tensor{der(1)}, 0, 0), dec(nil, x)
	case whg1.OpChscale:
		p := &whg1.Chscale{NRows: 1, Round: round, Shift: s, M: []int64{m}}
		gr := one(code, p, in, []whg1.Tensor{der(1)}, 0, 0)
		gr.Scalars = []whg1.Scalar{{Lo: 0, Hi: 0}}
		return gr, dec([]int64{0}, x)
	case whg1.OpMul:
		ins := append(in, chk(1, 1, 1))
		return one(code, &whg1.Rescale{RQ: rq}, ins, []whg1.Tensor{der(1)}, 0, 0), dec(nil, x, ten(1, 1, n, 1))
	}
	// gram and apply: groups = C = n, d = 1, so output channel g is
	// R(t_g · m, s) (§5.9).
	rq = whg1.RQ{Round: round, SKind: 1, Shift: []uint8{s}}
	a := ten(n, 1, 1, t...)
	ins := []whg1.Tensor{chk(uint32(n), lo, hi), chk(uint32(n), m, m)}
	p := &whg1.Contraction{Groups: uint32(n), RQ: rq}
	if code == whg1.OpGram {
		return one(code, p, ins, []whg1.Tensor{der(uint32(n))}, 1, 1), dec(nil, a, ten(n, 1, 1, m))
	}
	return one(code, p, ins, []whg1.Tensor{der(uint32(n))}, 0, 0), dec(nil, a, ten(n, 1, 1, m))
}

const (
	i32max = math.MaxInt32
	i32min = math.MinInt32
	i64max = math.MaxInt64
	i64min = math.MinInt64
)

// genRQEdges is §14.1 items 1 and 4 for the rq operators: rq.t, rq.y and
// the multiplier at exactly i32's ends and one past them, the product of
// the two most negative i32 operands, and (item 6) an rq whose q passes 64
// bits while y fits, refused at load under acc64.
func genRQEdges(g *gen) {
	file := op(whg1.OpRescale)
	ends := ten(2, 1, 3, i32min+7, 0, i32max-7, i32min+7, 0, i32max-7)
	for _, b := range []int64{7, 8} {
		// rq.t = in + pre bias: [−2^31, 2^31 − 1] exactly at b = 7.
		rq := whg1.RQ{Bias: whg1.PreBias, SKind: 1, Shift: []uint8{0}, BiasV: []int64{-b, b}}
		in := []whg1.Tensor{chk(2, i32min+7, i32max-7)}
		g.add(file, fmt.Sprintf("rescale_pre_bias_%d_rq_t_i32_ends", b),
			one(whg1.OpRescale, &whg1.Rescale{RQ: rq}, in, []whg1.Tensor{der(2)}, 0, 0), dec(nil, ends))
		// rq.y = q + post bias: likewise.
		rq.Bias = whg1.PostBias
		g.add(file, fmt.Sprintf("rescale_post_bias_%d_rq_y_i32_ends", b),
			one(whg1.OpRescale, &whg1.Rescale{RQ: rq}, in, []whg1.Tensor{der(2)}, 0, 0), dec(nil, ends))
	}
	// The multiplier at i32's ends, and one past (§7.2 rq.mult); t over all
	// of i32, shift 32 so q fits i32 when m does.
	full := ten(1, 1, 4, i32min, -1, 1, i32max)
	for _, m := range []int64{i32max, i32min, i32max + 1, i32min - 1} {
		rq := whg1.RQ{MKind: 1, SKind: 1, Mult: []int64{m}, Shift: []uint8{32}}
		g.add(file, fmt.Sprintf("rescale_mult%d_shift32_t_i32", m),
			one(whg1.OpRescale, &whg1.Rescale{RQ: rq}, []whg1.Tensor{chk(1, i32min, i32max)}, []whg1.Tensor{der(1)}, 0, 0),
			dec(nil, full))
	}
	// The input tensor at i32's ends and one past each (class tensor, §7.1).
	for _, r := range [][2]int64{{i32min, i32max}, {i32min - 1, i32max}, {i32min, i32max + 1}} {
		rq := whg1.RQ{SKind: 1, Shift: []uint8{0}}
		g.add(file, fmt.Sprintf("rescale_identity_in_%s", ints(r[0], r[1])),
			one(whg1.OpRescale, &whg1.Rescale{RQ: rq}, []whg1.Tensor{chk(1, r[0], r[1])}, []whg1.Tensor{der(1)}, 0, 0),
			dec(nil, ten(1, 1, 3, r[0], 0, r[1])))
	}
	// §14.1 item 6: q = 2^63 passes i64 while y = q − 1 fits: refused at
	// load under acc64 (rq.q is class acc).
	rq := whg1.RQ{Bias: whg1.PostBias, MKind: 1, SKind: 1, Mult: []int64{2}, Shift: []uint8{0}, BiasV: []int64{-1}}
	g.add(file, "rescale_q_passes_i64_y_fits",
		one(whg1.OpRescale, &whg1.Rescale{RQ: rq}, []whg1.Tensor{chk(1, 1<<62, 1<<62)}, []whg1.Tensor{der(1)}, 0, 0),
		dec(nil, ten(1, 1, 1, 1<<62)))
	// The same rq on t = 2^62 − 1, where q = 2^63 − 2 fits: it loads.
	g.add(file, "rescale_q_fits_i64",
		one(whg1.OpRescale, &whg1.Rescale{RQ: rq}, []whg1.Tensor{chk(1, 1<<62-1, 1<<62-1)}, []whg1.Tensor{der(1)}, 0, 0),
		dec(nil, ten(1, 1, 1, 1<<62-1)))

	// mul.p at i32's ends: a over i32, b in [0, 1]; one past with b in [−1, 1].
	for _, blo := range []int64{0, -1} {
		rq := whg1.RQ{SKind: 1, Shift: []uint8{0}}
		ins := []whg1.Tensor{chk(1, i32min, i32max), chk(1, blo, 1)}
		g.add(op(whg1.OpMul), fmt.Sprintf("mul_p_a_i32_b_%s", ints(blo, 1)),
			one(whg1.OpMul, &whg1.Rescale{RQ: rq}, ins, []whg1.Tensor{der(1)}, 0, 0),
			dec(nil, ten(1, 1, 4, i32min, i32max, i32min, i32max), ten(1, 1, 4, 1, 1, blo, 0)))
	}
	// chscale's M at i32's ends and one past (§7.2 chscale.m), each row
	// chosen by the scalar.
	for _, m := range [][]int64{{i32max, i32min}, {i32max + 1, i32min}, {i32max, i32min - 1}} {
		p := &whg1.Chscale{NRows: 2, Shift: 32, M: m}
		gr := one(whg1.OpChscale, p, []whg1.Tensor{chk(1, i32min, i32max)}, []whg1.Tensor{der(1)}, 0, 0)
		gr.Scalars = []whg1.Scalar{{Lo: 0, Hi: 1}}
		x := ten(1, 1, 3, i32min, 0, i32max)
		g.add(op(whg1.OpChscale), fmt.Sprintf("chscale_m_%s_shift32", ints(m...)), gr, dec([]int64{0}, x), dec([]int64{1}, x))
	}
	// gram.acc and apply.acc at i32's ends (L = d = 1), and one past.
	for _, blo := range []int64{0, -1} {
		rq := whg1.RQ{SKind: 1, Shift: []uint8{0}}
		ins := []whg1.Tensor{chk(1, i32min, i32max), chk(1, blo, 1)}
		a, b := ten(1, 1, 1, i32max), ten(1, 1, 1, 1)
		a2 := ten(1, 1, 1, i32min)
		for _, code := range []whg1.Opcode{whg1.OpGram, whg1.OpApply} {
			var h uint32
			if code == whg1.OpGram {
				h = 1
			}
			g.add(op(code), fmt.Sprintf("%s_acc_a_i32_b_%s", code, ints(blo, 1)),
				one(code, &whg1.Contraction{Groups: 1, RQ: rq}, ins, []whg1.Tensor{der(1)}, h, h),
				dec(nil, a, b), dec(nil, a2, b), dec(nil, a, ten(1, 1, 1, blo)))
		}
	}
}
