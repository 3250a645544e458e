package cpuref

import (
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// newStep binds one operator to its kernel. This is the only place that
// maps an opcode to code; each kernel lives in its family's file. b holds
// the certified intervals of the operator's inputs (§8.5), or is nil when
// the graph was loaded without its certificate. post is the clamp that
// fuse folded into op (nil for none): the rq-epilogue kernels (epilogueHost)
// apply it to each row they write; loadBounds applies it after any other.
func newStep(g *whg1.Graph, op *whg1.Op, b bounds, post *rowPost) (step, error) {
	in := b.first()
	cin := 0
	if len(op.In) > 0 {
		cin = int(g.Tensors[op.In[0]].Channels)
	}
	// The kernels of conv, conv_transpose and igdn take vals (narrow.go);
	// every other reads and writes int64 tensors, never narrow ones
	// (planNarrow).
	one := func(f func(x, y *tensor.T) error) step {
		return func(in, out []val, _ *whg1.Plan) error { return f(in[0].T, out[0].T) }
	}
	two := func(f func(a, b, y *tensor.T) error) step {
		return func(in, out []val, _ *whg1.Plan) error { return f(in[0].T, in[1].T, out[0].T) }
	}
	oneVal := func(f func(x, y val) error) step {
		return func(in, out []val, _ *whg1.Plan) error { return f(in[0], out[0]) }
	}
	pure := func(f func(x, y *tensor.T)) step {
		return one(func(x, y *tensor.T) error { f(x, y); return nil })
	}
	switch p := op.Params.(type) {
	case *whg1.Conv:
		k := newConv(p, cin)
		k.certify16(in)
		k.post = post
		return oneVal(k.runVal), nil
	case *whg1.ConvT:
		k := newConvT(p, cin)
		k.post = post
		for _, c := range k.phases {
			if c != nil {
				c.certify16(in)
			}
		}
		return oneVal(k.runVal), nil
	case *whg1.Rescale:
		XA, _ := b.maxAbs(0) // 0 without a certificate: measured per decode
		if op.Code == whg1.OpMul {
			XB, _ := b.maxAbs(1)
			return two(func(a, b, y *tensor.T) error { return mul(p, post, XA, XB, a, b, y) }), nil
		}
		return one(func(x, y *tensor.T) error { return rescale(p, post, XA, x, y) }), nil
	case *whg1.Chscale:
		X, _ := b.maxAbs(0)
		return func(in, out []val, pl *whg1.Plan) error {
			return chscale(p, post, pl.Scalars[p.Scalar], X, in[0].T, out[0].T)
		}, nil
	case *whg1.Lut16:
		t, err := lut16Table(p)
		if err != nil {
			return nil, err
		}
		// §5.6's load check puts a certified input within [−32767, 32767].
		checked := true
		if in != nil {
			lo, hi, ok := in.Int64()
			checked = !ok || lo < -32767 || hi > 32767
		}
		return one(func(x, y *tensor.T) error { return lut16(t, checked, x, y) }), nil
	case *whg1.Split:
		return pure(func(x, y *tensor.T) { split(p, x, y) }), nil
	case *whg1.Factor:
		switch op.Code {
		case whg1.OpPixelShuffle:
			return pure(func(x, y *tensor.T) { pixelShuffle(p, x, y) }), nil
		case whg1.OpPixelUnshuffle:
			return pure(func(x, y *tensor.T) { pixelUnshuffle(p, x, y) }), nil
		}
		return pure(padRep), nil
	case *whg1.ClampParams:
		return pure(func(x, y *tensor.T) { clampOp(p, x, y) }), nil
	case *whg1.Leaky:
		narrow := leakyNarrow(p, b)
		return one(func(x, y *tensor.T) error { return leaky(p, narrow, x, y) }), nil
	case *whg1.Crop:
		return func(in, out []val, pl *whg1.Plan) error {
			window(in[0].T, out[0].T, int(pl.Operand(p.Y0)), int(pl.Operand(p.X0)))
			return nil
		}, nil
	case *whg1.Subpos:
		if op.Code == whg1.OpSubposSplit {
			return func(in, out []val, _ *whg1.Plan) error { subposSplit(p, in[0].T, wide(out)); return nil }, nil
		}
		return func(in, out []val, _ *whg1.Plan) error { subposMerge(p, wide(in), out[0].T); return nil }, nil
	case *whg1.Fill:
		return func(_, out []val, pl *whg1.Plan) error { fill(pl.FillValue(p), out[0].T); return nil }, nil
	case *whg1.IGDN:
		return oneVal(newIGDN(p, cin, post).runVal), nil
	case *whg1.LayerNorm:
		return one(func(x, y *tensor.T) error { return layernormC(p, x, y) }), nil
	case *whg1.L2Norm:
		return one(func(x, y *tensor.T) error { return l2norm(p, x, y) }), nil
	case *whg1.Elu:
		return one(func(x, y *tensor.T) error { return elu(p, x, y) }), nil
	case *whg1.Contraction:
		if op.Code == whg1.OpGram {
			return two(func(a, b, y *tensor.T) error { return gram(p, a, b, y) }), nil
		}
		return two(func(a, v, y *tensor.T) error { return apply(p, a, v, y) }), nil
	}
	switch op.Code {
	case whg1.OpAdd:
		return two(add), nil
	case whg1.OpConcat:
		return func(in, out []val, _ *whg1.Plan) error { concat(wide(in), out[0].T); return nil }, nil
	case whg1.OpChunkAdd:
		return one(chunkAdd), nil
	case whg1.OpRelu:
		return pure(relu), nil
	case whg1.OpAbs:
		return one(abs), nil
	case whg1.OpCropTo:
		return pure(func(x, y *tensor.T) { window(x, y, 0, 0) }), nil
	case whg1.OpSoftmax:
		return pure(softmax), nil
	case whg1.OpSigmoid:
		return pure(sigmoid), nil
	}
	return nil, refusal.New(refusal.ModelMismatch, "opcode 0x%02X has no CPU kernel", uint8(op.Code))
}
