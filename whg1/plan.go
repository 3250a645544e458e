package whg1

import (
	"fmt"
	"slices"

	"github.com/waiops/waiops/internal/tally"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
)

// SizesDeclared reports whether the inputs declare their sizes (max_h and
// max_w at least 1; §10.2 makes every input alike).
func (g *Graph) SizesDeclared() bool { return len(g.Inputs) > 0 && g.Inputs[0].MaxH != 0 }

// channelsOf is §5's channel rule of op: its output channel counts from its
// input channel counts. It is checked at load, once per graph (§10.5 step
// 7, docs/READINGS.md D-E), so the shape rules below need not repeat it.
func (g *Graph) channelsOf(op *Op, in []uint64) ([]uint64, error) {
	c := in[0]
	switch p := op.Params.(type) {
	case *Conv:
		// §5.2: cin and cout are multiples of groups.
		if c%uint64(p.Groups) != 0 {
			return nil, fmt.Errorf("groups %d does not divide cin %d", p.Groups, c)
		}
		if p.Cout%p.Groups != 0 {
			return nil, fmt.Errorf("groups %d does not divide cout %d", p.Groups, p.Cout)
		}
		return []uint64{uint64(p.Cout)}, nil
	case *ConvT:
		return []uint64{uint64(p.Cout)}, nil
	case *Split:
		// §5.10: start + count ≤ C.
		if uint64(p.Start)+uint64(p.Count) > c {
			return nil, fmt.Errorf("start %d + count %d passes C %d", p.Start, p.Count, c)
		}
		return []uint64{uint64(p.Count)}, nil
	case *Factor:
		r2 := uint64(p.N) * uint64(p.N) // < 2^64: N < 2^32
		switch op.Code {
		case OpPixelShuffle:
			// §5.10: C a multiple of r².
			if c%r2 != 0 {
				return nil, fmt.Errorf("C %d is not a multiple of r² = %d", c, r2)
			}
			return []uint64{c / r2}, nil
		case OpPixelUnshuffle:
			if n := sz(c).mul(r2); n.within(1<<32 - 1) {
				return []uint64{n.n}, nil
			}
			return nil, fmt.Errorf("C·r² = %d·%d passes a u32 channel count", c, r2)
		}
	case *Contraction:
		// §5.9 (D-E for apply): A and B (or V) have C channels, a
		// multiple of groups.
		if in[1] != c {
			return nil, fmt.Errorf("inputs have %d and %d channels; they must be equal", c, in[1])
		}
		if c%uint64(p.Groups) != 0 {
			return nil, fmt.Errorf("groups %d does not divide C %d", p.Groups, c)
		}
	}
	switch op.Code {
	case OpAdd:
		if in[1] != c {
			return nil, fmt.Errorf("inputs have %d and %d channels; add takes one shape", c, in[1])
		}
	case OpMul:
		// §5.4: b has C channels or 1.
		if in[1] != c && in[1] != 1 {
			return nil, fmt.Errorf("b has %d channels; it must have a's %d or 1", in[1], c)
		}
	case OpConcat:
		sum := uint64(0)
		for _, x := range in {
			sum += x // at most 255 counts below 2^32
		}
		return []uint64{sum}, nil
	case OpChunkAdd:
		if c%2 != 0 {
			return nil, fmt.Errorf("C %d is odd", c)
		}
		return []uint64{c / 2}, nil
	case OpSubposSplit:
		return []uint64{c, c, c, c}, nil
	case OpSubposMerge:
		for k, x := range in {
			if x != c {
				return nil, fmt.Errorf("input %d has %d channels and input 0 has %d", k, x, c)
			}
		}
	case OpFill:
		// §5.10: the output's channels come from its tensor record.
		return []uint64{uint64(g.Tensors[op.Out[0]].Channels)}, nil
	}
	return []uint64{c}, nil
}

