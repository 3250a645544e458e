package whg1

import (
	"testing"

	"github.com/waiops/waiops/tensor"
)

// BenchmarkParseAllOps parses the 31-operator graph of allOps (about 132 KiB,
// most of it the lut16 table).
func BenchmarkParseAllOps(b *testing.B) {
	file := Encode(allOps())
	b.SetBytes(int64(len(file)))
	for b.Loop() {
		if _, err := Parse(file); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanRunAllOps is the per-decode cost of §4 run steps 1–3.
func BenchmarkPlanRunAllOps(b *testing.B) {
	g, err := Parse(Encode(allOps()))
	if err != nil {
		b.Fatal(err)
	}
	in := []tensor.Shape{{C: 4, H: 8, W: 8}}
	sc := []int64{1, 2, 4, -3}
	for b.Loop() {
		if _, err := g.PlanRun(in, sc); err != nil {
			b.Fatal(err)
		}
	}
}
