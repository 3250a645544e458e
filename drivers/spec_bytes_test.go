package drivers_test

import (
	"bytes"
	"encoding/binary"
	"math/big"
	"testing"

	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/internal/setcorpus"
)

// The tests in this file write the bytes §13.0 and §10 fix for a tiny set
// of each lowering by hand, field by field, with encoding/binary and
// nothing from whg1 or the builder, and compare them with what Lower
// writes. Each range is worked from §13.2's P_ℓ in a comment.

// le appends little-endian fields; each method names the field's width.
type le struct{ b []byte }

func (w *le) u8(v ...uint8) *le { w.b = append(w.b, v...); return w }
func (w *le) u16(v uint16) *le  { w.b = binary.LittleEndian.AppendUint16(w.b, v); return w }
func (w *le) u32(v ...uint32) *le {
	for _, x := range v {
		w.b = binary.LittleEndian.AppendUint32(w.b, x)
	}
	return w
}
func (w *le) i16(v ...int16) *le {
	for _, x := range v {
		w.b = binary.LittleEndian.AppendUint16(w.b, uint16(x))
	}
	return w
}
func (w *le) i32(v ...int32) *le {
	for _, x := range v {
		w.b = binary.LittleEndian.AppendUint32(w.b, uint32(x))
	}
	return w
}
func (w *le) i64(v ...int64) *le {
	for _, x := range v {
		w.b = binary.LittleEndian.AppendUint64(w.b, uint64(x))
	}
	return w
}

// header is §10.1 with §13.0's version 1, operator set 1, max_elems 2^26.
func (w *le) header(tensors, ops uint32, inputs, outputs, scalars uint16) *le {
	w.b = append(w.b, "WHG1"...)
	w.u8(1, 1, 0, 0).u32(tensors, ops).u16(inputs).u16(outputs).u16(scalars).u16(0)
	return w.u32(1<<26, 0)
}

// input is a §10.2 data input record with max_h = max_w = 0.
func (w *le) input(t uint32) *le { return w.u32(t, 0, 0).u8(0, 0, 0, 0).u32(0, 0).i64(0) }

// tensor is a §10.2 tensor record with exponent −128 (§13.0); policy 0
// derived (lo = hi = 0) or 2 check.
func (w *le) tensor(c uint32, policy uint8, lo, hi int64) *le {
	return w.u32(c).u8(0x80, policy, 0, 0).i64(lo, hi)
}

// op is an operator record: opcode, arity, reserved, operands, plen, params.
func (w *le) op(code uint8, in, out []uint32, params []byte) *le {
	w.u8(code, uint8(len(in)), uint8(len(out)), 0).u32(in...).u32(out...)
	return w.u32(uint32(len(params))).u8(params...)
}

func params(f func(p *le)) []byte { p := &le{}; f(p); return p.b }

const i64max = 1<<63 - 1

// clampP is clamp's parameters (§10.4).
func clampP(lo, hi int64) []byte { return params(func(p *le) { p.i64(lo, hi) }) }

func compareBytes(t *testing.T, name string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	t.Errorf("%s: %d bytes, want %d; first difference at byte %d\n got % x\nwant % x",
		name, len(got), len(want), i, got[i:min(len(got), i+24)], want[i:min(len(want), i+24)])
}

