//go:build cgo

package gpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/waiops/waiops/whg1"
)

const (
	i32min = math.MinInt32
	i32max = math.MaxInt32
)

// opCase is one graph of one operator, fed at its inputs' declared sizes.
type opCase struct {
	name     string
	code     whg1.Opcode
	params   any
	ins      []in
	outC     []uint32
	scalars  []whg1.Scalar
	values   []int64   // the scalars' values at the decode
	outClamp *[2]int64 // a clamp policy on output 0
}

func (c opCase) graph() *whg1.Graph {
	g := oneOp(c.code, c.params, c.ins, c.outC...)
	g.Scalars = c.scalars
	if c.outClamp != nil {
		t := &g.Tensors[g.Outputs[0]]
		t.Policy, t.Lo, t.Hi = whg1.Clamp, c.outClamp[0], c.outClamp[1]
	}
	return g
}

// runCases compares every case on the device with cpuref (==).
func runCases(t *testing.T, cases []opCase) {
	d := openDevice(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range cases {
		same(t, d, c.name, c.graph(), feed(r, c.ins), c.values)
	}
}

// full is an input spanning all of i32, the widest an acc32 input may be.
func full(c uint32, h, w int) in { return in{c, i32min, i32max, h, w} }

func TestElementwise(t *testing.T) { forEachForm(t, testElementwise) }

func testElementwise(t *testing.T) {
	half := in{3, -1 << 30, 1<<30 - 1, 5, 7} // a + b reaches −2^31 and 2^31 − 2
	runCases(t, []opCase{
		{name: "relu", code: whg1.OpRelu, ins: []in{full(2, 3, 5)}, outC: []uint32{2}},
		{name: "abs", code: whg1.OpAbs, ins: []in{{2, -(1<<31 - 1), i32max, 4, 4}}, outC: []uint32{2}},
		{name: "add_ends", code: whg1.OpAdd, ins: []in{half, {3, -1 << 30, 1<<30 - 1, 5, 7}}, outC: []uint32{3}},
		{name: "add_top", code: whg1.OpAdd, ins: []in{{1, 0, 1 << 30, 3, 3}, {1, 0, 1<<30 - 1, 3, 3}}, outC: []uint32{1}},
		{name: "chunk_add", code: whg1.OpChunkAdd, ins: []in{{4, -1 << 30, 1<<30 - 1, 3, 5}}, outC: []uint32{2}},
		{name: "clamp", code: whg1.OpClamp, params: &whg1.ClampParams{Lo: -7, Hi: 1 << 20}, ins: []in{full(2, 3, 3)}, outC: []uint32{2}},
		{name: "clamp_open_sides", code: whg1.OpClamp, params: &whg1.ClampParams{Lo: math.MinInt64, Hi: 5}, ins: []in{full(1, 4, 4)}, outC: []uint32{1}},
		{name: "clamp_open_top", code: whg1.OpClamp, params: &whg1.ClampParams{Lo: -5, Hi: math.MaxInt64}, ins: []in{full(1, 4, 4)}, outC: []uint32{1}},
		// §14.1 item 6: negative values that floor away from zero.
		{name: "leaky_a3_f2", code: whg1.OpLeaky, params: &whg1.Leaky{A: 3, F: 2}, ins: []in{{2, -1000, 1000, 4, 4}}, outC: []uint32{2}},
		{name: "leaky_f0_neg_a", code: whg1.OpLeaky, params: &whg1.Leaky{A: -1, F: 0}, ins: []in{{1, -(1<<31 - 1), i32max, 4, 4}}, outC: []uint32{1}},
		{name: "leaky_f31", code: whg1.OpLeaky, params: &whg1.Leaky{A: 1 << 16, F: 31}, ins: []in{{1, -1 << 15, 1 << 15, 4, 4}}, outC: []uint32{1}},
		{name: "leaky_f63", code: whg1.OpLeaky, params: &whg1.Leaky{A: 5, F: 63}, ins: []in{{1, -1000, 1000, 4, 4}}, outC: []uint32{1}},
		{name: "leaky_f32", code: whg1.OpLeaky, params: &whg1.Leaky{A: i32max, F: 32}, ins: []in{{1, -1, 1, 2, 2}}, outC: []uint32{1}},
		{name: "relu_out_clamp", code: whg1.OpRelu, ins: []in{full(1, 4, 4)}, outC: []uint32{1}, outClamp: &[2]int64{3, math.MaxInt64}},
	})
}

func TestMovement(t *testing.T) { forEachForm(t, testMovement) }

func testMovement(t *testing.T) {
	x := in{8, -1000, 1000, 4, 6}
	var cases []opCase
	cases = append(cases,
		opCase{name: "concat3", code: whg1.OpConcat, ins: []in{{2, -5, 5, 3, 4}, {1, -9, 9, 3, 4}, {3, i32min, i32max, 3, 4}}, outC: []uint32{6}},
		opCase{name: "split", code: whg1.OpSplit, params: &whg1.Split{Start: 3, Count: 4}, ins: []in{x}, outC: []uint32{4}},
		opCase{name: "pixel_shuffle_r2", code: whg1.OpPixelShuffle, params: &whg1.Factor{N: 2}, ins: []in{x}, outC: []uint32{2}},
		opCase{name: "pixel_unshuffle_r2", code: whg1.OpPixelUnshuffle, params: &whg1.Factor{N: 2}, ins: []in{x}, outC: []uint32{32}},
		opCase{name: "pixel_shuffle_r1", code: whg1.OpPixelShuffle, params: &whg1.Factor{N: 1}, ins: []in{x}, outC: []uint32{8}},
		opCase{name: "pad_rep_m4", code: whg1.OpPadRep, params: &whg1.Factor{N: 4}, ins: []in{{2, -9, 9, 5, 3}}, outC: []uint32{2}},
		opCase{name: "crop_to", code: whg1.OpCropTo, ins: []in{x, {1, 0, 0, 3, 5}}, outC: []uint32{8}},
		opCase{name: "crop_const", code: whg1.OpCrop, params: &whg1.Crop{Y0: whg1.Operand{Value: 1}, X0: whg1.Operand{Value: 2}, H: whg1.Operand{Value: 2}, W: whg1.Operand{Value: 3}}, ins: []in{x}, outC: []uint32{8}},
		opCase{name: "crop_scalar", code: whg1.OpCrop,
			params:  &whg1.Crop{Y0: whg1.Operand{Scalar: true, Value: 0}, X0: whg1.Operand{Scalar: true, Value: 1}, H: whg1.Operand{Scalar: true, Value: 2}, W: whg1.Operand{Value: 2}},
			scalars: []whg1.Scalar{{Lo: 0, Hi: 3}, {Lo: 0, Hi: 4}, {Lo: 1, Hi: 4}}, values: []int64{1, 3, 2},
			ins: []in{x}, outC: []uint32{8}},
		opCase{name: "fill_const", code: whg1.OpFill, params: &whg1.Fill{Value: -(1 << 31)}, ins: []in{{1, 0, 1, 3, 5}}, outC: []uint32{4}},
		opCase{name: "fill_scalar", code: whg1.OpFill, params: &whg1.Fill{Scalar: true, Value: 0}, scalars: []whg1.Scalar{{Lo: -7, Hi: i32max}}, values: []int64{i32max}, ins: []in{{1, 0, 1, 2, 3}}, outC: []uint32{3}},
		opCase{name: "subpos_merge", code: whg1.OpSubposMerge, params: &whg1.Subpos{Order: [4]uint8{3, 0, 2, 1}}, ins: []in{{2, -5, 5, 3, 2}, {2, 10, 20, 3, 2}, {2, 30, 40, 3, 2}, {2, -50, -40, 3, 2}}, outC: []uint32{2}},
	)
	for _, order := range [][4]uint8{{0, 1, 2, 3}, {2, 3, 1, 0}} {
		cases = append(cases, opCase{name: fmt.Sprint("subpos_split", order), code: whg1.OpSubposSplit, params: &whg1.Subpos{Order: order}, ins: []in{{3, i32min, i32max, 4, 6}}, outC: []uint32{3, 3, 3, 3}})
	}
	runCases(t, cases)
}
