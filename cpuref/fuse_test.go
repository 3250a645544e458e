package cpuref

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// noFold is a fusion plan that folds nothing: every op its own step, every
// policy applied by Decode. It is the path fuse's plan is compared against.
func noFold(g *whg1.Graph) []fusion {
	fz := make([]fusion, len(g.Ops))
	for i := range fz {
		fz[i].last = i
	}
	return fz
}

// chain is a graph of one input t0 (check [lo, hi]) and ops each reading
// the previous op's output (two-input ops read t0 as their second, from
// op.In as given),
// outputs the last op's output. pols[k] is op k's output record.
func chain(c uint32, lo, hi int64, ops []whg1.Op, pols []whg1.Tensor) *whg1.Graph {
	g := &whg1.Graph{Version: 1, OpSet: 1, MaxElems: 1 << 26,
		Inputs:  []whg1.Input{{Tensor: 0}},
		Tensors: []whg1.Tensor{rec(c, whg1.Check, lo, hi)}}
	prev := uint32(0)
	for k, op := range ops {
		g.Tensors = append(g.Tensors, pols[k])
		t := uint32(len(g.Tensors) - 1)
		op.In = append([]uint32{prev}, op.In...)
		op.Out = []uint32{t}
		g.Ops = append(g.Ops, op)
		prev = t
	}
	g.Outputs = []uint32{prev}
	return g
}

var reluOp = whg1.Op{Code: whg1.OpRelu}

func clampOpOf(lo, hi int64) whg1.Op {
	return whg1.Op{Code: whg1.OpClamp, Params: &whg1.ClampParams{Lo: lo, Hi: hi}}
}

func shiftRescale(m int64, s uint8) whg1.Op {
	return whg1.Op{Code: whg1.OpRescale, Params: &whg1.Rescale{RQ: whg1.RQ{MKind: 1, SKind: 1, Mult: []int64{m}, Shift: []uint8{s}}}}
}

// postIs says whether p's stages are want (a leaky's parameters compared
// by value).
func postIs(p *rowPost, want ...postStage) bool {
	return p != nil && slices.EqualFunc(p.stages, want, func(a, b postStage) bool {
		if a.leaky == nil || b.leaky == nil {
			return a.leaky == b.leaky && a.lo == b.lo && a.hi == b.hi
		}
		return *a.leaky == *b.leaky
	})
}

