package whg1

import (
	"testing"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
)

func parsed(t *testing.T, g *Graph) *Graph {
	t.Helper()
	p, err := Parse(Encode(g))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func sh(c, h, w int) tensor.Shape { return tensor.Shape{C: c, H: h, W: w} }

// TestPlanAllOps plans allOps at a decode; every shape is worked from §5 in
// allOps' comments (tensor k is the output of the k-th operator added).
func TestPlanAllOps(t *testing.T) {
	g := parsed(t, allOps())
	p, err := g.PlanRun([]tensor.Shape{sh(4, 8, 8)}, []int64{1, 2, 4, -3})
	if err != nil {
		t.Fatal(err)
	}
	want := []tensor.Shape{
		sh(4, 8, 8), sh(4, 8, 8), sh(4, 8, 8), sh(4, 8, 8), sh(4, 8, 8), sh(4, 8, 8), // in, conv … add
		sh(12, 8, 8), sh(6, 8, 8), sh(4, 8, 8), sh(16, 4, 4), sh(4, 8, 8), // concat … pixel_shuffle
		sh(4, 8, 8), sh(4, 8, 8), sh(4, 8, 8), sh(4, 9, 9), sh(4, 8, 8), // clamp, relu, leaky, pad_rep, crop_to
		sh(1, 8, 8), sh(4, 8, 8), sh(2, 16, 17), sh(2, 16, 17), sh(2, 16, 17), // split, mul, conv_transpose, igdn, abs
		sh(2, 4, 8), sh(2, 2, 4), sh(2, 2, 4), sh(2, 2, 4), sh(2, 2, 4), sh(2, 4, 8), // crop (2, 2, 4, 8), subpos
		sh(3, 4, 8), sh(3, 4, 8), sh(3, 4, 8), sh(3, 4, 8), sh(3, 4, 8), sh(3, 4, 8), // fill … elu
		sh(3, 1, 1), sh(3, 4, 8), // gram (d = 1), apply
	}
	if len(p.Shapes) != len(want) {
		t.Fatalf("%d shapes, want %d", len(p.Shapes), len(want))
	}
	for i := range want {
		if p.Shapes[i] != want[i] {
			t.Errorf("tensor %d: %v, want %v", i, p.Shapes[i], want[i])
		}
	}
	crop := g.Ops[20].Params.(*Crop)
	if y0, x0, h, w := p.Operand(crop.Y0), p.Operand(crop.X0), p.Operand(crop.H), p.Operand(crop.W); y0 != 2 || x0 != 2 || h != 4 || w != 8 {
		t.Errorf("crop operands %d %d %d %d, want 2 2 4 8", y0, x0, h, w)
	}
	if v := p.FillValue(g.Ops[23].Params.(*Fill)); v != -3 {
		t.Errorf("fill value %d, want -3", v)
	}
	if v := p.FillValue(&Fill{Value: -1 << 63}); v != -1<<63 {
		t.Errorf("constant fill value %d", v)
	}

	// A smaller decode: the crop's scalar height 2 gives [2, 2, 8].
	p, err = g.PlanRun([]tensor.Shape{sh(4, 6, 6)}, []int64{0, 0, 2, 5})
	if err != nil {
		t.Fatal(err)
	}
	if p.Shapes[21] != sh(2, 2, 8) || p.Shapes[34] != sh(3, 2, 8) {
		t.Errorf("crop %v, apply %v; want [2, 2, 8], [3, 2, 8]", p.Shapes[21], p.Shapes[34])
	}

	gm, tl, fr, mm := refusal.GeometryMismatch, refusal.TooLarge, refusal.FieldRange, refusal.ModelMismatch
	for _, c := range []struct {
		name    string
		in      tensor.Shape
		scalars []int64
		code    refusal.Code
		msg     string
	}{
		// §4 run step 3: a divisibility that holds at 8 but not at 5.
		{"odd size", sh(4, 5, 5), []int64{0, 0, 2, 0}, gm, "op 8 (pixel_unshuffle): H 5 and W 5 are not both multiples of r 2"},
		{"odd crop", sh(4, 8, 8), []int64{0, 0, 3, 0}, gm, "op 21 (subpos_split): H 3 and W 8 are not both even"},
		{"crop past the side", sh(4, 2, 2), []int64{0, 2, 2, 0}, gm, "op 20 (crop): crop at (2, 2) of 2×8 does not fit the input's 4×5"},
		{"scalar range", sh(4, 8, 8), []int64{0, 3, 2, 0}, fr, "scalar 1 = 3 is outside [0, 2]"},
		{"step 2 before step 3", sh(4, 5, 5), []int64{0, 0, 9, 0}, fr, "scalar 2 = 9"},
		{"step 1 before step 2", sh(4, 9, 8), []int64{0, 0, 9, 0}, tl, "input 0: shape [4, 9, 8] passes the declared max_h 8, max_w 8"},
		{"scalar count", sh(4, 8, 8), []int64{0, 0, 2}, mm, "3 scalars supplied; the graph has 4"},
	} {
		_, err := g.PlanRun([]tensor.Shape{c.in}, c.scalars)
		wantRefusal(t, err, c.code, c.msg)
	}
}

// TestPlanInputs covers §4 run step 1, input by input.
func TestPlanInputs(t *testing.T) {
	b := newBuilder(2, 0, 0)
	in1 := b.input(1, 0, 0)
	b.g.MaxElems = 100
	g := parsed(t, b.done(b.op1(OpRelu, nil, 0, 2), b.op1(OpAbs, nil, in1, 1)))
	d := newBuilder(2, 4, 6)
	d.input(1, 4, 6)
	gd := parsed(t, d.done(d.op1(OpRelu, nil, 0, 2), d.op1(OpAbs, nil, 1, 1)))
	mm, tl := refusal.ModelMismatch, refusal.TooLarge
	for _, c := range []struct {
		name string
		g    *Graph
		in   []tensor.Shape
		code refusal.Code
		msg  string
	}{
		{"count", g, []tensor.Shape{sh(2, 1, 1)}, mm, "1 inputs supplied; the graph has 2"},
		{"channels", g, []tensor.Shape{sh(3, 1, 1), sh(1, 1, 1)}, mm, "input 0: shape [3, 1, 1]; the graph wants 2 channels"},
		{"H 0", g, []tensor.Shape{sh(2, 1, 1), sh(1, 0, 1)}, mm, "input 1: shape [1, 0, 1]"},
		{"W negative", g, []tensor.Shape{sh(2, 1, -1), sh(1, 1, 1)}, mm, "input 0: shape [2, 1, -1]"},
		{"max_elems", g, []tensor.Shape{sh(2, 10, 6), sh(1, 1, 1)}, tl, "input 0: shape [2, 10, 6] passes max_elems 100"},
		{"max_elems overflow", g, []tensor.Shape{sh(2, 1<<62, 1<<62), sh(1, 1, 1)}, tl, "passes max_elems 100"},
		{"one at a time", g, []tensor.Shape{sh(2, 10, 6), sh(5, 1, 1)}, tl, "input 0"},
		{"channels before size", g, []tensor.Shape{sh(2, 1, 1), sh(5, 100, 100)}, mm, "input 1: shape [5, 100, 100]"},
		{"max_h", gd, []tensor.Shape{sh(2, 5, 6), sh(1, 1, 1)}, tl, "input 0: shape [2, 5, 6] passes the declared max_h 4, max_w 6"},
		{"max_w", gd, []tensor.Shape{sh(2, 4, 6), sh(1, 4, 7)}, tl, "input 1: shape [1, 4, 7] passes the declared"},
	} {
		_, err := c.g.PlanRun(c.in, nil)
		wantRefusal(t, err, c.code, c.msg)
	}
	if _, err := gd.PlanRun([]tensor.Shape{sh(2, 4, 6), sh(1, 1, 1)}, nil); err != nil {
		t.Error(err)
	}
}

// TestPlanShapeRules gives each shape rule of §5 an input that breaks it at
// a decode (geometry_mismatch), and each size formed before a shape rule
// one past 2^26 (too_large, even where the shape rule fails too).
func TestPlanShapeRules(t *testing.T) {
	gm, tl := refusal.GeometryMismatch, refusal.TooLarge
	unary := func(code Opcode, p any, outC uint32) func(b *builder) {
		return func(b *builder) { b.op1(code, p, 0, outC) }
	}
	binary := func(code Opcode, p any, c1, outC uint32) func(b *builder) {
		return func(b *builder) {
			in1 := b.input(c1, b.g.Inputs[0].MaxH, b.g.Inputs[0].MaxW)
			b.op(code, p, []uint32{0, in1}, outC)
		}
	}
	order := &Subpos{Order: [4]uint8{0, 1, 2, 3}}
	for _, c := range []struct {
		name     string
		c        uint32
		declared uint32
		build    func(b *builder)
		in       []tensor.Shape
		scalars  []int64
		code     refusal.Code
		msg      string
	}{
		{"conv kernel", 1, 0, unary(OpConv, &Conv{Cout: 1, KH: 3, KW: 3, SH: 1, SW: 1, Groups: 1, RQ: one(0), W: make([]int64, 9)}, 1),
			[]tensor.Shape{sh(1, 2, 9)}, nil, gm, "op 0 (conv): padded input 2×9 is smaller than the kernel 3×3"},
		{"conv padded width", 1, 0, unary(OpConv, &Conv{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, PW: 1 << 25, Groups: 1, RQ: one(0), W: make([]int64, 1)}, 1),
			[]tensor.Shape{sh(1, 1, 1)}, nil, tl, "op 0 (conv): padded width W + 2pw = 67108865 passes 2^26"},
		{"conv_transpose empty", 1, 0, unary(OpConvTranspose, &ConvT{Cout: 1, KH: 1, KW: 1, SH: 1, SW: 1, PH: 1, RQ: one(0), W: make([]int64, 1)}, 1),
			[]tensor.Shape{sh(1, 1, 5)}, nil, gm, "op 0 (conv_transpose): output -1×5 (uncropped 1×5 less 2·padding) is below 1×1"},
		{"conv_transpose uh", 1, 0, unary(OpConvTranspose, &ConvT{Cout: 1, KH: 1, KW: 1, SH: 1 << 20, SW: 1, PH: 1 << 31, RQ: one(0), W: make([]int64, 1)}, 1),
			[]tensor.Shape{sh(1, 128, 1)}, nil, tl, "uncropped height uh = 133169153 passes 2^26"},
		{"conv_transpose cout·uh·uw", 1, 0, unary(OpConvTranspose, &ConvT{Cout: 1 << 10, KH: 1, KW: 1, SH: 1, SW: 1, PH: 1 << 20, RQ: one(0), W: make([]int64, 1<<10)}, 1<<10),
			[]tensor.Shape{sh(1, 512, 512)}, nil, tl, "uncropped output cout·uh·uw = 268435456 passes 2^26"},
		{"conv_transpose cout·uh·uw overflow", 1, 0, unary(OpConvTranspose, &ConvT{Cout: 8192, KH: 1, KW: 1, SH: 1 << 20, SW: 1 << 20, RQ: one(0), W: make([]int64, 8192)}, 8192),
			[]tensor.Shape{sh(1, 64, 64)}, nil, tl, "uncropped output cout·uh·uw passes 64 bits, so 2^26"},
		{"pixel_unshuffle", 1, 0, unary(OpPixelUnshuffle, &Factor{N: 3}, 9),
			[]tensor.Shape{sh(1, 6, 4)}, nil, gm, "H 6 and W 4 are not both multiples of r 3"},
		{"pad_rep side", 1, 0, unary(OpPadRep, &Factor{N: 1 << 27}, 1),
			[]tensor.Shape{sh(1, 1, 1)}, nil, tl, "op 0 (pad_rep): padded height ⌈H/m⌉·m = 134217728 passes 2^26"},
		{"add", 2, 0, binary(OpAdd, nil, 2, 2), []tensor.Shape{sh(2, 2, 2), sh(2, 2, 3)}, nil, gm, "op 0 (add): input 1 is 2×3 and input 0 is 2×2"},
		{"mul", 2, 0, binary(OpMul, &Rescale{RQ: one(0)}, 1, 2), []tensor.Shape{sh(2, 2, 2), sh(1, 3, 2)}, nil, gm, "op 0 (mul): input 1 is 3×2"},
		{"concat", 2, 0, binary(OpConcat, nil, 1, 3), []tensor.Shape{sh(2, 2, 2), sh(1, 2, 1)}, nil, gm, "op 0 (concat): input 1 is 2×1"},
		{"crop_to", 2, 0, binary(OpCropTo, nil, 1, 2), []tensor.Shape{sh(2, 4, 4), sh(1, 4, 5)}, nil, gm, "op 0 (crop_to): ref's sides 4×5 pass the input's 4×4"},
		{"crop negative start", 1, 0, unary(OpCrop, &Crop{Y0: Operand{true, 0}, H: Operand{false, 1}, W: Operand{false, 1}}, 1),
			[]tensor.Shape{sh(1, 4, 4)}, []int64{-1}, gm, "op 0 (crop): crop at (-1, 0) of 1×1"},
		{"crop scalar length", 1, 0, unary(OpCrop, &Crop{X0: Operand{false, 1}, H: Operand{false, 1}, W: Operand{true, 0}}, 1),
			[]tensor.Shape{sh(1, 4, 4)}, []int64{4}, gm, "crop at (0, 1) of 1×4 does not fit the input's 4×4"},
		{"crop huge scalars", 1, 0, unary(OpCrop, &Crop{Y0: Operand{true, 0}, H: Operand{true, 0}, W: Operand{false, 1}}, 1),
			[]tensor.Shape{sh(1, 4, 4)}, []int64{1<<63 - 1}, gm, "crop at (9223372036854775807, 0)"},
		{"subpos_split", 1, 0, func(b *builder) { b.op(OpSubposSplit, order, []uint32{0}, 1, 1, 1, 1) },
			[]tensor.Shape{sh(1, 4, 3)}, nil, gm, "H 4 and W 3 are not both even"},
		{"subpos_merge", 1, 0, func(b *builder) {
			in1 := b.input(1, 0, 0)
			b.op(OpSubposMerge, order, []uint32{0, 0, 0, in1}, 1)
		}, []tensor.Shape{sh(1, 2, 2), sh(1, 2, 3)}, nil, gm, "op 0 (subpos_merge): input 3 is [1, 2, 3] and input 0 is [1, 2, 2]"},
		{"subpos_merge 2H first", 1, 0, func(b *builder) {
			in1 := b.input(1, 0, 0)
			b.op(OpSubposMerge, order, []uint32{0, 0, 0, in1}, 1)
		}, []tensor.Shape{sh(1, 1<<26, 1), sh(1, 2, 3)}, nil, tl, "op 0 (subpos_merge): output height 2H = 134217728 passes 2^26"},
		{"gram", 2, 8, binary(OpGram, &Contraction{Groups: 1, RQ: one(0)}, 2, 2), []tensor.Shape{sh(2, 8, 8), sh(2, 4, 8)}, nil, gm, "op 0 (gram): A is [2, 8, 8] and B is [2, 4, 8]"},
		{"apply", 2, 0, binary(OpApply, &Contraction{Groups: 1, RQ: one(0)}, 2, 2), []tensor.Shape{sh(2, 2, 2), sh(2, 3, 3)}, nil, gm, "op 0 (apply): A is [2, 2, 2]; apply wants [2, 1, 2]"},
		{"output max_elems", 1, 0, unary(OpPadRep, &Factor{N: 3}, 1), []tensor.Shape{sh(1, 10, 10)}, nil, tl, "op 0 (pad_rep): output 0 of shape [1, 12, 12] passes max_elems 100"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newBuilder(c.c, c.declared, c.declared)
			b.g.MaxElems = 1 << 26
			if c.name == "output max_elems" {
				b.g.MaxElems = 100
			}
			for range c.scalars {
				b.scalar(-1<<63, 1<<63-1)
			}
			c.build(b)
			var outs []uint32
			for _, op := range b.g.Ops {
				outs = append(outs, op.Out...)
			}
			g := parsed(t, b.done(outs...))
			_, err := g.PlanRun(c.in, c.scalars)
			wantRefusal(t, err, c.code, c.msg)
		})
	}
}

// TestCropScalarStartPlansAtZero: at load a scalar start is planned as 0
// whatever its scalar's range (§5.10), so a crop whose start scalar is
// [100, 200] on a declared 8×8 input, with constant h = w = 8, loads as
// [1, 8, 8]; each decode then plans it on the scalar's value and refuses it
// (geometry_mismatch: 100 + 8 > 8).
func TestCropScalarStartPlansAtZero(t *testing.T) {
	b := newBuilder(1, 8, 8)
	b.scalar(100, 200)
	g := parsed(t, b.done(b.op1(OpCrop, &Crop{Y0: Operand{true, 0}, H: Operand{false, 8}, W: Operand{false, 8}}, 0, 1)))
	shapes, err := g.DeclaredShapes()
	if err != nil || shapes[1] != sh(1, 8, 8) {
		t.Fatalf("declared shapes %v, %v; want tensor 1 [1, 8, 8]", shapes, err)
	}
	_, err = g.PlanRun([]tensor.Shape{sh(1, 8, 8)}, []int64{100})
	wantRefusal(t, err, refusal.GeometryMismatch, "op 0 (crop): crop at (100, 0) of 8×8 does not fit the input's 8×8")
}