// planLoad is §10.5 step 7: every operator's channel counts, then, when the
// inputs declare their sizes, each input's size against max_elems and every
// shape planned on max_h and max_w (D-E).
func (g *Graph) planLoad() error {
	for i := range g.Ops {
		op := &g.Ops[i]
		in := make([]uint64, len(op.In))
		for k, t := range op.In {
			in[k] = uint64(g.Tensors[t].Channels)
		}
		out, err := g.channelsOf(op, in)
		if err != nil {
			return bad("op %d (%s): %v", i, op.Code, err)
		}
		for k, t := range op.Out {
			// §10.3: the output channel count equals the tensor's channels.
			if out[k] != uint64(g.Tensors[t].Channels) {
				return bad("op %d (%s): output %d has %d channels; tensor %d declares %d", i, op.Code, k, out[k], t, g.Tensors[t].Channels)
			}
		}
	}
	if !g.SizesDeclared() {
		// §10.5 step 7: gram, l2norm and softmax need declared sizes.
		for i, op := range g.Ops {
			if op.Code == OpGram || op.Code == OpL2Norm || op.Code == OpSoftmax {
				return bad("op %d (%s): the graph's inputs do not declare their sizes", i, op.Code)
			}
		}
		return nil
	}
	_, err := g.DeclaredShapes()
	return err
}

// DeclaredShapes plans every tensor's shape on the declared input sizes
// (max_h, max_w), as §10.5 step 7 does, with a crop planned on its smallest
// start and largest length (§5.10); nil when the inputs do not declare their
// sizes. Every shape rule of §5 is non-decreasing in its input sizes, so
// these are the largest shapes each tensor takes, which the bounds pass
// reads (§8). A graph from Parse always plans.
func (g *Graph) DeclaredShapes() ([]tensor.Shape, error) {
	if !g.SizesDeclared() {
		return nil, nil
	}
	pl := planner{g: g, shapes: make([]tensor.Shape, len(g.Tensors)), bad: refusal.ModelMismatch, atLoad: true}
	for i, in := range g.Inputs {
		c := g.Tensors[in.Tensor].Channels
		if n := sz(uint64(c)).mul(uint64(in.MaxH)).mul(uint64(in.MaxW)); !n.within(uint64(g.MaxElems)) {
			return nil, refusal.New(refusal.TooLarge, "input %d: C·max_h·max_w = %d·%d·%d passes max_elems %d", i, c, in.MaxH, in.MaxW, g.MaxElems)
		}
		pl.shapes[in.Tensor] = tensor.Shape{C: int(c), H: int(in.MaxH), W: int(in.MaxW)}
	}
	for i := range g.Ops {
		if err := pl.op(i); err != nil {
			return nil, err
		}
	}
	return pl.shapes, nil
}

// Plan is the run-time plan of one decode (§4 run step 3): the shape of
// every tensor, indexed by tensor index, and the scalar values.
type Plan struct {
	Shapes  []tensor.Shape
	Scalars []int64
}

// Operand is the value of a crop operand at this decode.
func (p *Plan) Operand(o Operand) int64 {
	if o.Scalar {
		return p.Scalars[o.Value]
	}
	return int64(o.Value)
}

// FillValue is the value fill writes at this decode.
func (p *Plan) FillValue(f *Fill) int64 {
	if f.Scalar {
		return p.Scalars[f.Value]
	}
	return f.Value
}

// PlanInputs is how every fabric's Decode begins: PlanRun (§4 run steps
// 1–3) on the shapes of inputs, which holds every input in input-table
// order, state inputs included; then each input's data length against its
// shape (model_mismatch). The input values are not read (step 4 reads them).
func (g *Graph) PlanInputs(inputs []*tensor.T, scalars []int64) (*Plan, error) {
	shapes := make([]tensor.Shape, len(inputs))
	for i, t := range inputs {
		if t == nil {
			return nil, refusal.New(refusal.ModelMismatch, "input %d is missing", i)
		}
		shapes[i] = t.Shape
	}
	pl, err := g.PlanRun(shapes, scalars)
	if err != nil {
		return nil, err
	}
	if _, err := g.planned(inputs, pl); err != nil {
		return nil, err
	}
	return pl, nil
}

// planned checks each input's data length against its shape in pl
// (model_mismatch), which PlanRun made on those shapes.
func (g *Graph) planned(inputs []*tensor.T, pl *Plan) (*Planned, error) {
	for i, t := range inputs {
		// The plan bounded the shape, so Elems cannot overflow.
		if len(t.Data) != t.Shape.Elems() {
			return nil, refusal.New(refusal.ModelMismatch, "input %d: %d elements for shape %v", i, len(t.Data), t.Shape)
		}
	}
	return &Planned{g: g, inputs: inputs, plan: pl}, nil
}