// TestFusePlan: which relu and clamp ops fold into their producer, and the
// one clamp a chain becomes (fusion's then, worked by hand).
func TestFusePlan(t *testing.T) {
	// rescale → t1 (derived) → relu → t2 (clamp [−5, 50]) → clamp(−3, 40)
	// → t3 (derived). reluOp, then the policy, then the op: [0, 2^63 − 1] →
	// [clamp(0, −5, 50), clamp(2^63 − 1, −5, 50)] = [0, 50] → [0, 40].
	g := chain(1, -100, 100, []whg1.Op{shiftRescale(3, 0), reluOp, clampOpOf(-3, 40)},
		[]whg1.Tensor{derived(1), rec(1, whg1.Clamp, -5, 50), derived(1)})
	fz := fuse(g, nil)
	if f := fz[0]; !postIs(f.post, postStage{lo: 0, hi: 40}) || f.last != 2 || f.gone || f.clamped {
		t.Errorf("chain: fz[0] = %+v (post %v), want post {0 40}, last 2", f, f.post)
	}
	if !fz[1].gone || !fz[2].gone {
		t.Errorf("chain: relu and clamp not folded: %+v", fz)
	}
	// A clamp policy on the written output joins the post: [0, 2^63 − 1]
	// then [−7, 7] is [0, 7].
	g = chain(1, -100, 100, []whg1.Op{shiftRescale(3, 0), reluOp}, []whg1.Tensor{derived(1), rec(1, whg1.Clamp, -7, 7)})
	if f := fuse(g, nil)[0]; !postIs(f.post, postStage{lo: 0, hi: 7}) || f.last != 1 || !f.clamped {
		t.Errorf("clamped output: fz[0] = %+v (post %v), want post {0 7}, last 1, clamped", f, f.post)
	}
	// Disjoint clamps: [10, 20] then [−5, 3] is the constant 3.
	if c := (&rowPost{[]postStage{{lo: 10, hi: 20}}}).then(-5, 3); !postIs(c, postStage{lo: 3, hi: 3}) {
		t.Errorf("then: %v, want [3, 3]", c.stages)
	}
	// A leaky folds only with a certificate that makes its products int64.
	// rescale·3 of t0 ∈ [−100, 100] → t1 ∈ [−300, 300], leaky a = 2^40 (|−300|·2^40 < 2^63),
	// then relu: one leaky stage, then the clamp [0, 2^63 − 1].
	lk := &whg1.Leaky{A: 1 << 40, F: 3}
	g = chain(1, -100, 100, []whg1.Op{shiftRescale(3, 0), {Code: whg1.OpLeaky, Params: lk}, reluOp},
		[]whg1.Tensor{derived(1), derived(1), derived(1)})
	cg, cert, err := certify.Load(whg1.Encode(g), certify.Acc64)
	noErr(t, "certify", err)
	if f := fuse(cg, &cert.Graphs[0])[0]; !postIs(f.post, postStage{leaky: lk}, postStage{lo: 0, hi: 1<<63 - 1}) || f.last != 2 {
		t.Errorf("leaky: fz[0] = %+v, want leaky then relu folded", f)
	}
	if f := fuse(cg, nil)[0]; f.post != nil || f.last != 0 {
		t.Errorf("leaky without bounds: folded: %+v", f)
	}
	lk.A = 1 << 62 // |−300|·2^62 passes i64: the leaky may refuse, and stays
	cg, cert, err = certify.Load(whg1.Encode(g), certify.Acc64)
	if err == nil {
		if f := fuse(cg, &cert.Graphs[0])[0]; f.post != nil || f.last != 0 {
			t.Errorf("wide leaky: folded: %+v", f)
		}
	}

	noFolding := func(what string, g *whg1.Graph) {
		t.Helper()
		if f := fuse(g, nil); f[0].last != 0 || f[0].post != nil || f[1].gone {
			t.Errorf("%s: folded: %+v", what, f)
		}
	}
	base := func() *whg1.Graph {
		return chain(1, -100, 100, []whg1.Op{shiftRescale(3, 0), reluOp}, []whg1.Tensor{derived(1), derived(1)})
	}
	g = base()
	g.Outputs = append(g.Outputs, 1) // t1 is also an output
	noFolding("t1 an output", g)
	g = base()
	g.Tensors[1] = rec(1, whg1.Check, -10, 10) // t1's check must run
	noFolding("t1 checked", g)
	g = base()
	g.Ops = append(g.Ops, whg1.Op{Code: whg1.OpAbs, In: []uint32{1}, Out: []uint32{3}}) // t1 read twice
	g.Tensors = append(g.Tensors, derived(1))
	noFolding("t1 read twice", g)
	// A check on the relu's output with another op between: abs of t0
	// runs between rescale (op 0) and relu (op 2).
	g = &whg1.Graph{Inputs: []whg1.Input{{Tensor: 0}}, Outputs: []uint32{3, 2},
		Tensors: []whg1.Tensor{rec(1, whg1.Check, -9, 9), derived(1), derived(1), rec(1, whg1.Check, 0, 5)},
		Ops: []whg1.Op{shiftRescale(3, 0), {Code: whg1.OpAbs, In: []uint32{0}, Out: []uint32{2}},
			{Code: whg1.OpRelu, In: []uint32{1}, Out: []uint32{3}}}}
	g.Ops[0].In, g.Ops[0].Out = []uint32{0}, []uint32{1}
	if f := fuse(g, nil); f[0].last != 0 || f[2].gone {
		t.Errorf("check after another op: folded: %+v", f)
	}
	g.Tensors[3] = derived(1) // without the check it folds
	if f := fuse(g, nil); f[0].last != 2 || !f[2].gone {
		t.Errorf("derived after another op: not folded: %+v", f)
	}
}

