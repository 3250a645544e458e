package cpuref

import (
	"math"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/cpuref/dot"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// Narrow storage (§3 Storage: a tensor may be stored in any integer type
// that holds its certified range). A tensor between the kernels that read
// and write rows through their own epilogues — conv, conv_transpose, igdn
// — whose certified interval fits i8 is kept at one byte an element: its
// producer narrows each row once the rq, the folded post and the policy
// have formed it, and its readers take the bytes into their packing (the
// dot kernels' int16 pairs or u8 quads) or widen a block at a time. The
// values are the same integers; what changes is the memory a decode moves,
// an eighth of the int64 form's.

// planNarrow marks the tensors stored at i8 width: each one that a step
// of conv, conv_transpose or igdn writes (the output of its last folded op,
// fuse), whose interval after its policy (§8.5) lies within [−128, 127],
// whose policy needs nothing more of Decode (derived, proven by the
// certificate, or the clamp the step folded in: Decode never sees its
// values), that no graph output names, and that only conv, conv_transpose
// and igdn read, as their one input. Without the certificate nothing is.
func planNarrow(g *whg1.Graph, gb *certify.GraphBounds, fz []fusion, proven []bool) []bool {
	narrow := make([]bool, len(g.Tensors))
	if gb == nil {
		return narrow
	}
	readOK := make([]bool, len(g.Tensors))
	for t := range readOK {
		readOK[t] = true
	}
	for _, t := range g.Outputs {
		readOK[t] = false
	}
	for i := range g.Ops {
		op := &g.Ops[i]
		for k, t := range op.In {
			if k > 0 || !rowKernel(op) {
				readOK[t] = false
			}
		}
	}
	for i := range g.Ops {
		last := &g.Ops[fz[i].last]
		if fz[i].gone || !rowKernel(&g.Ops[i]) || len(last.Out) != 1 {
			continue
		}
		t := last.Out[0]
		lo, hi, ok := gb.Tensors[t].Int64()
		done := g.Tensors[t].Policy == whg1.Derived || proven[t] || fz[i].clamped
		narrow[t] = ok && lo >= math.MinInt8 && hi <= math.MaxInt8 && done && readOK[t]
	}
	return narrow
}

// rowKernel says whether op's kernel reads and writes narrow tensors.
func rowKernel(op *whg1.Op) bool {
	switch op.Params.(type) {
	case *whg1.Conv, *whg1.ConvT, *whg1.IGDN:
		return true
	}
	return false
}

// wide is the tensors of vs, none of them narrow (planNarrow).
func wide(vs []val) []*tensor.T {
	ts := make([]*tensor.T, len(vs))
	for i, v := range vs {
		ts[i] = v.T
	}
	return ts
}

// widened is v as an int64 tensor: v itself, or a copy of its bytes.
func widened(v val) *tensor.T {
	if v.u8 != nil {
		t := &tensor.T{Shape: v.Shape, Data: make([]int64, len(v.u8))}
		for i, b := range v.u8 {
			t.Data[i] = int64(b)
		}
		return t
	}
	if v.i8 == nil {
		return v.T
	}
	t := &tensor.T{Shape: v.Shape, Data: make([]int64, len(v.i8))}
	dot.Widen8(t.Data, v.i8)
	return t
}

// extentOf is extent over v's elements, at whichever width it is stored
// (for u8 storage, the type's bounds: X = 255, all non-negative).
func extentOf(v val) (X uint64, nonneg bool) {
	if v.u8 != nil {
		return math.MaxUint8, true // u8's own interval bounds it; no scan
	}
	if v.i8 == nil {
		return extent(v.Data)
	}
	lo, hi := dot.Extent8(v.i8)
	return uint64(max(0, -int(lo), int(hi))), lo >= 0
}

// storeRow applies post to the row src and stores it into dst[stride·i]
// as i8, reporting whether every value fitted (dot.Narrow8): a post that is
// one clamp is applied by the store itself, any other in place before it.
func storeRow(dst []int8, stride int, src []int64, post *rowPost) bool {
	lo, hi, ok := post.clamp()
	if !ok {
		post.row(src)
		lo, hi = math.MinInt64, math.MaxInt64
	}
	return dot.Narrow8(dst, stride, src, lo, hi)
}

// narrowed runs run into an int64 tensor of out's shape and stores its
// values into out's bytes: the path of a narrow output whose kernel form
// writes only int64 (the exact and lane forms).
func narrowed(out val, what string, run func(out *tensor.T) error) error {
	t := tensor.New(out.Shape)
	if err := run(t); err != nil {
		return err
	}
	if !storeRow(out.i8, 1, t.Data, nil) {
		return lostNarrow(what)
	}
	return nil
}

// lostNarrow is a value of a narrow tensor outside i8: outside the
// interval the certificate gave the tensor, which a certified graph never
// forms (§8); the decode is refused rather than the value wrapped.
func lostNarrow(what string) error {
	return refusal.New(refusal.ModelMismatch, "%s: a value outside its tensor's certified interval", what)
}
