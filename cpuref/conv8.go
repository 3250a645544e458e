package cpuref

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// Conv8 is one conv on an input of 8-bit integers held as bytes (i8, or u8
// for a non-negative input) whose output is either its values as int32 or
// its values clamped and stored as bytes: the task an int8 library's conv
// does (oneDNN's s32 sums, QLinearConv's u8 or i8 output), on which
// `waiops bench --peers` times ours beside it. It runs what a decode runs
// on a narrow tensor (narrow.go): the dot tiles where the operands allow,
// with the epilogue fused into their store for an 8-bit output, and for an
// int32 one where the rq is the identity (conv_simd.go), else the lanes,
// i64 or exact path, with the same checks, so a value that leaves its
// type is refused, never wrapped.
type Conv8 struct {
	k       *convKernel
	in, out tensor.Shape
}

// NewConv8 is p over an input of shape in, its rq's values clamped to
// [lo, hi] (§2 clamp, as a tensor's clamp policy or a folded clamp does).
// It refuses a conv whose parameters do not fit in (whg1's checks of a
// loaded conv), or lo > hi.
func NewConv8(p *whg1.Conv, in tensor.Shape, lo, hi int64) (*Conv8, error) {
	bad := func(why string) error { return refusal.New(refusal.ModelMismatch, "conv8: %s", why) }
	switch {
	case p.Groups == 0 || p.SH == 0 || p.SW == 0 || p.KH == 0 || p.KW == 0 || p.Cout == 0:
		return nil, bad("a zero group count, stride, kernel side or output channel count")
	case in.C <= 0 || in.H <= 0 || in.W <= 0 || in.C%int(p.Groups) != 0 || int(p.Cout)%int(p.Groups) != 0:
		return nil, bad(fmt.Sprintf("%d input channels do not split into %d groups", in.C, p.Groups))
	case len(p.W) != int(p.Cout)*in.C/int(p.Groups)*int(p.KH*p.KW):
		return nil, bad("the weights' count is not Cout·Cin/groups·kh·kw")
	case lo > hi:
		return nil, bad("a clamp whose low end passes its high end")
	}
	Hp, Wp := in.H+2*int(p.PH), in.W+2*int(p.PW)
	if Hp < int(p.KH) || Wp < int(p.KW) {
		return nil, bad("a kernel larger than the padded input")
	}
	k := newConv(p, in.C)
	k.post = (*rowPost)(nil).then(lo, hi)
	out := tensor.Shape{C: int(p.Cout), H: (Hp-int(p.KH))/int(p.SH) + 1, W: (Wp-int(p.KW))/int(p.SW) + 1}
	return &Conv8{k: k, in: in, out: out}, nil
}

// Out is the output's shape.
func (c *Conv8) Out() tensor.Shape { return c.out }

// RunConv8 runs c on x (CHW, the input's shape's elements) into dst (CHW,
// the output's): each value as int32, or as one byte of dst's type. It
// refuses, with ModelMismatch, lengths that do not match the shapes, a
// value that passes acc64 (as a decode does) or one outside dst's type.
func RunConv8[In int8 | uint8, Out int32 | int8 | uint8](c *Conv8, dst []Out, x []In) error {
	if len(x) != c.in.Elems() || len(dst) != c.out.Elems() {
		return refusal.New(refusal.ModelMismatch, "conv8: %d inputs and %d outputs for shapes %v and %v", len(x), len(dst), c.in, c.out)
	}
	xv := val{T: &tensor.T{Shape: c.in}}
	switch xs := any(x).(type) {
	case []int8:
		xv.i8 = xs
	case []uint8:
		xv.u8 = xs
	}
	k, Ho, Wo := c.k, c.out.H, c.out.W
	X, nonneg := extentOf(xv)
	path := k.choose(X, c.in.W)
	if path == pathExact {
		t := tensor.New(c.out)
		if err := convExact(k, widened(xv), t); err != nil {
			return err
		}
		return storeConv8(dst, t.Data, k.post)
	}
	B, _ := maxScaled(k.wsum, X) // ≥ every |sum| (convKernel doc)
	put := func(o, oy int, sums []int64) error {
		if !rqRow(&k.p.RQ, o, uint64(B), sums, sums) {
			return outside("conv8")
		}
		return storeConv8(dst[(o*Ho+oy)*Wo:][:Wo], sums, k.post)
	}
	var fs *fusedStore
	switch b := any(dst).(type) {
	case []int8:
		fs = k.fusedBytes(b, c.out, uint64(B), false)
	case []uint8: // the tiles store u8 values' bits through an int8 view
		fs = k.fusedBytes(unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(b))), len(b)), c.out, uint64(B), true)
	case []int32:
		fs = k.fusedS32(b, c.out)
	}
	return k.rows(path, xv, X, nonneg, Wo, 0, Ho, put, fs)
}

// storeConv8 clamps each of src to post's clamp and stores it into dst,
// refusing a value outside dst's type.
func storeConv8[Out int32 | int8 | uint8](dst []Out, src []int64, post *rowPost) error {
	if b, ok := any(dst).([]int8); ok {
		if !storeRow(b, 1, src, post) {
			return lostNarrow("conv8")
		}
		return nil
	}
	lo, hi, _ := post.clamp() // NewConv8's one clamp
	tlo, thi := int64(math.MinInt32), int64(math.MaxInt32)
	if _, ok := any(dst).([]uint8); ok {
		tlo, thi = 0, math.MaxUint8
	}
	for i, v := range src {
		v = min(max(v, lo), hi)
		if v < tlo || v > thi {
			return lostNarrow("conv8")
		}
		dst[i] = Out(v)
	}
	return nil
}
