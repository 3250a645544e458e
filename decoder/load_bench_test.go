package decoder

import (
	"testing"

	"github.com/waiops/waiops/fabric"
)

// BenchmarkLoadDemo loads examples/demo's int_synth set on the CPU
// reference: the §13.1 lowering, the certificate, and the graph loaded
// for decoding, from a fresh Decoder each time (nothing cached).
func BenchmarkLoadDemo(b *testing.B) {
	set, _ := demo(b)
	for b.Loop() {
		d, err := Open(fabric.Options{Fabric: fabric.CPU})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := d.LoadSynth(set); err != nil {
			b.Fatal(err)
		}
		d.Close()
	}
}

// BenchmarkDecodeDemo decodes examples/demo's payload (51×51 latents to a
// 204×204 frame) on the CPU reference, the set loaded once.
func BenchmarkDecodeDemo(b *testing.B) {
	set, payload := demo(b)
	d, err := Open(fabric.Options{Fabric: fabric.CPU})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	s, err := d.LoadSynth(set)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Decode(payload); err != nil {
			b.Fatal(err)
		}
	}
}