// TestSpecBytesWHM: a splat g_s (whm1/1, §13.2) of conv, relu, leaky, then
// the RGB8 step (§13.0).
func TestSpecBytesWHM(t *testing.T) {
	net := &drivers.Network{Afrac: 4, GF: 0, Shift: 2, Layers: []drivers.Layer{
		{Tag: drivers.TagConv, In: 1, Out: 3, K: 1, Stride: 1, W: []int64{2, -3, 5}, Mult: []int64{1, 1, 1}, Bias: []int64{0, 7, -7}},
		{Tag: drivers.TagRelu},
		{Tag: drivers.TagLeaky, SlopeQ: -3, SlopeFrac: 1},
	}}
	c := "wai.splat.int_codec"
	s, err := drivers.Lower(drivers.WHM1, &c, []drivers.File{{"g_s.whm", drivers.EncodeWHM(net)}})
	if err != nil {
		t.Fatal(err)
	}
	// x_0, read by the conv: c·k·k·Wm = 5, so 5X ≤ I64 binds (⌊5X/2^2⌋ +
	// 1 + 7 ≤ I64 then holds): X_0 = ⌊I64/5⌋. x_2, read by the leaky:
	// 3X ≤ I64, X_2 = ⌊I64/3⌋. x_1 (read by relu) and x_3 are derived.
	x0, x2 := int64(i64max/5), int64(i64max/3)
	w := (&le{}).header(6, 5, 1, 1, 0).input(0).u32(5).
		tensor(1, 2, -x0, x0).tensor(3, 0, 0, 0).tensor(3, 2, -x2, x2).
		tensor(3, 0, 0, 0).tensor(3, 0, 0, 0).tensor(3, 0, 0, 0)
	w.op(0x01, []uint32{0}, []uint32{1}, params(func(p *le) {
		p.u32(3, 1, 1, 1, 1, 0, 0, 1).u8(2, 0, 0, 0) // cout … groups; w_bytes 2
		p.u8(0, 2, 2, 1, 8, 8).u16(0)                // RQ: floor, post, m per channel, one shift, 8, 8
		p.i64(1, 1, 1).u8(2).i64(0, 7, -7)           // mult, shift (the header's), bias
		p.i16(2, -3, 5)                              // Wt [3][1][1][1]
	}))
	w.op(0x0C, []uint32{1}, []uint32{2}, nil)
	w.op(0x0D, []uint32{2}, []uint32{3}, params(func(p *le) { p.i64(-3).u32(1) }))
	w.op(0x0B, []uint32{3}, []uint32{4}, clampP(0, 16)) // clamp(0, 2^afrac)
	w.op(0x02, []uint32{4}, []uint32{5}, params(func(p *le) {
		p.u8(1, 0, 1, 1, 4, 0).u16(0).i32(255).u8(4) // half_up, no bias, 255 (m_bytes 4), shift afrac
	}))
	compareBytes(t, "g_s", s.Graph("g_s"), w.b)
}

// TestSpecBytesWAM: a wam1/1 network (§13.3) of one 1-D conv_transpose,
// then the PCM step.
func TestSpecBytesWAM(t *testing.T) {
	net := &drivers.Network{Afrac: 3, OneD: true, Layers: []drivers.Layer{
		{Tag: drivers.TagConvT, In: 1, Out: 1, K: 2, Stride: 2, W: []int64{3, -1}, Mult: []int64{1}, Bias: []int64{0}},
	}}
	b := drivers.EncodeWHM(net)
	copy(b, "WAM1")
	s, err := drivers.Lower(drivers.WAM1, nil, []drivers.File{{"model.wam", b}})
	if err != nil {
		t.Fatal(err)
	}
	// §13.3: the term count is c·k = 2, so with Wm = 3, Mm = 1, shift 0,
	// Bm = 0: 6X ≤ I64 and 6X + 1 ≤ I64, X_0 = ⌊(I64 − 1)/6⌋.
	x0 := int64((i64max - 1) / 6)
	// The crop's check: [⌈−2^63/32767⌉, ⌊(I64 − 2^(afrac−1))/32767⌋].
	lo := new(big.Int).Neg(new(big.Int).Quo(new(big.Int).Lsh(big.NewInt(1), 63), big.NewInt(32767))) // −⌊2^63/32767⌋ = ⌈−2^63/32767⌉
	hi := int64((i64max - 4) / 32767)
	w := (&le{}).header(5, 4, 1, 1, 1).i64(1, 1<<26).input(0).u32(4).
		tensor(1, 2, -x0, x0).tensor(1, 0, 0, 0).tensor(1, 2, lo.Int64(), hi).
		tensor(1, 0, 0, 0).tensor(1, 0, 0, 0)
	w.op(0x11, []uint32{0}, []uint32{1}, params(func(p *le) {
		p.u32(1, 1, 2, 1, 2, 0, 0, 0, 0).u8(2, 0, 0, 0) // cout, kh 1, kw k, sh 1, sw stride, ph, pw, oph, opw
		p.u8(0, 2, 2, 1, 8, 8).u16(0).i64(1).u8(0).i64(0)
		p.i16(3, -1)
	}))
	w.op(0x14, []uint32{1}, []uint32{2}, params(func(p *le) {
		p.u8(0, 0, 0, 0).u32(0).u8(0, 0, 0, 0).u32(0) // y0 = 0, x0 = 0
		p.u8(0, 0, 0, 0).u32(1).u8(1, 0, 0, 0).u32(0) // h = 1, w = scalar 0
	}))
	w.op(0x02, []uint32{2}, []uint32{3}, params(func(p *le) { p.u8(1, 0, 1, 1, 4, 0).u16(0).i32(32767).u8(3) }))
	w.op(0x0B, []uint32{3}, []uint32{4}, clampP(-32768, 32767))
	compareBytes(t, "g_s", s.Graph("g_s"), w.b)
}

