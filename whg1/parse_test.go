package whg1

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
)

// small is a graph of one scalar [0, 3], one input [2] and one relu:
// scalar at 32, input at 48, output at 80, tensors at 84 and 108, the op at
// 132 and its parameters (none) at 148.
func small() *builder {
	b := newBuilder(2, 0, 0)
	b.scalar(0, 3)
	return b
}

func smallRelu() *Graph {
	b := small()
	return b.done(b.op1(OpRelu, nil, 0, 2))
}

// with builds a one-operator graph on small().
func with(code Opcode, p any, outC uint32) *Graph {
	b := small()
	return b.done(b.op1(code, p, 0, outC))
}

func put32(b []byte, off int, v uint32) []byte {
	binary.LittleEndian.PutUint32(b[off:], v)
	return b
}

func put16(b []byte, off int, v uint16) []byte {
	binary.LittleEndian.PutUint16(b[off:], v)
	return b
}

func set(b []byte, off int, v byte) []byte {
	b[off] = v
	return b
}

// edit returns the encoding of smallRelu() after f edits the literal.
func edit(f func(g *Graph)) []byte {
	g := smallRelu()
	f(g)
	return Encode(g)
}

type loadCase struct {
	name string
	file []byte
	code refusal.Code
	msg  string
}

func runLoadCases(t *testing.T, cases []loadCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := Parse(c.file)
			if g != nil {
				t.Fatalf("accepted; want %s", c.code)
			}
			wantRefusal(t, err, c.code, c.msg)
		})
	}
}

// TestLoadSteps1to3 has one malformed file per check of §10.5 steps 1–3.
func TestLoadSteps1to3(t *testing.T) {
	ok := Encode(smallRelu())
	if _, err := Parse(ok); err != nil {
		t.Fatal(err)
	}
	f := func() []byte { return append([]byte(nil), ok...) }
	mm := refusal.ModelMismatch
	twoOps := put32(append(f(), 0x0C, 1), 12, 2) // a second record of 2 bytes
	runLoadCases(t, []loadCase{
		{"short header", f()[:31], mm, "shorter than the 32-byte header"},
		{"magic", set(f(), 3, '2'), mm, "magic"},
		{"version", set(f(), 4, 2), mm, "version 2"},
		{"operator set", set(f(), 5, 0), mm, "operator set 0"},
		{"step 1 before step 2", set(set(f(), 4, 2), 6, 1), mm, "version 2"},
		{"reserved 6", set(f(), 7, 1), mm, "offset 6"},
		{"reserved 22", set(f(), 22, 1), mm, "offset 22"},
		{"reserved 28", set(f(), 31, 1), mm, "offset 28"},
		{"step 2 before step 3", put32(set(f(), 6, 1), 8, 0), mm, "offset 6"},
		{"n_tensors 0", put32(f(), 8, 0), mm, "n_tensors is 0"},
		{"n_ops 0", put32(f(), 12, 0), mm, "n_ops is 0"},
		{"n_inputs 0", put16(f(), 16, 0), mm, "n_inputs is 0"},
		{"n_outputs 0", put16(f(), 18, 0), mm, "n_outputs is 0"},
		{"max_elems 0", put32(f(), 24, 0), mm, "max_elems 0"},
		{"max_elems 2^26+1", put32(f(), 24, 1<<26+1), mm, "max_elems 67108865"},
		{"tables past the end", put32(f(), 8, 1<<26), mm, "need 1610612820 bytes; the file has 148"},
		{"scalars past the end", put16(f(), 20, 0xFFFF), mm, "the file has 148"},
		{"ops past the end", put32(f(), 12, 1<<32-1), mm, "4294967295 operators need at least"},
		{"indices past the end", set(f(), 133, 200), mm, "op 0: 201 tensor indices"},
		{"plen past the end", put32(f(), 144, 1), mm, "op 0: plen 1 passes the end"},
		{"record past the end", twoOps, mm, "op 1: record starts 2 bytes before the end"},
		{"trailing byte", append(f(), 0), mm, "1 bytes follow the last operator"},
		{"step 3 before step 4", put32(append(f(), 0), 84, 0), mm, "follow the last operator"},
	})
}

