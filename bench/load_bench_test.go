package bench

import (
	"testing"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/plan"
)

// BenchmarkLoadBmshj loads the bmshj2018 synthesis graph (h = 4) into a
// fresh CPU session each time: the parse, the certificate and the
// program, nothing cached.
func BenchmarkLoadBmshj(b *testing.B) {
	c := bmshjCase(4)
	for b.Loop() {
		s, err := plan.NewSession(fabric.Options{Fabric: fabric.CPU})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Load(c.Graph); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkDecodeBmshj decodes bmshj2018 (h = 4: a 64×96 picture) through
// a CPU session, the graph loaded once.
func BenchmarkDecodeBmshj(b *testing.B) {
	c := bmshjCase(4)
	s, err := plan.NewSession(fabric.Options{Fabric: fabric.CPU})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	g, err := s.Load(c.Graph)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := g.Decode(c.Input, nil); err != nil {
			b.Fatal(err)
		}
	}
}