// TestFusedDecode: a folded chain decodes to the hand-worked values and
// its relu and clamp have no step. t0 = (1, −2, 3, −40) ·3 = (3, −6, 9,
// −120), relu (3, 0, 9, 0), clamp(−3, 5) (3, 0, 5, 0).
func TestFusedDecode(t *testing.T) {
	g := chain(1, -100, 100, []whg1.Op{shiftRescale(3, 0), reluOp, clampOpOf(-3, 5)},
		[]whg1.Tensor{derived(1), derived(1), derived(1)})
	_, p := load(t, g)
	if p.steps[0] == nil || p.steps[1] != nil || p.steps[2] != nil {
		t.Fatalf("steps: the relu and clamp still run on their own")
	}
	out, err := p.Decode([]*tensor.T{tn(1, 1, 4, 1, -2, 3, -40)}, nil)
	noErr(t, "decode", err)
	expect(t, "folded chain", out[0], 3, 0, 5, 0)
}

// between is uniform in [lo, hi].
func between(r *rand.Rand, lo, hi int64) int64 {
	n := uint64(hi) - uint64(lo) + 1 // 0: all of i64
	if n == 0 {
		return int64(r.Uint64())
	}
	return lo + int64(r.Uint64N(n))
}

// foldCase is one graph of the fused-against-unfused suite and the range
// its inputs are drawn from.
type foldCase struct {
	name   string
	g      *whg1.Graph
	lo, hi int64
	// bare loads the graph without its certificate, which it does not
	// meet: the kernels' exact 128-bit paths.
	bare bool
	// rows, when not 0, declares scalar 0 in [0, rows − 1] (chscale's
	// row), drawn afresh for each decode.
	rows int64
}