// PlanRun runs §4 run steps 1–3 for one decode. in holds every input's
// shape in input-table order, state inputs included; scalars every scalar's
// value. It refuses model_mismatch for a wrong number of inputs or scalars
// or a wrong channel count, too_large for a size, field_range for a scalar
// out of range and geometry_mismatch for a shape rule. Nothing is read from
// the inputs' values and nothing per element is allocated.
func (g *Graph) PlanRun(in []tensor.Shape, scalars []int64) (*Plan, error) {
	tally.Plans.Add(1)
	if err := g.checkInputs(in); err != nil {
		return nil, err
	}
	// §4 run step 2: each scalar against its declared range.
	if len(scalars) != len(g.Scalars) {
		return nil, refusal.New(refusal.ModelMismatch, "%d scalars supplied; the graph has %d", len(scalars), len(g.Scalars))
	}
	for i, v := range scalars {
		if s := g.Scalars[i]; v < s.Lo || v > s.Hi {
			return nil, refusal.New(refusal.FieldRange, "scalar %d = %d is outside [%d, %d]", i, v, s.Lo, s.Hi)
		}
	}
	// §4 run step 3: every operator in graph order.
	pl := planner{g: g, shapes: make([]tensor.Shape, len(g.Tensors)), scalars: scalars, bad: refusal.GeometryMismatch}
	for i, s := range in {
		pl.shapes[g.Inputs[i].Tensor] = s
	}
	for i := range g.Ops {
		if err := pl.op(i); err != nil {
			return nil, err
		}
	}
	return &Plan{Shapes: pl.shapes, Scalars: scalars}, nil
}

// checkInputs is §4 run step 1: each input in input-table order, its
// channel count and H, W ≥ 1 (model_mismatch), then its size (too_large).
func (g *Graph) checkInputs(in []tensor.Shape) error {
	tally.InputChecks.Add(1)
	if len(in) != len(g.Inputs) {
		return refusal.New(refusal.ModelMismatch, "%d inputs supplied; the graph has %d", len(in), len(g.Inputs))
	}
	for i, s := range in {
		rec := g.Inputs[i]
		c := g.Tensors[rec.Tensor].Channels
		if s.C != int(c) || s.H < 1 || s.W < 1 {
			return refusal.New(refusal.ModelMismatch, "input %d: shape %v; the graph wants %d channels and H, W ≥ 1", i, s, c)
		}
		if rec.MaxH != 0 && (s.H > int(rec.MaxH) || s.W > int(rec.MaxW)) {
			return refusal.New(refusal.TooLarge, "input %d: shape %v passes the declared max_h %d, max_w %d", i, s, rec.MaxH, rec.MaxW)
		}
		if n := sz(uint64(c)).mul(uint64(s.H)).mul(uint64(s.W)); !n.within(uint64(g.MaxElems)) {
			return refusal.New(refusal.TooLarge, "input %d: shape %v passes max_elems %d", i, s, g.MaxElems)
		}
	}
	return nil
}

// planner plans every operator's shapes: at load on the declared sizes
// (atLoad, bad = model_mismatch) and at each decode (bad =
// geometry_mismatch, with the decode's scalars).
type planner struct {
	g       *Graph
	shapes  []tensor.Shape
	scalars []int64
	bad     refusal.Code
	atLoad  bool
}

// op plans operator i: the sizes formed before its shape rule (too_large),
// its shape rule (pl.bad), then each output against max_elems (too_large).
func (pl *planner) op(i int) error {
	op := &pl.g.Ops[i]
	in := make([]tensor.Shape, len(op.In))
	for k, t := range op.In {
		in[k] = pl.shapes[t]
	}
	out, r := pl.shapeOf(op, in)
	if r != nil {
		return refusal.New(r.Code, "op %d (%s): %s", i, op.Code, r.Msg)
	}
	for k, t := range op.Out {
		s := out[k]
		if n := sz(uint64(s.C)).mul(uint64(s.H)).mul(uint64(s.W)); !n.within(uint64(pl.g.MaxElems)) {
			return refusal.New(refusal.TooLarge, "op %d (%s): output %d of shape %v passes max_elems %d", i, op.Code, k, s, pl.g.MaxElems)
		}
		pl.shapes[t] = s
	}
	return nil
}

