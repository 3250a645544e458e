package whg1

import (
	"slices"
	"testing"
)

// TestAddOp: tensors are numbered in the order they are added (§10.2), and
// each operator writes the one new tensor AddOp returns.
func TestAddOp(t *testing.T) {
	var g Graph
	x := g.AddTensor(3)
	y := g.AddOp(OpRelu, nil, 3, x)
	z := g.AddOp(OpAdd, nil, 3, x, y)
	if x != 0 || y != 1 || z != 2 || len(g.Tensors) != 3 || len(g.Ops) != 2 {
		t.Fatalf("tensors %d %d %d of %d, %d ops", x, y, z, len(g.Tensors), len(g.Ops))
	}
	for _, tn := range g.Tensors {
		if tn.Channels != 3 || tn.Exponent != NoExponent || tn.Policy != Derived {
			t.Fatalf("tensor %+v", tn)
		}
	}
	if op := g.Ops[1]; op.Code != OpAdd || !slices.Equal(op.In, []uint32{0, 1}) || !slices.Equal(op.Out, []uint32{2}) {
		t.Fatalf("op %+v", op)
	}
}
