package cpuref

import (
	"slices"
	"testing"
	"time"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// TestStoreRow: a row stored at i8 width through each kind of post: none
// (a value past i8 is reported), one clamp (applied by the store, so that
// 300 and −300 land on its ends), and a clamp then a leaky (applied in
// place first: leaky a = 1, f = 1 halves a negative value, §5.5).
func TestStoreRow(t *testing.T) {
	dst := make([]int8, 5)
	if !storeRow(dst, 2, []int64{-128, 127, 5}, nil) || !slices.Equal(dst, []int8{-128, 0, 127, 0, 5}) {
		t.Errorf("no post: %v", dst)
	}
	if storeRow(dst, 1, []int64{0, 128}, nil) {
		t.Errorf("128 stored as i8")
	}
	if !storeRow(dst, 1, []int64{300, -300, 7}, (*rowPost)(nil).then(-100, 100)) || !slices.Equal(dst[:3], []int8{100, -100, 7}) {
		t.Errorf("clamp: %v", dst)
	}
	row := []int64{-300, 40}
	if !storeRow(dst, 1, row, (*rowPost)(nil).then(-200, 100).thenLeaky(&whg1.Leaky{A: 1, F: 1})) || !slices.Equal(dst[:2], []int8{-100, 40}) {
		t.Errorf("clamp, leaky: %v (row %v)", dst[:2], row)
	}
}

// TestNarrowOutsideRefused: a kernel writing a narrow tensor refuses, with
// model_mismatch, a value that i8 cannot hold (one the certificate would
// have ruled out), on conv, conv_transpose (its phase rows and its rq_o(0)
// fill) and igdn.
func TestNarrowOutsideRefused(t *testing.T) {
	narrowOut := func(c, h, w int) val {
		return val{T: &tensor.T{Shape: tensor.Shape{C: c, H: h, W: w}}, i8: make([]int8, c*h*w)}
	}
	rq := whg1.RQ{SKind: 1, Shift: []uint8{0}}
	x := tn(1, 1, 2, 100, 1)
	conv := newConv(&whg1.Conv{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, RQ: rq, W: []int64{2}}, 1)
	expectRefusal(t, "conv", conv.runVal(val{T: x}, narrowOut(1, 1, 2)), refusal.ModelMismatch)
	convT := newConvT(&whg1.ConvT{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, RQ: rq, W: []int64{2}}, 1)
	expectRefusal(t, "conv_transpose", convT.runVal(val{T: x}, narrowOut(1, 1, 2)), refusal.ModelMismatch)
	// Stride 2 with a 1×1 kernel: the odd columns hold rq(0) = the bias, 200.
	gap := newConvT(&whg1.ConvT{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 2, OPW: 1,
		RQ: whg1.RQ{Bias: whg1.PostBias, SKind: 1, Shift: []uint8{0}, BiasV: []int64{200}}, W: []int64{0}}, 1)
	expectRefusal(t, "conv_transpose fill", gap.runVal(val{T: tn(1, 1, 1, 1)}, narrowOut(1, 1, 2)), refusal.ModelMismatch)
	// igdn with β = 2^16, γ = 0: r = 256, out = x·256 / 2^0.
	g := newIGDN(&whg1.IGDN{GF: 0, Frac: 0, Gamma: []int64{0}, Beta: []int64{1 << 16}}, 1, nil)
	expectRefusal(t, "igdn", g.runVal(val{T: tn(1, 1, 2, 1, 0)}, narrowOut(1, 1, 2)), refusal.ModelMismatch)
	// The same igdn within i8, from a narrow input: out = x·256 >> 8.
	g = newIGDN(&whg1.IGDN{GF: 0, Frac: 8, Gamma: []int64{0}, Beta: []int64{1 << 16}}, 1, nil)
	out := narrowOut(1, 1, 3)
	noErr(t, "igdn", g.runVal(val{T: &tensor.T{Shape: out.Shape}, i8: []int8{-128, 5, 127}}, out))
	if !slices.Equal(out.i8, []int8{-128, 5, 127}) {
		t.Errorf("igdn narrow: %v, want [-128 5 127]", out.i8)
	}
}

// TestNarrowPlan: which tensors planNarrow stores at i8 width, on a chain
// conv → t1 → second op → t2 (the output) from t0 in [−128, 127].
func TestNarrowPlan(t *testing.T) {
	conv := func() whg1.Op {
		return whg1.Op{Code: whg1.OpConv, Params: &whg1.Conv{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1,
			RQ: whg1.RQ{SKind: 1, Shift: []uint8{4}}, W: []int64{100}}}
	}
	add := whg1.Op{Code: whg1.OpAdd, In: []uint32{0}}
	igdn := whg1.Op{Code: whg1.OpIGDN, Params: &whg1.IGDN{GF: 8, Frac: 6, Gamma: []int64{3}, Beta: []int64{1 << 12}}}
	for _, c := range []struct {
		name string
		op   whg1.Op
		t1   whg1.Tensor
		want bool // t1 narrow
	}{
		{"conv reads an i8 clamp", conv(), rec(1, whg1.Clamp, -128, 127), true},
		{"igdn reads it", igdn, rec(1, whg1.Clamp, -128, 127), true},
		{"add reads it", add, rec(1, whg1.Clamp, -128, 127), false},
		{"past i8", conv(), rec(1, whg1.Clamp, -129, 127), false},
		{"a check Decode applies", conv(), rec(1, whg1.Check, -128, 127), false},
		{"derived, interval past i8", conv(), derived(1), false}, // 127·100 >> 4 = 793
	} {
		g := chain(1, -128, 127, []whg1.Op{conv(), c.op}, []whg1.Tensor{c.t1, derived(1)})
		pg, _, err := LoadBytes(whg1.Encode(g))
		noErr(t, c.name, err)
		if want := []bool{false, c.want, false}; !slices.Equal(pg.narrow, want) {
			t.Errorf("%s: narrow %v, want %v", c.name, pg.narrow, want)
		}
		bare, err := Load(pg.Graph())
		noErr(t, c.name, err)
		if slices.Contains(bare.narrow, true) {
			t.Errorf("%s: narrow %v without a certificate", c.name, bare.narrow)
		}
	}
}

// TestDecodeTimed: a step is reported for each op that runs one, in graph
// order, none for a relu folded into its producer, and the outputs are
// Decode's.
func TestDecodeTimed(t *testing.T) {
	conv := whg1.Op{Code: whg1.OpConv, Params: &whg1.Conv{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1,
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{1}}, W: []int64{3}}}
	g := chain(1, -128, 127, []whg1.Op{conv, reluOp, conv}, []whg1.Tensor{derived(1), derived(1), derived(1)})
	p, _, err := LoadBytes(whg1.Encode(g))
	noErr(t, "load", err)
	x := tn(1, 1, 3, -100, 5, 127)
	var ops []int
	got, err := p.DecodeTimed([]*tensor.T{x}, nil, func(op int, d time.Duration) {
		if d < 0 {
			t.Errorf("op %d took %v", op, d)
		}
		ops = append(ops, op)
	})
	noErr(t, "decode", err)
	if !slices.Equal(ops, []int{0, 2}) {
		t.Errorf("steps reported for ops %v, want [0 2]", ops)
	}
	// relu(⌊3x/2⌋) = 0, 7, 190, then ⌊3·/2⌋ = 0, 10, 285.
	expect(t, "decode", got[0], 0, 10, 285)
}
