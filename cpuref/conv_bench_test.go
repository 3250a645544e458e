package cpuref

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// BenchmarkConv3x3_64x64_128 times conv 3×3, 64 → 64
// channels, 128×128, padding 1, i8-range inputs and weights (the lanes
// path, whose rows go to cpuref/dot where simd is on), reported in
// multiply-accumulates per second.
func BenchmarkConv3x3_64x64_128(b *testing.B) { benchConv(b, 8, pathLanes) }

// BenchmarkConv3x3_64x64_128_i16 is the same convolution with i16-range
// inputs and weights, whose sums pass i32: the int64 path.
func BenchmarkConv3x3_64x64_128_i16(b *testing.B) { benchConv(b, 16, pathI64) }

func benchConv(b *testing.B, bits uint, path convPath) {
	const c, n = 64, 128
	r := rand.New(rand.NewPCG(11, 12))
	val := func() int64 { return r.Int64N(1<<bits) - 1<<(bits-1) }
	p := &whg1.Conv{Cout: c, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: 1,
		RQ: whg1.RQ{Bias: whg1.PreBias, SKind: 1, Shift: []uint8{8}, BiasV: make([]int64, c)}}
	p.W = make([]int64, c*c*9)
	for i := range p.W {
		p.W[i] = val()
	}
	for i := range p.RQ.BiasV {
		p.RQ.BiasV[i] = r.Int64N(1<<16) - 1<<15
	}
	x := tensor.New(tensor.Shape{C: c, H: n, W: n})
	for i := range x.Data {
		x.Data[i] = val()
	}
	out := tensor.New(tensor.Shape{C: c, H: n, W: n})
	k := newConv(p, c)
	if got := k.choose(maxAbs(x.Data), x.Shape.W); got != path {
		b.Fatalf("path %d, want %d", got, path)
	}
	for b.Loop() {
		if err := k.run(x, out); err != nil {
			b.Fatal(err)
		}
	}
	macs := float64(c * c * 9 * n * n)
	b.ReportMetric(macs*float64(b.N)/b.Elapsed().Seconds(), "MAC/s")
}

// BenchmarkConv3x3_64x64_128_i8 is BenchmarkConv3x3_64x64_128 with the
// input and output stored at i8 width, as a decode keeps the tensors whose
// certified interval fits i8 (narrow.go): the input is packed from bytes
// and each row of sums is rq'd (shift 17, which keeps every sum of 576
// i8 × i8 products inside i8) and narrowed to bytes, by the tile kernel
// itself and in passes after it, alternately (abFused).
func BenchmarkConv3x3_64x64_128_i8(b *testing.B) {
	const c, n = 64, 128
	r := rand.New(rand.NewPCG(11, 12))
	p := &whg1.Conv{Cout: c, KH: 3, KW: 3, SH: 1, SW: 1, PH: 1, PW: 1, Groups: 1,
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{17}}, W: benchI8(r, c*c*9)}
	xs := make([]int8, c*n*n)
	for i := range xs {
		xs[i] = int8(r.IntN(256) - 128)
	}
	sh := tensor.Shape{C: c, H: n, W: n}
	x, out := val{T: &tensor.T{Shape: sh}, i8: xs}, val{T: &tensor.T{Shape: sh}, i8: make([]int8, c*n*n)}
	k := newConv(p, c)
	abFused(b, c*c*9*n*n, func() error { return k.runVal(x, out) })
}

// abFused runs run with the tiles' fused epilogue and without it
// (fuseTiles), and fused with the work split among goroutines by output
// channel instead of by row (rowSplit off, "channels"), one after the
// other in every iteration, so that all see the same moments of a shared
// machine, and reports for each the MAC/s of its fastest run
// ("fused-MAC/s", "unfused-MAC/s", "channels-MAC/s": the figure least
// disturbed by other jobs) and of its median run, macs a run.
func abFused(b *testing.B, macs int, run func() error) {
	defer func() { fuseTiles, rowSplit = true, true }()
	configs := []struct {
		name         string
		fused, split bool
	}{{"fused", true, true}, {"unfused", false, true}, {"channels", true, false}}
	ts := map[string][]time.Duration{}
	for b.Loop() {
		for _, c := range configs {
			fuseTiles, rowSplit = c.fused, c.split
			t0 := time.Now()
			if err := run(); err != nil {
				b.Fatal(err)
			}
			ts[c.name] = append(ts[c.name], time.Since(t0))
		}
	}
	for _, c := range configs {
		t := ts[c.name]
		slices.Sort(t)
		b.ReportMetric(float64(macs)/t[0].Seconds(), c.name+"-MAC/s")
		b.ReportMetric(float64(macs)/t[len(t)/2].Seconds(), c.name+"-median-MAC/s")
	}
}
