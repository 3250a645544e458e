package certify

import (
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// planSizes gives every tensor's [H, W] planned on the declared input
// sizes (§8.1 Sizes, §10.5 step 7), or nil when the inputs do not declare
// them. Every shape rule of §5 is non-decreasing in its input sizes, so
// these are the largest sizes each tensor takes. The graph has passed
// whg1.Parse, whose step 7 has planned these shapes; a zero divisor is
// refused here only so that a graph built by hand cannot panic.
func planSizes(g *whg1.Graph) ([][2]int64, error) {
	if !g.SizesDeclared() {
		return nil, nil
	}
	s := make([][2]int64, len(g.Tensors))
	for _, in := range g.Inputs {
		s[in.Tensor] = [2]int64{int64(in.MaxH), int64(in.MaxW)}
	}
	for i := range g.Ops {
		op := &g.Ops[i]
		hw, err := opSize(g, op, s)
		if err != nil {
			return nil, refusal.New(refusal.ModelMismatch, "op %d (%v): %v", i, op.Code, err)
		}
		for _, t := range op.Out {
			s[t] = hw
		}
	}
	return s, nil
}

func opSize(g *whg1.Graph, op *whg1.Op, s [][2]int64) ([2]int64, error) {
	h, w := s[op.In[0]][0], s[op.In[0]][1]
	div := func(a int64, b uint32) (int64, error) {
		if b == 0 {
			return 0, refusal.New(refusal.ModelMismatch, "a zero divisor")
		}
		return a / int64(b), nil
	}
	switch p := op.Params.(type) {
	case *whg1.Conv: // §5.2: Ho = ⌊(H + 2ph − kh) / sh⌋ + 1
		ho, err := div(h+2*int64(p.PH)-int64(p.KH), p.SH)
		if err != nil {
			return [2]int64{}, err
		}
		wo, err := div(w+2*int64(p.PW)-int64(p.KW), p.SW)
		return [2]int64{ho + 1, wo + 1}, err
	case *whg1.ConvT: // §5.3: Ho = (H − 1)·sh + kh + oph − 2·ph
		return [2]int64{(h-1)*int64(p.SH) + int64(p.KH) + int64(p.OPH) - 2*int64(p.PH),
			(w-1)*int64(p.SW) + int64(p.KW) + int64(p.OPW) - 2*int64(p.PW)}, nil
	case *whg1.Factor:
		switch op.Code {
		case whg1.OpPixelShuffle:
			return [2]int64{h * int64(p.N), w * int64(p.N)}, nil
		case whg1.OpPixelUnshuffle:
			ho, err := div(h, p.N)
			if err != nil {
				return [2]int64{}, err
			}
			wo, err := div(w, p.N)
			return [2]int64{ho, wo}, err
		}
		// pad_rep: ⌈H/m⌉·m
		ho, err := div(h+int64(p.N)-1, p.N)
		if err != nil {
			return [2]int64{}, err
		}
		wo, err := div(w+int64(p.N)-1, p.N)
		return [2]int64{ho * int64(p.N), wo * int64(p.N)}, err
	case *whg1.Crop: // §5.10: the smallest start and the largest length
		return [2]int64{cropSide(g, h, p.Y0, p.H), cropSide(g, w, p.X0, p.W)}, nil
	case *whg1.Contraction:
		if op.Code == whg1.OpGram { // [C, 1, d], d = C / groups
			d, err := div(int64(g.Tensors[op.In[0]].Channels), p.Groups)
			return [2]int64{1, d}, err
		}
		return s[op.In[1]], nil // apply: V's shape
	}
	switch op.Code {
	case whg1.OpCropTo:
		return s[op.In[1]], nil
	case whg1.OpSubposSplit:
		return [2]int64{h / 2, w / 2}, nil
	case whg1.OpSubposMerge:
		return [2]int64{2 * h, 2 * w}, nil
	}
	return [2]int64{h, w}, nil
}

// cropSide is a crop side's length at load (§5.10): the constant, or
// min(hi, S − s0) for a scalar length, with s0 the constant start or 0.
func cropSide(g *whg1.Graph, size int64, start, length whg1.Operand) int64 {
	if !length.Scalar {
		return int64(length.Value)
	}
	s0 := int64(0)
	if !start.Scalar {
		s0 = int64(start.Value)
	}
	return min(g.Scalars[length.Value].Hi, size-s0)
}