// TestLoadStep4 has one malformed file per record rule of §10.2.
func TestLoadStep4(t *testing.T) {
	mm := refusal.ModelMismatch
	twoInputs := func(f func(g *Graph)) []byte {
		b := small()
		in1 := b.input(2, 0, 0)
		out := b.op(OpAdd, nil, []uint32{0, in1}, 2)[0]
		g := b.done(out)
		f(g)
		return Encode(g)
	}
	runLoadCases(t, []loadCase{
		{"scalar lo > hi", edit(func(g *Graph) { g.Scalars[0] = Scalar{5, 3} }), mm, "scalar 0: lo 5 > hi 3"},
		{"input tensor", edit(func(g *Graph) { g.Inputs[0].Tensor = 9 }), mm, "input 0: tensor 9 is not below n_tensors 2"},
		{"max_h without max_w", edit(func(g *Graph) { g.Inputs[0].MaxH = 1 }), mm, "max_h 1 and max_w 0"},
		{"inputs not alike", twoInputs(func(g *Graph) { g.Inputs[1].MaxH, g.Inputs[1].MaxW = 4, 4 }), mm, "input 1: declares its sizes"},
		{"kind", edit(func(g *Graph) { g.Inputs[0].Kind = 2 }), mm, "input 0: kind 2"},
		{"input reserved", set(Encode(smallRelu()), 48+13, 1), mm, "input 0: reserved"},
		{"input reserved u32", set(Encode(smallRelu()), 48+20, 1), mm, "input 0: reserved"},
		{"data src", edit(func(g *Graph) { g.Inputs[0].Src = 1 }), mm, "data input has src 1 and init 0"},
		{"data init", edit(func(g *Graph) { g.Inputs[0].Init = -1 }), mm, "data input has src 0 and init -1"},
		{"output tensor", edit(func(g *Graph) { g.Outputs[0] = 2 }), mm, "output 0: tensor 2 is not below"},
		{"channels 0", edit(func(g *Graph) { g.Tensors[1].Channels = 0 }), mm, "tensor 1: channels is 0"},
		{"policy 3", edit(func(g *Graph) { g.Tensors[1].Policy = 3 }), mm, "tensor 1: policy 3"},
		{"tensor reserved", set(Encode(smallRelu()), 84+6, 1), mm, "tensor 0: reserved"},
		{"derived with a range", edit(func(g *Graph) { g.Tensors[1].Hi = 1 }), mm, "tensor 1: derived with lo 0 and hi 1"},
		{"tensor lo > hi", edit(func(g *Graph) { g.Tensors[0].Lo = 200 }), mm, "tensor 0: lo 200 > hi 127"},
		{"op reserved", set(Encode(smallRelu()), 135, 1), mm, "op 0: reserved byte is 1"},
		{"op tensor index", edit(func(g *Graph) { g.Ops[0].Out[0] = 2 }), mm, "op 0: tensor 2 is not below n_tensors 2"},
	})
}