// TestSpecBytesSynth: one int_synth layer (§13.1) with relu.
func TestSpecBytesSynth(t *testing.T) {
	set := `{"layers":[{"in_ch":1,"out_ch":3,"k":1,"stride":1,"pad":0,"shift":1,"relu":true,` +
		`"weight":[[[[1]],[[2]],[[3]]]],"bias":[0,-1,70000]}]}`
	s, err := drivers.Lower(drivers.IntSynth, nil, []drivers.File{{"int_synth.json", []byte(set)}})
	if err != nil {
		t.Fatal(err)
	}
	w := (&le{}).header(4, 3, 1, 1, 0).input(0).u32(3).
		tensor(1, 2, -128, 127).tensor(3, 0, 0, 0).tensor(3, 0, 0, 0).tensor(3, 0, 0, 0)
	w.op(0x11, []uint32{0}, []uint32{1}, params(func(p *le) {
		p.u32(3, 1, 1, 1, 1, 0, 0, 0, 0).u8(4, 0, 0, 0)       // w_bytes 4 (§13.0)
		p.u8(0, 1, 0, 1, 0, 4).u16(0).u8(1).i32(0, -1, 70000) // floor, pre, no multiplier, shift, b_bytes 4
		p.i32(1, 2, 3)
	}))
	w.op(0x0C, []uint32{1}, []uint32{2}, nil)
	w.op(0x0B, []uint32{2}, []uint32{3}, clampP(0, 255))
	compareBytes(t, "synth", s.Graph("synth"), w.b)
}

// TestSpecBytesWorldT: world/1's T (§13.5) with C = 1 and A = 1.
func TestSpecBytesWorldT(t *testing.T) {
	tn := &drivers.Network{Afrac: 2, Layers: []drivers.Layer{
		{Tag: drivers.TagConv, In: 2, Out: 1, K: 1, Stride: 1, W: []int64{1, -1}, Mult: []int64{1}, Bias: []int64{0}},
	}}
	gs := &drivers.Network{Afrac: 2, Layers: []drivers.Layer{
		{Tag: drivers.TagConv, In: 1, Out: 3, K: 1, Stride: 1, W: []int64{1, 1, 1}, Mult: []int64{1, 1, 1}, Bias: []int64{0, 0, 0}},
	}}
	s, err := drivers.Lower(drivers.World, nil, []drivers.File{{"T.whm", drivers.EncodeWHM(tn)}, {"g_s.whm", drivers.EncodeWHM(gs)}})
	if err != nil {
		t.Fatal(err)
	}
	// x_0 = concat(z, fill_0): c·k·k·Wm = 2, so 2X + 1 ≤ I64 binds:
	// X_0 = ⌊(I64 − 1)/2⌋.
	x0 := int64((i64max - 1) / 2)
	w := (&le{}).header(5, 4, 1, 1, 1).i64(-1<<63, i64max).input(0).u32(4).
		tensor(1, 2, -1<<63, i64max).tensor(1, 0, 0, 0).tensor(2, 2, -x0, x0).
		tensor(1, 0, 0, 0).tensor(1, 0, 0, 0)
	w.op(0x17, []uint32{0}, []uint32{1}, params(func(p *le) { p.u8(1, 0, 0, 0, 0, 0, 0, 0).i64(0) }))
	w.op(0x06, []uint32{0, 1}, []uint32{2}, nil)
	w.op(0x01, []uint32{2}, []uint32{3}, params(func(p *le) {
		p.u32(1, 1, 1, 1, 1, 0, 0, 1).u8(2, 0, 0, 0)
		p.u8(0, 2, 2, 1, 8, 8).u16(0).i64(1).u8(0).i64(0)
		p.i16(1, -1)
	}))
	w.op(0x0B, []uint32{3}, []uint32{4}, clampP(-4, 4))
	compareBytes(t, "T", s.Graph("T"), w.b)
}

