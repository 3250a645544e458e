package drivers

import (
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// netPlan is what §13.2's load checks establish about a network before it
// is written: x_0's channel count, and each x_ℓ's check range.
type netPlan struct {
	inC, outC uint32
	// checked[ℓ] says whether x_ℓ has the policy check, with [lo[ℓ], hi[ℓ]].
	checked []bool
	lo, hi  []int64
}

// planNetwork runs §13.2's load checks, in its order, up to the certificate.
func planNetwork(net *Network, role string) (*netPlan, error) {
	mm := func(format string, args ...any) error {
		return refusal.New(refusal.ModelMismatch, role+": "+format, args...)
	}
	// §13.2 load checks: shift < 128 and gf < 128.
	if net.Shift >= 128 || net.GF >= 128 {
		return nil, mm("shift %d or gf %d is not below 128", net.Shift, net.GF)
	}
	// afrac in 1..=30.
	if net.Afrac < 1 || net.Afrac > 30 {
		return nil, mm("afrac %d is outside 1..=30", net.Afrac)
	}
	// slope_frac < 64.
	for i := range net.Layers {
		if l := &net.Layers[i]; l.Tag == TagLeaky && l.SlopeFrac >= 64 {
			return nil, mm("layer %d: slope_frac %d is not below 64", i, l.SlopeFrac)
		}
	}
	// §13.2 The header: x_0's channel count is the input channel count of
	// the first layer of tag 0, 1 or 2.
	p := &netPlan{}
	found := false
	for i := range net.Layers {
		switch l := &net.Layers[i]; l.Tag {
		case TagConvT, TagConv:
			p.inC, found = l.In, true
		case TagIGDN:
			p.inC, found = l.C, true
		}
		if found {
			break
		}
	}
	if !found {
		return nil, mm("no layer of tag 0, 1 or 2 declares the input channels (§13.2)")
	}
	// The lengths against the running channel count, for every layer.
	if p.inC < 1 {
		return nil, mm("the input has 0 channels")
	}
	c := p.inC
	ins := make([]uint32, len(net.Layers))
	for i := range net.Layers {
		l := &net.Layers[i]
		ins[i] = c
		switch l.Tag {
		case TagConvT, TagConv:
			if l.In != c {
				return nil, mm("layer %d reads %d channels, the running count is %d", i, l.In, c)
			}
			if l.Out < 1 || l.K < 1 || l.Stride < 1 { // §5.2, §5.3
				return nil, mm("layer %d: out %d, k %d, stride %d must each be at least 1", i, l.Out, l.K, l.Stride)
			}
			c = l.Out
		case TagIGDN:
			if l.C != c {
				return nil, mm("layer %d: igdn over %d channels, the running count is %d", i, l.C, c)
			}
		}
	}
	p.outC = c
	// Then every size within the caps (§3: a channel count is a tensor of
	// at least that size): the input, and each layer's output.
	if p.inC > maxElems {
		return nil, refusal.New(refusal.TooLarge, "%s: the input's %d channels pass 2^26 (§3)", role, p.inC)
	}
	for i := range net.Layers {
		if l := &net.Layers[i]; (l.Tag == TagConvT || l.Tag == TagConv) && l.Out > maxElems {
			return nil, refusal.New(refusal.TooLarge, "%s: layer %d: %d channels pass 2^26 (§3)", role, i, l.Out)
		}
	}
	// §13.2 Range checks.
	p.checked = make([]bool, len(net.Layers))
	p.lo, p.hi = make([]int64, len(net.Layers)), make([]int64, len(net.Layers))
	for i := range net.Layers {
		pred := layerPredicate(net, &net.Layers[i], ins[i])
		if pred == nil {
			continue
		}
		x, ok := largestX(pred)
		if !ok {
			return nil, mm("layer %d: P(0) fails, so no input range admits it (§13.2)", i)
		}
		p.checked[i] = true
		p.lo[i], p.hi[i] = checkRange(x)
	}
	return p, nil
}

// inputRange is the network input's policy range: x_0's check when a layer
// of tag 0, 1, 2 or 4 reads it, else [−2^63, I64] (§13.2, Range checks).
func (p *netPlan) inputRange() (lo, hi int64) {
	if len(p.checked) > 0 && p.checked[0] {
		return p.lo[0], p.hi[0]
	}
	return -1 << 63, 1<<63 - 1
}

// emitLayers writes the network's layers after x0 (tensor x_0, whose range
// the caller has set) and returns the last layer's output. x_ℓ for ℓ ≥ 1
// gets its check range when a checked layer reads it (§13.2).
func emitLayers(b *builder, net *Network, p *netPlan, x0 uint32) uint32 {
	x := x0
	for i := range net.Layers {
		l := &net.Layers[i]
		if i > 0 && p.checked[i] {
			b.check(x, p.lo[i], p.hi[i])
		}
		x = emitLayer(b, net, l, x)
	}
	return x
}

// layerRQ is the RQ of tags 0 and 1 (§13.2): one multiplier per channel
// (i64), one shift (the header's), a post bias (i64), floor.
func layerRQ(net *Network, l *Layer) whg1.RQ {
	return whg1.RQ{
		Round: whg1.Floor, Bias: whg1.PostBias,
		MKind: 2, MBytes: 8, Mult: l.Mult,
		SKind: 1, Shift: []uint8{uint8(net.Shift)},
		BBytes: 8, BiasV: l.Bias,
	}
}

// emitLayer writes one layer as §13.2's table (and §13.3 for WAM1) lowers it.
func emitLayer(b *builder, net *Network, l *Layer, x uint32) uint32 {
	switch l.Tag {
	case TagConvT:
		p := &whg1.ConvT{Cout: l.Out, KH: l.K, KW: l.K, SH: l.Stride, SW: l.Stride,
			PH: l.Pad, PW: l.Pad, OPH: l.Opad, OPW: l.Opad, WBytes: 2, RQ: layerRQ(net, l), W: l.W}
		if net.OneD { // §13.3: kh = 1, sh = 1, ph = 0, oph = 0
			p.KH, p.SH, p.PH, p.OPH = 1, 1, 0, 0
		}
		return b.op(whg1.OpConvTranspose, p, l.Out, x)
	case TagConv:
		p := &whg1.Conv{Cout: l.Out, KH: l.K, KW: l.K, SH: l.Stride, SW: l.Stride,
			PH: l.Pad, PW: l.Pad, Groups: 1, WBytes: 2, RQ: layerRQ(net, l), W: l.W}
		if net.OneD { // the 1-D form of §13.3, read for tag 1 as for tag 0
			p.KH, p.SH, p.PH = 1, 1, 0
		}
		return b.op(whg1.OpConv, p, l.Out, x)
	case TagIGDN:
		return b.op(whg1.OpIGDN, &whg1.IGDN{GF: net.GF, Frac: net.Afrac, GBytes: 4,
			Gamma: l.Gamma, Beta: l.Beta}, l.C, x)
	case TagRelu:
		return b.op(whg1.OpRelu, nil, b.channels(x), x)
	}
	return b.op(whg1.OpLeaky, &whg1.Leaky{A: l.SlopeQ, F: l.SlopeFrac}, b.channels(x), x)
}

// lowerWHM lowers one WHM1 network (§13.2), with the RGB8 step when rgb8.
func lowerWHM(net *Network, p *netPlan, rgb8 bool) *whg1.Graph {
	b := newBuilder()
	lo, hi := p.inputRange()
	x := emitLayers(b, net, p, b.input(p.inC, whg1.Check, lo, hi, 0, 0))
	if rgb8 {
		x = b.rgb8(x, net.Afrac)
	}
	return b.finish(x)
}

// lowerWAM lowers a WAM1 network (§13.3) with the PCM step: crop to t_out
// (scalar 0) under a check, rescale by 32767 with shift afrac and half_up,
// clamp to i16.
func lowerWAM(net *Network, p *netPlan) *whg1.Graph {
	b := newBuilder()
	tOut := b.scalar(1, maxElems) // §13.0: t_out, [1, 2^26]
	lo, hi := p.inputRange()
	x := emitLayers(b, net, p, b.input(p.inC, whg1.Check, lo, hi, 0, 0))
	x = b.op(whg1.OpCrop, &whg1.Crop{
		Y0: whg1.Operand{Value: 0}, X0: whg1.Operand{Value: 0},
		H: whg1.Operand{Value: 1}, W: whg1.Operand{Scalar: true, Value: tOut},
	}, b.channels(x), x)
	// ⌈−2^63 / 32767⌉ and ⌊(I64 − 2^(afrac−1)) / 32767⌋: Go's / truncates
	// toward zero, which is the ceiling for a negative dividend and the
	// floor for a non-negative one.
	b.check(x, (-1<<63)/32767, (1<<63-1-int64(1)<<(net.Afrac-1))/32767)
	x = b.op(whg1.OpRescale, &whg1.Rescale{RQ: whg1.RQ{
		Round: whg1.HalfUp, Bias: whg1.NoBias,
		MKind: 1, MBytes: 4, Mult: []int64{32767},
		SKind: 1, Shift: []uint8{uint8(net.Afrac)},
	}}, b.channels(x), x)
	return b.finish(b.clamp(x, -32768, 32767))
}
