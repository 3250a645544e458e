package whg1

import (
	"bytes"
	"reflect"
	"testing"
)

func TestOpcodeNames(t *testing.T) {
	// §5's table, in opcode order 0x01..0x1E.
	names := []string{"conv", "rescale", "chscale", "lut16", "add", "concat", "chunk_add", "split",
		"pixel_shuffle", "pixel_unshuffle", "clamp", "relu", "leaky", "pad_rep", "crop_to", "mul",
		"conv_transpose", "igdn", "abs", "crop", "subpos_split", "subpos_merge", "fill", "layernorm_c",
		"l2norm", "softmax", "sigmoid", "elu", "gram", "apply"}
	if len(Opcodes) != len(names) {
		t.Fatalf("%d opcodes, want %d", len(Opcodes), len(names))
	}
	for i, name := range names {
		o := Opcodes[i]
		if uint8(o) != uint8(i+1) || o.String() != name {
			t.Errorf("Opcodes[%d] = 0x%02X %q, want 0x%02X %q", i, uint8(o), o, i+1, name)
		}
		if back, ok := opcodeByName(name); !ok || back != o {
			t.Errorf("opcodeByName(%q) = %v, %v", name, back, ok)
		}
	}
	if _, ok := opcodeByName("dilated_conv"); ok {
		t.Error("opcodeByName accepted a name outside §5")
	}
	if s := Opcode(0x1F).String(); s != "opcode 0x1F" {
		t.Errorf("Opcode(0x1F) = %q", s)
	}
}

// TestRoundTripAllOps encodes a literal that uses all 30 operators, parses
// it back to the same model, and re-encodes it to the same bytes.
func TestRoundTripAllOps(t *testing.T) {
	g := allOps()
	seen := map[Opcode]bool{}
	for _, op := range g.Ops {
		seen[op.Code] = true
	}
	if len(seen) != len(Opcodes) {
		t.Fatalf("allOps uses %d of the %d operators", len(seen), len(Opcodes))
	}
	b := Encode(g)
	g2, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g2.Ops, g.Ops) || !reflect.DeepEqual(g2.Tensors, g.Tensors) ||
		!reflect.DeepEqual(g2.Inputs, g.Inputs) || !reflect.DeepEqual(g2.Scalars, g.Scalars) ||
		!reflect.DeepEqual(g2.Outputs, g.Outputs) || g2.MaxElems != g.MaxElems {
		t.Fatal("parsed model differs from the literal")
	}
	if !bytes.Equal(Encode(g2), b) {
		t.Fatal("re-encoding a parsed graph changed its bytes")
	}
}

// TestEncodeLayout checks Encode's bytes against §10.1, §10.2 and §10.4 by
// hand for a one-operator graph.
func TestEncodeLayout(t *testing.T) {
	b := newBuilder(2, 0, 0)
	b.g.MaxElems = 1000
	b.g.Tensors[0].Exponent = -3
	out := b.op1(OpLeaky, &Leaky{A: -2, F: 5}, 0, 2)
	b.g.Tensors[out].Exponent = 7
	got := Encode(b.done(out))
	want := []byte{
		'W', 'H', 'G', '1', 1, 1, 0, 0,
		2, 0, 0, 0, 1, 0, 0, 0, // n_tensors 2, n_ops 1
		1, 0, 1, 0, 0, 0, 0, 0, // n_inputs 1, n_outputs 1, n_scalars 0, reserved
		0xE8, 0x03, 0, 0, 0, 0, 0, 0, // max_elems 1000, reserved
		// input: tensor 0, max 0×0, kind 0, src 0, init 0
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 0, 0, 0, // output: tensor 1
		// tensor 0: 2 channels, exponent −3, check, lo −128, hi 127
		2, 0, 0, 0, 0xFD, 2, 0, 0, 0x80, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 127, 0, 0, 0, 0, 0, 0, 0,
		// tensor 1: 2 channels, exponent 7, derived
		2, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		// op: leaky, 1 → 1, in 0, out 1, plen 12, a = −2, f = 5
		0x0D, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 12, 0, 0, 0,
		0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 5, 0, 0, 0,
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Encode:\n have % x\n want % x", got, want)
	}
	if _, err := Parse(want); err != nil {
		t.Fatal(err)
	}
}

