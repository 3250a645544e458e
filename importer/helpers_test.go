package importer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/onnx"
	"github.com/waiops/waiops/tensor"
)

// randW is n weights drawn uniformly from ±√(3/fan), a trained layer's
// scale.
func randW(rng *rand.Rand, n, fan int) []float32 {
	w := make([]float32, n)
	a := math.Sqrt(3 / float64(fan))
	for i := range w {
		w[i] = float32((rng.Float64()*2 - 1) * a)
	}
	return w
}

// igdnVariant is how a test writes the IGDN pattern.
type igdnVariant struct {
	pow   bool   // x² as Pow(x, 2) instead of Mul(x, x)
	rsqrt string // "" for Sqrt then Mul; "div" for Div(1, Sqrt) then Div; "recip" for Reciprocal then Div
	swap  bool   // Mul(√N, x) instead of Mul(x, √N)
}

// igdnNodes appends the IGDN pattern on x with γ and β and returns its output.
func igdnNodes(b *onnx.Builder, x string, c int, gamma, beta []float32, v igdnVariant) string {
	var x2 string
	if v.pow {
		x2 = b.Op("Pow", []string{x, b.Floats([]float32{2})})
	} else {
		x2 = b.Op("Mul", []string{x, x})
	}
	n := b.Op("Conv", []string{x2, b.Floats(gamma, int64(c), int64(c), 1, 1), b.Floats(beta, int64(c))}, onnx.IntsAttr("kernel_shape", 1, 1))
	r := b.Op("Sqrt", []string{n})
	switch v.rsqrt {
	case "div":
		r = b.Op("Div", []string{b.Floats([]float32{1}), r})
		return b.Op("Div", []string{x, r})
	case "recip":
		r = b.Op("Reciprocal", []string{r})
		return b.Op("Div", []string{x, r})
	}
	if v.swap {
		return b.Op("Mul", []string{r, x})
	}
	return b.Op("Mul", []string{x, r})
}

// tinyCodec is a small synthesis transform: ConvT(M→N, 5, s2) + IGDN,
// ConvT(N→N) + Relu, ConvT(N→3) to a picture in about [0, 1].
func tinyCodec(t testing.TB, m, n int, v igdnVariant) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	b := onnx.NewBuilder("tiny", 13)
	b.Input("y", onnx.Float, 1, int64(m), -1, -1)
	// The last layer's weights are scaled by gain and its bias centred on
	// 0.5, so that the picture lies mostly within [0, 1].
	convT := func(x string, cin, cout int, gain, centre float64) string {
		wf := randW(rng, cin*cout*25, cin*25/4)
		for i := range wf {
			wf[i] *= float32(gain)
		}
		w := b.Floats(wf, int64(cin), int64(cout), 5, 5)
		bias := make([]float32, cout)
		for i := range bias {
			bias[i] = float32(centre + rng.Float64()*0.2 - 0.1)
		}
		return b.Op("ConvTranspose", []string{x, w, b.Floats(bias, int64(cout))}, onnx.IntsAttr("kernel_shape", 5, 5),
			onnx.IntsAttr("strides", 2, 2), onnx.IntsAttr("pads", 2, 2, 2, 2), onnx.IntsAttr("output_padding", 1, 1))
	}
	gamma := make([]float32, n*n)
	beta := make([]float32, n)
	for i := range n {
		beta[i] = 1 + float32(rng.Float64())
		for j := range n {
			gamma[i*n+j] = float32(rng.Float64() * 0.1)
		}
		gamma[i*n+i] += 0.5
	}
	x := convT("y", m, n, 1, 0)
	x = igdnNodes(b, x, n, gamma, beta, v)
	x = b.Op("Relu", []string{convT(x, n, n, 1, 0)})
	x = convT(x, n, 3, 0.01, 0.5)
	b.Node("Identity", []string{x}, []string{"x_hat"})
	b.Output("x_hat", onnx.Float, 1, 3, -1, -1)
	out, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// latents are k integer latents [c, h, w] with a Laplacian-like spread.
func latents(seed uint64, k, c, h, w int) []Latent {
	rng := rand.New(rand.NewPCG(seed, 7))
	var out []Latent
	for range k {
		t := tensor.New(tensor.Shape{C: c, H: h, W: w})
		for i := range t.Data {
			t.Data[i] = int64(math.Round(rng.NormFloat64() * 3))
		}
		out = append(out, Latent{Name: "l", T: t})
	}
	return out
}

func mustImport(t testing.TB, model []byte, cal []Latent, acts int, p certify.Profile) *Result {
	t.Helper()
	return mustImportW(t, model, cal, acts, 8, p)
}

func mustImportW(t testing.TB, model []byte, cal []Latent, acts, weights int, p certify.Profile) *Result {
	t.Helper()
	r, err := Import(model, cal, Options{Acts: acts, Weights: weights, Profile: p})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
