package conform

import (
	"strings"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/vectors"
	"github.com/waiops/waiops/whg1"
)

// reluGraph is relu on one channel checked to [−9, 9].
func reluGraph() []byte {
	g := &whg1.Graph{
		Tensors: []whg1.Tensor{
			{Channels: 1, Exponent: whg1.NoExponent, Policy: whg1.Check, Lo: -9, Hi: 9},
			{Channels: 1, Exponent: whg1.NoExponent, Policy: whg1.Derived},
		},
		Inputs:  []whg1.Input{{Tensor: 0}},
		Outputs: []uint32{1},
		Ops:     []whg1.Op{{Code: whg1.OpRelu, In: []uint32{0}, Out: []uint32{1}}},
	}
	return whg1.Encode(g)
}

// one1 is a [1, 1, 1] tensor holding x.
func one1(x int64) []*tensor.T {
	return []*tensor.T{{Shape: tensor.Shape{C: 1, H: 1, W: 1}, Data: []int64{x}}}
}

// TestRunOutcomes: a refusal expected but outputs given, a load outcome
// that differs, and a stage vector through an evaluator.
func TestRunOutcomes(t *testing.T) {
	v := vectors.Vector{ID: "v", Graph: reluGraph(), Load: vectors.LoadOK, Profiles: []certify.Profile{certify.Acc64},
		Decodes: []vectors.Decode{{Inputs: one1(3), Outputs: one1(3)}, {Inputs: one1(10), Outputs: one1(9)}}}
	if i, what := runVector(fabric.NewCPU(), &v); i != 1 || !strings.HasPrefix(what, "refuse field_range, want outputs") {
		t.Fatalf("decode %d: %q", i, what)
	}
	v.Load = "model_mismatch"
	if i, what := runVector(fabric.NewCPU(), &v); i != -1 || what != "load ok, want model_mismatch" {
		t.Fatalf("decode %d: %q", i, what)
	}
	s := &vectors.Stage{ID: "s", Op: "coded", Expect: map[string]any{"coded": true}}
	if what := runStage(func(string, map[string]any, map[string]any) map[string]any { return map[string]any{"coded": false} }, s); what != `expect {"coded":false}, want {"coded":true}` {
		t.Fatalf("stage: %q", what)
	}
}