// TestLoadStep5 has one malformed file per operator rule of §10.4 and §5:
// opcode, arity, exact length and each parameter range.
func TestLoadStep5(t *testing.T) {
	mm := refusal.ModelMismatch
	conv := func(f func(c *Conv)) []byte {
		c := &Conv{Cout: 2, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, WBytes: 1, RQ: one(0), W: []int64{1, 2, 3, 4}}
		f(c)
		return Encode(with(OpConv, c, 2))
	}
	rq := func(f func(q *RQ)) []byte {
		q := RQ{SKind: 1, Shift: []uint8{0}}
		f(&q)
		return Encode(with(OpRescale, &Rescale{RQ: q}, 2))
	}
	chs := func(f func(c *Chscale)) []byte {
		c := &Chscale{Scalar: 0, NRows: 4, MBytes: 4, M: make([]int64, 8)}
		f(c)
		return Encode(with(OpChscale, c, 2))
	}
	crop := func(h Operand) []byte {
		return Encode(with(OpCrop, &Crop{H: h, W: Operand{false, 1}}, 2))
	}
	arity := func(code Opcode, nIn int, outC ...uint32) []byte {
		b := small()
		in := make([]uint32, nIn)
		return Encode(b.done(b.op(code, nil, in, outC...)[0]))
	}
	badPerm := func(o [4]uint8) []byte {
		b := small()
		return Encode(b.done(b.op(OpSubposSplit, &Subpos{Order: o}, []uint32{0}, 2, 2, 2, 2)...))
	}
	contraction := func(k *Contraction) []byte {
		b := newBuilder(2, 4, 4)
		return Encode(b.done(b.op(OpGram, k, []uint32{0, 0}, 2)[0]))
	}
	lut := lutTable()
	lut[0] = 1
	okRescale := Encode(with(OpRescale, &Rescale{RQ: one(0)}, 2))
	runLoadCases(t, []loadCase{
		{"opcode 0", set(Encode(smallRelu()), 132, 0), mm, "op 0: opcode 0x00 is not"},
		{"opcode 0x1F", set(Encode(smallRelu()), 132, 0x1F), mm, "opcode 0x1F"},
		{"add arity", arity(OpAdd, 1, 2), mm, "op 0 (add): n_in 1, n_out 1; the operator takes 2 → 1"},
		{"concat arity", arity(OpConcat, 1, 2), mm, "op 0 (concat): n_in 1; concat takes at least 2"},
		{"subpos_split arity", arity(OpSubposSplit, 1, 2, 2, 2), mm, "n_out 3; the operator takes 1 → 4"},
		{"subpos_merge arity", arity(OpSubposMerge, 3, 2), mm, "n_in 3, n_out 1; the operator takes 4 → 1"},
		{"relu plen", Encode(with(OpRelu, &Factor{N: 1}, 2)), mm, "op 0 (relu): plen 4; the layout needs 0"},
		{"conv plen", conv(func(c *Conv) { c.W = append(c.W, 5) }), mm, "op 0 (conv): plen 50; the layout needs 49"},
		{"conv short", put32(set(conv(func(*Conv) {}), 132+16, 0), 144, 3)[:151], mm, "shorter than the 36 bytes"},
		{"conv w_bytes", set(conv(func(*Conv) {}), 148+32, 3), mm, "w_bytes 3"},
		{"conv groups 0", conv(func(c *Conv) { c.Groups = 0 }), mm, "op 0 (conv): groups is 0"},
		{"conv cout 0", conv(func(c *Conv) { c.Cout, c.W = 0, nil }), mm, "cout is 0"},
		{"conv kh 0", conv(func(c *Conv) { c.KH, c.W = 0, nil }), mm, "kh is 0"},
		{"conv sw 0", conv(func(c *Conv) { c.SW = 0 }), mm, "sw is 0"},
		{"conv reserved", set(conv(func(*Conv) {}), 148+33, 1), mm, "reserved field is not zero"},
		{"convT w_bytes", Encode(with(OpConvTranspose, &ConvT{Cout: 2, KH: 1, KW: 1, SH: 1, SW: 1, WBytes: 5, RQ: one(0), W: make([]int64, 4)}, 2)), mm, "w_bytes 5"},
		{"convT sh 0", Encode(with(OpConvTranspose, &ConvT{Cout: 2, KH: 1, KW: 1, SW: 1, WBytes: 1, RQ: one(0), W: make([]int64, 4)}, 2)), mm, "(conv_transpose): sh is 0"},
		{"rq bias 3", rq(func(q *RQ) { q.Bias, q.BBytes, q.BiasV = 3, 4, []int64{0, 0} }), mm, "rq: bias 3"},
		{"rq m_kind 3", rq(func(q *RQ) { q.MKind = 3 }), mm, "rq: m_kind 3"},
		{"rq s_kind 0", rq(func(q *RQ) { q.SKind = 0 }), mm, "rq: s_kind 0"},
		{"rq m_bytes absent", rq(func(q *RQ) { q.MBytes = 4 }), mm, "m_bytes 4 with no multiplier"},
		{"rq m_bytes 2", rq(func(q *RQ) { q.MKind, q.MBytes, q.Mult = 1, 2, []int64{1} }), mm, "rq: m_bytes 2 is not 4 or 8"},
		{"rq b_bytes absent", set(bytes.Clone(okRescale), 148+5, 4), mm, "b_bytes 4 with no bias"},
		{"rq b_bytes 2", rq(func(q *RQ) { q.Bias, q.BBytes, q.BiasV = PreBias, 2, []int64{0, 0} }), mm, "rq: b_bytes 2"},
		{"rq plen", rq(func(q *RQ) { q.SKind = 2 }), mm, "op 0 (rescale): plen 9; the layout needs 10"},
		{"rq round 3", rq(func(q *RQ) { q.Round = 3 }), mm, "rq: round 3"},
		{"rq reserved", set(bytes.Clone(okRescale), 148+7, 1), mm, "rq: reserved"},
		{"rq shift 128", rq(func(q *RQ) { q.SKind, q.Shift = 2, []uint8{127, 128} }), mm, "rq: shift[1] = 128 is above 127"},
		{"mul bias", func() []byte {
			b := small()
			return Encode(b.done(b.op(OpMul, &Rescale{RQ: RQ{Bias: PostBias, SKind: 1, Shift: []uint8{0}, BBytes: 4, BiasV: []int64{0, 0}}}, []uint32{0, 0}, 2)[0]))
		}(), mm, "mul's rq has a bias"},
		{"gram m_kind", contraction(&Contraction{Groups: 1, RQ: RQ{MKind: 1, MBytes: 4, Mult: []int64{1}, SKind: 1, Shift: []uint8{0}}}), mm, "(gram): rq has m_kind 1"},
		{"gram groups 0", contraction(&Contraction{RQ: one(0)}), mm, "(gram): groups is 0"},
		{"chscale m_bytes", chs(func(c *Chscale) { c.MBytes = 2 }), mm, "m_bytes 2"},
		{"chscale plen", chs(func(c *Chscale) { c.M = c.M[:7] }), mm, "plen 40; the layout needs 44"},
		{"chscale round", chs(func(c *Chscale) { c.Round = 3 }), mm, "round 3"},
		{"chscale shift", chs(func(c *Chscale) { c.Shift = 128 }), mm, "shift 128"},
		{"chscale scalar index", chs(func(c *Chscale) { c.Scalar = 1 }), mm, "scalar 1 is not below n_scalars 1"},
		{"chscale rows", chs(func(c *Chscale) { c.NRows, c.M = 3, make([]int64, 6) }), mm, "range [0, 3] is not within the rows [0, 2]"},
		{"lut16 T[0]", Encode(with(OpLut16, &Lut16{EIn: NoExponent, EOut: NoExponent, T: lut}, 2)), mm, "(lut16): T[0] = 1"},
		{"lut16 short", Encode(with(OpLut16, &Lut16{EIn: NoExponent, EOut: NoExponent, T: lut[:10]}, 2)), mm, "plen 24; the layout needs 131076"},
		{"lut16 reserved", set(Encode(with(OpLut16, &Lut16{EIn: NoExponent, EOut: NoExponent, T: lutTable()}, 2)), 148+2, 1), mm, "reserved"},
		{"split count", Encode(with(OpSplit, &Split{Start: 0}, 1)), mm, "(split): count is 0"},
		{"pixel_shuffle r", Encode(with(OpPixelShuffle, &Factor{}, 2)), mm, "(pixel_shuffle): factor is 0"},
		{"pad_rep m", Encode(with(OpPadRep, &Factor{}, 2)), mm, "(pad_rep): factor is 0"},
		{"clamp", Encode(with(OpClamp, &ClampParams{Lo: 3, Hi: 2}, 2)), mm, "(clamp): lo 3 > hi 2"},
		{"leaky f", Encode(with(OpLeaky, &Leaky{F: 64}, 2)), mm, "(leaky): f 64 is above 63"},
		{"crop scalar index", crop(Operand{true, 1}), mm, "(crop): h names scalar 1; n_scalars is 1"},
		{"crop kind", set(crop(Operand{false, 1}), 148+16, 2), mm, "h: kind 2"},
		{"crop reserved", set(crop(Operand{false, 1}), 148+1, 1), mm, "y0: reserved"},
		{"subpos repeat", badPerm([4]uint8{0, 1, 1, 3}), mm, "not a permutation"},
		{"subpos 4", badPerm([4]uint8{0, 1, 2, 4}), mm, "not a permutation"},
		{"fill scalar index", Encode(with(OpFill, &Fill{Scalar: true, Value: 1}, 2)), mm, "(fill): value names scalar 1"},
		{"fill negative index", Encode(with(OpFill, &Fill{Scalar: true, Value: -1}, 2)), mm, "value names scalar -1"},
		{"fill kind", set(Encode(with(OpFill, &Fill{}, 2)), 148, 2), mm, "(fill): kind 2"},
		{"fill reserved", set(Encode(with(OpFill, &Fill{}, 2)), 148+7, 2), mm, "(fill): reserved"},
		{"igdn g_bytes", Encode(with(OpIGDN, &IGDN{GBytes: 2, Gamma: make([]int64, 4), Beta: make([]int64, 2)}, 2)), mm, "(igdn): g_bytes 2"},
		{"igdn plen", Encode(with(OpIGDN, &IGDN{GBytes: 4, Gamma: make([]int64, 2), Beta: make([]int64, 2)}, 2)), mm, "plen 40; the layout needs 48"},
		{"igdn gf", Encode(with(OpIGDN, &IGDN{GF: 128, GBytes: 4, Gamma: make([]int64, 4), Beta: make([]int64, 2)}, 2)), mm, "gf 128"},
		{"igdn frac", Encode(with(OpIGDN, &IGDN{Frac: 128, GBytes: 4, Gamma: make([]int64, 4), Beta: make([]int64, 2)}, 2)), mm, "frac 128"},
		{"layernorm ε", Encode(with(OpLayerNormC, &LayerNorm{GBytes: 8, Gamma: make([]int64, 2), Beta: make([]int64, 2)}, 2)), mm, "(layernorm_c): ε is 0"},
		{"layernorm reserved", set(Encode(with(OpLayerNormC, &LayerNorm{Eps: 1, GBytes: 8, Gamma: make([]int64, 2), Beta: make([]int64, 2)}, 2)), 148+9, 1), mm, "reserved"},
		{"l2norm ε", Encode(with(OpL2Norm, &L2Norm{}, 2)), mm, "(l2norm): ε is 0"},
		{"elu plen", Encode(with(OpElu, &Leaky{}, 2)), mm, "(elu): plen 12; the layout needs 8"},
		{"conv length overflows", conv(func(c *Conv) { c.Cout, c.KH, c.KW, c.W = 1<<32-1, 1<<32-1, 1<<32-1, nil }), mm, "more than 2^64 bytes"},
	})
}