// shapeOf dispatches to the operator's shape rule.
func (pl *planner) shapeOf(op *Op, in []tensor.Shape) ([]tensor.Shape, *refusal.Error) {
	one := func(s tensor.Shape, err *refusal.Error) ([]tensor.Shape, *refusal.Error) {
		return []tensor.Shape{s}, err
	}
	x := in[0]
	switch p := op.Params.(type) {
	case *Conv:
		return one(shapeConv(p, x, pl.bad))
	case *ConvT:
		return one(shapeConvT(p, x, pl.bad))
	case *Split:
		return one(tensor.Shape{C: int(p.Count), H: x.H, W: x.W}, nil)
	case *Factor:
		switch op.Code {
		case OpPixelShuffle:
			return one(shapePixelShuffle(p.N, x))
		case OpPixelUnshuffle:
			return one(shapePixelUnshuffle(p.N, x, pl.bad))
		}
		return one(shapePadRep(p.N, x))
	case *Crop:
		return one(pl.shapeCrop(p, x))
	case *Contraction:
		if op.Code == OpGram {
			return one(shapeGram(p.Groups, x, in[1], pl.bad))
		}
		return one(shapeApply(p.Groups, x, in[1], pl.bad))
	case *Subpos:
		if op.Code == OpSubposSplit {
			s, err := shapeSubposSplit(x, pl.bad)
			return []tensor.Shape{s, s, s, s}, err
		}
		return one(shapeSubposMerge(in, pl.bad))
	}
	switch op.Code {
	case OpAdd, OpMul, OpCropTo, OpConcat:
		return one(shapeSameSides(op.Code, in, pl.bad))
	case OpChunkAdd:
		return one(tensor.Shape{C: x.C / 2, H: x.H, W: x.W}, nil)
	case OpFill:
		return one(tensor.Shape{C: int(pl.g.Tensors[op.Out[0]].Channels), H: x.H, W: x.W}, nil)
	}
	// rescale, chscale, lut16, clamp, relu, leaky, abs, igdn, layernorm_c,
	// l2norm, softmax, sigmoid, elu: the output has the input's shape.
	return one(x, nil)
}

// capped refuses a size an operator forms before its shape rule when it
// passes 2^26 (§3, §4 run step 3).
func capped(what string, n size) *refusal.Error {
	if n.within(cap26) {
		return nil
	}
	if !n.ok {
		return refusal.New(refusal.TooLarge, "%s passes 64 bits, so 2^26", what)
	}
	return refusal.New(refusal.TooLarge, "%s = %d passes 2^26", what, n.n)
}

// §5.2 conv: H + 2ph ≥ kh and W + 2pw ≥ kw; Ho = ⌊(H + 2ph − kh)/sh⌋ + 1.
func shapeConv(p *Conv, x tensor.Shape, bad refusal.Code) (tensor.Shape, *refusal.Error) {
	ph := sz(uint64(x.H)).add(2 * uint64(p.PH))
	pw := sz(uint64(x.W)).add(2 * uint64(p.PW))
	if err := capped("padded height H + 2ph", ph); err != nil {
		return tensor.Shape{}, err
	}
	if err := capped("padded width W + 2pw", pw); err != nil {
		return tensor.Shape{}, err
	}
	if ph.n < uint64(p.KH) || pw.n < uint64(p.KW) {
		return tensor.Shape{}, refusal.New(bad, "padded input %d×%d is smaller than the kernel %d×%d", ph.n, pw.n, p.KH, p.KW)
	}
	return tensor.Shape{
		C: int(p.Cout),
		H: int((ph.n-uint64(p.KH))/uint64(p.SH)) + 1,
		W: int((pw.n-uint64(p.KW))/uint64(p.SW)) + 1,
	}, nil
}

// §5.3 conv_transpose: the uncropped sides uh = (H − 1)·sh + kh + oph and uw,
// and cout·uh·uw, are within 2^26; then Ho = uh − 2ph ≥ 1 and Wo likewise.
func shapeConvT(p *ConvT, x tensor.Shape, bad refusal.Code) (tensor.Shape, *refusal.Error) {
	uh := sz(uint64(x.H - 1)).mul(uint64(p.SH)).add(uint64(p.KH)).add(uint64(p.OPH))
	uw := sz(uint64(x.W - 1)).mul(uint64(p.SW)).add(uint64(p.KW)).add(uint64(p.OPW))
	if err := capped("uncropped height uh", uh); err != nil {
		return tensor.Shape{}, err
	}
	if err := capped("uncropped width uw", uw); err != nil {
		return tensor.Shape{}, err
	}
	if err := capped("uncropped output cout·uh·uw", sz(uint64(p.Cout)).mul(uh.n).mul(uw.n)); err != nil {
		return tensor.Shape{}, err
	}
	ho := int64(uh.n) - 2*int64(p.PH)
	wo := int64(uw.n) - 2*int64(p.PW)
	if ho < 1 || wo < 1 {
		return tensor.Shape{}, refusal.New(bad, "output %d×%d (uncropped %d×%d less 2·padding) is below 1×1", ho, wo, uh.n, uw.n)
	}
	return tensor.Shape{C: int(p.Cout), H: int(ho), W: int(wo)}, nil
}