// TestEncodeAutoWidth: a zero width in a literal is written as the smallest
// the layout allows that holds every value, and parses back to the values.
func TestEncodeAutoWidth(t *testing.T) {
	b := newBuilder(1, 0, 0)
	w := []int64{-129, 5} // needs 2 bytes
	rq := RQ{MKind: 1, SKind: 1, Bias: PostBias, Mult: []int64{1 << 31}, Shift: []uint8{0}, BiasV: []int64{-(1 << 31), 1}}
	out := b.op1(OpConv, &Conv{Cout: 2, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, RQ: rq, W: w}, 0, 2)
	g, err := Parse(Encode(b.done(out)))
	if err != nil {
		t.Fatal(err)
	}
	c := g.Ops[0].Params.(*Conv)
	if c.WBytes != 2 || c.RQ.MBytes != 8 || c.RQ.BBytes != 4 {
		t.Fatalf("widths w %d m %d b %d, want 2 8 4", c.WBytes, c.RQ.MBytes, c.RQ.BBytes)
	}
	if !reflect.DeepEqual(c.W, w) || c.RQ.Mult[0] != 1<<31 || !reflect.DeepEqual(c.RQ.BiasV, rq.BiasV) {
		t.Fatalf("values changed: %v %v %v", c.W, c.RQ.Mult, c.RQ.BiasV)
	}
}

// TestSignExtension: each width's negative values come back sign-extended.
func TestSignExtension(t *testing.T) {
	for _, wb := range []uint8{1, 2, 4, 8} {
		lo := -(int64(1) << (8*wb - 1))
		b := newBuilder(1, 0, 0)
		w := []int64{lo, lo + 1, -1, 0, -lo - 1}
		out := b.op1(OpConv, &Conv{Cout: 5, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, WBytes: wb, RQ: one(0), W: w}, 0, 5)
		g, err := Parse(Encode(b.done(out)))
		if err != nil {
			t.Fatal(err)
		}
		if have := g.Ops[0].Params.(*Conv).W; !reflect.DeepEqual(have, w) {
			t.Errorf("w_bytes %d: have %v, want %v", wb, have, w)
		}
	}
}

// TestEncodeWidensRatherThanWraps: a literal whose recorded width cannot hold
// one of its values is written in the next width of the layout that holds
// them all, never as the value's low bytes (a wrap Parse could not see).
// w_bytes 1 with 300 needs 2; m_bytes 4 with 2^31 needs 8; b_bytes 4 with
// −2^31 − 1 needs 8; chscale's m_bytes 4 with 2^40 needs 8; g_bytes 4 with
// 2^32 needs 8.
func TestEncodeWidensRatherThanWraps(t *testing.T) {
	b := newBuilder(2, 0, 0)
	b.scalar(0, 0)
	rq := RQ{MKind: 1, MBytes: 4, SKind: 1, Bias: PreBias, BBytes: 4, Mult: []int64{1 << 31}, Shift: []uint8{0}, BiasV: []int64{-(1 << 31) - 1, 1}}
	c := b.op1(OpConv, &Conv{Cout: 2, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, WBytes: 1, RQ: rq, W: []int64{300, -1, 127, -128}}, 0, 2)
	s := b.op1(OpChscale, &Chscale{NRows: 1, MBytes: 4, M: []int64{1 << 40, -3}}, c, 2)
	l := b.op1(OpLayerNormC, &LayerNorm{Eps: 1, GBytes: 4, Gamma: []int64{1 << 32, 0}, Beta: []int64{0, 0}}, s, 2)
	g, err := Parse(Encode(b.done(l)))
	if err != nil {
		t.Fatal(err)
	}
	cv := g.Ops[0].Params.(*Conv)
	cs := g.Ops[1].Params.(*Chscale)
	ln := g.Ops[2].Params.(*LayerNorm)
	if cv.WBytes != 2 || cv.RQ.MBytes != 8 || cv.RQ.BBytes != 8 || cs.MBytes != 8 || ln.GBytes != 8 {
		t.Errorf("widths w %d m %d b %d chscale %d g %d, want 2 8 8 8 8", cv.WBytes, cv.RQ.MBytes, cv.RQ.BBytes, cs.MBytes, ln.GBytes)
	}
	if !reflect.DeepEqual(cv.W, []int64{300, -1, 127, -128}) || cv.RQ.Mult[0] != 1<<31 || cv.RQ.BiasV[0] != -(1<<31)-1 ||
		cs.M[0] != 1<<40 || ln.Gamma[0] != 1<<32 {
		t.Errorf("values wrapped: %v %v %v %v %v", cv.W, cv.RQ.Mult, cv.RQ.BiasV, cs.M, ln.Gamma)
	}
}

// opcodeByName is the opcode of a §5 operator name.
func opcodeByName(name string) (Opcode, bool) {
	for _, o := range Opcodes {
		if opTable[o].name == name {
			return o, true
		}
	}
	return 0, false
}
