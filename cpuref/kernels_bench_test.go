package cpuref

import (
	"math/rand/v2"
	"testing"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// benchI8 is n values drawn uniformly from the i8 range.
func benchI8(r *rand.Rand, n int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = r.Int64N(256) - 128
	}
	return v
}

// benchInput is a [c, n, n] tensor of i8-range values.
func benchInput(r *rand.Rand, c, n int) *tensor.T {
	return &tensor.T{Shape: tensor.Shape{C: c, H: n, W: n}, Data: benchI8(r, c*n*n)}
}

// report gives work units per second under the name unit.
func report(b *testing.B, work int, unit string) {
	b.ReportMetric(float64(work)*float64(b.N)/b.Elapsed().Seconds(), unit)
}

// BenchmarkConvT3x3s2_64x64_64 times conv_transpose 3×3,
// stride 2, padding 1, output padding 1, 64 → 64 channels, 64×64 input
// (128×128 output), i8 weights and inputs, in multiply-accumulates (the
// cin·cout·9·H·W products of the scatter form) per second.
func BenchmarkConvT3x3s2_64x64_64(b *testing.B) {
	const c, n = 64, 64
	r := rand.New(rand.NewPCG(21, 22))
	p := &whg1.ConvT{Cout: c, KH: 3, KW: 3, SH: 2, SW: 2, PH: 1, PW: 1, OPH: 1, OPW: 1,
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{8}}, W: benchI8(r, c*c*9)}
	x := benchInput(r, c, n)
	out := tensor.New(tensor.Shape{C: c, H: 2 * n, W: 2 * n})
	k := newConvT(p, c)
	for b.Loop() {
		if err := k.run(x, out); err != nil {
			b.Fatal(err)
		}
	}
	report(b, c*c*9*n*n, "MAC/s")
}

// BenchmarkConvT5x5s2_192x128_32x48 is the first layer of a
// bmshj2018-shaped synthesis transform: conv_transpose 5×5, stride 2,
// padding 2, output padding 1, 192 → 128 channels on a 32×48 latent
// (64×96 output), i8 weights and inputs, in multiply-accumulates (the
// cin·cout·25·H·W products of the scatter form) per second.
func BenchmarkConvT5x5s2_192x128_32x48(b *testing.B) {
	const cin, cout, h, w = 192, 128, 32, 48
	r := rand.New(rand.NewPCG(29, 30))
	p := &whg1.ConvT{Cout: cout, KH: 5, KW: 5, SH: 2, SW: 2, PH: 2, PW: 2, OPH: 1, OPW: 1,
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{10}}, W: benchI8(r, cin*cout*25)}
	x := &tensor.T{Shape: tensor.Shape{C: cin, H: h, W: w}, Data: benchI8(r, cin*h*w)}
	out := tensor.New(tensor.Shape{C: cout, H: 2 * h, W: 2 * w})
	k := newConvT(p, cin)
	for b.Loop() {
		if err := k.run(x, out); err != nil {
			b.Fatal(err)
		}
	}
	report(b, cin*cout*25*h*w, "MAC/s")
}

// BenchmarkIGDN_64x64_64 is igdn over 64 channels at 64×64 with γ in
// [0, 16), β = 2^12, gf 8 and frac 6 (bench's synthesis igdn), in elements
// per second.
func BenchmarkIGDN_64x64_64(b *testing.B) {
	const c, n = 64, 64
	r := rand.New(rand.NewPCG(23, 24))
	p := &whg1.IGDN{GF: 8, Frac: 6, Gamma: make([]int64, c*c), Beta: make([]int64, c)}
	for i := range p.Gamma {
		p.Gamma[i] = r.Int64N(16)
	}
	for i := range p.Beta {
		p.Beta[i] = 1 << 12
	}
	x := benchInput(r, c, n)
	out := tensor.New(x.Shape)
	for b.Loop() {
		if err := igdn(p, x, out); err != nil {
			b.Fatal(err)
		}
	}
	report(b, c*n*n, "elem/s")
}

