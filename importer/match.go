package importer

import (
	"fmt"
	"math"
	"slices"

	"github.com/waiops/waiops/onnx"
)

// symKind is what an ONNX value stands for while the graph is matched.
type symKind int

const (
	symValue  symKind = iota // an activation: a value of the network
	symConst                 // a constant: an initialiser, a Constant, or folded
	symSquare                // x², the start of the GDN/IGDN pattern
	symNorm                  // β + γ·x², its 1×1 Conv
	symRoot                  // √(β + γ·x²)
	symRRoot                 // 1/√(β + γ·x²)
	symPad                   // x with zero padding, waiting for the Conv it folds into
)

// sym is one ONNX value's meaning. A pattern's partial values (square,
// norm, root, rroot, pad) may only be read by the pattern's next node.
type sym struct {
	kind        symKind
	id          int // symValue, and the x of the partial kinds
	c           *constant
	gamma, beta []float64
	pads        [4]int // symPad: top, left, bottom, right
	node, op    string
}

// constant is a constant tensor in float64 (ints are exact below 2^53;
// Slice's INT64_MAX ends are read from ints).
type constant struct {
	dims []int64
	f    []float64
	ints []int64
}

func (c *constant) len() int { return len(c.f) }

func constOf(t *onnx.Tensor) *constant {
	c := &constant{dims: t.Dims}
	if t.Float != nil {
		c.f = make([]float64, len(t.Float))
		for i, v := range t.Float {
			c.f[i] = float64(v)
		}
		return c
	}
	c.ints = t.Int
	c.f = make([]float64, len(t.Int))
	for i, v := range t.Int {
		c.f[i] = float64(v)
	}
	return c
}

// matcher walks an ONNX graph in node order.
type matcher struct {
	net  network
	syms map[string]*sym
}

// match maps an ONNX model onto the importer's layers. Every node it
// cannot map is refused with a *Refusal naming it.
func match(m *onnx.Model) (*network, error) {
	if m.Opset < 13 {
		return nil, fmt.Errorf("opset %d: the importer reads opset 13 or later", m.Opset)
	}
	g := &m.Graph
	if len(g.Inputs) != 1 {
		return nil, fmt.Errorf("the graph has %d inputs; the importer maps a transform of one input (the latents)", len(g.Inputs))
	}
	in := g.Inputs[0]
	if len(in.Dims) != 4 || in.Dims[1] < 1 {
		return nil, fmt.Errorf("input %q has dims %v; want [1, C, H, W] with C known", in.Name, in.Dims)
	}
	mt := &matcher{syms: map[string]*sym{}}
	for name, t := range g.Inits {
		mt.syms[name] = &sym{kind: symConst, c: constOf(t)}
	}
	mt.syms[in.Name] = &sym{kind: symValue, id: mt.net.value(int(in.Dims[1]), in.Name)}
	for i := range g.Nodes {
		if err := mt.node(&g.Nodes[i]); err != nil {
			return nil, err
		}
	}
	for _, o := range g.Outputs {
		s := mt.syms[o.Name]
		switch {
		case s == nil:
			return nil, fmt.Errorf("output %q is produced by no node", o.Name)
		case s.kind == symConst:
			return nil, fmt.Errorf("output %q is a constant", o.Name)
		case s.kind != symValue:
			return nil, nodeRefusal(s.node, s.op, "its value is a graph output, but it is only part of a GDN/IGDN or Pad pattern")
		}
		mt.net.outputs = append(mt.net.outputs, s.id)
		mt.net.outNames = append(mt.net.outNames, o.Name)
	}
	if len(mt.net.outputs) == 0 {
		return nil, fmt.Errorf("the graph has no outputs")
	}
	if err := mt.net.foldDCR(); err != nil {
		return nil, err
	}
	return &mt.net, nil
}

func refuse(n *onnx.Node, format string, args ...any) error {
	return nodeRefusal(n.Name, n.OpType, fmt.Sprintf(format, args...))
}

// input returns node n's k-th input, or nil when it is absent.
func (mt *matcher) input(n *onnx.Node, k int) (*sym, error) {
	if k >= len(n.Inputs) || n.Inputs[k] == "" {
		return nil, nil
	}
	s := mt.syms[n.Inputs[k]]
	if s == nil {
		return nil, refuse(n, "input %q is produced by no earlier node", n.Inputs[k])
	}
	return s, nil
}

