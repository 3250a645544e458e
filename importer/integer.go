package importer

import (
	"fmt"
	"math"

	"github.com/waiops/waiops/whg1"
)

// The scale rule. A value's calibrated range R is the largest |v| the float
// evaluator sees on it over every calibration input. Its integer scale is
// s = h·R / Q, with Q = 2^(acts−1) − 1, and the tensor that holds it has the
// policy clamp [−Q, Q] (§3): a held-out input up to h times past the
// calibration's largest value is represented, and one past that is
// clamped, never wrapped. The headroom h is Headroom(acts): 1.25 for i8,
// where every bit counts, and 4 for i16, which keeps 13 bits over R and
// room for held-out pictures whose activations pass the calibration's. The
// latents enter at scale 1 (they are integers) with the input policy clamp
// [−L, L], L = ⌈2h·R⌉ (at least 1, at most Q). Weights take one scale per
// output channel: max|w| / Qw, with Qw = 2^(weights−1) − 1, raised where the
// profile needs it (integer_conv.go).
func Headroom(acts int) float64 {
	if acts >= 16 {
		return 4
	}
	return 1.25
}

// acc32Limit is the largest magnitude an acc32 value holds (§7.1).
const acc32Limit = math.MaxInt32

// qvalue is a value's integer form: real ≈ int·s, with the ints in
// [lo, hi].
type qvalue struct {
	s      float64
	lo, hi int64
	t      uint32 // its WHG1 tensor
	// image says the ints are already 8-bit samples (value·255).
	image bool
	// off is the mean the ints fall short of real/s by: 1/2 after igdn's
	// floor (§5.7), whose output ⌊x·r / 2^frac⌋ rounds toward −∞.
	off float64
}

// LayerInfo is one layer's row in the import's report.
type LayerInfo struct {
	Node     string  `json:"node"`
	ONNXOp   string  `json:"onnx_op"`
	Op       string  `json:"op"`
	OpIndex  int     `json:"op_index"` // the WHG1 operator that writes the layer's value
	Range    float64 `json:"calibrated_range"`
	Scale    float64 `json:"scale"` // real value of one integer unit of the output
	Lo       int64   `json:"lo"`
	Hi       int64   `json:"hi"`
	WScaleLo float64 `json:"weight_scale_min,omitempty"`
	WScaleHi float64 `json:"weight_scale_max,omitempty"`
	// Raised counts the output channels whose weight scale the profile's
	// accumulator bound raised above max|w|/Qw.
	Raised int    `json:"weight_scales_raised,omitempty"`
	Shift  uint32 `json:"shift,omitempty"`
	GF     uint32 `json:"igdn_gf,omitempty"`
	Frac   uint32 `json:"igdn_frac,omitempty"`
	value  int
	image  bool    // its ints are 8-bit samples of a picture output
	off    float64 // the ints read as (int + off)·Scale (qvalue.off)
}

// OutputInfo says how each graph output's integers read as values.
type OutputInfo struct {
	Name  string  `json:"name"`
	Image bool    `json:"image"` // 3 channels as 8-bit samples: value = int/255
	Scale float64 `json:"scale"` // real value of one integer unit
	Lo    int64   `json:"lo"`
	Hi    int64   `json:"hi"`
	// Offset: the ints read as (int + Offset)·Scale; 1/2 after igdn,
	// whose floor falls short by half a unit on average.
	Offset float64 `json:"offset,omitempty"`
	value  int
}

// emitter writes the WHG1 graph in §13.0's canonical numbering.
type emitter struct {
	g      whg1.Graph
	net    *network
	q      []qvalue
	r      []float64 // each value's calibrated range
	qa, qw int64
	h      float64 // the headroom, Headroom(acts)
	acc32  bool
	layers []LayerInfo
	outs   []OutputInfo
	uses   []int
}

func (e *emitter) tensor(c int) uint32 { return e.g.AddTensor(uint32(c)) }

func (e *emitter) op(code whg1.Opcode, params any, c int, in ...uint32) uint32 {
	return e.g.AddOp(code, params, uint32(c), in...)
}

// clampPolicy gives tensor t the policy clamp [lo, hi] (§3).
func (e *emitter) clampPolicy(t uint32, lo, hi int64) {
	e.g.Tensors[t].Policy, e.g.Tensors[t].Lo, e.g.Tensors[t].Hi = whg1.Clamp, lo, hi
}

// outScale is the scale a value gets from its calibrated range.
func (e *emitter) outScale(v int) float64 {
	if e.r[v] == 0 {
		return 1
	}
	return e.h * e.r[v] / float64(e.qa)
}

