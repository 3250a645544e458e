package setcorpus

import "github.com/waiops/waiops/drivers"

// The small parameter sets of the §14.3 corpus, generated deterministically.
// Tests build their refusal cases by changing one field of these.

// Rand is a 64-bit xorshift: a fixed sequence, so every set is the same
// bytes on every machine.
type Rand struct{ s uint64 }

// NewRand starts the sequence at seed (not 0).
func NewRand(seed uint64) *Rand { return &Rand{s: seed} }

// Next is the sequence's next value.
func (p *Rand) Next() uint64 {
	p.s ^= p.s << 13
	p.s ^= p.s >> 7
	p.s ^= p.s << 17
	return p.s
}

// Ints returns n values in [lo, hi].
func (p *Rand) Ints(n int, lo, hi int64) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = lo + int64(p.Next()%uint64(hi-lo+1))
	}
	return v
}

// SynthSmall is a two-layer int_synth set: [2, S, S] → [3, 2S, 2S].
func SynthSmall() []drivers.SynthLayer {
	r := NewRand(0x5eed0001)
	return []drivers.SynthLayer{
		{InCh: 2, OutCh: 3, K: 3, Stride: 2, Pad: 1, OutPad: 1, Shift: 6, Relu: true,
			W: r.Ints(2*3*3*3, -64, 64), Bias: r.Ints(3, -200, 200)},
		{InCh: 3, OutCh: 3, K: 3, Stride: 1, Pad: 1, Shift: 7,
			W: r.Ints(3*3*3*3, -64, 64), Bias: r.Ints(3, -200, 200)},
	}
}

// SynthAcc32OneWeight meets acc32 but for one weight: with latents in
// [−128, 127], a weight of 2^24 keeps the term 2^24·(−128) = −2^31 within
// i32, and 2^24 + 1 passes it (§7.2). Its pin claims acc32.
func SynthAcc32OneWeight() []drivers.SynthLayer {
	return []drivers.SynthLayer{{InCh: 1, OutCh: 3, K: 1, Stride: 1,
		W: []int64{1<<24 + 1, 1 << 24, 1}, Bias: []int64{0, 0, 0}}}
}

// WHMConv is a conv or conv_transpose layer with weights, multipliers and
// biases from r; kk is k·k (k for WAM1).
func WHMConv(r *Rand, tag uint8, in, out, k, stride, pad, opad uint32, kk int) drivers.Layer {
	n := int(in*out) * kk
	return drivers.Layer{Tag: tag, In: in, Out: out, K: k, Stride: stride, Pad: pad, Opad: opad,
		W: r.Ints(n, -300, 300), Mult: r.Ints(int(out), 1<<9, 1<<11), Bias: r.Ints(int(out), -1<<12, 1<<12)}
}

func WHMIGDN(r *Rand, c uint32) drivers.Layer {
	g := r.Ints(int(c*c), 0, 1<<10)
	return drivers.Layer{Tag: drivers.TagIGDN, C: c, Gamma: g, Beta: r.Ints(int(c), 1<<16, 1<<17)}
}

// HyperNets is a whm1/1 pair for wai.neural.int_hyper: h_s [2, s, s] →
// [4, 2s, 2s] (σ and μ of m = 2), g_s [2, s, s] → [3, 2s, 2s].
func HyperNets(seed uint64) (hs, gs *drivers.Network) {
	r := NewRand(seed)
	hs = &drivers.Network{Afrac: 8, GF: 10, Shift: 12, Layers: []drivers.Layer{
		WHMConv(r, drivers.TagConv, 2, 4, 3, 1, 1, 0, 9),
		{Tag: drivers.TagRelu},
		WHMConv(r, drivers.TagConvT, 4, 4, 2, 2, 0, 0, 4),
	}}
	gs = &drivers.Network{Afrac: 8, GF: 10, Shift: 12, Layers: []drivers.Layer{
		WHMConv(r, drivers.TagConvT, 2, 3, 3, 2, 1, 1, 9),
		WHMIGDN(r, 3),
		{Tag: drivers.TagLeaky, SlopeQ: -3, SlopeFrac: 4},
		WHMConv(r, drivers.TagConv, 3, 3, 1, 1, 0, 0, 1),
	}}
	return hs, gs
}

// AudioNet is a wam1/1 network: [2, 1, T] → [1, 1, 2T].
func AudioNet() *drivers.Network {
	r := NewRand(0x5eed0003)
	return &drivers.Network{Afrac: 10, GF: 12, Shift: 12, OneD: true, Layers: []drivers.Layer{
		WHMConv(r, drivers.TagConvT, 2, 2, 4, 2, 1, 0, 4),
		WHMIGDN(r, 2),
		{Tag: drivers.TagRelu},
		WHMConv(r, drivers.TagConv, 2, 1, 3, 1, 1, 0, 3),
	}}
}

