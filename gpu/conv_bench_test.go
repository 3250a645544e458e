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

// BenchmarkConv3x3_64x64_128 is one decode of conv 3×3, 64 → 64 channels,
// on a 128 × 128 input with padding 1 and i8-range data and weights, on the
// device and on cpuref, each reporting multiply-accumulates per second
// (decode end to end: upload, dispatch, download).
func BenchmarkConv3x3_64x64_128(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	const c, hw = 64, 128
	g := oneOp(whg1.OpConv, &whg1.Conv{Cout: c, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: 1,
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{10}}, W: randInts(r, c*c*9, -128, 127)},
		[]in{{c, -128, 127, hw, hw}}, c)
	bytes := whg1.Encode(g)
	gg, _, err := certify.Load(bytes, certify.Acc32)
	if err != nil {
		b.Fatal(err)
	}
	x := []*tensor.T{edgeData(r, tensor.Shape{C: c, H: hw, W: hw}, -128, 127)}
	const macs = c * c * 9 * hw * hw
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
		b.ReportMetric(float64(macs)*float64(b.N)/b.Elapsed().Seconds(), "MAC/s")
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