// activation is input k as an activation; a constant or a pattern's
// partial value there is refused.
func (mt *matcher) activation(n *onnx.Node, k int) (int, error) {
	s, err := mt.input(n, k)
	if err != nil {
		return 0, err
	}
	switch {
	case s == nil:
		return 0, refuse(n, "input %d is missing", k)
	case s.kind == symValue:
		return s.id, nil
	case s.kind == symConst:
		return 0, refuse(n, "input %d is a constant where the importer needs an activation", k)
	}
	return 0, refuse(n, "reads the partial value of node %s (%s), which only a GDN/IGDN or Pad pattern's next node may read", s.node, s.op)
}

// constant is input k as a constant, or nil when the input is absent.
func (mt *matcher) constant(n *onnx.Node, k int) (*constant, error) {
	s, err := mt.input(n, k)
	if err != nil || s == nil {
		return nil, err
	}
	if s.kind != symConst {
		return nil, refuse(n, "input %d must be a constant", k)
	}
	return s.c, nil
}

func (mt *matcher) allConst(n *onnx.Node) bool {
	for _, name := range n.Inputs {
		if s := mt.syms[name]; name != "" && (s == nil || s.kind != symConst) {
			return false
		}
	}
	return len(n.Inputs) > 0
}

// set binds node n's one output.
func (mt *matcher) set(n *onnx.Node, s *sym) error {
	if len(n.Outputs) != 1 {
		return refuse(n, "has %d outputs; the importer maps this op with one", len(n.Outputs))
	}
	s.node, s.op = n.Name, n.OpType
	mt.syms[n.Outputs[0]] = s
	return nil
}

// emit appends a layer reading in and binds n's output to its new value.
func (mt *matcher) emit(n *onnx.Node, l layer, c int) error {
	l.node, l.op = n.Name, n.OpType
	l.out = mt.net.value(c, n.Outputs[0])
	mt.net.layers = append(mt.net.layers, l)
	return mt.set(n, &sym{kind: symValue, id: l.out})
}

func intsAttr(n *onnx.Node, name string, def ...int64) []int64 {
	if a := n.Attrs[name]; a != nil {
		return a.Ints
	}
	return def
}

func intAttr(n *onnx.Node, name string, def int64) int64 {
	if a := n.Attrs[name]; a != nil {
		return a.I
	}
	return def
}

func floatAttr(n *onnx.Node, name string, def float64) float64 {
	if a := n.Attrs[name]; a != nil {
		return float64(a.F)
	}
	return def
}

func strAttr(n *onnx.Node, name, def string) string {
	if a := n.Attrs[name]; a != nil {
		return a.S
	}
	return def
}

func (mt *matcher) node(n *onnx.Node) error {
	if n.Domain != "" && n.Domain != "ai.onnx" {
		return refuse(n, "domain %q: the importer maps the default domain's ops only", n.Domain)
	}
	if len(n.Outputs) != 1 && n.OpType != "Split" {
		return refuse(n, "has %d outputs; the importer maps ops of one output (and Split)", len(n.Outputs))
	}
	if n.OpType == "Constant" {
		return mt.constantNode(n)
	}
	if len(n.Inputs) == 0 {
		return refuse(n, "has no inputs")
	}
	if mt.allConst(n) {
		c, err := fold(n, mt)
		if err != nil {
			return err
		}
		return mt.set(n, &sym{kind: symConst, c: c})
	}
	switch n.OpType {
	case "Identity":
		s, err := mt.input(n, 0)
		if err != nil || s == nil {
			return refuse(n, "has no input")
		}
		cp := *s
		mt.syms[n.Outputs[0]] = &cp
		return nil
	case "Conv":
		return mt.conv(n)
	case "ConvTranspose":
		return mt.convT(n)
	case "Relu":
		return mt.unary(n, layer{kind: kRelu})
	case "LeakyRelu":
		return mt.unary(n, layer{kind: kLeaky, alpha: floatAttr(n, "alpha", 0.01)})
	case "Clip":
		return mt.clip(n)
	case "Mul", "Div", "Add", "Sub", "Pow":
		return mt.binary(n)
	case "Sqrt":
		return mt.sqrt(n)
	case "Reciprocal":
		s, err := mt.input(n, 0)
		if err != nil {
			return err
		}
		if s == nil || s.kind != symRoot {
			return refuse(n, "a reciprocal maps only as the 1/√ of a GDN pattern")
		}
		return mt.set(n, &sym{kind: symRRoot, id: s.id, gamma: s.gamma, beta: s.beta})
	case "Concat":
		return mt.concat(n)
	case "Split":
		return mt.split(n)
	case "Slice":
		return mt.slice(n)
	case "Pad":
		return mt.pad(n)
	case "DepthToSpace":
		return mt.depthToSpace(n)
	case "Resize":
		return mt.resize(n)
	}
	return refuse(n, "no wai-ops/1 operator maps this op")
}

