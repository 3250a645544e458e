package fabric

import (
	"slices"
	"testing"

	"github.com/waiops/waiops/internal/gputest"
	"github.com/waiops/waiops/internal/spectest"
	"github.com/waiops/waiops/whg1"
)

// FuzzFabricsAgree decodes every graph that loads on the GL fabric (an
// acc32 graph, §7.2) on it and on the CPU reference, at its declared sizes
// as FuzzLoadDecode does: the outputs are equal, or both fabrics refuse
// with the same code (§4: the same integers and the same refusals). Without
// a GL context it skips, or fails where WAIOPS_REQUIRE_GPU is set.
func FuzzFabricsAgree(f *testing.F) {
	gpu, err := OpenGPU()
	gputest.Need(f, err)
	seedGraphs(f)
	cpu := NewCPU()
	f.Fuzz(func(t *testing.T, b []byte) {
		gd, g, err := gpu.Load(b)
		if err != nil {
			spectest.Refusal(t, err)
			return
		}
		cd, _, err := cpu.Load(b)
		if err != nil {
			t.Fatalf("a graph the GL fabric loads is refused on the CPU: %v", err)
		}
		in, ok := smallInputs(g)
		if !ok {
			return
		}
		scalars := make([]int64, len(g.Scalars))
		for i, s := range g.Scalars {
			scalars[i] = s.Lo
		}
		want, cerr := whg1.NewSequence(g, cd).Decode(in, scalars)
		got, gerr := whg1.NewSequence(g, gd).Decode(in, scalars)
		switch {
		case cerr != nil || gerr != nil:
			if cerr == nil || gerr == nil {
				t.Fatalf("cpu: %v; gpu: %v", cerr, gerr)
			}
			if c, g := spectest.Refusal(t, cerr), spectest.Refusal(t, gerr); c.Code != g.Code {
				t.Fatalf("cpu refuses %v, gpu %v", c, g)
			}
		case len(got) != len(want):
			t.Fatalf("%d outputs on the GL fabric, %d on the CPU", len(got), len(want))
		default:
			for i := range want {
				if got[i].Shape != want[i].Shape || !slices.Equal(got[i].Data, want[i].Data) {
					t.Fatalf("output %d differs: gpu %v, cpu %v", i, got[i].Shape, want[i].Shape)
				}
			}
		}
	})
}