// BenchmarkGramApply_64x64_64 is gram then apply, 64 channels in 8 groups
// at 64×64, shift 12, i8 inputs (bench's gram_apply case), in elements of
// the input per second.
func BenchmarkGramApply_64x64_64(b *testing.B) {
	const c, n = 64, 64
	r := rand.New(rand.NewPCG(25, 26))
	p := &whg1.Contraction{Groups: 8, RQ: whg1.RQ{SKind: 1, Shift: []uint8{12}}}
	x := benchInput(r, c, n)
	g := tensor.New(tensor.Shape{C: c, H: 1, W: c / 8})
	out := tensor.New(x.Shape)
	for b.Loop() {
		if err := gram(p, x, x, g); err != nil {
			b.Fatal(err)
		}
		if err := apply(p, g, x, out); err != nil {
			b.Fatal(err)
		}
	}
	report(b, c*n*n, "elem/s")
}

// BenchmarkDepthwise3x3_64_128 is a depthwise conv (groups = cin = cout =
// 64), 3×3, padding 1, at 128×128, i8 weights and inputs, in
// multiply-accumulates per second.
func BenchmarkDepthwise3x3_64_128(b *testing.B) {
	const c, n = 64, 128
	r := rand.New(rand.NewPCG(27, 28))
	p := &whg1.Conv{Cout: c, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: c,
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{8}}, W: benchI8(r, c*9)}
	x := benchInput(r, c, n)
	out := tensor.New(x.Shape)
	k := newConv(p, c)
	for b.Loop() {
		if err := k.run(x, out); err != nil {
			b.Fatal(err)
		}
	}
	report(b, c*9*n*n, "MAC/s")
}

// BenchmarkConvT5x5s2_128x128_64x96_i8 is bmshj2018's widest layer shape
// at a quarter of its rows (conv_transpose 5×5, stride 2, padding 2,
// output padding 1, 128 → 128 channels, 64×96 input, 128×192 output) with
// its input and output stored at i8 width, as a decode keeps them: its
// phases' tiles store their bytes with the epilogue fused and through the
// rq and narrow passes, alternately (abFused), in multiply-accumulates of
// the scatter form per second.
func BenchmarkConvT5x5s2_128x128_64x96_i8(b *testing.B) {
	const c, h, w = 128, 64, 96
	r := rand.New(rand.NewPCG(27, 28))
	p := &whg1.ConvT{Cout: c, KH: 5, KW: 5, SH: 2, SW: 2, PH: 2, PW: 2, OPH: 1, OPW: 1,
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{16}}, W: benchI8(r, c*c*25)}
	xs := make([]int8, c*h*w)
	for i := range xs {
		xs[i] = int8(r.IntN(256) - 128)
	}
	x := val{T: &tensor.T{Shape: tensor.Shape{C: c, H: h, W: w}}, i8: xs}
	out := val{T: &tensor.T{Shape: tensor.Shape{C: c, H: 2 * h, W: 2 * w}}, i8: make([]int8, c*4*h*w)}
	k := newConvT(p, c)
	abFused(b, c*c*25*h*w, func() error { return k.runVal(x, out) })
}

// BenchmarkConvT5x5s2_128x3_256x384 is bmshj2018's last layer at 768×512
// (conv_transpose 5×5, stride 2, padding 2, output padding 1, 128 → 3
// channels, 256×384 input stored at i8 width, 512×768 int64 output, the
// graph's), in multiply-accumulates of the scatter form per second.
func BenchmarkConvT5x5s2_128x3_256x384(b *testing.B) {
	const cin, cout, h, w = 128, 3, 256, 384
	r := rand.New(rand.NewPCG(31, 32))
	p := &whg1.ConvT{Cout: cout, KH: 5, KW: 5, SH: 2, SW: 2, PH: 2, PW: 2, OPH: 1, OPW: 1,
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{12}}, W: benchI8(r, cin*cout*25)}
	xs := make([]int8, cin*h*w)
	for i := range xs {
		xs[i] = int8(r.IntN(256) - 128)
	}
	x := val{T: &tensor.T{Shape: tensor.Shape{C: cin, H: h, W: w}}, i8: xs}
	out := val{T: tensor.New(tensor.Shape{C: cout, H: 2 * h, W: 2 * w})}
	k := newConvT(p, cin)
	for b.Loop() {
		if err := k.runVal(x, out); err != nil {
			b.Fatal(err)
		}
	}
	report(b, cin*cout*25*h*w, "MAC/s")
}