func (mt *matcher) constantNode(n *onnx.Node) error {
	var c *constant
	switch {
	case n.Attrs["value"] != nil && n.Attrs["value"].T != nil:
		c = constOf(n.Attrs["value"].T)
	case n.Attrs["value_float"] != nil:
		c = &constant{f: []float64{float64(n.Attrs["value_float"].F)}}
	case n.Attrs["value_int"] != nil:
		v := n.Attrs["value_int"].I
		c = &constant{f: []float64{float64(v)}, ints: []int64{v}}
	case n.Attrs["value_floats"] != nil:
		fs := n.Attrs["value_floats"].Floats
		c = &constant{dims: []int64{int64(len(fs))}}
		for _, v := range fs {
			c.f = append(c.f, float64(v))
		}
	case n.Attrs["value_ints"] != nil:
		is := n.Attrs["value_ints"].Ints
		c = &constant{dims: []int64{int64(len(is))}, ints: is}
		for _, v := range is {
			c.f = append(c.f, float64(v))
		}
	default:
		return refuse(n, "a Constant with no value, value_float(s) or value_int(s)")
	}
	return mt.set(n, &sym{kind: symConst, c: c})
}

func (mt *matcher) unary(n *onnx.Node, l layer) error {
	x, err := mt.activation(n, 0)
	if err != nil {
		return err
	}
	l.in = []int{x}
	return mt.emit(n, l, mt.net.channels[x])
}

// convGeometry reads Conv's and ConvTranspose's shared attributes.
func convGeometry(n *onnx.Node, w *constant, extra [4]int) (kh, kw, sh, sw, ph, pw int, err error) {
	if len(w.dims) != 4 {
		return 0, 0, 0, 0, 0, 0, refuse(n, "weights of dims %v; the importer maps 2-D convolutions", w.dims)
	}
	if ap := strAttr(n, "auto_pad", "NOTSET"); ap != "NOTSET" && ap != "" && ap != "VALID" {
		return 0, 0, 0, 0, 0, 0, refuse(n, "auto_pad %s; export with explicit pads", ap)
	}
	kh, kw = int(w.dims[2]), int(w.dims[3])
	if k := intsAttr(n, "kernel_shape"); k != nil && (len(k) != 2 || k[0] != int64(kh) || k[1] != int64(kw)) {
		return 0, 0, 0, 0, 0, 0, refuse(n, "kernel_shape %v disagrees with the weights' %v", k, w.dims)
	}
	for _, d := range intsAttr(n, "dilations", 1, 1) {
		if d != 1 {
			return 0, 0, 0, 0, 0, 0, refuse(n, "dilation %d; wai-ops/1 conv has none (§5.2)", d)
		}
	}
	s := intsAttr(n, "strides", 1, 1)
	p := intsAttr(n, "pads", 0, 0, 0, 0)
	if len(s) != 2 || len(p) != 4 || s[0] < 1 || s[1] < 1 {
		return 0, 0, 0, 0, 0, 0, refuse(n, "strides %v, pads %v; want two strides ≥ 1 and four pads", s, p)
	}
	t, l, b, r := int(p[0])+extra[0], int(p[1])+extra[1], int(p[2])+extra[2], int(p[3])+extra[3]
	if t != b || l != r || t < 0 || l < 0 {
		return 0, 0, 0, 0, 0, 0, refuse(n, "pads top %d left %d bottom %d right %d; wai-ops/1 pads both sides alike (§5.2)", t, l, b, r)
	}
	return kh, kw, int(s[0]), int(s[1]), t, l, nil
}

