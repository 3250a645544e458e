package importer

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/cpuref"
	"github.com/waiops/waiops/onnx"
	"github.com/waiops/waiops/tensor"
)

// bmshjModel is bmshj2018-factorized's synthesis transform in the shape
// torch.onnx.export writes it: four ConvTranspose(5, s2, p2, op1) with
// IGDN between them (Mul(x, x) → 1×1 Conv → Sqrt → Mul), random weights at
// a trained network's scale, and the picture near [0, 1].
func bmshjModel(t testing.TB, n, m int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	b := onnx.NewBuilder("g_s", 13)
	b.Input("y_hat", onnx.Float, 1, int64(m), -1, -1)
	convT := func(x string, cin, cout int, gain, centre float64) string {
		w := randW(rng, cin*cout*25, cin*25/4)
		for i := range w {
			w[i] *= float32(gain)
		}
		bias := make([]float32, cout)
		for i := range bias {
			bias[i] = float32(centre + rng.Float64()*0.02 - 0.01)
		}
		return b.Op("ConvTranspose", []string{x, b.Floats(w, int64(cin), int64(cout), 5, 5), b.Floats(bias, int64(cout))},
			onnx.IntsAttr("kernel_shape", 5, 5), onnx.IntsAttr("strides", 2, 2), onnx.IntsAttr("pads", 2, 2, 2, 2), onnx.IntsAttr("output_padding", 1, 1))
	}
	igdn := func(x string, c int) string {
		gamma := make([]float32, c*c)
		beta := make([]float32, c)
		for i := range c {
			beta[i] = 0.5 + float32(rng.Float64())
			for j := range c {
				gamma[i*c+j] = float32(rng.Float64() * 0.02)
			}
			gamma[i*c+i] += 0.1
		}
		return igdnNodes(b, x, c, gamma, beta, igdnVariant{})
	}
	x := igdn(convT("y_hat", m, n, 1, 0), n)
	x = igdn(convT(x, n, n, 1, 0), n)
	x = igdn(convT(x, n, n, 1, 0), n)
	x = convT(x, n, 3, 0.02, 0.5)
	b.Node("Identity", []string{x}, []string{"x_hat"})
	b.Output("x_hat", onnx.Float, 1, 3, -1, -1)
	out, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// BenchmarkImportBmshj imports a bmshj2018-shaped synthesis (N 128, M 192)
// calibrated on one 192×48×32 latent (a 768×512 picture) and reports the
// process's peak RSS and its CPU seconds per import (user + system, over
// both cores: the wall time on a shared machine is mostly waiting).
func BenchmarkImportBmshj(b *testing.B) {
	model := bmshjModel(b, 128, 192)
	cal := latents(5, 1, 192, 32, 48)
	for b.Loop() {
		r, err := Import(model, cal, Options{Acts: 16, Weights: 8, Profile: certify.Acc32})
		if err != nil {
			b.Fatal(err)
		}
		if !r.Cert.Verdict.Acc32 {
			b.Fatal("not acc32")
		}
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MiB")
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkDecodeImportedBmshj decodes the imported bmshj2018-shaped graph
// (a 192×32×48 latent to a 768×512 picture) on the CPU reference, at i8
// and i16 activations; `waiops bench --ops bmshj2018 --fabric cpu` times
// today's bmshj2018 case beside it.
func BenchmarkDecodeImportedBmshj(b *testing.B) {
	model := bmshjModel(b, 128, 192)
	cal := latents(5, 1, 192, 32, 48)
	for _, acts := range []int{8, 16} {
		r, err := Import(model, cal, Options{Acts: acts, Weights: 8, Profile: certify.Acc32})
		if err != nil {
			b.Fatal(err)
		}
		prog, _, err := cpuref.LoadBytes(r.Graph)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("i%d", acts), func(b *testing.B) {
			for b.Loop() {
				if _, err := prog.Decode([]*tensor.T{cal[0].T}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
