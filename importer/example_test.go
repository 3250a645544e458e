package importer

import (
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/cpuref"
	"github.com/waiops/waiops/onnx"
	"github.com/waiops/waiops/tensor"
)

var example = filepath.Join("..", "examples", "tinycodec")

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// psnr8 is the PSNR of an RGB8 picture against the original, peak 255;
// sample(c, y, x) reads the picture's channel c.
func psnr8(orig image.Image, sample func(c, y, x int) float64) float64 {
	b := orig.Bounds()
	se, n := 0.0, 0.0
	for y := range b.Dy() {
		for x := range b.Dx() {
			r, g, bl, _ := orig.At(b.Min.X+x, b.Min.Y+y).RGBA()
			for c, v := range []uint32{r >> 8, g >> 8, bl >> 8} {
				d := sample(c, y, x) - float64(v)
				se += d * d
				n++
			}
		}
	}
	return 10 * math.Log10(255*255/(se/n))
}

// TestTinycodecExample imports examples/tinycodec's synthesis (the quality
// bar README states): with i16 activations the exact decode is ≥ 50 dB from the float
// model, and its PSNR against each original picture within 0.1 dB of the
// float decode's; i8's figures are logged.
func TestTinycodecExample(t *testing.T) {
	model, err := os.ReadFile(filepath.Join(example, "synthesis.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	cal, err := ReadLatents(filepath.Join(example, "calib"))
	if err != nil {
		t.Fatal(err)
	}
	held, err := ReadLatents(filepath.Join(example, "heldout"))
	if err != nil {
		t.Fatal(err)
	}
	// The float64 evaluator against torch's float64 decode of the same
	// ONNX (heldout/NAME.float.png, rounded to 8 bits): every sample within
	// one step, and at most one in a thousand a step apart (a value at a
	// half, summed in another order).
	m, err := onnx.Parse(model, onnx.DefaultCaps)
	if err != nil {
		t.Fatal(err)
	}
	net, err := match(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range held {
		fl := readPNG(t, filepath.Join(example, "heldout", strings.TrimSuffix(h.Name, ".npy")+".float.png"))
		vals, err := net.evaluate(floatOf(h.T))
		if err != nil {
			t.Fatal(err)
		}
		o := vals[net.outputs[0]]
		off := 0
		for y := range o.h {
			for x := range o.w {
				r, g, b, _ := fl.At(x, y).RGBA()
				for c, v := range []uint32{r >> 8, g >> 8, b >> 8} {
					want := math.Floor(min(max(o.d[(c*o.h+y)*o.w+x], 0), 1)*255 + 0.5)
					if d := math.Abs(want - float64(v)); d > 1 {
						t.Fatalf("%s (%d, %d, %d): evaluator %v, torch %d", h.Name, c, y, x, want, v)
					} else if d > 0 {
						off++
					}
				}
			}
		}
		t.Logf("%s: the float64 evaluator and torch's float decode differ by one step in %d of %d samples", h.Name, off, 3*o.h*o.w)
		if 1000*off > 3*o.h*o.w {
			t.Errorf("%s: %d samples a step apart, more than one in a thousand", h.Name, off)
		}
	}
	for _, acts := range []int{16, 8} {
		r := mustImport(t, model, cal, acts, certify.Acc32)
		oe, _, err := r.Measure(held)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("i%d against the float model: PSNR %.2f dB, max |error| %.3g, %.1f%% of samples differ", acts, oe[0].PSNR, oe[0].MaxAbs, 100*oe[0].Differ)
		if acts == 16 && oe[0].PSNR < 50 {
			t.Errorf("i16: %.2f dB against the float model, want ≥ 50", oe[0].PSNR)
		}
		prog, _, err := cpuref.LoadBytes(r.Graph)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range held {
			name := strings.TrimSuffix(h.Name, ".npy")
			orig := readPNG(t, filepath.Join(example, "heldout", name+".png"))
			fl := readPNG(t, filepath.Join(example, "heldout", name+".float.png"))
			out, err := prog.Decode([]*tensor.T{h.T}, nil)
			if err != nil {
				t.Fatal(err)
			}
			o := out[0]
			exact := psnr8(orig, func(c, y, x int) float64 { return float64(o.Data[(c*o.Shape.H+y)*o.Shape.W+x]) })
			float := psnr8(orig, func(c, y, x int) float64 {
				r, g, b, _ := fl.At(x, y).RGBA()
				return float64([]uint32{r >> 8, g >> 8, b >> 8}[c])
			})
			t.Logf("i%d %s against the original: float decode %.3f dB, exact %.3f dB (%+.3f)", acts, name, float, exact, exact-float)
			if acts == 16 && math.Abs(exact-float) > 0.1 {
				t.Errorf("i16 %s: exact %.3f dB, float %.3f dB: more than 0.1 dB apart", name, exact, float)
			}
		}
	}
}