// §5.10 pixel_shuffle: → [C/r², H·r, W·r]; the sides are formed first.
// §4 lists them among the sizes checked against 2^26. With C ≥ r² and
// C·H·W ≤ max_elems they cannot pass it, but the check stays, as ordered.
func shapePixelShuffle(r uint32, x tensor.Shape) (tensor.Shape, *refusal.Error) {
	h := sz(uint64(x.H)).mul(uint64(r))
	w := sz(uint64(x.W)).mul(uint64(r))
	if err := capped("output height H·r", h); err != nil {
		return tensor.Shape{}, err
	}
	if err := capped("output width W·r", w); err != nil {
		return tensor.Shape{}, err
	}
	r2 := int(r) * int(r)
	return tensor.Shape{C: x.C / r2, H: int(h.n), W: int(w.n)}, nil
}

// §5.10 pixel_unshuffle: H and W multiples of r → [C·r², H/r, W/r].
func shapePixelUnshuffle(r uint32, x tensor.Shape, bad refusal.Code) (tensor.Shape, *refusal.Error) {
	if x.H%int(r) != 0 || x.W%int(r) != 0 {
		return tensor.Shape{}, refusal.New(bad, "H %d and W %d are not both multiples of r %d", x.H, x.W, r)
	}
	return tensor.Shape{C: x.C * int(r) * int(r), H: x.H / int(r), W: x.W / int(r)}, nil
}

// §5.10 pad_rep: → [C, ⌈H/m⌉·m, ⌈W/m⌉·m]; the sides are formed first.
func shapePadRep(m uint32, x tensor.Shape) (tensor.Shape, *refusal.Error) {
	up := func(v int) size { return sz((uint64(v) + uint64(m) - 1) / uint64(m)).mul(uint64(m)) }
	h, w := up(x.H), up(x.W)
	if err := capped("padded height ⌈H/m⌉·m", h); err != nil {
		return tensor.Shape{}, err
	}
	if err := capped("padded width ⌈W/m⌉·m", w); err != nil {
		return tensor.Shape{}, err
	}
	return tensor.Shape{C: x.C, H: int(h.n), W: int(w.n)}, nil
}

// shapeSameSides is the rule of add and mul (the inputs share H and W; add's
// channels were matched at load), concat (H and W shared, channels summed)
// and crop_to (ref's H′ ≤ H and W′ ≤ W).
func shapeSameSides(code Opcode, in []tensor.Shape, bad refusal.Code) (tensor.Shape, *refusal.Error) {
	x := in[0]
	if code == OpCropTo {
		ref := in[1]
		if ref.H > x.H || ref.W > x.W {
			return tensor.Shape{}, refusal.New(bad, "ref's sides %d×%d pass the input's %d×%d", ref.H, ref.W, x.H, x.W)
		}
		return tensor.Shape{C: x.C, H: ref.H, W: ref.W}, nil
	}
	out := x
	for k, s := range in[1:] {
		if s.H != x.H || s.W != x.W {
			return tensor.Shape{}, refusal.New(bad, "input %d is %d×%d and input 0 is %d×%d", k+1, s.H, s.W, x.H, x.W)
		}
		if code == OpConcat {
			out.C += s.C
		}
	}
	return out, nil
}

