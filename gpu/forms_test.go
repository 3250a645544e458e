//go:build cgo

package gpu_test

import (
	"path/filepath"
	"testing"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/internal/gputest"
	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/vectors/conform"
)

// TestVectorsHardwareForms runs the §14 corpus on the GL fabric in the
// forms a hardware GPU takes (shared-tile kernels and packed tensors, with
// texel and with storage reads), which a conformance run on llvmpipe, a
// software rasteriser, does not, and in llvmpipe's own: every vector that
// runs on the fabric passes in each, the same number in each.
func TestVectorsHardwareForms(t *testing.T) {
	f, err := fabric.OpenGPU()
	gputest.Need(t, err)
	d, err := gpu.Open()
	if err != nil {
		t.Fatal(err)
	}
	c, err := vectors.Project(filepath.Join("..", "vectors"))
	if err != nil {
		t.Fatal(err)
	}
	passed := -1
	for _, form := range []struct{ software, texel bool }{{true, true}, {false, true}, {false, false}} {
		restore := gpu.SetForms(d, form.software, form.texel, !form.software)
		r := conform.Run(f, c, nil)
		restore()
		for _, fl := range r.Failures {
			t.Errorf("%+v: %s", form, fl)
		}
		if r.Passed == 0 || passed >= 0 && r.Passed != passed {
			t.Errorf("%+v: %d vectors passed, %d failed (the first form: %d passed)", form, r.Passed, r.Failed, passed)
		}
		passed = r.Passed
	}
}