// foldCases are graphs whose producers take a folded post in each place
// one can land: conv rows (the lanes path at i8, the i64 and exact paths at
// wide inputs), conv_transpose's phases and its rq(0) fill, rescale, mul,
// igdn on each of its three paths, and a producer without an rq epilogue
// (add); with clamp policies on
// the way and a check on the last output, next to its producer.
func foldCases(r *rand.Rand) []foldCase {
	igdnOp := func(gamma []int64, gf, frac uint32) whg1.Op {
		return whg1.Op{Code: whg1.OpIGDN, Params: &whg1.IGDN{GF: gf, Frac: frac, Gamma: gamma, Beta: []int64{1 << 12, 77}}}
	}
	w := func(n int, lo, hi int64) []int64 {
		v := make([]int64, n)
		for i := range v {
			v[i] = between(r, lo, hi)
		}
		return v
	}
	conv := func(wlo, whi int64, s uint8) whg1.Op {
		return whg1.Op{Code: whg1.OpConv, Params: &whg1.Conv{Cout: 3, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: 1,
			RQ: whg1.RQ{Round: whg1.HalfEven, Bias: whg1.PostBias, SKind: 1, Shift: []uint8{s}, BiasV: w(3, -50, 50)},
			W:  w(3*2*9, wlo, whi)}}
	}
	convT := whg1.Op{Code: whg1.OpConvTranspose, Params: &whg1.ConvT{Cout: 2, KH: 3, KW: 3, SH: 2, SW: 2, PH: 1, PW: 1, OPH: 1, OPW: 1,
		RQ: whg1.RQ{Round: whg1.HalfUp, Bias: whg1.PreBias, SKind: 1, Shift: []uint8{6}, BiasV: w(2, -300, 300)}, W: w(2*2*9, -128, 127)}}
	// rq products past 2^62: each value through rqOf, the clamp after it.
	convTWide := whg1.Op{Code: whg1.OpConvTranspose, Params: &whg1.ConvT{Cout: 2, KH: 3, KW: 3, SH: 2, SW: 2, PH: 1, PW: 1, OPH: 1, OPW: 1,
		RQ: whg1.RQ{Round: whg1.HalfEven, MKind: 1, SKind: 1, Mult: []int64{1<<30 + 7}, Shift: []uint8{60}}, W: w(2*2*9, -128, 127)}}
	// convT with a stride past its kernel: outputs no tap reaches get rq(0).
	convTGap := whg1.Op{Code: whg1.OpConvTranspose, Params: &whg1.ConvT{Cout: 2, KH: 1, KW: 1, SH: 3, SW: 3, OPH: 2, OPW: 2,
		RQ: whg1.RQ{Bias: whg1.PostBias, SKind: 1, Shift: []uint8{2}, BiasV: []int64{-7, 9}}, W: w(2*2, -128, 127)}}
	mul := whg1.Op{Code: whg1.OpMul, In: []uint32{0}, Params: &whg1.Rescale{RQ: whg1.RQ{Round: whg1.HalfEven, MKind: 1, SKind: 1, Mult: []int64{5}, Shift: []uint8{7}}}}
	// products past i64: mul's 128-bit path.
	mulWide := whg1.Op{Code: whg1.OpMul, In: []uint32{0}, Params: &whg1.Rescale{RQ: whg1.RQ{Round: whg1.HalfUp, MKind: 1, SKind: 1, Mult: []int64{5}, Shift: []uint8{70}}}}
	add := whg1.Op{Code: whg1.OpAdd, In: []uint32{0}}
	lut := &whg1.Lut16{EIn: whg1.NoExponent, EOut: whg1.NoExponent, T: make([]int16, 65536)}
	for i := 1; i < len(lut.T); i++ { // §5.6: T[0] = 0
		lut.T[i] = int16(between(r, -32768, 32767))
	}
	lutOut := rec(2, whg1.Derived, 0, 0)
	d, cl := derived, func(c uint32, lo, hi int64) whg1.Tensor { return rec(c, whg1.Clamp, lo, hi) }
	// Two output channels, for the chains that store narrow tensors
	// between row kernels (planNarrow), and one whose sums take the exact
	// path whatever its input.
	conv2 := conv(-128, 127, 7)
	c2 := *conv2.Params.(*whg1.Conv)
	c2.Cout, c2.W, c2.RQ.BiasV = 2, w(2*2*9, -128, 127), w(2, -50, 50)
	conv2.Params = &c2
	convBig := conv(-1<<40, 1<<40, 40)
	cb := *convBig.Params.(*whg1.Conv)
	cb.Cout, cb.W, cb.RQ.BiasV = 2, w(2*2*9, -1<<40, 1<<40), w(2, -50, 50)
	convBig.Params = &cb
	i8 := func(c uint32) whg1.Tensor { return cl(c, -128, 127) }
	// rq products past 2^62 whose results still vary: rqOf's path.
	convTRQ := whg1.Op{Code: whg1.OpConvTranspose, Params: &whg1.ConvT{Cout: 2, KH: 3, KW: 3, SH: 2, SW: 2, PH: 1, PW: 1, OPH: 1, OPW: 1,
		RQ: whg1.RQ{Round: whg1.HalfEven, MKind: 1, SKind: 1, Mult: []int64{1<<50 + 3}, Shift: []uint8{52}}, W: w(2*2*9, -128, 127)}}
	return []foldCase{
		{"narrow_conv_igdn_convT", chain(2, -128, 127, []whg1.Op{conv2, igdnOp(w(4, 0, 15), 8, 6), convT},
			[]whg1.Tensor{i8(2), i8(2), d(2)}), -128, 127, false, 0},
		{"narrow_conv_igdn_relu_out", chain(2, -128, 127, []whg1.Op{conv2, igdnOp(w(4, 0, 15), 8, 6), reluOp},
			[]whg1.Tensor{i8(2), d(2), d(2)}), -128, 127, false, 0},
		{"narrow_convT_relu_conv", chain(2, -128, 127, []whg1.Op{convT, reluOp, conv2},
			[]whg1.Tensor{i8(2), cl(2, 0, 127), d(2)}), -128, 127, false, 0},
		{"narrow_convT_gap_clamp_conv", chain(2, -128, 127, []whg1.Op{convTGap, clampOpOf(-128, 127), conv2},
			[]whg1.Tensor{d(2), d(2), d(2)}), -128, 127, false, 0},
		{"narrow_convT_wide_igdn_wide", chain(2, -128, 127, []whg1.Op{convTRQ, clampOpOf(-100, 100), igdnOp(w(4, 1<<20, 1<<21), 2, 16), convBig},
			[]whg1.Tensor{d(2), d(2), i8(2), d(2)}), -128, 127, false, 0},
		{"conv_i8_relu_clamp", chain(2, -128, 127, []whg1.Op{conv(-128, 127, 8), reluOp, clampOpOf(-20, 90)},
			[]whg1.Tensor{d(3), cl(3, -60, 200), d(3)}), -128, 127, false, 0},
		{"conv_wide_relu", chain(2, -1<<40, 1<<40, []whg1.Op{conv(-1<<10, 1<<10, 30), reluOp},
			[]whg1.Tensor{d(3), rec(3, whg1.Check, 0, 1<<20)}), -1 << 40, 1 << 40, false, 0},
		{"conv_exact_clamp", chain(2, -1<<62, 1<<62, []whg1.Op{conv(-1<<40, 1<<40, 100), clampOpOf(-20, 30)},
			[]whg1.Tensor{d(3), d(3)}), -1 << 62, 1 << 62, true, 0},
		{"convT_clamp_relu", chain(2, -128, 127, []whg1.Op{convT, clampOpOf(-500, 400), reluOp}, []whg1.Tensor{d(2), d(2), cl(2, 0, 300)}), -128, 127, false, 0},
		{"convT_wide_relu", chain(2, -1<<40, 1<<40, []whg1.Op{convTWide, reluOp}, []whg1.Tensor{d(2), d(2)}), -1 << 40, 1 << 40, false, 0},
		{"convT_gap_relu", chain(2, -128, 127, []whg1.Op{convTGap, reluOp}, []whg1.Tensor{d(2), d(2)}), -128, 127, false, 0},
		{"rescale_relu", chain(2, -1<<62, 1<<62, []whg1.Op{shiftRescale(-3, 1), reluOp}, []whg1.Tensor{d(2), d(2)}), -1 << 62, 1 << 62, false, 0},
		{"mul_clamp", chain(2, -32768, 32767, []whg1.Op{mul, clampOpOf(-1000, 1000)}, []whg1.Tensor{d(2), cl(2, -900, 2000)}), -32768, 32767, false, 0},
		{"mul_wide_clamp", chain(2, -1<<62, 1<<62, []whg1.Op{mulWide, clampOpOf(-1<<40, 1<<40)}, []whg1.Tensor{d(2), d(2)}), -1 << 62, 1 << 62, true, 0},
		{"conv_clamp_leaky_clamp", chain(2, -128, 127, []whg1.Op{conv(-128, 127, 6), clampOpOf(-50, 400),
			{Code: whg1.OpLeaky, Params: &whg1.Leaky{A: 3, F: 2}}, clampOpOf(-200, 1000)},
			[]whg1.Tensor{d(3), d(3), d(3), d(3)}), -128, 127, false, 0},
		{"leaky_narrow_clamp", chain(2, -1<<31, 1<<31, []whg1.Op{{Code: whg1.OpLeaky, Params: &whg1.Leaky{A: 1<<31 - 1, F: 5}}, clampOpOf(-1<<50, 1<<50)},
			[]whg1.Tensor{d(2), d(2)}), -1 << 31, 1 << 31, false, 0},
		{"leaky_wide", chain(2, -1<<62, 1<<62, []whg1.Op{{Code: whg1.OpLeaky, Params: &whg1.Leaky{A: 3, F: 1}}},
			[]whg1.Tensor{d(2)}), -1 << 62, 1 << 62, true, 0},
		{"lut16_clamp", chain(2, -32767, 32767, []whg1.Op{{Code: whg1.OpLut16, Params: lut}, clampOpOf(-100, 200)},
			[]whg1.Tensor{lutOut, d(2)}), -32767, 32767, false, 0},
		{"chscale_relu", chain(2, -128, 127, []whg1.Op{{Code: whg1.OpChscale, Params: &whg1.Chscale{NRows: 3, Round: whg1.HalfEven, MBytes: 4, Shift: 4, M: w(3*2, -1<<20, 1<<20)}}, reluOp},
			[]whg1.Tensor{d(2), d(2)}), -128, 127, false, 3},
		{"chscale_wide", chain(2, -1<<62, 1<<62, []whg1.Op{{Code: whg1.OpChscale, Params: &whg1.Chscale{NRows: 2, Round: whg1.HalfUp, MBytes: 4, Shift: 66, M: w(2*2, -100, 100)}}},
			[]whg1.Tensor{d(2)}), -1 << 62, 1 << 62, true, 2},
		{"rescale_i16_bias", chain(2, -32768, 32767, []whg1.Op{{Code: whg1.OpRescale, Params: &whg1.Rescale{RQ: whg1.RQ{Round: whg1.HalfEven, Bias: whg1.PreBias,
			MKind: 2, SKind: 2, Mult: w(2, -1<<24, 1<<24), Shift: []uint8{9, 30}, BiasV: w(2, -1000, 1000)}}}},
			[]whg1.Tensor{d(2)}), -32768, 32767, false, 0},
		{"igdn_i32_relu_clamp", chain(2, -128, 127, []whg1.Op{igdnOp(w(4, 0, 15), 8, 6), reluOp, clampOpOf(-5, 900)},
			[]whg1.Tensor{d(2), d(2), d(2)}), -128, 127, false, 0},
		{"igdn_i64_relu", chain(2, -1<<20, 1<<20, []whg1.Op{igdnOp(w(4, -15, 15), 20, 10), reluOp},
			[]whg1.Tensor{d(2), d(2)}), -1 << 20, 1 << 20, false, 0},
		{"igdn_wide_clamp", chain(2, -1<<40, 1<<40, []whg1.Op{igdnOp(w(4, 1<<20, 1<<21), 2, 40), clampOpOf(-1<<30, 1<<35)},
			[]whg1.Tensor{d(2), d(2)}), -1 << 40, 1 << 40, true, 0},
		{"add_relu_check", chain(2, -128, 127, []whg1.Op{add, reluOp}, []whg1.Tensor{cl(2, -200, 100), rec(2, whg1.Check, 0, 90)}), -128, 127, false, 0},
	}
}