// rqOf builds an rq (§5.1) for real per-channel ratios: q ≈ t·ratio[o],
// as mult[o] / 2^shift with every mult within i32 (§7.2 rq.mult) and the
// shift at most 63 (rq.shift), rounding half_up.
func rqOf(ratio []float64, bias []int64, post bool) whg1.RQ {
	shift := 63
	for _, r := range ratio {
		if a := math.Abs(r); a > 0 {
			shift = min(shift, int(math.Floor(math.Log2(float64(acc32Limit)/a))))
		}
	}
	shift = max(shift, 0)
	mult := make([]int64, len(ratio))
	for o, r := range ratio {
		mult[o] = int64(math.Round(r * math.Ldexp(1, shift)))
	}
	rq := whg1.RQ{Round: whg1.HalfUp, MKind: 2, SKind: 1, Mult: mult, Shift: []uint8{uint8(shift)}}
	if len(ratio) == 1 {
		rq.MKind = 1
	}
	rq.MBytes = whg1.WidthFor(mult, 4, 8)
	if bias != nil {
		rq.Bias, rq.BiasV, rq.BBytes = whg1.PreBias, bias, whg1.WidthFor(bias, 4, 8)
		if post {
			rq.Bias = whg1.PostBias
		}
	}
	return rq
}

// emit integerises the network on calibrated ranges r (one per value) and
// writes its graph.
func emit(net *network, r []float64, acts, weights int, acc32 bool) (*whg1.Graph, []LayerInfo, []OutputInfo, error) {
	e := &emitter{net: net, r: r, q: make([]qvalue, len(net.channels)),
		qa: 1<<(acts-1) - 1, qw: 1<<(weights-1) - 1, h: Headroom(acts), acc32: acc32, uses: make([]int, len(net.channels))}
	e.g = whg1.Graph{Version: 1, OpSet: 1, MaxElems: maxEvalElems}
	for _, l := range net.layers {
		for _, v := range l.in {
			e.uses[v]++
		}
	}
	for _, v := range net.outputs {
		e.uses[v]++
	}
	// The latents: integers at scale 1, clamp [−L, L].
	L := min(max(int64(math.Ceil(2*e.h*r[0])), 1), e.qa)
	t := e.tensor(net.channels[0])
	e.clampPolicy(t, -L, L)
	e.g.Inputs = []whg1.Input{{Tensor: t, Kind: whg1.DataInput}}
	e.q[0] = qvalue{s: 1, lo: -L, hi: L, t: t}
	for i := range net.layers {
		l := &net.layers[i]
		info := LayerInfo{Node: l.node, ONNXOp: l.op, Op: l.kind.String(), Range: r[l.out], value: l.out}
		if err := e.layer(l, &info); err != nil {
			return nil, nil, nil, nodeRefusal(l.node, l.op, err.Error())
		}
		info.OpIndex = len(e.g.Ops) - 1
		q := e.q[l.out]
		info.Scale, info.Lo, info.Hi, info.image, info.off = q.s, q.lo, q.hi, q.image, q.off
		e.layers = append(e.layers, info)
	}
	for k, v := range net.outputs {
		e.output(k, v)
	}
	return &e.g, e.layers, e.outs, nil
}

// output appends each graph output's output step: a 3-channel output is a
// picture, and its samples are written as 8-bit values (value·255, half_up,
// clamped to [0, 255], as a codec clamps its reconstruction to [0, 1]); any
// other output keeps its scale.
func (e *emitter) output(k, v int) {
	q := e.q[v]
	info := OutputInfo{Name: e.net.outNames[k], Scale: q.s, Lo: q.lo, Hi: q.hi, Offset: q.off, value: v}
	t := q.t
	if e.net.channels[v] == 3 && !q.image {
		rq := rqOf([]float64{q.s * 255}, nil, false)
		t = e.op(whg1.OpRescale, &whg1.Rescale{RQ: rq}, 3, t)
		t = e.op(whg1.OpClamp, &whg1.ClampParams{Lo: 0, Hi: 255}, 3, t)
	}
	if e.net.channels[v] == 3 {
		info.Image, info.Scale, info.Lo, info.Hi, info.Offset = true, 1.0/255, 0, 255, 0
	}
	e.g.Outputs = append(e.g.Outputs, t)
	e.outs = append(e.outs, info)
}

