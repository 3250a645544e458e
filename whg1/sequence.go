package whg1

import (
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
)

// Decoder runs one decode of a graph on a fabric (§4): inputs holds every
// input in input-table order, state inputs included, and the result is the
// graph's outputs in outputs-table order. A refused decode returns a
// *refusal.Error and no outputs.
type Decoder interface {
	Decode(inputs []*tensor.T, scalars []int64) ([]*tensor.T, error)
}

// Sequence is a run of decodes through one graph that carries its state
// inputs from decode to decode (§10.3). A Sequence is not safe for
// concurrent use: its decodes are ordered by definition.
type Sequence struct {
	g     *Graph
	d     Decoder
	state []*tensor.T // by input index; nil until a decode completes
}

// NewSequence starts a sequence through g on d.
func NewSequence(g *Graph, d Decoder) *Sequence {
	return &Sequence{g: g, d: d, state: make([]*tensor.T, len(g.Inputs))}
}

// Decode runs one decode. data holds the data inputs only, in input-table
// order. Before the first completed decode each state input is [channels,
// H, W] filled with its init, H and W being input 0's at this decode
// (docs/READINGS.md D-E: built once every input has passed §4 run step 1); after a
// completed decode it is a copy of output src. A refused decode changes no
// state.
func (s *Sequence) Decode(data []*tensor.T, scalars []int64) ([]*tensor.T, error) {
	g := s.g
	nData := 0
	for _, in := range g.Inputs {
		if in.Kind == DataInput {
			nData++
		}
	}
	if len(data) != nData {
		return nil, refusal.New(refusal.ModelMismatch, "%d data inputs supplied; the graph has %d", len(data), nData)
	}
	for i, t := range data {
		if t == nil {
			return nil, refusal.New(refusal.ModelMismatch, "data input %d is missing", i)
		}
	}
	// Each tensor's data length is checked against its shape after the
	// run-time plan, by the decoder's PlanInputs, as for a single decode.
	// §4 run step 1 on every input's shape before any state is built.
	shapes := make([]tensor.Shape, len(g.Inputs))
	next := 0
	for i, in := range g.Inputs {
		switch {
		case in.Kind == DataInput:
			shapes[i] = data[next].Shape
			next++
		case s.state[i] != nil:
			shapes[i] = s.state[i].Shape
		default:
			// Input 0 is a data input (§10.3), so data[0] is its tensor.
			shapes[i] = tensor.Shape{C: int(g.Tensors[in.Tensor].Channels), H: data[0].Shape.H, W: data[0].Shape.W}
		}
	}
	if err := g.checkInputs(shapes); err != nil {
		return nil, err
	}
	inputs := make([]*tensor.T, len(g.Inputs))
	next = 0
	for i, in := range g.Inputs {
		switch {
		case in.Kind == DataInput:
			inputs[i] = data[next]
			next++
		case s.state[i] != nil:
			inputs[i] = clone(s.state[i])
		default:
			t := tensor.New(shapes[i])
			for k := range t.Data {
				t.Data[k] = in.Init
			}
			inputs[i] = t
		}
	}
	out, err := s.d.Decode(inputs, scalars)
	if err != nil {
		return nil, err
	}
	if len(out) != len(g.Outputs) {
		return nil, refusal.New(refusal.ModelMismatch, "the decoder returned %d outputs; the graph has %d", len(out), len(g.Outputs))
	}
	// §10.3: the decode completed; each state is what output src held.
	for i, in := range g.Inputs {
		if in.Kind == StateInput {
			s.state[i] = clone(out[in.Src])
		}
	}
	return out, nil
}

func clone(t *tensor.T) *tensor.T {
	return &tensor.T{Shape: t.Shape, Data: append([]int64(nil), t.Data...)}
}