func (mt *matcher) conv(n *onnx.Node) error {
	s, err := mt.input(n, 0)
	if err != nil {
		return err
	}
	var extra [4]int
	switch {
	case s != nil && s.kind == symSquare:
		return mt.gdnConv(n, s)
	case s != nil && s.kind == symPad:
		extra = s.pads // §5.2: a zero Pad before a Conv is the conv's own padding
		s = &sym{kind: symValue, id: s.id}
	}
	if s == nil || s.kind != symValue {
		if _, err := mt.activation(n, 0); err != nil {
			return err
		}
	}
	x := s.id
	w, b, err := mt.weights(n)
	if err != nil {
		return err
	}
	kh, kw, sh, sw, ph, pw, err := convGeometry(n, w, extra)
	if err != nil {
		return err
	}
	groups := int(intAttr(n, "group", 1))
	cin, cout := mt.net.channels[x], int(w.dims[0])
	if groups < 1 || cin%groups != 0 || cout%groups != 0 || int(w.dims[1]) != cin/groups {
		return refuse(n, "group %d with %d input channels and weights %v", groups, cin, w.dims)
	}
	l := layer{kind: kConv, in: []int{x}, w: w.f, cout: cout, kh: kh, kw: kw, sh: sh, sw: sw, ph: ph, pw: pw, groups: groups}
	return mt.emitBiased(n, l, b)
}

// weights reads a Conv's or ConvTranspose's weights (input 1, which must be
// a constant) and its optional bias (input 2).
func (mt *matcher) weights(n *onnx.Node) (w, b *constant, err error) {
	w, err = mt.constant(n, 1)
	if err != nil || w == nil {
		return nil, nil, refuse(n, "the weights must be a constant")
	}
	b, err = mt.constant(n, 2)
	return w, b, err
}

// emitBiased emits a conv layer with its bias b (nil: none), which must
// hold one value an output channel.
func (mt *matcher) emitBiased(n *onnx.Node, l layer, b *constant) error {
	if b != nil {
		if b.len() != l.cout {
			return refuse(n, "bias of %d values for %d output channels", b.len(), l.cout)
		}
		l.b = b.f
	}
	return mt.emit(n, l, l.cout)
}

func (mt *matcher) convT(n *onnx.Node) error {
	x, err := mt.activation(n, 0)
	if err != nil {
		return err
	}
	w, b, err := mt.weights(n)
	if err != nil {
		return err
	}
	if intAttr(n, "group", 1) != 1 {
		return refuse(n, "group %d; wai-ops/1 conv_transpose has groups 1 (§5.3)", intAttr(n, "group", 1))
	}
	if n.Attrs["output_shape"] != nil {
		return refuse(n, "output_shape; export with pads and output_padding")
	}
	kh, kw, sh, sw, ph, pw, err := convGeometry(n, w, [4]int{})
	if err != nil {
		return err
	}
	op := intsAttr(n, "output_padding", 0, 0)
	if len(op) != 2 || op[0] < 0 || op[1] < 0 {
		return refuse(n, "output_padding %v", op)
	}
	cin, cout := mt.net.channels[x], int(w.dims[1])
	if int(w.dims[0]) != cin {
		return refuse(n, "weights %v for %d input channels", w.dims, cin)
	}
	l := layer{kind: kConvT, in: []int{x}, w: w.f, cout: cout, kh: kh, kw: kw, sh: sh, sw: sw, ph: ph, pw: pw,
		oph: int(op[0]), opw: int(op[1]), groups: 1}
	return mt.emitBiased(n, l, b)
}

func (mt *matcher) clip(n *onnx.Node) error {
	lo, hi := math.Inf(-1), math.Inf(1)
	for k, p := range []*float64{&lo, &hi} {
		c, err := mt.constant(n, k+1)
		if err != nil {
			return err
		}
		if c != nil {
			if c.len() != 1 {
				return refuse(n, "a bound of %d values; Clip's bounds are scalars", c.len())
			}
			*p = c.f[0]
		}
	}
	return mt.unary(n, layer{kind: kClip, lo: lo, hi: hi})
}