func (e *emitter) layer(l *layer, info *LayerInfo) error {
	x := e.q[l.in[0]]
	c := e.net.channels[l.out]
	set := func(t uint32, s float64, lo, hi int64) { e.q[l.out] = qvalue{s: s, lo: lo, hi: hi, t: t} }
	switch l.kind {
	case kConv, kConvT:
		return e.conv(l, x, info)
	case kIGDN:
		return e.igdn(l, x, info)
	case kRelu:
		set(e.op(whg1.OpRelu, nil, c, x.t), x.s, max(x.lo, 0), max(x.hi, 0))
	case kLeaky:
		// §5.5 leaky: v·a / 2^16 for negative v, a = round(α·2^16).
		a := int64(math.Round(l.alpha * 65536))
		lo := min(x.lo, (x.lo*a)>>16)
		set(e.op(whg1.OpLeaky, &whg1.Leaky{A: a, F: 16}, c, x.t), x.s, lo, max(x.hi, (x.lo*a)>>16))
	case kClip:
		lo, hi := boundInt(l.lo/x.s), boundInt(l.hi/x.s)
		set(e.op(whg1.OpClamp, &whg1.ClampParams{Lo: lo, Hi: hi}, c, x.t), x.s, min(max(x.lo, lo), hi), max(min(x.hi, hi), lo))
	case kAffine:
		// §5.4 rescale: y = R(x·mult, shift) + post bias, the constant's
		// scale and offset at the output's calibrated scale.
		s := e.outScale(l.out)
		ratio := make([]float64, len(l.scale))
		bias := make([]int64, c)
		for k := range l.scale {
			ratio[k] = l.scale[k] * x.s / s
		}
		for o := range c {
			bias[o] = int64(math.Round(l.shift[min(o, len(l.shift)-1)] / s))
		}
		rq := rqOf(ratio, bias, true)
		t := e.op(whg1.OpRescale, &whg1.Rescale{RQ: rq}, c, x.t)
		e.clampPolicy(t, -e.qa, e.qa)
		set(t, s, -e.qa, e.qa)
		info.Shift = uint32(rq.Shift[0])
	case kAdd:
		s := e.outScale(l.out)
		a, b := e.rescaled(x, s), e.rescaled(e.q[l.in[1]], s)
		t := e.op(whg1.OpAdd, nil, c, a, b)
		e.clampPolicy(t, -e.qa, e.qa)
		set(t, s, -e.qa, e.qa)
	case kConcat:
		// Every input at the coarsest input's scale.
		s := 0.0
		for _, v := range l.in {
			s = max(s, e.q[v].s)
		}
		var ins []uint32
		lo, hi := int64(0), int64(0)
		for _, v := range l.in {
			q := e.q[v]
			ins = append(ins, e.rescaled(q, s))
			f := q.s / s
			lo, hi = min(lo, int64(math.Floor(float64(q.lo)*f))), max(hi, int64(math.Ceil(float64(q.hi)*f)))
		}
		set(e.op(whg1.OpConcat, nil, c, ins...), s, lo, hi)
	case kSplit:
		set(e.op(whg1.OpSplit, &whg1.Split{Start: uint32(l.start), Count: uint32(l.count)}, c, x.t), x.s, x.lo, x.hi)
	case kShuffle:
		set(e.op(whg1.OpPixelShuffle, &whg1.Factor{N: uint32(l.r)}, c, x.t), x.s, x.lo, x.hi)
	case kUp2:
		// §5.10: subpos_merge of four copies repeats each pixel 2×2, the
		// nearest Resize ×2.
		t := e.tensor(c)
		e.g.Ops = append(e.g.Ops, whg1.Op{Code: whg1.OpSubposMerge, In: []uint32{x.t, x.t, x.t, x.t}, Out: []uint32{t},
			Params: &whg1.Subpos{Order: [4]uint8{0, 1, 2, 3}}})
		set(t, x.s, x.lo, x.hi)
	default:
		return fmt.Errorf("no integer form for %v", l.kind)
	}
	return nil
}

// boundInt rounds v to an integer, with ±∞ (an open Clip bound) and
// anything past ±2^62 at ±2^62.
func boundInt(v float64) int64 {
	const lim = 1 << 62
	return int64(math.Round(min(max(v, -lim), lim)))
}

// rescaled returns q's tensor at scale s: itself when s is q's, else a
// rescale by q.s/s (§5.4).
func (e *emitter) rescaled(q qvalue, s float64) uint32 {
	if q.s == s {
		return q.t
	}
	return e.op(whg1.OpRescale, &whg1.Rescale{RQ: rqOf([]float64{q.s / s}, nil, false)}, int(e.g.Tensors[q.t].Channels), q.t)
}
