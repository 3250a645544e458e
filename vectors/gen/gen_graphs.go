package gen

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"github.com/waiops/waiops/internal/setcorpus"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/vectors/conform"
	"github.com/waiops/waiops/whg1"
)

func init() {
	families = append(families, genPhase, genState, genLoadChecks, genRunSteps, genLowerings)
}

// genPhase is §14.2's phase form of §9.3 set against conv_transpose: one
// conv computes every phase Z_ρ (output channel o·sh·sw + ρy·sw + ρx holds
// phase ρ of channel o, with the flipped sub-kernel Wt[ci][o][ρy + sh·t]
// [ρx + sw·t′] at tap (T−1−t, T−1−t′) and padding T−1), pixel_shuffle
// interleaves the phases and crop removes ph and pw. Both graphs must give
// the same integers, and the generator checks that they do.
func genPhase(g *gen) {
	r := pcg(9)
	for _, c := range []struct{ cin, cout, k, s, pad, opad, h, w int }{
		{2, 2, 3, 2, 1, 1, 3, 4}, {1, 2, 4, 2, 1, 0, 2, 3}, {2, 1, 5, 3, 2, 2, 3, 2},
	} {
		phase(g, r, c.cin, c.cout, c.k, c.s, c.pad, c.opad, c.h, c.w)
	}
}

// phase writes one pair of §14.2 phase-form vectors: a conv_transpose of
// cin→cout channels, kernel k, stride s, padding pad, output padding opad
// on an h×w input, and its phase form. The crop must fit the interleaved
// phases: k + opad − pad ≤ T·s.
func phase(g *gen, r *rand.Rand, cin, cout, k, s, pad, opad, h, w int) {
	T := (k + s - 1) / s
	rq := whg1.RQ{Round: whg1.HalfEven, Bias: whg1.PostBias, MKind: 2, SKind: 1, Mult: []int64{3, -5}[:cout],
		Shift: []uint8{3}, BiasV: []int64{7, -2}[:cout]}
	wt := weights(r, cin*cout*k*k, 9)
	ct := &whg1.ConvT{Cout: uint32(cout), KH: uint32(k), KW: uint32(k), SH: uint32(s), SW: uint32(s), PH: uint32(pad), PW: uint32(pad),
		OPH: uint32(opad), OPW: uint32(opad), RQ: rq, W: wt}
	in := chk(uint32(cin), -50, 50)
	ref := one(whg1.OpConvTranspose, ct, []whg1.Tensor{in}, []whg1.Tensor{der(uint32(cout))}, uint32(h), uint32(w))

	// The phase conv: cout·s² channels, each phase's rq that of its o.
	phases := cout * s * s
	pw := make([]int64, phases*cin*T*T)
	prq := whg1.RQ{Round: rq.Round, Bias: rq.Bias, MKind: 2, SKind: 1, Shift: rq.Shift}
	for o := 0; o < cout; o++ {
		for ry := 0; ry < s; ry++ {
			for rx := 0; rx < s; rx++ {
				prq.Mult = append(prq.Mult, rq.Mult[o])
				prq.BiasV = append(prq.BiasV, rq.BiasV[o])
				op := (o*s+ry)*s + rx
				for ci := 0; ci < cin; ci++ {
					for a := 0; a < T; a++ {
						for b := 0; b < T; b++ {
							i, j := ry+s*(T-1-a), rx+s*(T-1-b)
							if i < k && j < k {
								pw[((op*cin+ci)*T+a)*T+b] = wt[((ci*cout+o)*k+i)*k+j]
							}
						}
					}
				}
			}
		}
	}
	ho, wo := (h-1)*s+k+opad-2*pad, (w-1)*s+k+opad-2*pad
	pg := &whg1.Graph{
		Inputs:  []whg1.Input{{Tensor: 0, MaxH: uint32(h), MaxW: uint32(w)}},
		Tensors: []whg1.Tensor{in, der(uint32(phases)), der(uint32(cout)), der(uint32(cout))},
		Outputs: []uint32{3},
		Ops: []whg1.Op{
			{Code: whg1.OpConv, In: []uint32{0}, Out: []uint32{1}, Params: &whg1.Conv{Cout: uint32(phases), KH: uint32(T), KW: uint32(T),
				SH: 1, SW: 1, PH: uint32(T - 1), PW: uint32(T - 1), Groups: 1, RQ: prq, W: pw}},
			{Code: whg1.OpPixelShuffle, In: []uint32{1}, Out: []uint32{2}, Params: &whg1.Factor{N: uint32(s)}},
			{Code: whg1.OpCrop, In: []uint32{2}, Out: []uint32{3}, Params: &whg1.Crop{Y0: whg1.Operand{Value: uint32(pad)},
				X0: whg1.Operand{Value: uint32(pad)}, H: whg1.Operand{Value: uint32(ho)}, W: whg1.Operand{Value: uint32(wo)}}},
		},
	}
	ds := []vectors.Decode{dec(nil, rnd(r, cin, h, w, -50, 50)), dec(nil, ten(cin, h, w, 50)), dec(nil, ten(cin, h, w, -50))}
	id := fmt.Sprintf("cin%d_cout%d_k%d_s%d_p%d_op%d", cin, cout, k, s, pad, opad)
	file := "graphs/phase_form.jsonl"
	g.add(file, "conv_transpose_"+id, ref, ds...)
	g.add(file, "phase_form_conv_pixel_shuffle_crop_"+id, pg, ds...)
	if g.err != nil {
		return
	}
	vs := g.files[file].Graph
	a, b := vs[len(vs)-2], vs[len(vs)-1]
	if a.Load != vectors.LoadOK || b.Load != vectors.LoadOK {
		g.err = fmt.Errorf("phase form %s: load %s and %s", id, a.Load, b.Load)
		return
	}
	for i := range a.Decodes {
		if a.Decodes[i].Refuse != "" || conform.DiffTensors(b.Decodes[i].Outputs, a.Decodes[i].Outputs) != "" {
			g.err = fmt.Errorf("phase form %s: decode %d differs from conv_transpose", id, i)
		}
	}
}