// TestLoadStep6 has one malformed file per graph, state and exponent rule
// (§10.3, §3, §5.6).
func TestLoadStep6(t *testing.T) {
	mm := refusal.ModelMismatch
	chain := func(f func(b *builder) *Graph) []byte { return Encode(f(small())) }
	state := func(f func(g *Graph)) []byte {
		b := small()
		st := b.input(2, 0, 0)
		b.g.Inputs[1].Kind, b.g.Inputs[1].Init = StateInput, -5
		g := b.done(b.op(OpAdd, nil, []uint32{0, st}, 2)[0])
		f(g)
		return Encode(g)
	}
	exp := func(code Opcode, nIn int, outC uint32, e ...int8) []byte {
		b := small()
		in := []uint32{0}
		for len(in) < nIn {
			in = append(in, b.input(2, 0, 0))
		}
		out := b.op(code, nil, in, outC)[0]
		for k, t := range append(in, out) {
			b.g.Tensors[t].Exponent = e[k]
		}
		return Encode(b.done(out))
	}
	lut := func(eIn, eOut int8) []byte {
		b := small()
		out := b.op1(OpLut16, &Lut16{EIn: eIn, EOut: eOut, T: lutTable()}, 0, 2)
		b.g.Tensors[0].Exponent, b.g.Tensors[out].Exponent = 4, -4
		return Encode(b.done(out))
	}
	runLoadCases(t, []loadCase{
		{"reads a later tensor", chain(func(b *builder) *Graph {
			b.op1(OpRelu, nil, 2, 2)
			return b.done(b.op1(OpRelu, nil, 0, 2))
		}), mm, "op 0 (relu): reads tensor 2, which is neither"},
		{"reads its own output", edit(func(g *Graph) { g.Ops[0].In[0] = 1 }), mm, "op 0 (relu): reads tensor 1"},
		{"writes an input", chain(func(b *builder) *Graph {
			t := b.op1(OpRelu, nil, 0, 2)
			b.g.Ops = append(b.g.Ops, Op{Code: OpRelu, In: []uint32{t}, Out: []uint32{0}})
			return b.done(t)
		}), mm, "op 1 (relu): writes tensor 0, a graph input"},
		{"written twice", chain(func(b *builder) *Graph {
			t := b.op1(OpRelu, nil, 0, 2)
			b.g.Ops = append(b.g.Ops, Op{Code: OpAbs, In: []uint32{0}, Out: []uint32{t}})
			return b.done(t)
		}), mm, "op 1 (abs): writes tensor 1, already written by op 0"},
		{"undefined tensor", chain(func(b *builder) *Graph {
			b.tensor(2)
			return b.done(b.op1(OpRelu, nil, 0, 2))
		}), mm, "tensor 1 is neither a graph input nor an operator's output"},
		{"input listed twice", chain(func(b *builder) *Graph {
			b.g.Inputs = append(b.g.Inputs, Input{Tensor: 0})
			return b.done(b.op1(OpRelu, nil, 0, 2))
		}), mm, "input 1: tensor 0 is already graph input"},
		{"derived input", edit(func(g *Graph) { g.Tensors[0] = Tensor{Channels: 2, Exponent: NoExponent} }), mm, "input 0: tensor 0 has policy derived"},
		{"input 0 state", state(func(g *Graph) { g.Inputs[0], g.Inputs[1] = g.Inputs[1], g.Inputs[0] }), mm, "input 0 is a state input"},
		{"state src", state(func(g *Graph) { g.Inputs[1].Src = 1 }), mm, "input 1: state src 1 is not below n_outputs 1"},
		{"state channels", state(func(g *Graph) { g.Tensors[1].Channels = 3 }), mm, "input 1: state has 3 channels; output 0 (tensor 2) has 2"},
		{"state init", state(func(g *Graph) { g.Inputs[1].Init = 128 }), mm, "input 1: init 128 is outside the state's range [-128, 127]"},
		{"add exponents", exp(OpAdd, 2, 2, 3, 3, 2), mm, "op 0 (add): tensor 0 has exponent 3 and tensor 2 has 2"},
		{"add one none", exp(OpAdd, 2, 2, NoExponent, 1, NoExponent), mm, "exponent none and tensor 1 has 1"},
		{"concat exponents", exp(OpConcat, 3, 6, 0, 0, 0, -1), mm, "op 0 (concat): tensor 0 has exponent 0 and tensor 3 has -1"},
		{"chunk_add exponents", exp(OpChunkAdd, 1, 1, 5, NoExponent), mm, "op 0 (chunk_add)"},
		{"lut16 e_in", lut(3, -4), mm, "e_in 3 but the input tensor 0 has exponent 4"},
		{"lut16 e_out", lut(4, NoExponent), mm, "e_out none but the output tensor 1 has exponent -4"},
	})
	// The rules pass when they hold: equal exponents, all none, a state.
	for _, b := range [][]byte{exp(OpAdd, 2, 2, -7, -7, -7), exp(OpConcat, 2, 4, NoExponent, NoExponent, NoExponent), lut(4, -4), state(func(*Graph) {})} {
		if _, err := Parse(b); err != nil {
			t.Error(err)
		}
	}
}