// TestLengthsBeforeCaps: §13.2 lists "the lengths against the running
// channel count" before "every size within the caps", so a network whose
// layer 0 gives 2^26 + 1 channels and whose layer 1 reads another count is
// refused for the lengths (model_mismatch), not for the cap (too_large).
// The same holds when the input itself passes the cap.
func TestLengthsBeforeCaps(t *testing.T) {
	for _, n := range []*drivers.Network{
		{Afrac: 8, Layers: []drivers.Layer{
			{Tag: drivers.TagConv, In: 1, Out: 1<<26 + 1, K: 1, Stride: 1},
			{Tag: drivers.TagConv, In: 5, Out: 1, K: 1, Stride: 1},
		}},
		{Afrac: 8, Layers: []drivers.Layer{
			{Tag: drivers.TagConv, In: 1<<26 + 1, Out: 1, K: 1, Stride: 1},
			{Tag: drivers.TagIGDN, C: 2},
		}},
	} {
		if _, _, err := drivers.PlanRanges(n, "g_s"); codeOf(err) != "model_mismatch" {
			t.Errorf("%d → %d channels, then a layer that does not fit: %v, want model_mismatch", n.Layers[0].In, n.Layers[0].Out, err)
		}
	}
}

// ints writes each value in width bytes, little-endian two's complement.
func (w *le) ints(width int, v ...int64) *le {
	for _, x := range v {
		for i := range width {
			w.b = append(w.b, byte(uint64(x)>>(8*i)))
		}
	}
	return w
}

// TestSpecBytesScale: jpegai-int/1's hs_uv (§13.6.1) with C1 = C2 = 1, its
// values chosen so that §13.0's smallest widths differ from block to block:
// weights of 1, 2 and 4 bytes, biases of 4 and 8, gains of 8.
func TestSpecBytesScale(t *testing.T) {
	const cz, c3 = drivers.ScaleChannelsUV, 16 * drivers.ScaleChannelsUV
	w1 := make([]int64, cz) // [1][96][1][1], in [−2, 2]: 1 byte
	for j := range w1 {
		w1[j] = int64(j%5) - 2
	}
	w3, b3, s3 := make([]int64, c3), make([]int64, c3), make([]int64, c3)
	for i := range w3 {
		w3[i], b3[i], s3[i] = int64(i%7)-3, int64(i%3), int64(i%9)
	}
	w3[5] = -32769 // 4 bytes
	uv := [3]drivers.ScaleBlock{
		{W: w1, Bias: []int64{3}, Shift: []int64{2}},
		{W: []int64{1, 0, 0, 0, 300, 0, 0, 0, -1}, Bias: []int64{1 << 31}, Shift: []int64{0}}, // 2 bytes; bias 8
		{W: w3, Bias: b3, Shift: s3},
	}
	norm := setcorpus.JPEGAINorm()
	norm.GainUV[0] = -1<<31 - 1 // 8 bytes
	s, err := drivers.Lower(drivers.JPEGAI, nil, []drivers.File{{"hs_y.json", drivers.EncodeScaleWeights(drivers.ScaleChannelsY, setcorpus.JPEGAIBlocks(0x5eed000a, drivers.ScaleChannelsY))},
		{"hs_uv.json", drivers.EncodeScaleWeights(cz, uv)}, {"norm.json", drivers.EncodeNorm(norm)}})
	if err != nil {
		t.Fatal(err)
	}
	w := (&le{}).header(13, 12, 1, 1, 0).u32(0, 4, 4).u8(0, 0, 0, 0).u32(0, 0).i64(0).u32(12) // z: max_h = max_w = 4
	w.tensor(cz, 2, -31, 32)
	for _, c := range []uint32{cz, 1, 1, 1, 1, 1, 1, c3, cz, cz, cz, cz} {
		w.tensor(c, 0, 0, 0)
	}
	conv := func(in uint32, cout, k, pad uint32, wb, bb int, wt, bias, shift []int64) {
		w.op(0x01, []uint32{in}, []uint32{in + 1}, params(func(p *le) {
			p.u32(cout, k, k, 1, 1, pad, pad, 1).u8(uint8(wb), 0, 0, 0)
			p.u8(0, 1, 0, 2, 0, uint8(bb)).u16(0) // floor, pre bias, no multiplier, a shift per channel
			for _, s := range shift {
				p.u8(uint8(s))
			}
			p.ints(bb, bias...).ints(wb, wt...)
		}))
	}
	w.op(0x0B, []uint32{0}, []uint32{1}, clampP(-128, 127))
	conv(1, 1, 1, 0, 1, 4, uv[0].W, uv[0].Bias, uv[0].Shift)
	w.op(0x0C, []uint32{2}, []uint32{3}, nil)
	w.op(0x0B, []uint32{3}, []uint32{4}, clampP(-128, 127))
	conv(4, 1, 3, 1, 2, 8, uv[1].W, uv[1].Bias, uv[1].Shift)
	w.op(0x0C, []uint32{5}, []uint32{6}, nil)
	w.op(0x0B, []uint32{6}, []uint32{7}, clampP(-128, 127))
	conv(7, c3, 1, 0, 4, 4, uv[2].W, uv[2].Bias, uv[2].Shift)
	w.op(0x09, []uint32{8}, []uint32{9}, params(func(p *le) { p.u32(4) }))
	w.op(0x13, []uint32{9}, []uint32{10}, nil)
	w.op(0x0B, []uint32{10}, []uint32{11}, clampP(0, 3967))
	w.op(0x02, []uint32{11}, []uint32{12}, params(func(p *le) {
		p.u8(0, 1, 0, 1, 0, 8).u16(0).u8(0).ints(8, norm.GainUV...) // floor, pre bias (the gains), shift 0
	}))
	compareBytes(t, "hs_uv", s.Graph("hs_uv"), w.b)
}

