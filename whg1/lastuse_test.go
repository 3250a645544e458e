package whg1

import (
	"reflect"
	"testing"
)

// Tensors: 0 and 1 inputs (1 never read), 2 = op0(0), 3 = op1(2, 0),
// 4 = op2(2) never read, 5 = op3(3); outputs 5 and 3.
func TestDrops(t *testing.T) {
	g := &Graph{
		Tensors: make([]Tensor, 6),
		Inputs:  []Input{{Tensor: 0}, {Tensor: 1}},
		Outputs: []uint32{5, 3},
		Ops: []Op{
			{In: []uint32{0}, Out: []uint32{2}},
			{In: []uint32{2, 0}, Out: []uint32{3}},
			{In: []uint32{2}, Out: []uint32{4}},
			{In: []uint32{3}, Out: []uint32{5}},
		},
	}
	// Op 1 last reads 0; op 2 last reads 2 and is the only use of 4; 3 and
	// 5 are outputs; 1 is never used.
	want := [][]uint32{nil, {0}, {2, 4}, nil}
	if got := g.Drops(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Drops() = %v, want %v", got, want)
	}
}