// WorldNets is a world/1 pair with C = 2 and A = 3: T reads 5 channels and
// gives 2 back; g_s gives 3.
func WorldNets() (t, gs *drivers.Network) {
	r := NewRand(0x5eed0004)
	t = &drivers.Network{Afrac: 8, GF: 10, Shift: 12, Layers: []drivers.Layer{
		WHMConv(r, drivers.TagConv, 5, 4, 3, 1, 1, 0, 9),
		{Tag: drivers.TagLeaky, SlopeQ: 1, SlopeFrac: 3},
		WHMConv(r, drivers.TagConv, 4, 2, 1, 1, 0, 0, 1),
	}}
	gs = &drivers.Network{Afrac: 8, GF: 10, Shift: 12, Layers: []drivers.Layer{
		WHMConv(r, drivers.TagConv, 2, 3, 1, 1, 0, 0, 1),
	}}
	return t, gs
}

// JPEGAINorm is a norm.json that passes §13.6.1's load checks: 32 pmf rows
// of width 4, 32 bounds, non-decreasing cdf rows and small gains.
func JPEGAINorm() *drivers.Norm {
	r := NewRand(0x5eed0005)
	n := &drivers.Norm{Bounds: r.Ints(32, 0, 255)}
	for range 32 {
		a := r.Ints(3, 0, 85)
		n.PMF = append(n.PMF, []int64{a[0], a[1], a[2], 256 - a[0] - a[1] - a[2]})
	}
	rows := func(c int) [][]int64 {
		out := make([][]int64, c)
		for i := range out {
			row := make([]int64, 63)
			for j := range row {
				row[j] = int64(j * 4) // 0 … 248, non-decreasing
			}
			out[i] = row
		}
		return out
	}
	n.CdfsY, n.CdfsUV = rows(drivers.ScaleChannelsY), rows(drivers.ScaleChannelsUV)
	n.GainY, n.GainUV = r.Ints(drivers.ScaleChannelsY, -500, 500), r.Ints(drivers.ScaleChannelsUV, -500, 500)
	return n
}

// JPEGAIBlocks are Table 13.6-A's blocks for cz channels with C1 = 2 and
// C2 = 2 (C3 = 16·cz).
func JPEGAIBlocks(seed uint64, cz int) [3]drivers.ScaleBlock {
	r := NewRand(seed)
	c3 := 16 * cz
	return [3]drivers.ScaleBlock{
		{W: r.Ints(2*cz, -20, 20), Bias: r.Ints(2, -100, 100), Shift: r.Ints(2, 0, 8)},
		{W: r.Ints(2*2*9, -200, 200), Bias: r.Ints(2, -100, 100), Shift: r.Ints(2, 0, 8)},
		{W: r.Ints(c3*2, -1000, 1000), Bias: r.Ints(c3, -100, 100), Shift: r.Ints(c3, 0, 8)},
	}
}

// JPEGAIAcc64OneUnit makes the luma blocks fail acc64 by one unit: block 1
// reads only channel 0 with weight 1, so its sum lies in z's [−31, 32], and
// a pre bias of 2^63 − 32 takes the biased sum (conv.acc, rq.t) to 2^63,
// one past I64.
func JPEGAIAcc64OneUnit() [3]drivers.ScaleBlock {
	b := JPEGAIBlocks(0x5eed0006, drivers.ScaleChannelsY)
	b[0].W = make([]int64, 2*drivers.ScaleChannelsY)
	b[0].W[0] = 1
	b[0].Bias = []int64{1<<63 - 1 - 31, 0}
	return b
}

// SampleSynth is a 4-layer int_synth set and a payload for it: latents [8, 16, 16], each layer a
// k = 4, stride 2, pad 1 conv_transpose that doubles the side, so the
// output is [3, 256, 256]. Benchmarks decode it.
func SampleSynth() ([]byte, []byte) {
	r := NewRand(0xbe7c4)
	chans := []int{8, 16, 16, 8, 3}
	var ls []drivers.SynthLayer
	for i := range 4 {
		in, out := chans[i], chans[i+1]
		ls = append(ls, drivers.SynthLayer{InCh: in, OutCh: out, K: 4, Stride: 2, Pad: 1, Shift: 8, Relu: i < 3,
			W: r.Ints(in*out*16, -100, 100), Bias: r.Ints(out, -1000, 1000)})
	}
	lat := make([]int8, 8*16*16)
	for i, v := range r.Ints(len(lat), -128, 127) {
		lat[i] = int8(v)
	}
	return drivers.EncodeSynth(ls), drivers.SynthPayloadBytes(256, 256, 8, 16, lat)
}

// SampleWorld is the corpus's world/1 pair (T, g_s) as WHM1 bytes, for
// benchmarks.
func SampleWorld() (t, gs []byte) {
	wt, wgs := WorldNets()
	return drivers.EncodeWHM(wt), drivers.EncodeWHM(wgs)
}
