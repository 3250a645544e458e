package cpuref

import (
	"math/rand/v2"
	"testing"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// BenchmarkConv3x3_64x64_128 is issue 2's speed figure: conv 3×3, 64 → 64
// channels, 128×128, padding 1, i8-range inputs and weights, reported in
// multiply-accumulates per second.
func BenchmarkConv3x3_64x64_128(b *testing.B) {
	const c, n = 64, 128
	r := rand.New(rand.NewPCG(11, 12))
	p := &whg1.Conv{Cout: c, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: 1, WBytes: 1,
		RQ: whg1.RQ{Bias: whg1.PreBias, SKind: 1, Shift: []uint8{8}, BBytes: 4, BiasV: make([]int64, c)}}
	p.W = make([]int64, c*c*9)
	for i := range p.W {
		p.W[i] = r.Int64N(256) - 128
	}
	for i := range p.RQ.BiasV {
		p.RQ.BiasV[i] = r.Int64N(1<<16) - 1<<15
	}
	x := tensor.New(tensor.Shape{C: c, H: n, W: n})
	for i := range x.Data {
		x.Data[i] = r.Int64N(256) - 128
	}
	out := tensor.New(tensor.Shape{C: c, H: n, W: n})
	k := newConv(p, c)
	for b.Loop() {
		if err := k.run(x, out); err != nil {
			b.Fatal(err)
		}
	}
	macs := float64(c * c * 9 * n * n)
	b.ReportMetric(macs*float64(b.N)/b.Elapsed().Seconds(), "MAC/s")
}