// perChannel reads a constant operand that broadcasts over [1, C, H, W] by
// channel only: one value, or C values with every other dim 1.
func perChannel(n *onnx.Node, c *constant, ch int) ([]float64, error) {
	if c.len() == 1 {
		return c.f, nil
	}
	if c.len() == ch {
		// The C values must sit on the channel axis: [C,1,1] or [1,C,1,1].
		d := c.dims
		if len(d) == 3 && d[0] == int64(ch) || len(d) == 4 && d[1] == int64(ch) {
			return c.f, nil
		}
	}
	return nil, refuse(n, "a constant of dims %v; the importer maps a scalar or one value per channel", c.dims)
}

func (mt *matcher) binary(n *onnx.Node) error {
	a, err := mt.input(n, 0)
	if err != nil {
		return err
	}
	b, err := mt.input(n, 1)
	if err != nil {
		return err
	}
	if a == nil || b == nil {
		return refuse(n, "needs two inputs")
	}
	op := n.OpType
	// The GDN/IGDN pattern (§5.7): x² as Mul(x, x) or Pow(x, 2); then
	// x·√N or x / (1/√N) (IGDN); x·(1/√N) or x / √N is GDN.
	switch {
	case op == "Mul" && a.kind == symValue && b.kind == symValue && a.id == b.id:
		return mt.set(n, &sym{kind: symSquare, id: a.id})
	case op == "Pow" && a.kind == symValue && b.kind == symConst:
		if b.c.len() != 1 || b.c.f[0] != 2 {
			return refuse(n, "Pow maps only as x² of a GDN pattern")
		}
		return mt.set(n, &sym{kind: symSquare, id: a.id})
	case op == "Div" && a.kind == symConst && b.kind == symRoot:
		if a.c.len() != 1 || a.c.f[0] != 1 {
			return refuse(n, "a constant over √N other than 1")
		}
		return mt.set(n, &sym{kind: symRRoot, id: b.id, gamma: b.gamma, beta: b.beta})
	}
	if op == "Mul" && a.kind != symValue && b.kind == symValue {
		a, b = b, a // x·N and N·x alike
	}
	if a.kind == symValue && (b.kind == symRoot || b.kind == symRRoot) && (op == "Mul" || op == "Div") {
		if a.id != b.id {
			return refuse(n, "multiplies a value by the norm of another value; GDN/IGDN normalises its own input")
		}
		if (op == "Mul") != (b.kind == symRoot) {
			return refuse(n, "this is GDN (x divided by √(β + γ·x²)); wai-ops/1 igdn multiplies (§5.7), so only IGDN maps")
		}
		return mt.emit(n, layer{kind: kIGDN, op: "IGDN", in: []int{a.id}, gamma: b.gamma, beta: b.beta}, mt.net.channels[a.id])
	}
	if a.kind == symValue && b.kind == symValue && op == "Add" {
		if mt.net.channels[a.id] != mt.net.channels[b.id] {
			return refuse(n, "adds %d channels to %d", mt.net.channels[a.id], mt.net.channels[b.id])
		}
		return mt.emit(n, layer{kind: kAdd, in: []int{a.id, b.id}}, mt.net.channels[a.id])
	}
	if a.kind == symValue && b.kind == symConst && op != "Pow" {
		ch := mt.net.channels[a.id]
		v, err := perChannel(n, b.c, ch)
		if err != nil {
			return err
		}
		l := layer{kind: kAffine, in: []int{a.id}}
		for _, c := range v {
			switch op {
			case "Mul":
				l.scale, l.shift = append(l.scale, c), append(l.shift, 0)
			case "Div":
				if c == 0 {
					return refuse(n, "divides by 0")
				}
				l.scale, l.shift = append(l.scale, 1/c), append(l.shift, 0)
			case "Add":
				l.scale, l.shift = append(l.scale, 1), append(l.shift, c)
			case "Sub":
				l.scale, l.shift = append(l.scale, 1), append(l.shift, -c)
			}
		}
		return mt.emit(n, l, ch)
	}
	for _, s := range []*sym{a, b} {
		if s.kind != symValue && s.kind != symConst {
			return refuse(n, "reads the partial value of node %s (%s) outside its GDN/IGDN pattern", s.node, s.op)
		}
	}
	return refuse(n, "%s of these operands has no wai-ops/1 operator (the importer maps Mul, Div, Add and Sub by a constant, and Add of two activations)", op)
}

