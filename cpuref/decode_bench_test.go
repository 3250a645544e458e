package cpuref_test

import (
	"testing"

	"github.com/waiops/waiops/bench"
	"github.com/waiops/waiops/cpuref"
	"github.com/waiops/waiops/cpuref/internal/cputime"
)

// benchDecode times whole decodes of waiops bench's cases (the same graphs
// and inputs `waiops bench --fabric cpu` runs), loaded with their
// certificate, in the case's work units per second of wall clock and, as
// "/cpu-s", per second of the process's CPU time (on a shared machine, what
// the code does with the cores it gets).
func benchDecode(b *testing.B, s bench.Sweep) {
	cs, err := s.Cases()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range cs {
		b.Run(c.Name(), func(b *testing.B) {
			p, _, err := cpuref.LoadBytes(c.Graph)
			if err != nil {
				b.Fatal(err)
			}
			t0 := cputime.Process()
			for b.Loop() {
				if _, err := p.Decode(c.Input, nil); err != nil {
					b.Fatal(err)
				}
			}
			work := float64(c.Work) * float64(b.N)
			b.ReportMetric(work/b.Elapsed().Seconds(), c.Unit+"/s")
			if cpu := cputime.Process() - t0; cpu > 0 && t0 > 0 {
				b.ReportMetric(work/cpu.Seconds(), c.Unit+"/cpu-s")
			}
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

// BenchmarkDecodeBmshj is bench's bmshj2018 network from its 32×48 latent.
func BenchmarkDecodeBmshj(b *testing.B) {
	benchDecode(b, bench.Sweep{BmshjSides: []int{32}, Ops: []string{"bmshj2018"}})
}
