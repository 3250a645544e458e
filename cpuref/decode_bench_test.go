package cpuref_test

import (
	"testing"

	"github.com/waiops/waiops/bench"
	"github.com/waiops/waiops/cpuref"
)

// benchDecode times whole decodes of waiops bench's cases (the same graphs
// and inputs `waiops bench --fabric cpu` runs), loaded with their
// certificate, in the case's work units per second.
func benchDecode(b *testing.B, s bench.Sweep) {
	for _, c := range s.Cases() {
		b.Run(c.Name(), func(b *testing.B) {
			p, _, err := cpuref.LoadBytes(c.Graph)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := p.Decode(c.Input, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(c.Work)*float64(b.N)/b.Elapsed().Seconds(), c.Unit+"/s")
		})
	}
}

// BenchmarkDecodeElementwise is bench's elementwise families at side 128.
func BenchmarkDecodeElementwise(b *testing.B) {
	benchDecode(b, bench.Sweep{Sides: []int{128}, Ops: []string{"add", "mul", "rescale", "lut16"}})
}

// BenchmarkDecodeSynth4 is bench's graph_synth4 network at side 16.
func BenchmarkDecodeSynth4(b *testing.B) {
	benchDecode(b, bench.Sweep{SynthSides: []int{16}, Ops: []string{"graph_synth4"}})
}