// gdnConv is the pattern's 1×1 Conv: N = β + γ·x², γ [C][C][1][1].
func (mt *matcher) gdnConv(n *onnx.Node, s *sym) error {
	w, err := mt.constant(n, 1)
	if err != nil || w == nil {
		return refuse(n, "γ must be a constant")
	}
	b, err := mt.constant(n, 2)
	if err != nil || b == nil {
		return refuse(n, "β (the Conv's bias) must be a constant")
	}
	c := mt.net.channels[s.id]
	if !slices.Equal(w.dims, []int64{int64(c), int64(c), 1, 1}) || b.len() != c {
		return refuse(n, "γ of dims %v and %d β; a GDN's Conv is 1×1 with γ [%d, %d, 1, 1]", w.dims, b.len(), c, c)
	}
	if intAttr(n, "group", 1) != 1 || !slices.Equal(intsAttr(n, "strides", 1, 1), []int64{1, 1}) ||
		!slices.Equal(intsAttr(n, "pads", 0, 0, 0, 0), []int64{0, 0, 0, 0}) {
		return refuse(n, "a GDN's Conv has group 1, stride 1 and no padding")
	}
	return mt.set(n, &sym{kind: symNorm, id: s.id, gamma: w.f, beta: b.f})
}

func (mt *matcher) sqrt(n *onnx.Node) error {
	s, err := mt.input(n, 0)
	if err != nil {
		return err
	}
	if s == nil || s.kind != symNorm {
		return refuse(n, "a square root maps only as √(β + γ·x²) of a GDN/IGDN pattern")
	}
	return mt.set(n, &sym{kind: symRoot, id: s.id, gamma: s.gamma, beta: s.beta})
}

func (mt *matcher) axis(n *onnx.Node, def int64) error {
	if a := intAttr(n, "axis", def); a != 1 && a != -3 {
		return refuse(n, "axis %d; the importer maps this op on the channel axis (1)", a)
	}
	return nil
}

func (mt *matcher) concat(n *onnx.Node) error {
	if err := mt.axis(n, 1); err != nil {
		return err
	}
	l := layer{kind: kConcat}
	c := 0
	for k := range n.Inputs {
		x, err := mt.activation(n, k)
		if err != nil {
			return err
		}
		l.in = append(l.in, x)
		c += mt.net.channels[x]
	}
	if len(l.in) < 2 {
		return mt.alias(n, l.in[0])
	}
	if len(l.in) > 255 {
		return refuse(n, "%d inputs; a WHG1 operator has at most 255 (§10.2)", len(l.in))
	}
	return mt.emit(n, l, c)
}

// alias binds n's output to value x.
func (mt *matcher) alias(n *onnx.Node, x int) error {
	return mt.set(n, &sym{kind: symValue, id: x})
}

// channelRange emits a split of count channels from start, or an alias
// when it is all of x.
func (mt *matcher) channelRange(n *onnx.Node, out string, x, start, count int) error {
	c := mt.net.channels[x]
	if start < 0 || count < 1 || start+count > c {
		return refuse(n, "channels [%d, %d) of %d", start, start+count, c)
	}
	if start == 0 && count == c {
		mt.syms[out] = &sym{kind: symValue, id: x, node: n.Name, op: n.OpType}
		return nil
	}
	l := layer{kind: kSplit, node: n.Name, op: n.OpType, in: []int{x}, start: start, count: count}
	l.out = mt.net.value(count, out)
	mt.net.layers = append(mt.net.layers, l)
	mt.syms[out] = &sym{kind: symValue, id: l.out, node: n.Name, op: n.OpType}
	return nil
}

