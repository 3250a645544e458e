package drivers

import (
	"github.com/waiops/waiops/whg1"
)

// maxElems is the header's max_elems of every lowered graph (§13.0) and the
// tensor cap of §3.
const maxElems = 1 << 26

// builder writes a graph in the canonical form of §13.0: every input is
// declared before any operator, so input i is tensor i and each operator's
// outputs take the next unused indices in operator order; tensor records
// carry no exponent and are derived unless the lowering sets a check.
type builder struct {
	g whg1.Graph
}

func newBuilder() *builder {
	return &builder{g: whg1.Graph{Version: 1, OpSet: 1, MaxElems: maxElems}}
}

// input declares a data input of c channels with the given policy and range
// and the driver contract's max_h, max_w (§13.0). It returns its tensor.
func (b *builder) input(c uint32, policy whg1.Policy, lo, hi int64, maxH, maxW uint32) uint32 {
	t := b.tensor(c)
	b.g.Tensors[t].Policy, b.g.Tensors[t].Lo, b.g.Tensors[t].Hi = policy, lo, hi
	b.g.Inputs = append(b.g.Inputs, whg1.Input{Tensor: t, MaxH: maxH, MaxW: maxW, Kind: whg1.DataInput})
	return t
}

// scalar declares the next scalar with range [lo, hi] and returns its index.
func (b *builder) scalar(lo, hi int64) uint32 {
	b.g.Scalars = append(b.g.Scalars, whg1.Scalar{Lo: lo, Hi: hi})
	return uint32(len(b.g.Scalars) - 1)
}

func (b *builder) tensor(c uint32) uint32 { return b.g.AddTensor(c) }

// op appends an operator with one output tensor of c channels (§13.0,
// tensor numbering) and returns that tensor.
func (b *builder) op(code whg1.Opcode, params any, c uint32, in ...uint32) uint32 {
	return b.g.AddOp(code, params, c, in...)
}

// check gives tensor t the policy check [lo, hi] (§3).
func (b *builder) check(t uint32, lo, hi int64) {
	b.g.Tensors[t].Policy, b.g.Tensors[t].Lo, b.g.Tensors[t].Hi = whg1.Check, lo, hi
}

// channels is tensor t's channel count.
func (b *builder) channels(t uint32) uint32 { return b.g.Tensors[t].Channels }

// finish names the graph's one output.
func (b *builder) finish(out uint32) *whg1.Graph {
	b.g.Outputs = []uint32{out}
	return &b.g
}

// clamp appends clamp(lo, hi) (§5.5).
func (b *builder) clamp(in uint32, lo, hi int64) uint32 {
	return b.op(whg1.OpClamp, &whg1.ClampParams{Lo: lo, Hi: hi}, b.channels(in), in)
}

// rgb8 appends the RGB8 step of §13.0: clamp(0, 2^afrac), then rescale with
// one multiplier 255 (m_bytes 4), one shift afrac, no bias and half_up.
func (b *builder) rgb8(in uint32, afrac uint32) uint32 {
	t := b.clamp(in, 0, int64(1)<<afrac)
	return b.op(whg1.OpRescale, &whg1.Rescale{RQ: whg1.RQ{
		Round: whg1.HalfUp, Bias: whg1.NoBias,
		MKind: 1, MBytes: 4, Mult: []int64{255},
		SKind: 1, Shift: []uint8{uint8(afrac)},
	}}, b.channels(t), t)
}