// genState is §14.2's state carried across decodes (§10.3): out = clamp(x +
// s), with s the state input fed by output 0 and init 5. Three decodes
// complete; between them a refused one (x past its check range) and one
// whose size no longer matches the state (geometry_mismatch) change
// nothing. A second graph shows a state input read before the first
// completed decode takes input 0's H and W.
func genState(g *gen) {
	gr := &whg1.Graph{
		Inputs:  []whg1.Input{{Tensor: 0}, {Tensor: 1, Kind: whg1.StateInput, Src: 0, Init: 5}},
		Tensors: []whg1.Tensor{chk(1, -100, 100), clp(1, -1000, 1000), clp(1, -1000, 1000)},
		Outputs: []uint32{2},
		Ops:     []whg1.Op{{Code: whg1.OpAdd, In: []uint32{0, 1}, Out: []uint32{2}}},
	}
	x := func(v ...int64) *tensor.T { return ten(1, 2, 2, v...) }
	g.add("graphs/state.jsonl", "state_add_init5_three_decodes", gr,
		dec(nil, x(1, 2, 3, 4)),
		dec(nil, x(100, -100, 10, 0)),
		dec(nil, x(101, 0, 0, 0)),
		dec(nil, ten(1, 3, 2, 1, 1, 1, 1, 1, 1)),
		dec(nil, x(-100, -100, 100, 100)),
		dec(nil, x(1000, 0, 0, 0)),
		dec(nil, x(7, 7, 7, 7)))
	g.add("graphs/state.jsonl", "state_add_init5_first_decode_refused", gr,
		dec(nil, x(-101, 0, 0, 0)),
		dec(nil, ten(1, 1, 3, 1, 2, 3)),
		dec(nil, ten(1, 1, 3, 1, 2, 3)))
	// A decode whose input has a zero side is refused by §4 run step 1
	// (model_mismatch) and changes no state; before the first completed
	// decode, the state is refused with it before it is built from H = 0.
	g.add("graphs/state.jsonl", "state_add_init5_zero_sides_refused", gr,
		dec(nil, ten(1, 0, 2)),
		dec(nil, x(1, 2, 3, 4)),
		dec(nil, ten(1, 2, 0)),
		dec(nil, ten(1, 0, 0)),
		dec(nil, x(0, 0, 0, 0)))
	// A state of 2 channels, carried through chunk_add and concat: the
	// state's [2, H, W] is built from input 0's H and W.
	gr2 := &whg1.Graph{
		Inputs:  []whg1.Input{{Tensor: 0}, {Tensor: 1, Kind: whg1.StateInput, Src: 1, Init: -3}},
		Tensors: []whg1.Tensor{chk(1, -9, 9), clp(2, -50, 50), clp(1, -50, 50), clp(2, -50, 50)},
		Outputs: []uint32{2, 3},
		Ops: []whg1.Op{
			{Code: whg1.OpChunkAdd, In: []uint32{1}, Out: []uint32{2}},
			{Code: whg1.OpConcat, In: []uint32{0, 2}, Out: []uint32{3}},
		},
	}
	g.add("graphs/state.jsonl", "state_chunk_add_concat_init-3", gr2,
		dec(nil, ten(1, 1, 3, 1, 2, 3)), dec(nil, ten(1, 1, 3, 9, 9, 9)), dec(nil, ten(1, 1, 3, -9, 0, 9)))
}