// TestLoadStep7 has one file per planning refusal of §10.5 step 7.
func TestLoadStep7(t *testing.T) {
	mm, tl := refusal.ModelMismatch, refusal.TooLarge
	g := func(c, h, w uint32, f func(b *builder) []uint32) []byte {
		b := newBuilder(c, h, w)
		b.scalar(0, 0)
		b.scalar(1, 1000)
		return Encode(b.done(f(b)...))
	}
	conv := func(c, h, w uint32, cv *Conv, outC uint32) []byte {
		return g(c, h, w, func(b *builder) []uint32 { return []uint32{b.op1(OpConv, cv, 0, outC)} })
	}
	groups3 := &Conv{Cout: 3, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 3, WBytes: 1, RQ: one(0), W: make([]int64, 6)}
	two := func(code Opcode, p any, c0, c1, outC uint32, h uint32) []byte {
		return g(c0, h, h, func(b *builder) []uint32 {
			in1 := b.input(c1, h, h)
			return b.op(code, p, []uint32{0, in1}, outC)
		})
	}
	crop := func(y0, h Operand) []byte {
		return g(1, 8, 8, func(b *builder) []uint32 {
			return []uint32{b.op1(OpCrop, &Crop{Y0: y0, H: h, W: Operand{false, 8}}, 0, 1)}
		})
	}
	runLoadCases(t, []loadCase{
		{"conv groups/cin", conv(8, 0, 0, groups3, 3), mm, "op 0 (conv): groups 3 does not divide cin 8"},
		{"conv groups/cout", conv(6, 0, 0, &Conv{Cout: 4, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 3, WBytes: 1, RQ: one(0), W: make([]int64, 8)}, 4), mm, "groups 3 does not divide cout 4"},
		{"output channels", conv(2, 0, 0, &Conv{Cout: 2, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, WBytes: 1, RQ: one(0), W: make([]int64, 4)}, 3), mm, "op 0 (conv): output 0 has 2 channels; tensor 1 declares 3"},
		{"chunk_add odd", g(3, 0, 0, func(b *builder) []uint32 { return []uint32{b.op1(OpChunkAdd, nil, 0, 1)} }), mm, "(chunk_add): C 3 is odd"},
		{"split", g(3, 0, 0, func(b *builder) []uint32 { return []uint32{b.op1(OpSplit, &Split{Start: 2, Count: 2}, 0, 2)} }), mm, "start 2 + count 2 passes C 3"},
		{"pixel_shuffle", g(6, 0, 0, func(b *builder) []uint32 { return []uint32{b.op1(OpPixelShuffle, &Factor{N: 2}, 0, 1)} }), mm, "C 6 is not a multiple of r² = 4"},
		{"pixel_unshuffle u32", g(2, 0, 0, func(b *builder) []uint32 { return []uint32{b.op1(OpPixelUnshuffle, &Factor{N: 1 << 16}, 0, 2)} }), mm, "passes a u32 channel count"},
		{"add channels", two(OpAdd, nil, 2, 3, 2, 0), mm, "(add): inputs have 2 and 3 channels"},
		{"mul channels", two(OpMul, &Rescale{RQ: one(0)}, 4, 2, 4, 0), mm, "(mul): b has 2 channels; it must have a's 4 or 1"},
		{"gram channels", two(OpGram, &Contraction{Groups: 1, RQ: one(0)}, 2, 4, 2, 4), mm, "(gram): inputs have 2 and 4 channels"},
		{"gram groups", two(OpGram, &Contraction{Groups: 4, RQ: one(0)}, 6, 6, 6, 4), mm, "(gram): groups 4 does not divide C 6"},
		{"apply groups", two(OpApply, &Contraction{Groups: 4, RQ: one(0)}, 6, 6, 6, 0), mm, "(apply): groups 4 does not divide C 6"},
		{"subpos_merge channels", g(2, 0, 0, func(b *builder) []uint32 {
			in1 := b.input(3, 0, 0)
			return b.op(OpSubposMerge, &Subpos{Order: [4]uint8{0, 1, 2, 3}}, []uint32{0, 0, in1, 0}, 2)
		}), mm, "input 2 has 3 channels and input 0 has 2"},
		{"channels before sizes", g(4, 4, 4, func(b *builder) []uint32 {
			t := b.op1(OpConv, &Conv{Cout: 4, KH: 5, KW: 5, SH: 1, SW: 1, Groups: 1, WBytes: 1, RQ: one(0), W: make([]int64, 400)}, 0, 4)
			return []uint32{b.op1(OpChunkAdd, nil, t, 3)}
		}), mm, "op 1 (chunk_add): output 0 has 2 channels"},
		{"softmax undeclared", g(2, 0, 0, func(b *builder) []uint32 { return []uint32{b.op1(OpSoftmax, nil, 0, 2)} }), mm, "op 0 (softmax): the graph's inputs do not declare their sizes"},
		{"l2norm undeclared", g(2, 0, 0, func(b *builder) []uint32 { return []uint32{b.op1(OpL2Norm, &L2Norm{Eps: 1}, 0, 2)} }), mm, "op 0 (l2norm): the graph's inputs do not declare"},
		{"gram undeclared", two(OpGram, &Contraction{Groups: 1, RQ: one(0)}, 2, 2, 2, 0), mm, "op 0 (gram): the graph's inputs do not declare"},
		{"input size", g(2, 4096, 8193, func(b *builder) []uint32 { return []uint32{b.op1(OpRelu, nil, 0, 2)} }), tl, "input 0: C·max_h·max_w = 2·4096·8193 passes max_elems 67108864"},
		{"inputs before shapes", g(4, 4, 4, func(b *builder) []uint32 {
			in1 := b.input(1, 1<<14, 1<<14)
			t := b.op1(OpConv, &Conv{Cout: 4, KH: 5, KW: 5, SH: 1, SW: 1, Groups: 1, WBytes: 1, RQ: one(0), W: make([]int64, 400)}, 0, 4)
			return []uint32{t, b.op1(OpRelu, nil, in1, 1)}
		}), tl, "input 1: C·max_h·max_w"},
		{"conv kernel", conv(1, 4, 4, &Conv{Cout: 1, KH: 5, KW: 1, SH: 1, SW: 1, Groups: 1, WBytes: 1, RQ: one(0), W: make([]int64, 5)}, 1), mm, "op 0 (conv): padded input 4×4 is smaller than the kernel 5×1"},
		{"conv padded side", conv(1, 4, 4, &Conv{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, PH: 1 << 25, Groups: 1, WBytes: 1, RQ: one(0), W: make([]int64, 1)}, 1), tl, "op 0 (conv): padded height H + 2ph = 67108868 passes 2^26"},
		{"output max_elems", g(1, 8, 8, func(b *builder) []uint32 {
			b.g.MaxElems = 64
			return []uint32{b.op1(OpPadRep, &Factor{N: 3}, 0, 1)}
		}), tl, "op 0 (pad_rep): output 0 of shape [1, 9, 9] passes max_elems 64"},
		{"subpos_split odd", g(1, 8, 7, func(b *builder) []uint32 {
			return b.op(OpSubposSplit, &Subpos{Order: [4]uint8{0, 1, 2, 3}}, []uint32{0}, 1, 1, 1, 1)
		}), mm, "op 0 (subpos_split): H 8 and W 7 are not both even"},
		// §5.10: crop at load: a constant start as it is, a scalar length
		// min(hi, S − s0); scalar 0 is [0, 0], scalar 1 [1, 1000].
		{"crop constant start", crop(Operand{false, 8}, Operand{true, 1}), mm, "op 0 (crop): crop at (8, 0) of 0×8"},
		{"crop length hi 0", crop(Operand{true, 1}, Operand{true, 0}), mm, "crop at (0, 0) of 0×8"},
		{"crop constant length", crop(Operand{true, 1}, Operand{false, 9}), mm, "crop at (0, 0) of 9×8"},
	})
	// A scalar start plans as 0, a scalar length as min(1000, 8 − 3) = 5, so
	// a constant start of 3 with a scalar length loads, and the 5 rows plan
	// through subpos_split only if the length is even: they are not.
	if _, err := Parse(crop(Operand{false, 3}, Operand{true, 1})); err != nil {
		t.Error(err)
	}
	odd := g(1, 8, 8, func(b *builder) []uint32 {
		c := b.op1(OpCrop, &Crop{Y0: Operand{false, 3}, H: Operand{true, 1}, W: Operand{false, 8}}, 0, 1)
		return b.op(OpSubposSplit, &Subpos{Order: [4]uint8{0, 1, 2, 3}}, []uint32{c}, 1, 1, 1, 1)
	})
	_, err := Parse(odd)
	wantRefusal(t, err, mm, "op 1 (subpos_split): H 5 and W 8")
}

