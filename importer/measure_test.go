package importer

import (
	"math"
	"testing"
)

// TestOutputError: a picture's exact samples 11 and 255 against a float
// output of 10.4/255 and 1.2 (clamped to 1): errors 0.6 and 0, PSNR
// 10·log10(255² / (0.36/2)) = 55.578 dB, one sample in two differs after
// rounding. An output at scale 1/2 with offset 1/2: int 2 reads 2.5
// against a float 2.0 = 4 units, error 1.5 units = 0.75, PSNR peak 4:
// 10·log10(16/2.25) = 8.519 dB; round(4 − 1/2) = 4 ≠ 2 differs.
func TestOutputError(t *testing.T) {
	img := OutputInfo{Image: true, Scale: 1.0 / 255, Lo: 0, Hi: 255}
	e := img.Error([]int64{11, 255}, []float64{10.4 / 255, 1.2})
	if math.Abs(e.PSNR-55.578) > 1e-3 || math.Abs(e.MaxAbs-0.6) > 1e-9 || e.Differ != 0.5 {
		t.Fatalf("picture: %+v", e)
	}
	o := OutputInfo{Scale: 0.5, Offset: 0.5, Lo: -10, Hi: 10}
	e = o.Error([]int64{2}, []float64{2})
	if math.Abs(e.PSNR-8.519) > 1e-3 || math.Abs(e.MaxAbs-0.75) > 1e-12 || e.Differ != 1 {
		t.Fatalf("scaled: %+v", e)
	}
	if e := img.Error([]int64{51}, []float64{0.2}); !math.IsInf(e.PSNR, 1) || e.MaxAbs != 0 || e.Differ != 0 {
		t.Fatalf("equal: %+v", e)
	}
}
