package certify

import (
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/whg1"
)

// nodeBounds is what one operator's rule of §8.3 gives: its named
// intermediates (hulled over channels) and its producer results, in output
// order.
type nodeBounds struct {
	inter   map[string]Interval
	results []Interval
}

func newNodeBounds(results ...Interval) *nodeBounds {
	return &nodeBounds{inter: map[string]Interval{}, results: results}
}

func (nb *nodeBounds) set(key string, iv Interval) { nb.inter[key] = iv }

// class is a width class of §7.1.
type class uint8

const (
	classTensor class = iota
	classAcc
	classWide
	classProduct
)

// keyClass is the class of every intermediate §5 names (§7.1).
var keyClass = map[string]class{
	"conv.term": classAcc, "conv.acc": classAcc,
	"convT.term": classAcc, "convT.acc": classAcc,
	"rq.t": classAcc, "rq.p": classProduct, "rq.q": classAcc, "rq.y": classAcc,
	"mul.p":     classAcc,
	"gram.term": classAcc, "gram.acc": classAcc,
	"apply.term": classAcc, "apply.acc": classAcc,
	"leaky.p": classAcc,
	"igdn.x2": classWide, "igdn.gx2": classProduct, "igdn.term": classWide,
	"igdn.N": classWide, "igdn.r": classAcc, "igdn.xr": classWide,
	"ln.S": classWide, "ln.m": classWide, "ln.d": classAcc, "ln.T": classWide,
	"ln.v": classWide, "rsq.num": classAcc, "ln.k": classAcc, "ln.dk": classWide,
	"ln.n": classAcc, "ln.ng": classWide,
	"l2.T": classWide, "l2.k": classAcc, "l2.vk": classWide,
	"sm.diff": classAcc, "exp.negx": classAcc, "exp.nl": classAcc, "exp.t2": classAcc,
	"exp.c": classAcc, "sm.sum": classAcc, "sm.num": classAcc,
	"sig.num": classAcc, "elu.p": classWide,
}

// termKey is the term interval K_c is computed over (§6, §8.5 k_c).
var termKey = map[whg1.Opcode]string{
	whg1.OpConv:          "conv.term",
	whg1.OpConvTranspose: "convT.term",
	whg1.OpIGDN:          "igdn.term",
	whg1.OpGram:          "gram.term",
	whg1.OpApply:         "apply.term",
}

// rules evaluates the §8.3 rules of one graph. shapes holds each tensor's
// [H, W] planned on the declared input sizes, or nil when the inputs do not
// declare them. fold makes conv and conv_transpose fold every partial-sum
// interval term by term (§8.1) instead of using the sums of §8.2.
type rules struct {
	g      *whg1.Graph
	shapes [][2]int64
	fold   bool
}

// channels is the channel count of op's input k.
func (r *rules) channels(op *whg1.Op, k int) int { return int(r.g.Tensors[op.In[k]].Channels) }

// size returns the planned [H, W] of op's input k (§8.1 Sizes).
func (r *rules) size(op *whg1.Op, k int) ([2]int64, error) {
	if r.shapes == nil {
		return [2]int64{}, refusal.New(refusal.ModelMismatch, "%v needs declared input sizes (§8.1)", op.Code)
	}
	return r.shapes[op.In[k]], nil
}

// node applies op's rule of §8.3 to the input intervals in.
func (r *rules) node(a *arith, op *whg1.Op, in []Interval) (*nodeBounds, error) {
	switch op.Code {
	case whg1.OpConv:
		return boundsConv(a, op, in, r.fold), nil
	case whg1.OpConvTranspose:
		return boundsConvT(a, op, in, r.channels(op, 0), r.fold), nil
	case whg1.OpRescale:
		return boundsRescale(a, op, in, r.channels(op, 0)), nil
	case whg1.OpChscale:
		return boundsChscale(a, op, in, r.channels(op, 0), r.g.Scalars[op.Params.(*whg1.Chscale).Scalar]), nil
	case whg1.OpMul:
		return boundsMul(a, op, in, r.channels(op, 0)), nil
	case whg1.OpGram:
		// L is the largest H·W of gram's inputs; both share one shape.
		s, err := r.size(op, 0)
		if err != nil {
			return nil, err
		}
		return boundsContraction(a, op, in, s[0]*s[1], "gram"), nil
	case whg1.OpApply:
		d := r.channels(op, 0) / int(op.Params.(*whg1.Contraction).Groups)
		return boundsContraction(a, op, in, int64(d), "apply"), nil
	case whg1.OpAdd:
		return boundsAdd(a, in), nil
	case whg1.OpChunkAdd:
		return boundsChunkAdd(a, in), nil
	case whg1.OpClamp:
		return boundsClamp(op, in), nil
	case whg1.OpRelu:
		return boundsRelu(in), nil
	case whg1.OpAbs:
		return boundsAbs(a, in), nil
	case whg1.OpLeaky:
		return boundsLeaky(a, op, in), nil
	case whg1.OpLut16:
		return boundsLut16(op, in)
	case whg1.OpIGDN:
		return boundsIGDN(a, op, in, r.channels(op, 0)), nil
	case whg1.OpLayerNormC:
		return boundsLayerNorm(a, op, in, r.channels(op, 0)), nil
	case whg1.OpL2Norm:
		s, err := r.size(op, 0)
		if err != nil {
			return nil, err
		}
		return boundsL2Norm(a, op, in, s[0]*s[1]), nil
	case whg1.OpSoftmax:
		s, err := r.size(op, 0)
		if err != nil {
			return nil, err
		}
		return boundsSoftmax(a, in, s[1]), nil
	case whg1.OpSigmoid:
		return boundsSigmoid(a, in), nil
	case whg1.OpElu:
		return boundsElu(a, op, in), nil
	}
	return boundsMovement(r.g, op, in), nil
}
