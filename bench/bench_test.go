package bench

import (
	"bytes"
	"math"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/fabric"
)

func TestSlopesFitsLine(t *testing.T) {
	// time = 100 ns + 10 ns per unit, exactly: slope 10, intercept 100, R² 1.
	figs := []Figure{
		{Op: "x", Fabric: "cpu", Work: 100, MedianNS: 1100},
		{Op: "x", Fabric: "cpu", Work: 200, MedianNS: 2100},
		{Op: "x", Fabric: "cpu", Work: 400, MedianNS: 4100},
		{Op: "y", Fabric: "cpu", Work: 5, MedianNS: 7}, // one size: no fit
	}
	s := Slopes(figs)
	if len(s) != 1 || math.Abs(s[0].NSPerUnit-10) > 1e-9 || math.Abs(s[0].InterceptNS-100) > 1e-6 || math.Abs(s[0].R2-1) > 1e-12 {
		t.Fatalf("got %+v, want one fit with slope 10, intercept 100, R² 1", s)
	}
}

func TestRatiosPairGPUWithCPU(t *testing.T) {
	figs := []Figure{
		{Case: "a", Fabric: "cpu", Throughput: 2},
		{Case: "a", Fabric: "gpu", Throughput: 6},
		{Case: "b", Fabric: "gpu", Throughput: 6}, // no cpu figure
	}
	r := Ratios(figs)
	if len(r) != 1 || r[0].Case != "a" || r[0].Ratio != 3 {
		t.Fatalf("got %+v, want a: 3", r)
	}
}

func TestCasesLoadOnCPUAndMeetAcc32(t *testing.T) {
	// Every benchmark graph must load on the CPU fabric and, so the GPU
	// runs it too, meet acc32.
	cpu := fabric.NewCPU()
	for _, c := range mustCases(t, DefaultSweep(true)) {
		if _, _, err := cpu.Load(c.Graph); err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		if _, _, err := certify.Load(c.Graph, certify.Acc32); err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
	}
}

func TestConvMACCount(t *testing.T) {
	// conv 3×3, 64→64 on 16×16: 64·16·16 outputs of 64·9 terms each.
	for _, c := range mustCases(t, DefaultSweep(true)) {
		if c.Name() == "conv3x3_16" && c.Work != 64*16*16*64*9 {
			t.Fatalf("conv3x3_16 work %d", c.Work)
		}
		if c.Name() == "dwconv3x3_16" && c.Work != 64*16*16*9 {
			t.Fatalf("dwconv3x3_16 work %d", c.Work)
		}
	}
}

func TestDrawBar(t *testing.T) {
	var b bytes.Buffer
	drawBar(&b, 1, 2, "conv")
	if got := b.String(); got[:33] != "\r[###############...............]" {
		t.Fatalf("bar %q", got)
	}
}

// mustCases is s.Cases(), failing t on an error.
func mustCases(t testing.TB, s Sweep) []*Case {
	t.Helper()
	cs, err := s.Cases()
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
