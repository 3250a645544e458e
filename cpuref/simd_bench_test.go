package cpuref

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/waiops/waiops/cpuref/dot"
	"github.com/waiops/waiops/cpuref/internal/cputime"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// simdCase is one convolution of BenchmarkSIMD: run computes it once, and
// macs is its multiply-accumulates (for conv_transpose, the cin·cout·k²·H·W
// products of the scatter form).
type simdCase struct {
	name string
	macs int
	run  func() error
}

func simdCases() []simdCase {
	r := rand.New(rand.NewPCG(71, 72))
	conv := func(name string, cin, cout, k, groups, n int) simdCase {
		p := &whg1.Conv{Cout: uint32(cout), KH: uint32(k), KW: uint32(k), SH: 1, SW: 1,
			PH: uint32(k / 2), PW: uint32(k / 2), Groups: uint32(groups),
			RQ: whg1.RQ{SKind: 1, Shift: []uint8{8}}, W: benchI8(r, cout*cin/groups*k*k)}
		x := benchInput(r, cin, n)
		if strings.HasSuffix(name, "_relu") { // u8 inputs, as after a relu: Mac8's
			for i, v := range x.Data {
				x.Data[i] = 2 * max(v, 0)
			}
		}
		out := tensor.New(tensor.Shape{C: cout, H: n, W: n})
		kern := newConv(p, cin)
		return simdCase{name, cout * cin / groups * k * k * n * n, func() error { return kern.run(x, out) }}
	}
	const c, n = 64, 64
	pt := &whg1.ConvT{Cout: c, KH: 3, KW: 3, SH: 2, SW: 2, PH: 1, PW: 1, OPH: 1, OPW: 1,
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{8}}, W: benchI8(r, c*c*9)}
	xt := benchInput(r, c, n)
	outT := tensor.New(tensor.Shape{C: c, H: 2 * n, W: 2 * n})
	kt := newConvT(pt, c)
	pg := &whg1.Contraction{Groups: 8, RQ: whg1.RQ{SKind: 1, Shift: []uint8{12}}}
	xg := benchInput(r, c, n)
	g := tensor.New(tensor.Shape{C: c, H: 1, W: c / 8})
	outG := tensor.New(xg.Shape)
	gramApply := func() error {
		if err := gram(pg, xg, xg, g); err != nil {
			return err
		}
		return apply(pg, g, xg, outG)
	}
	return []simdCase{
		conv("conv3x3_64x64_128", 64, 64, 3, 1, 128),
		conv("conv3x3_64x64_128_relu", 64, 64, 3, 1, 128),
		conv("conv3x3_64x64_256", 64, 64, 3, 1, 256),
		conv("conv1x1_128x128_128", 128, 128, 1, 1, 128),
		conv("dwconv3x3_64_128", 64, 64, 3, 64, 128),
		{"convT3x3s2_64x64_64", c * c * 9 * n * n, func() error { return kt.run(xt, outT) }},
		// gram then apply, 64 channels in 8 groups at 64×64: 2·C·d·H·W.
		{"gram_apply_64x64_64", 2 * c * (c / 8) * n * n, gramApply},
	}
}

// BenchmarkSIMD runs the convolutions of simdCases, i8 weights and inputs
// (u8 for the _relu case), on today's exact path without the dot kernels
// ("old": the i32 lanes path), on cpuref/dot's selected Mac16 kernel
// ("dot") and, where Mac8 has an instruction-set kernel, on it for the
// inputs it takes ("dot8"), at 1 goroutine and at GOMAXPROCS, side by side
// in one run, in multiply-accumulates per second of wall time (MAC/s) and
// per CPU-second times the goroutines (MAC/s-cpu, which other jobs on the
// machine do not lower). dot.BenchmarkPeak is the machine's figure to read
// them against.
func BenchmarkSIMD(b *testing.B) {
	saved, saved8, procs := simd, simd8, runtime.GOMAXPROCS(0)
	defer func() { simd, simd8 = saved, saved8; runtime.GOMAXPROCS(procs) }()
	threads := []int{1}
	if procs > 1 {
		threads = append(threads, procs)
	}
	type route struct {
		name        string
		simd, simd8 bool
	}
	routes := []route{{"old", false, false}, {"dot_" + dot.Selected(), true, false}}
	if dot.Accelerated8() {
		routes = append(routes, route{"dot8_" + dot.Selected(), true, true})
	}
	for _, c := range simdCases() {
		for _, th := range threads {
			for _, rt := range routes {
				b.Run(c.name+"/threads="+strconv.Itoa(th)+"/"+rt.name, func(b *testing.B) {
					simd, simd8 = rt.simd, rt.simd8
					runtime.GOMAXPROCS(th)
					defer runtime.GOMAXPROCS(procs)
					t0 := cputime.Process()
					for b.Loop() {
						if err := c.run(); err != nil {
							b.Fatal(err)
						}
					}
					report(b, c.macs, "MAC/s")
					if cpu := cputime.Process() - t0; cpu > 0 && t0 > 0 {
						// MAC per CPU-second, times the goroutines: the
						// wall figure on th cores of an otherwise idle machine.
						b.ReportMetric(float64(c.macs)*float64(b.N)*float64(th)/cpu.Seconds(), "MAC/s-cpu")
					}
				})
			}
		}
	}
}