// loadBase is a valid graph of two operators and one scalar that the
// load-check cases break one field at a time: relu(x) then chscale.
func loadBase() *whg1.Graph {
	gr := &whg1.Graph{
		Scalars: []whg1.Scalar{{Lo: 0, Hi: 1}},
		Inputs:  []whg1.Input{{Tensor: 0}},
		Tensors: []whg1.Tensor{chk(1, -9, 9), der(1), der(1)},
		Outputs: []uint32{2},
		Ops: []whg1.Op{
			{Code: whg1.OpRelu, In: []uint32{0}, Out: []uint32{1}},
			{Code: whg1.OpChscale, In: []uint32{1}, Out: []uint32{2}, Params: &whg1.Chscale{NRows: 2, Shift: 1, M: []int64{3, 5}}},
		},
	}
	return gr
}

// Byte offsets in loadBase's encoding (§10.1, §10.2): the header, one
// scalar record, one input record, one output record, three tensor records,
// then the operators.
const (
	offScalars = 32
	offInputs  = offScalars + 16
	offOutputs = offInputs + 32
	offTensors = offOutputs + 4
	offOps     = offTensors + 3*24
)

// genLoadChecks is §14.2's graph refused at each load check of §10.5, in
// order: each case breaks loadBase (or a graph built for the purpose) at
// one step, and the first vector is the base, which loads.
func genLoadChecks(g *gen) {
	file := "graphs/load_checks.jsonl"
	base := whg1.Encode(loadBase())
	x := ten(1, 2, 2, -9, 0, 3, 9)
	g.addBytes(file, "base_relu_chscale", base, dec([]int64{1}, x))
	patch := func(id string, f func(b []byte) []byte) {
		b := f(append([]byte{}, base...))
		g.addBytes(file, id, b, dec([]int64{1}, x))
	}
	put32 := func(b []byte, off int, v uint32) []byte { binary.LittleEndian.PutUint32(b[off:], v); return b }
	// Step 1: magic, version, operator set.
	patch("step1_magic", func(b []byte) []byte { b[3] = '2'; return b })
	patch("step1_version2", func(b []byte) []byte { b[4] = 2; return b })
	patch("step1_operator_set2", func(b []byte) []byte { b[5] = 2; return b })
	// Step 2: reserved fields.
	patch("step2_header_reserved_6", func(b []byte) []byte { b[6] = 1; return b })
	patch("step2_header_reserved_28", func(b []byte) []byte { b[31] = 1; return b })
	patch("step2_input_reserved", func(b []byte) []byte { b[offInputs+13] = 1; return b })
	patch("step2_tensor_reserved", func(b []byte) []byte { b[offTensors+6] = 1; return b })
	patch("step2_op_reserved", func(b []byte) []byte { b[offOps+3] = 1; return b })
	// Step 3: the counts against the file's length.
	patch("step3_truncated", func(b []byte) []byte { return b[:len(b)-1] })
	patch("step3_trailing_byte", func(b []byte) []byte { return append(b, 0) })
	patch("step3_n_tensors_huge", func(b []byte) []byte { return put32(b, 8, 1<<30) })
	patch("step3_header_only", func(b []byte) []byte { return b[:32] })
	// Step 4: each table's records.
	patch("step4_max_elems_0", func(b []byte) []byte { return put32(b, 24, 0) })
	patch("step4_max_elems_2p26_plus_1", func(b []byte) []byte { return put32(b, 24, 1<<26+1) })
	patch("step4_scalar_lo_above_hi", func(b []byte) []byte { b[offScalars] = 2; return b })
	patch("step4_input_max_h_only", func(b []byte) []byte { return put32(b, offInputs+4, 3) })
	patch("step4_input_kind2", func(b []byte) []byte { b[offInputs+12] = 2; return b })
	patch("step4_tensor_channels0", func(b []byte) []byte { return put32(b, offTensors, 0) })
	patch("step4_tensor_policy3", func(b []byte) []byte { b[offTensors+5] = 3; return b })
	patch("step4_derived_lo_nonzero", func(b []byte) []byte { b[offTensors+24+8] = 1; return b })
	patch("step4_check_lo_above_hi", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[offTensors+8:], 10); return b })
	// Step 5: an operator's opcode, arity, parameter length, parameter ranges.
	patch("step5_opcode_0x1f", func(b []byte) []byte { b[offOps] = 0x1F; return b })
	patch("step5_opcode_0", func(b []byte) []byte { b[offOps] = 0; return b })
	patch("step5_relu_plen1", func(b []byte) []byte {
		b = put32(b, offOps+12, 1)
		return append(b[:offOps+16], append([]byte{0}, b[offOps+16:]...)...)
	})
	patch("step5_chscale_shift128", func(b []byte) []byte { b[offOps+32+10] = 128; return b })
	patch("step5_chscale_round3", func(b []byte) []byte { b[offOps+32+8] = 3; return b })
	// Step 6: the graph rules.
	bad := func(id string, f func(gr *whg1.Graph)) {
		gr := loadBase()
		f(gr)
		g.add(file, id, gr, dec([]int64{1}, x))
	}
	bad("step6_tensor_written_twice", func(gr *whg1.Graph) { gr.Ops[1].Out = []uint32{1} })
	bad("step6_reads_a_later_tensor", func(gr *whg1.Graph) { gr.Ops[0].In = []uint32{2} })
	bad("step6_input_is_an_output", func(gr *whg1.Graph) { gr.Ops[0].Out = []uint32{0} })
	bad("step6_tensor_never_written", func(gr *whg1.Graph) {
		gr.Tensors = append(gr.Tensors, der(1))
		gr.Outputs = []uint32{3}
	})
	bad("step6_input_policy_derived", func(gr *whg1.Graph) { gr.Tensors[0] = der(1) })
	bad("step6_input0_state", func(gr *whg1.Graph) { gr.Inputs[0].Kind = whg1.StateInput })
	stateBad := func(id string, f func(gr *whg1.Graph)) {
		bad(id, func(gr *whg1.Graph) {
			gr.Tensors = append(gr.Tensors, clp(1, -9, 9), der(1))
			gr.Inputs = append(gr.Inputs, whg1.Input{Tensor: 3, Kind: whg1.StateInput, Src: 0})
			gr.Ops = append(gr.Ops, whg1.Op{Code: whg1.OpAdd, In: []uint32{2, 3}, Out: []uint32{4}})
			gr.Outputs = []uint32{4}
			f(gr)
		})
	}
	stateBad("step6_state_ok", func(*whg1.Graph) {})
	stateBad("step6_state_src_past_outputs", func(gr *whg1.Graph) { gr.Inputs[1].Src = 1 })
	stateBad("step6_state_init_past_range", func(gr *whg1.Graph) { gr.Inputs[1].Init = 10 })
	stateBad("step6_state_channels_differ", func(gr *whg1.Graph) {
		gr.Tensors[3].Channels = 2
		gr.Ops[2] = whg1.Op{Code: whg1.OpConcat, In: []uint32{2, 3}, Out: []uint32{4}}
		gr.Tensors[4].Channels = 3
	})
	bad("step6_exponents_differ", func(gr *whg1.Graph) {
		gr.Tensors = append(gr.Tensors, der(1))
		gr.Ops = append(gr.Ops, whg1.Op{Code: whg1.OpAdd, In: []uint32{0, 2}, Out: []uint32{3}})
		gr.Outputs = []uint32{3}
		gr.Tensors[0].Exponent = 2
	})
	// Step 7: the plan.
	bad("step7_output_channels_differ", func(gr *whg1.Graph) { gr.Tensors[1].Channels = 2 })
	bad("step7_declared_input_past_max_elems", func(gr *whg1.Graph) {
		gr.MaxElems = 15
		gr.Inputs[0].MaxH, gr.Inputs[0].MaxW = 4, 4
	})
	bad("step7_declared_input_at_max_elems", func(gr *whg1.Graph) {
		gr.MaxElems = 16
		gr.Inputs[0].MaxH, gr.Inputs[0].MaxW = 4, 4
	})
	bad("step7_declared_output_past_max_elems", func(gr *whg1.Graph) {
		gr.MaxElems = 16
		gr.Inputs[0].MaxH, gr.Inputs[0].MaxW = 4, 4
		gr.Tensors = append(gr.Tensors, der(2))
		gr.Ops = append(gr.Ops, whg1.Op{Code: whg1.OpConcat, In: []uint32{2, 1}, Out: []uint32{3}})
		gr.Outputs = []uint32{3}
	})
	// Step 8: the bounds pass: an empty check interval, and a node past acc64.
	bad("step8_check_interval_empty", func(gr *whg1.Graph) { gr.Tensors[1] = chk(1, -9, -1) })
	bad("step8_acc64_fails", func(gr *whg1.Graph) {
		gr.Ops[1].Params = &whg1.Chscale{NRows: 2, Shift: 0, M: []int64{1 << 62, 5}}
	})
}