// shapeCrop resolves the operands and applies §5.10's crop rule: at load on
// the smallest start and the largest length, at a decode on the scalars.
func (pl *planner) shapeCrop(p *Crop, x tensor.Shape) (tensor.Shape, *refusal.Error) {
	var y0, x0, h, w int64
	if !pl.atLoad {
		pv := Plan{Scalars: pl.scalars}
		y0, x0, h, w = pv.Operand(p.Y0), pv.Operand(p.X0), pv.Operand(p.H), pv.Operand(p.W)
	} else {
		y0, h = pl.loadSide(p.Y0, p.H, x.H)
		x0, w = pl.loadSide(p.X0, p.W, x.W)
	}
	// §5.10: y0, x0 ≥ 0, h, w ≥ 1, y0 + h ≤ H, x0 + w ≤ W (compared as
	// y0 ≤ H − h so that nothing wraps).
	if y0 < 0 || x0 < 0 || h < 1 || w < 1 || y0 > int64(x.H)-h || x0 > int64(x.W)-w {
		return tensor.Shape{}, refusal.New(pl.bad, "crop at (%d, %d) of %d×%d does not fit the input's %d×%d", y0, x0, h, w, x.H, x.W)
	}
	return tensor.Shape{C: x.C, H: int(h), W: int(w)}, nil
}

// loadSide is §5.10's load-time planning of one crop side of size s: the
// start is the constant, or 0 for a scalar; the length is the constant, or
// min(hi, s − start) for a scalar with range top hi.
func (pl *planner) loadSide(start, length Operand, s int) (int64, int64) {
	s0 := int64(0)
	if !start.Scalar {
		s0 = int64(start.Value)
	}
	n := int64(length.Value)
	if length.Scalar {
		n = min(pl.g.Scalars[length.Value].Hi, int64(s)-s0)
	}
	return s0, n
}

// §5.10 subpos_split: H and W even → four outputs [C, H/2, W/2].
func shapeSubposSplit(x tensor.Shape, bad refusal.Code) (tensor.Shape, *refusal.Error) {
	if x.H%2 != 0 || x.W%2 != 0 {
		return tensor.Shape{}, refusal.New(bad, "H %d and W %d are not both even", x.H, x.W)
	}
	return tensor.Shape{C: x.C, H: x.H / 2, W: x.W / 2}, nil
}

// §5.10 subpos_merge: four inputs [C, H, W] → [C, 2H, 2W]; the output
// sides are formed (from input 0) first.
func shapeSubposMerge(in []tensor.Shape, bad refusal.Code) (tensor.Shape, *refusal.Error) {
	x := in[0]
	h, w := sz(uint64(x.H)).mul(2), sz(uint64(x.W)).mul(2)
	if err := capped("output height 2H", h); err != nil {
		return tensor.Shape{}, err
	}
	if err := capped("output width 2W", w); err != nil {
		return tensor.Shape{}, err
	}
	for k, s := range in[1:] {
		if s != x {
			return tensor.Shape{}, refusal.New(bad, "input %d is %v and input 0 is %v", k+1, s, x)
		}
	}
	return tensor.Shape{C: x.C, H: int(h.n), W: int(w.n)}, nil
}

// §5.9 gram: A and B both [C, H, W] → [C, 1, C/groups].
func shapeGram(groups uint32, a, b tensor.Shape, bad refusal.Code) (tensor.Shape, *refusal.Error) {
	if a.H != b.H || a.W != b.W {
		return tensor.Shape{}, refusal.New(bad, "A is %v and B is %v; they must share H and W", a, b)
	}
	return tensor.Shape{C: a.C, H: 1, W: a.C / int(groups)}, nil
}

// §5.9 apply: A [C, 1, d] and V [C, H, W] with C = groups·d → V's shape.
func shapeApply(groups uint32, a, v tensor.Shape, bad refusal.Code) (tensor.Shape, *refusal.Error) {
	if d := a.C / int(groups); a.H != 1 || a.W != d {
		return tensor.Shape{}, refusal.New(bad, "A is %v; apply wants [%d, 1, %d]", a, a.C, d)
	}
	return v, nil
}

// GatherOutputs returns the graph outputs, in outputs-table order, from the
// tensors of a finished decode (vals is indexed by tensor). A tensor named by
// several outputs is copied for each after the first, so no two outputs
// share storage.
func (g *Graph) GatherOutputs(vals []*tensor.T) []*tensor.T {
	res := make([]*tensor.T, len(g.Outputs))
	seen := make(map[uint32]bool, len(g.Outputs))
	for i, t := range g.Outputs {
		res[i] = vals[t]
		if seen[t] {
			res[i] = &tensor.T{Shape: vals[t].Shape, Data: slices.Clone(vals[t].Data)}
		}
		seen[t] = true
	}
	return res
}