// TestHugeClaimsAllocateNothing: files that claim 2^26-element tensors, or
// 2^32 − 1 operators, in about 100 bytes are refused (or, for a graph that
// is valid, planned) without a large allocation (§3, §10.5 step 3).
func TestHugeClaimsAllocateNothing(t *testing.T) {
	// One input of 2^26 channels, declared 1×1, through a relu: valid.
	b := newBuilder(1<<26, 1, 1)
	big := Encode(b.done(b.op1(OpRelu, nil, 0, 1<<26)))
	// The same, declared 2×1: 2^27 elements, too_large.
	tooBig := append([]byte(nil), big...)
	put32(tooBig, 32+4, 2)
	ops := put32(append([]byte(nil), big...), 12, 1<<32-1)
	tensors := put32(append([]byte(nil), big...), 8, 1<<26)
	conv := newBuilder(1<<26, 0, 0)
	hugeW := Encode(conv.done(conv.op1(OpConv, &Conv{Cout: 1 << 26, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, WBytes: 1, RQ: one(0)}, 0, 1<<26)))
	if len(big) > 140 || len(hugeW) > 200 {
		t.Fatalf("files of %d and %d bytes", len(big), len(hugeW))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g, err := Parse(big)
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.PlanRun([]tensor.Shape{{C: 1 << 26, H: 1, W: 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Shapes[1] != (tensor.Shape{C: 1 << 26, H: 1, W: 1}) {
		t.Fatalf("relu planned as %v", p.Shapes[1])
	}
	_, errRun := g.PlanRun([]tensor.Shape{{C: 1 << 26, H: 1, W: 2}}, nil)
	_, errTL := Parse(tooBig)
	_, errOps := Parse(ops)
	_, errT := Parse(tensors)
	_, errW := Parse(hugeW)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("allocated %d bytes", n)
	}
	wantRefusal(t, errRun, refusal.TooLarge, "input 0: shape [67108864, 1, 2] passes the declared max_h 1, max_w 1")
	wantRefusal(t, errTL, refusal.TooLarge, "input 0: C·max_h·max_w = 67108864·2·1")
	wantRefusal(t, errOps, refusal.ModelMismatch, "4294967295 operators need at least 34359738360 bytes")
	wantRefusal(t, errT, refusal.ModelMismatch, "tables")
	wantRefusal(t, errW, refusal.ModelMismatch, "(conv): plen 45; the layout needs 4503599627370541")
}
