package drivers_test

import (
	"testing"

	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/internal/setcorpus"
)

// BenchmarkDecodeSynth256 is one int_synth decode at 256×256 output on the
// CPU reference, lowering and certificate included (as a sink without a
// cache does it).
func BenchmarkDecodeSynth256(b *testing.B) {
	set, payload := setcorpus.SampleSynth()
	for b.Loop() {
		if _, err := drivers.DecodeSynth(cpu, set, payload); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderWorld32 renders 32 frames of the corpus's world/1 set
// (C = 2, A = 3) at a 64×64 latent on the CPU reference.
func BenchmarkRenderWorld32(b *testing.B) {
	t, gs := setcorpus.SampleWorld()
	z0, err := drivers.ParseLatent([]byte(`{"data":[` + zeros(2*64*64) + `],"shape":["2","64","64"]}`))
	if err != nil {
		b.Fatal(err)
	}
	rows := make([][]int64, 31)
	for i := range rows {
		rows[i] = []int64{1, -1, 0} // moves (dx, dy, 0)
	}
	for b.Loop() {
		if _, err := drivers.RenderWorld(cpu, t, gs, z0, rows); err != nil {
			b.Fatal(err)
		}
	}
}

func zeros(n int) string {
	b := make([]byte, 0, 4*n)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `"0"`...)
	}
	return string(b)
}
