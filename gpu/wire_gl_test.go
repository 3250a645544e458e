//go:build cgo

package gpu

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// TestWireWidths: graph inputs and outputs cross at u8, i8, u16, i16 and i32 and
// come back exact, through persistent mapped staging buffers and through
// glBufferSubData/glGetBufferSubData. clamp(lo, hi) over an input declared
// [lo, hi] is the identity, so each output is its input, hand-checked at
// the ends of the range; add of two such inputs crosses out one width up
// (i8 + i8 → i16). Counts of 1, 7, 35 and 9 elements leave part words.
func TestWireWidths(t *testing.T) { forEachForm(t, testWireWidths) }

func testWireWidths(t *testing.T) {
	d := openDevice(t)
	var mapped bool
	if err := d.th.call(func() error { mapped = d.mapStaging; return nil }); err != nil {
		t.Fatal(err)
	}
	defer d.th.call(func() error { d.mapStaging = mapped; return nil })
	for _, m := range []bool{mapped, false} {
		d.th.call(func() error { d.mapStaging = m; return nil })
		for _, c := range []struct {
			lo, hi int64
			w      string
		}{{-128, 127, "i8"}, {0, 255, "u8"}, {-32768, 32767, "i16"}, {0, 65535, "u16"}, {-1 << 31, 1<<31 - 1, "i32"}} {
			// One program decodes growing sizes, then a smaller one: its
			// staging buffers grow, then serve again.
			g := oneOp(whg1.OpClamp, &whg1.ClampParams{Lo: c.lo, Hi: c.hi}, []in{{c: 1, lo: c.lo, hi: c.hi, h: 5, w: 7}}, 1)
			p, err := d.Load(whg1.Encode(g))
			if err != nil {
				t.Fatal(err)
			}
			if p.inW[0].String() != c.w || p.outW[0].String() != c.w {
				t.Errorf("[%d, %d]: widths %s, %s, want %s", c.lo, c.hi, p.inW[0], p.outW[0], c.w)
			}
			for _, s := range []tensor.Shape{{C: 1, H: 1, W: 1}, {C: 1, H: 1, W: 7}, {C: 1, H: 5, W: 7}, {C: 1, H: 3, W: 3}} {
				name := fmt.Sprintf("mapped %v [%d, %d] %v", m, c.lo, c.hi, s)
				x := tensor.New(s)
				ends := []int64{c.lo, c.hi, -1, 0, 1, c.lo + 1, c.hi - 1}
				for i := range x.Data {
					x.Data[i] = min(max(ends[i%len(ends)]+int64(i/len(ends)), c.lo), c.hi)
				}
				for round := range 2 { // the second reuses the staging buffers
					out, err := p.Decode([]*tensor.T{x}, nil)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !slices.Equal(out[0].Data, x.Data) {
						t.Fatalf("%s round %d: %v, want %v", name, round, out[0].Data, x.Data)
					}
				}
			}
			p.Close()
		}
		// i8 + i8 → [-256, 254], out at i16; the ends hand-computed.
		ins := []in{{1, -128, 127, 1, 5}, {1, -128, 127, 1, 5}}
		p, err := d.Load(whg1.Encode(oneOp(whg1.OpAdd, nil, ins, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if p.inW[0] != (wire{1, false}) || p.outW[0] != (wire{2, false}) {
			t.Errorf("add: widths %s, %s, want i8, i16", p.inW[0], p.outW[0])
		}
		a := &tensor.T{Shape: tensor.Shape{C: 1, H: 1, W: 5}, Data: []int64{-128, 127, -128, 127, 0}}
		b := &tensor.T{Shape: a.Shape, Data: []int64{-128, 127, 127, -1, -1}}
		out, err := p.Decode([]*tensor.T{a, b}, nil)
		if err != nil || !slices.Equal(out[0].Data, []int64{-256, 254, -1, 126, -1}) {
			t.Errorf("mapped %v add: %v, %v", m, out, err)
		}
		p.Close()
	}
}

// TestPackedSlot: a graph input read from its staging buffer gets a
// reader that unpacks its width, over one binding and over two (the
// word's binding from its index >> CHUNK_SHIFT), and no store; the
// variants compile.
func TestPackedSlot(t *testing.T) {
	var b strings.Builder
	writeSlot(&b, slot{name: "in0", chunks: 1, wire: wire{1, true}}, 0)
	want := "int in0_word(uint i) { return in0_0.d[i]; }\n" +
		"int in0_ld(uint i) { return int(bitfieldExtract(uint(in0_word(i / 4u)), int(i % 4u) * 8, 8)); }\n"
	if got := b.String(); !strings.HasSuffix(got, want) || strings.Contains(got, "in0_st") {
		t.Errorf("u8 slot:\n%s\nwant it to end\n%s", got, want)
	}
	b.Reset()
	writeSlot(&b, slot{name: "in1", chunks: 1, wire: wire{2, false}}, 0)
	if want := "int in1_ld(uint i) { return bitfieldExtract(in1_word(i / 2u), int(i % 2u) * 16, 16); }\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("i16 slot:\n%s\nwant it to end\n%s", b.String(), want)
	}
	d := openDevice(t)
	for _, w := range []wire{{1, true}, {1, false}, {2, true}, {2, false}} {
		err := d.th.call(func() error {
			_, err := d.program("relu", nil, []slot{{name: "in0", chunks: 2, wire: w}, {name: "out", chunks: 1}})
			return err
		})
		if err != nil {
			t.Errorf("%s over two bindings: %v", w, err)
		}
	}
}

// TestStageNotPooled: a graph input's staging buffer is no tensor buffer.
// x (i8, 8 elements: 2 words) has its last reader in op 0; op 1's output
// b has 2 elements, the size of x's staging buffer in words, and op 2
// reads b. Were x's staging buffer given to the pool, b would be stored
// in it and read back as packed i8.
func TestStageNotPooled(t *testing.T) {
	d := openDevice(t)
	clampT := func(lo, hi int64) whg1.Tensor {
		return whg1.Tensor{Channels: 1, Exponent: whg1.NoExponent, Policy: whg1.Clamp, Lo: lo, Hi: hi}
	}
	der := whg1.Tensor{Channels: 1, Exponent: whg1.NoExponent}
	g := &whg1.Graph{
		Tensors: []whg1.Tensor{clampT(-128, 127), clampT(-1000, 1000), der, der, der},
		Inputs:  []whg1.Input{{Tensor: 0, MaxH: 1, MaxW: 8}, {Tensor: 1, MaxH: 1, MaxW: 2}},
		Ops: []whg1.Op{
			{Code: whg1.OpRelu, In: []uint32{0}, Out: []uint32{2}},
			{Code: whg1.OpRelu, In: []uint32{1}, Out: []uint32{3}},
			{Code: whg1.OpRelu, In: []uint32{3}, Out: []uint32{4}},
		},
		Outputs: []uint32{2, 4},
	}
	p, err := d.Load(whg1.Encode(g))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	x := &tensor.T{Shape: tensor.Shape{C: 1, H: 1, W: 8}, Data: []int64{-128, 127, 5, -5, 0, 1, 2, 3}}
	y := &tensor.T{Shape: tensor.Shape{C: 1, H: 1, W: 2}, Data: []int64{1000, 300}}
	for round := range 2 {
		out, err := p.Decode([]*tensor.T{x, y}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(out[0].Data, []int64{0, 127, 5, 0, 0, 1, 2, 3}) || !slices.Equal(out[1].Data, []int64{1000, 300}) {
			t.Fatalf("round %d: %v %v", round, out[0].Data, out[1].Data)
		}
	}
}

// TestPackedStore: a graph output narrower than i32 is stored by its
// producer straight into its staging buffer, packed, with the tensor's
// clamp policy applied before the pack; no wire.comp dispatch runs. Add
// over two [-20000, 20000] inputs gives sums in [-40000, 40000]; clamped
// to [-128, 127] (i8), [0, 255] (u8) and [-32768, 32767] (i16) they take
// the ends of each width. Five and seven elements leave part words. An
// output another operator also reads keeps its tensor buffer and its
// wire.comp pack (the fallback), and gives the same values.
func TestPackedStore(t *testing.T) { forEachForm(t, testPackedStore) }

func testPackedStore(t *testing.T) {
	d := openDevice(t)
	a := []int64{20000, -20000, 100, -100, 0, -1, 255}
	b := []int64{20000, -20000, 27, -28, 0, 0, 1}
	for _, c := range []struct {
		lo, hi int64
		w      wire
		want   []int64
	}{
		{-128, 127, wire{1, false}, []int64{127, -128, 127, -128, 0, -1, 127}},
		{0, 255, wire{1, true}, []int64{255, 0, 127, 0, 0, 0, 255}},
		{-32768, 32767, wire{2, false}, []int64{32767, -32768, 127, -128, 0, -1, 256}},
	} {
		for _, n := range []int{5, 7} {
			for _, readBy := range []bool{false, true} {
				ins := []in{{1, -20000, 20000, 1, n}, {1, -20000, 20000, 1, n}}
				g := oneOp(whg1.OpAdd, nil, ins, 1)
				g.Tensors[2].Policy, g.Tensors[2].Lo, g.Tensors[2].Hi = whg1.Clamp, c.lo, c.hi
				shaders := []string{"add"}
				if readBy {
					// A second output reads the first: relu of it.
					g.Tensors = append(g.Tensors, whg1.Tensor{Channels: 1, Exponent: whg1.NoExponent})
					g.Ops = append(g.Ops, whg1.Op{Code: whg1.OpRelu, In: []uint32{2}, Out: []uint32{3}})
					g.Outputs = append(g.Outputs, 3)
					shaders = []string{"add", "relu", "wire"}
				}
				name := fmt.Sprintf("[%d, %d] n %d read by relu %v", c.lo, c.hi, n, readBy)
				p, err := d.Load(whg1.Encode(g))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if _, direct := p.direct[2]; p.outW[0] != c.w || direct == readBy {
					t.Errorf("%s: width %s, direct %v", name, p.outW[0], direct)
				}
				x := []*tensor.T{
					{Shape: tensor.Shape{C: 1, H: 1, W: n}, Data: a[:n]},
					{Shape: tensor.Shape{C: 1, H: 1, W: n}, Data: b[:n]},
				}
				// Round 0 leaves 255 + 0 clamped in every element (bits
				// set that later rounds clear): each decode clears the
				// reused stage before the producer ORs into it.
				full := slices.Repeat([]int64{255}, n)
				want255 := slices.Repeat([]int64{min(255, c.hi)}, n)
				for round := range 3 {
					xs, want := x, c.want[:n]
					if round == 0 {
						xs, want = []*tensor.T{{Shape: x[0].Shape, Data: full}, {Shape: x[0].Shape, Data: make([]int64, n)}}, want255
					}
					out, s, err := p.DecodeSplit(xs, nil)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !slices.Equal(out[0].Data, want) {
						t.Errorf("%s round %d: %v, want %v", name, round, out[0].Data, want)
					}
					var got []string
					for _, sh := range s.Shaders {
						got = append(got, sh.Shader)
					}
					if !slices.Equal(got, shaders) {
						t.Errorf("%s: dispatched %v, want %v", name, got, shaders)
					}
				}
				p.Close()
			}
		}
	}
}

// TestPackedStoreSource: an output staging buffer's out_st ORs the
// element's field into its word, after the policy, over one binding and
// over two (the word's binding from its index >> CHUNK_SHIFT); the
// variants compile.
func TestPackedStoreSource(t *testing.T) {
	var b strings.Builder
	writeSlot(&b, slot{name: "out", chunks: 1, wire: wire{1, true}}, 3)
	want := "void out_st(uint i, int v) {\n\tv = POLICY(v);\n\tuint w = i / 4u;\n" +
		"\tuint f = bitfieldInsert(0u, uint(v), int(i % 4u) * 8, 8);\n\tatomicOr(out_0.d[w], f);\n}\n"
	if got := b.String(); !strings.HasPrefix(got, "layout(std430, binding = 3) buffer B_out_0 { uint d[]; } out_0;\n") || !strings.HasSuffix(got, want) {
		t.Errorf("u8 out slot:\n%s\nwant it to end\n%s", got, want)
	}
	d := openDevice(t)
	for _, w := range []wire{{1, true}, {1, false}, {2, true}, {2, false}} {
		for _, defs := range [][]string{nil, {"CLAMP_OUT"}} {
			err := d.th.call(func() error {
				_, err := d.program("relu", defs, []slot{{name: "in0", chunks: 1}, {name: "out", chunks: 2, wire: w}})
				return err
			})
			if err != nil {
				t.Errorf("%s %v over two bindings: %v", w, defs, err)
			}
		}
	}
}

// TestPooledWidth: a buffer the pool gave to a packed tensor and took back
// goes to the next tensor of its size with no width: A = abs(x) packs 8
// u8 values into 2 words, and once A's readers have run, B = abs(y), 2
// values past i16, takes those 2 words as plain ints.
func TestPooledWidth(t *testing.T) { forEachForm(t, testPooledWidth) }

func testPooledWidth(t *testing.T) {
	d := openDevice(t)
	clampT := func(c uint32, lo, hi int64) whg1.Tensor {
		return whg1.Tensor{Channels: c, Exponent: whg1.NoExponent, Policy: whg1.Clamp, Lo: lo, Hi: hi}
	}
	der := whg1.Tensor{Channels: 1, Exponent: whg1.NoExponent}
	g := &whg1.Graph{
		// x, y, A, out0, B, out1
		Tensors: []whg1.Tensor{clampT(1, -128, 127), clampT(1, -1000000, 1000000), der, der, der, der},
		Inputs:  []whg1.Input{{Tensor: 0, MaxH: 1, MaxW: 8}, {Tensor: 1, MaxH: 1, MaxW: 2}},
		Ops: []whg1.Op{
			{Code: whg1.OpAbs, In: []uint32{0}, Out: []uint32{2}},
			{Code: whg1.OpAbs, In: []uint32{2}, Out: []uint32{3}},
			{Code: whg1.OpAbs, In: []uint32{1}, Out: []uint32{4}},
			{Code: whg1.OpAbs, In: []uint32{4}, Out: []uint32{5}},
		},
		Outputs: []uint32{3, 5},
	}
	x := &tensor.T{Shape: tensor.Shape{C: 1, H: 1, W: 8}, Data: []int64{-128, 127, 5, -5, 0, 1, 2, 3}}
	y := &tensor.T{Shape: tensor.Shape{C: 1, H: 1, W: 2}, Data: []int64{-1000000, 999999}}
	same(t, d, "pooled width", g, []*tensor.T{x, y}, nil)
}
