//go:build cgo

package gpu

import (
	"math/rand/v2"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/cpuref"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// benchDecode runs one-decode benchmarks of g fed x, on the device and on
// cpuref, each reporting work units (unit: "MAC/s", "elem/s") per second
// (decode end to end: upload, dispatch, download).
func benchDecode(b *testing.B, g *whg1.Graph, x []*tensor.T, work float64, unit string) {
	bytes := whg1.Encode(g)
	gg, _, err := certify.Load(bytes, certify.Acc32)
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, dec whg1.Decoder) {
		if _, err := dec.Decode(x, nil); err != nil { // compile and warm up
			b.Fatal(err)
		}
		b.ResetTimer()
		for b.Loop() {
			if _, err := dec.Decode(x, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(work*float64(b.N)/b.Elapsed().Seconds(), unit)
	}
	b.Run("gpu", func(b *testing.B) {
		p, err := openDevice(b).Load(bytes)
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		run(b, p)
	})
	b.Run("cpuref", func(b *testing.B) {
		p, err := cpuref.Load(gg)
		if err != nil {
			b.Fatal(err)
		}
		run(b, p)
	})
}

// BenchmarkConv3x3_64x64_128 is conv 3×3, 64 → 64 channels, on a 128 × 128
// input with padding 1 and i8-range data and weights.
func BenchmarkConv3x3_64x64_128(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	const c, hw = 64, 128
	g := oneOp(whg1.OpConv, &whg1.Conv{Cout: c, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: 1,
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{10}}, W: randInts(r, c*c*9, -128, 127)},
		[]in{{c, -128, 127, hw, hw}}, c)
	x := []*tensor.T{edgeData(r, tensor.Shape{C: c, H: hw, W: hw}, -128, 127)}
	benchDecode(b, g, x, c*c*9*hw*hw, "MAC/s")
}

// BenchmarkConvT3x3s2_64x64_64 is conv_transpose 3×3, stride 2, padding 1,
// output padding 1, 64 → 64 channels, on a 64 × 64 input (a 128 × 128
// output) with i8-range data and weights. Its MACs are the real taps:
// cin·cout·kh·kw per input position.
func BenchmarkConvT3x3s2_64x64_64(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	const c, hw = 64, 64
	g := oneOp(whg1.OpConvTranspose, &whg1.ConvT{Cout: c, KH: 3, KW: 3, SH: 2, SW: 2, PH: 1, PW: 1, OPH: 1, OPW: 1,
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{10}}, W: randInts(r, c*c*9, -128, 127)},
		[]in{{c, -128, 127, hw, hw}}, c)
	x := []*tensor.T{edgeData(r, tensor.Shape{C: c, H: hw, W: hw}, -128, 127)}
	benchDecode(b, g, x, c*c*9*hw*hw, "MAC/s")
}

// BenchmarkIGDN_64_128 is igdn over 64 channels on a 128 × 128 input in
// [−2^10, 2^10] with γ in [0, 2^10], gf 10, frac 6.
func BenchmarkIGDN_64_128(b *testing.B) {
	r := rand.New(rand.NewPCG(13, 14))
	const c, hw = 64, 128
	g := oneOp(whg1.OpIGDN, &whg1.IGDN{GF: 10, Frac: 6, Gamma: randInts(r, c*c, 0, 1<<10), Beta: randInts(r, c, 1<<10, 1<<16)},
		[]in{{c, -1 << 10, 1 << 10, hw, hw}}, c)
	x := []*tensor.T{edgeData(r, tensor.Shape{C: c, H: hw, W: hw}, -1<<10, 1<<10)}
	benchDecode(b, g, x, c*hw*hw, "elem/s")
}