// TestHyperRoles: §13.0's roles table gives wai.neural.int_hyper (and the
// keyframe of wai.video.int_hyper) the graphs h_s, g_s, so one file for
// that capability is a usage error (not a refusal), not a set of g_s alone.
func TestHyperRoles(t *testing.T) {
	_, gs := setcorpus.HyperNets(0x5eed0007)
	for _, c := range []string{"wai.neural.int_hyper", "wai.video.int_hyper"} {
		s, err := drivers.Lower(drivers.WHM1, &c, []drivers.File{{"g_s.whm", drivers.EncodeWHM(gs)}})
		if s != nil || err == nil || codeOf(err) != "" {
			t.Errorf("%s with g_s alone: %v, %v; want a usage error", c, s, err)
		}
	}
	c := "wai.splat.int_codec"
	if s, err := drivers.Lower(drivers.WHM1, &c, []drivers.File{{"g_s.whm", drivers.EncodeWHM(gs)}}); err != nil || len(s.Roles) != 1 || s.Roles[0].Name != "g_s" {
		t.Errorf("splat: %v", err)
	}
}

// TestSpecBytesHyper: an int_hyper h_s (whm1/1, no output step) of igdn
// then a 2-D conv_transpose.
func TestSpecBytesHyper(t *testing.T) {
	hs := &drivers.Network{Afrac: 1, Layers: []drivers.Layer{
		{Tag: drivers.TagIGDN, C: 1, Gamma: []int64{1}, Beta: []int64{0}},
		{Tag: drivers.TagConvT, In: 1, Out: 1, K: 2, Stride: 2, Opad: 1, W: []int64{1, 2, 3, 4}, Mult: []int64{2}, Bias: []int64{-5}},
	}}
	_, gs := setcorpus.HyperNets(0x5eed0007)
	c := "wai.neural.int_hyper"
	s, err := drivers.Lower(drivers.WHM1, &c, []drivers.File{{"h_s.whm", drivers.EncodeWHM(hs)}, {"g_s.whm", drivers.EncodeWHM(gs)}})
	if err != nil {
		t.Fatal(err)
	}
	// x_0, read by igdn with c = 1, G = 1, Bb = 0, gf = 0, afrac = 1:
	// N = X² + 1, isqrt(N) = X, and ⌊X·X/2⌋ + 1 ≤ I64 binds, so
	// X² ≤ 2^64 − 2: X_0 = 2^32 − 1. x_1, read by the conv_transpose:
	// c·k·k·Wm = 16, ⌊16X·2/2^0⌋ + 1 + 5 ≤ I64 binds: X_1 = ⌊(I64 − 6)/32⌋.
	x0, x1 := int64(1<<32-1), int64((i64max-6)/32)
	w := (&le{}).header(3, 2, 1, 1, 0).input(0).u32(2).
		tensor(1, 2, -x0, x0).tensor(1, 2, -x1, x1).tensor(1, 0, 0, 0)
	w.op(0x12, []uint32{0}, []uint32{1}, params(func(p *le) {
		p.u32(0, 1).u8(4, 0, 0, 0, 0, 0, 0, 0).i32(1).i64(0) // gf, frac = afrac; g_bytes 4; γ; β
	}))
	w.op(0x11, []uint32{1}, []uint32{2}, params(func(p *le) {
		p.u32(1, 2, 2, 2, 2, 0, 0, 1, 1).u8(2, 0, 0, 0)
		p.u8(0, 2, 2, 1, 8, 8).u16(0).i64(2).u8(0).i64(-5)
		p.i16(1, 2, 3, 4)
	}))
	compareBytes(t, "h_s", s.Graph("h_s"), w.b)
}