// genRunSteps is §14.2's graph refused at each step of §4's run, and in
// their order: chscale(x, k) into a check tensor a, concat(a, y), then
// pixel_unshuffle by 2. Each decode names what it breaks; a decode that
// breaks two steps is refused by the earlier one.
func genRunSteps(g *gen) {
	gr := &whg1.Graph{
		MaxElems: 48,
		Scalars:  []whg1.Scalar{{Lo: 0, Hi: 1}},
		Inputs:   []whg1.Input{{Tensor: 0}, {Tensor: 1}},
		Tensors:  []whg1.Tensor{chk(1, -9, 9), clp(2, -5, 5), chk(1, -20, 20), der(3), der(12)},
		Outputs:  []uint32{4},
		Ops: []whg1.Op{
			{Code: whg1.OpChscale, In: []uint32{0}, Out: []uint32{2}, Params: &whg1.Chscale{NRows: 2, Shift: 0, M: []int64{1, 3}}},
			{Code: whg1.OpConcat, In: []uint32{2, 1}, Out: []uint32{3}},
			{Code: whg1.OpPixelUnshuffle, In: []uint32{3}, Out: []uint32{4}, Params: &whg1.Factor{N: 2}},
		},
	}
	r := pcg(10)
	x := func(h, w int, v int64) *tensor.T {
		t := rnd(r, 1, h, w, -6, 6)
		t.Data[0] = v
		return t
	}
	y := func(c, h, w int) *tensor.T { return rnd(r, c, h, w, -9, 9) }
	k0, k1, k2 := []int64{0}, []int64{1}, []int64{2}
	cases := []struct {
		id string
		d  vectors.Decode
	}{
		{"completes", dec(k1, x(2, 2, 6), y(2, 2, 2))},
		{"step1_input1_channels", dec(k1, x(2, 2, 0), y(3, 2, 2))},
		{"step1_input0_past_max_elems_before_input1_channels", dec(k1, x(7, 7, 0), y(3, 2, 2))},
		{"step1_input1_past_max_elems", dec(k1, x(2, 2, 0), y(2, 5, 5))},
		{"step1_input1_channels_before_scalar", dec(k2, x(2, 2, 0), y(1, 2, 2))},
		{"step2_scalar_past_range", dec(k2, x(2, 2, 0), y(2, 2, 2))},
		{"step2_scalar_before_plan", dec(k2, x(3, 2, 0), y(2, 3, 2))},
		{"step3_plan_sizes_disagree", dec(k1, x(2, 2, 0), y(2, 2, 4))},
		{"step3_plan_odd_before_input_values", dec(k1, x(3, 2, 10), y(2, 3, 2))},
		{"step3_plan_output_past_max_elems", dec(k1, x(4, 6, 0), y(2, 4, 6))},
		{"step4_input0_past_check", dec(k1, x(2, 2, 10), y(2, 2, 2))},
		{"step4_input1_clamped", dec(k0, x(2, 2, 9), ten(2, 2, 2, -100, 100, -6, 6, 5, -5, 0, 1000))},
		{"step4_check_tensor_produced_past_range", dec(k1, x(2, 2, 7), y(2, 2, 2))},
		{"step4_check_tensor_within_range", dec(k0, x(2, 2, -9), y(2, 2, 2))},
		// §4 run step 1's H ≥ 1 and W ≥ 1 (model_mismatch): a zero side,
		// before the size checks (H = 0 with W = 2^26) and the scalar.
		{"step1_input0_h0", dec(k1, ten(1, 0, 2), y(2, 2, 2))},
		{"step1_input0_w0", dec(k1, ten(1, 2, 0), y(2, 2, 2))},
		{"step1_input1_h0_w0", dec(k1, x(2, 2, 0), ten(2, 0, 0))},
		{"step1_input0_c0_h0_w0", dec(k1, ten(0, 0, 0), y(2, 2, 2))},
		{"step1_input0_h0_w2p26_before_max_elems", dec(k1, ten(1, 0, 1<<26), y(2, 2, 2))},
		{"step1_input0_h0_before_scalar", dec(k2, ten(1, 0, 2), y(2, 2, 2))},
	}
	for _, c := range cases {
		g.add("graphs/run_steps.jsonl", c.id, gr, c.d)
	}
	// The same graph with a derived a: no check inside the graph, so acc32
	// fabrics run the refusal order too.
	gr.Tensors[2] = der(1)
	for _, c := range cases {
		g.add("graphs/run_steps.jsonl", "derived_"+c.id, gr, c.d)
	}
}

// genLowerings is §14.2's last item: each lowering of §13 on the small sets
// of the §14.3 corpus (setcorpus.GraphCases gives the graphs and inputs).
func genLowerings(g *gen) {
	cases, err := setcorpus.GraphCases()
	if err != nil {
		g.err = err
		return
	}
	for _, c := range cases {
		ds := make([]vectors.Decode, len(c.Decodes))
		for i, d := range c.Decodes {
			ds[i] = dec(d.Scalars, d.Inputs...)
		}
		g.addBytes("graphs/lowerings.jsonl", c.ID, c.Graph, ds...)
	}
}