func (mt *matcher) split(n *onnx.Node) error {
	if err := mt.axis(n, 0); err != nil {
		return err
	}
	x, err := mt.activation(n, 0)
	if err != nil {
		return err
	}
	c := mt.net.channels[x]
	var sizes []int64
	if s, err := mt.constant(n, 1); err != nil {
		return err
	} else if s != nil {
		sizes = s.ints
	} else if a := n.Attrs["split"]; a != nil {
		sizes = a.Ints
	} else {
		k := len(n.Outputs)
		if k == 0 || c%k != 0 {
			return refuse(n, "%d channels do not split evenly %d ways", c, k)
		}
		for range k {
			sizes = append(sizes, int64(c/k))
		}
	}
	if len(sizes) != len(n.Outputs) {
		return refuse(n, "%d sizes for %d outputs", len(sizes), len(n.Outputs))
	}
	start := 0
	for i, sz := range sizes {
		if err := mt.channelRange(n, n.Outputs[i], x, start, int(sz)); err != nil {
			return err
		}
		start += int(sz)
	}
	if start != c {
		return refuse(n, "sizes %v do not cover %d channels", sizes, c)
	}
	return nil
}

func (mt *matcher) slice(n *onnx.Node) error {
	x, err := mt.activation(n, 0)
	if err != nil {
		return err
	}
	var ops [4]*constant
	for k := range ops {
		if ops[k], err = mt.constant(n, k+1); err != nil {
			return err
		}
	}
	starts, ends, axes, steps := ops[0], ops[1], ops[2], ops[3]
	if starts == nil || ends == nil || len(starts.ints) != 1 || len(ends.ints) != 1 {
		return refuse(n, "the importer maps a Slice of one axis, the channels")
	}
	if axes == nil || len(axes.ints) != 1 || (axes.ints[0] != 1 && axes.ints[0] != -3) {
		return refuse(n, "the importer maps a Slice of the channel axis (1) only")
	}
	if steps != nil && (len(steps.ints) != 1 || steps.ints[0] != 1) {
		return refuse(n, "a step other than 1")
	}
	c := int64(mt.net.channels[x])
	clampIdx := func(v int64) int64 {
		if v < 0 {
			v += c
		}
		return min(max(v, 0), c)
	}
	s, e := clampIdx(starts.ints[0]), clampIdx(ends.ints[0])
	return mt.channelRange(n, n.Outputs[0], x, int(s), int(e-s))
}

func (mt *matcher) pad(n *onnx.Node) error {
	x, err := mt.activation(n, 0)
	if err != nil {
		return err
	}
	if m := strAttr(n, "mode", "constant"); m != "constant" {
		return refuse(n, "mode %s; only zero padding folds into the next Conv", m)
	}
	p, err := mt.constant(n, 1)
	if err != nil || p == nil {
		return refuse(n, "pads must be a constant")
	}
	if v, err := mt.constant(n, 2); err != nil {
		return err
	} else if v != nil && (v.len() != 1 || v.f[0] != 0) {
		return refuse(n, "a pad value other than 0")
	}
	if len(n.Inputs) > 3 && n.Inputs[3] != "" {
		return refuse(n, "an axes input; give pads for all four dims")
	}
	pi := p.ints
	if len(pi) != 8 || pi[0] != 0 || pi[1] != 0 || pi[4] != 0 || pi[5] != 0 || slices.Min(pi) < 0 {
		return refuse(n, "pads %v; the importer folds non-negative padding of H and W only", pi)
	}
	return mt.set(n, &sym{kind: symPad, id: x, pads: [4]int{int(pi[2]), int(pi[3]), int(pi[6]), int(pi[7])}})
}

func (mt *matcher) depthToSpace(n *onnx.Node) error {
	x, err := mt.activation(n, 0)
	if err != nil {
		return err
	}
	r := int(intAttr(n, "blocksize", 0))
	c := mt.net.channels[x]
	if r < 1 || c%(r*r) != 0 {
		return refuse(n, "blocksize %d with %d channels", r, c)
	}
	m := strAttr(n, "mode", "DCR")
	if m != "CRD" && m != "DCR" {
		return refuse(n, "mode %s", m)
	}
	return mt.emit(n, layer{kind: kShuffle, in: []int{x}, r: r, dcr: m == "DCR"}, c/(r*r))
}