// TestNewPathsEqualExact runs each foldCase on random inputs whose
// elements are mostly the input range's ends (the certified bounds' ends)
// and otherwise uniform in it, 10^5 decodes in all (10^4 with -short or
// -race), on three programs: as Load and LoadBytes make it (folded, and
// with the certified bounds unless bare), folded without bounds, and the
// exact path this package had before both (no bounds, nothing folded).
// Outputs, and refusals to the letter, must be the same.
func TestNewPathsEqualExact(t *testing.T) {
	n := 100_000
	if testing.Short() || raceEnabled {
		n = 10_000
	}
	r := rand.New(rand.NewPCG(41, 42))
	cases := foldCases(r)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.rows > 0 {
				c.g.Scalars = []whg1.Scalar{{Lo: 0, Hi: c.rows - 1}}
			}
			var gb *certify.GraphBounds
			g, err := whg1.Parse(whg1.Encode(c.g))
			if !c.bare {
				var cert *certify.Certificate
				g, cert, err = certify.Load(whg1.Encode(c.g), certify.Acc64)
				if err == nil {
					gb = &cert.Graphs[0]
				}
			}
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			progs := make([]*Program, 3)
			for k, m := range []struct {
				gb *certify.GraphBounds
				fz []fusion
			}{{gb, fuse(g, gb)}, {nil, fuse(g, nil)}, {nil, noFold(g)}} {
				progs[k], err = loadFused(g, m.gb, m.fz)
				noErr(t, "load", err)
			}
			if narrow := slices.Contains(progs[0].narrow, true); narrow != strings.HasPrefix(c.name, "narrow_") {
				t.Fatalf("tensors stored narrow: %v", progs[0].narrow)
			}
			for range n / len(cases) {
				h, w := 1+r.IntN(4), 1+r.IntN(5)
				ins := make([]*tensor.T, len(g.Inputs))
				for k := range ins {
					ins[k] = tensor.New(tensor.Shape{C: int(g.Tensors[g.Inputs[k].Tensor].Channels), H: h, W: w})
					for i := range ins[k].Data {
						switch r.IntN(4) {
						case 0:
							ins[k].Data[i] = c.lo
						case 1:
							ins[k].Data[i] = c.hi
						default:
							ins[k].Data[i] = between(r, c.lo, c.hi)
						}
					}
				}
				var scalars []int64
				if c.rows > 0 {
					scalars = []int64{r.Int64N(c.rows)}
				}
				want, werr := progs[2].Decode(ins, scalars)
				for k, p := range progs[:2] {
					got, gerr := p.Decode(ins, scalars)
					if fmt.Sprint(gerr) != fmt.Sprint(werr) {
						t.Fatalf("program %d, inputs %v: err %v, exact path %v", k, ins[0].Data, gerr, werr)
					}
					for o := range want {
						if !slices.Equal(got[o].Data, want[o].Data) || got[o].Shape != want[o].Shape {
							t.Fatalf("program %d, inputs %v: output %d %v, exact path %v", k, ins[0].Data, o, got[o].Data, want[o].Data)
						}
					}
				}
			}
		})
	}
}
