package importer

import (
	"testing"

	"github.com/waiops/waiops/certify"
)

func TestTinyCodecEndToEnd(t *testing.T) {
	model := tinyCodec(t, 8, 6, igdnVariant{})
	cal, held := latents(1, 3, 8, 6, 5), latents(2, 2, 8, 6, 5)
	for _, acts := range []int{8, 16} {
		r := mustImport(t, model, cal, acts, certify.Acc32)
		if !r.Cert.Verdict.Acc32 {
			t.Fatalf("acts %d: not acc32", acts)
		}
		oe, le, err := r.Measure(held)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("acts %d: output %+v", acts, oe)
		for _, l := range le {
			t.Logf("  %s %s psnr %.1f max %.4g", l.Node, l.Op, l.PSNR, l.MaxAbs)
		}
	}
}