// foldDCR turns each DepthToSpace of DCR order into pixel_shuffle (§5.10,
// CRD order): DCR reads channel (i·r + j)·C′ + c where pixel_shuffle reads
// c·r² + i·r + j, so the conv or conv_transpose (groups 1) that writes its
// input, read by nothing else, has its output channels permuted (§9.4
// says the same of a depth-to-space target). Any other DCR is refused.
func (n *network) foldDCR() error {
	uses := make([]int, len(n.channels))
	producer := make([]int, len(n.channels))
	for i, l := range n.layers {
		for _, v := range l.in {
			uses[v]++
		}
		producer[l.out] = i
	}
	for _, v := range n.outputs {
		uses[v]++
	}
	for i := range n.layers {
		l := &n.layers[i]
		if !l.dcr {
			continue
		}
		x := l.in[0]
		p := &n.layers[producer[x]]
		if x == 0 || uses[x] != 1 || (p.kind != kConv && p.kind != kConvT) || p.groups != 1 {
			return nodeRefusal(l.node, l.op, "mode DCR folds only into a conv or conv_transpose of groups 1 that nothing else reads; export with mode CRD (torch's PixelShuffle)")
		}
		r2 := l.r * l.r
		cp := p.cout / r2
		// perm[t] is the old channel that new channel t takes.
		perm := make([]int, p.cout)
		for c := range cp {
			for k := range r2 {
				perm[c*r2+k] = k*cp + c
			}
		}
		w := make([]float64, len(p.w))
		taps := p.kh * p.kw
		if p.kind == kConv {
			per := len(p.w) / p.cout
			for t, o := range perm {
				copy(w[t*per:(t+1)*per], p.w[o*per:(o+1)*per])
			}
		} else {
			cin := len(p.w) / (p.cout * taps)
			for ci := range cin {
				for t, o := range perm {
					copy(w[(ci*p.cout+t)*taps:][:taps], p.w[(ci*p.cout+o)*taps:][:taps])
				}
			}
		}
		p.w = w
		if p.b != nil {
			b := make([]float64, p.cout)
			for t, o := range perm {
				b[t] = p.b[o]
			}
			p.b = b
		}
		l.dcr = false
	}
	return nil
}

func (mt *matcher) resize(n *onnx.Node) error {
	x, err := mt.activation(n, 0)
	if err != nil {
		return err
	}
	if m := strAttr(n, "mode", "nearest"); m != "nearest" {
		return refuse(n, "mode %s; only nearest ×2 maps", m)
	}
	ct := strAttr(n, "coordinate_transformation_mode", "half_pixel")
	nm := strAttr(n, "nearest_mode", "round_prefer_floor")
	if !repeatsTwice(ct, nm) {
		return refuse(n, "coordinate_transformation_mode %s with nearest_mode %s does not repeat each pixel twice", ct, nm)
	}
	sc, err := mt.constant(n, 2)
	if err != nil {
		return err
	}
	if sc == nil || !slices.Equal(sc.f, []float64{1, 1, 2, 2}) {
		return refuse(n, "the importer maps scales [1, 1, 2, 2] given as a constant")
	}
	return mt.emit(n, layer{kind: kUp2, in: []int{x}}, mt.net.channels[x])
}

// repeatsTwice reports whether nearest Resize ×2 under these modes reads
// source pixel ⌊y/2⌋ for output y, as subpos_merge of four copies does: it
// runs ONNX's coordinate and rounding rules on an 8-pixel output.
func repeatsTwice(ct, nm string) bool {
	const in, out = 4, 8
	for y := range out {
		var src float64
		switch ct {
		case "half_pixel", "pytorch_half_pixel":
			src = (float64(y)+0.5)/2 - 0.5
		case "asymmetric":
			src = float64(y) / 2
		case "tf_half_pixel_for_nn":
			src = (float64(y) + 0.5) / 2
		default:
			return false
		}
		var i float64
		switch frac := src - math.Floor(src); nm {
		case "round_prefer_floor":
			i = math.Round(src)
			if frac == 0.5 {
				i = math.Floor(src)
			}
		case "round_prefer_ceil":
			i = math.Round(src)
			if frac == 0.5 {
				i = math.Ceil(src)
			}
		case "floor":
			i = math.Floor(src)
		case "ceil":
			i = math.Ceil(src)
		default:
			return false
		}
		if int(min(max(i, 0), in-1)) != y/2 {
			return false
		}
	}
	return true
}
