package fabric

import (
	"fmt"
	"math"
	"testing"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// convGraph is one acc32 conv 3×3, pad 1, from c to c channels over an
// input [c, s, s] of i8 values (declared), weights in i8 and shift 8:
// conv.acc stays within c·9·127·127 < 2^31. It does c·c·9·s² MACs.
func convGraph(c, s uint32) []byte {
	w := make([]int64, c*c*9)
	for i := range w {
		w[i] = int64(i*37%255) - 127
	}
	return whg1.Encode(&whg1.Graph{
		Version: 1, OpSet: 1, MaxElems: 1 << 26,
		Inputs:  []whg1.Input{{Tensor: 0, MaxH: s, MaxW: s}},
		Outputs: []uint32{1},
		Tensors: []whg1.Tensor{{Channels: c, Exponent: whg1.NoExponent, Policy: whg1.Check, Lo: -127, Hi: 127}, derived(c)},
		Ops: []whg1.Op{{Code: whg1.OpConv, In: []uint32{0}, Out: []uint32{1}, Params: &whg1.Conv{
			Cout: c, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: 1, WBytes: 1,
			RQ: whg1.RQ{SKind: 1, Shift: []uint8{8}}, W: w}}},
	})
}

// BenchmarkHybridCrossover times one acc32 run placed on the GPU (threshold
// 0) and on the CPU (threshold max) at growing sizes: the crossover is the
// size from which "gpu" is faster. Run under Xvfb for the GL fabric:
//
//	go test -run '^$' -bench HybridCrossover -benchtime 20x ./plan/
func BenchmarkHybridCrossover(b *testing.B) {
	gpu, err := OpenGPU()
	if err != nil {
		b.Skip(err)
	}
	const c = 8
	for _, s := range []uint32{2, 8, 32, 64, 128} {
		g := convGraph(c, s)
		in := tensor.New(tensor.Shape{C: c, H: int(s), W: int(s)})
		for i := range in.Data {
			in.Data[i] = int64(i*91%255) - 127
		}
		macs := uint64(c*c*9) * uint64(s*s)
		for _, place := range []struct {
			name    string
			minWork uint64
		}{{"gpu", 0}, {"cpu", math.MaxUint64}} {
			b.Run(fmt.Sprintf("mac%d/%s", macs, place.name), func(b *testing.B) {
				h := NewHybrid(gpu)
				h.MinWork = place.minWork
				d, _, err := h.Load(g)
				if err != nil {
					b.Fatal(err)
				}
				if f := d.(*HybridProgram).Runs()[0].Fabric; f != place.name {
					b.Fatalf("placed on %s", f)
				}
				for b.Loop() {
					if _, err := d.Decode([]*tensor.T{in}, nil); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(macs)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
			})
		}
	}
}
