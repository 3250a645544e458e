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
// state. The decode is planned once, here, and d runs it without planning
// again when it is a PlannedDecoder.
func (s *Sequence) Decode(data []*tensor.T, scalars []int64) ([]*tensor.T, error) {
	g := s.g
	r, err := g.planData(data, s.state, scalars)
	if err != nil {
		return nil, err
	}
	out, err := DecodePlanned(s.d, r)
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

// Planned is one decode planned: every input in input-table order (state
// inputs included), the scalars, and the run-time plan of §4 run steps
// 1–3 on them, each input's data length checked against its shape. Only
// this package makes one (PlanData, and the planning of Sequence.Decode
// and PlanInputs), so its plan is always its inputs'.
type Planned struct {
	g      *Graph
	inputs []*tensor.T
	plan   *Plan
}

// Graph is the graph the decode was planned on.
func (r *Planned) Graph() *Graph { return r.g }

// Inputs are every input in input-table order, state inputs included.
func (r *Planned) Inputs() []*tensor.T { return r.inputs }

// Plan is the decode's run-time plan; its Scalars are the decode's.
func (r *Planned) Plan() *Plan { return r.plan }

// PlannedDecoder is a Decoder that runs a decode already planned on its
// graph (§4 run step 4 only). A fabric's program is one; given a Planned
// of another graph it plans the decode itself.
type PlannedDecoder interface {
	Decoder
	DecodePlanned(r *Planned) ([]*tensor.T, error)
}

// DecodePlanned runs r on d: through DecodePlanned when d is a
// PlannedDecoder, else through Decode, which plans again.
func DecodePlanned(d Decoder, r *Planned) ([]*tensor.T, error) {
	if p, ok := d.(PlannedDecoder); ok {
		return p.DecodePlanned(r)
	}
	return d.Decode(r.inputs, r.plan.Scalars)
}

// PlanData plans one decode that carries no state: data holds the data
// inputs in input-table order, and each state input is its init (as at a
// Sequence's first decode). It refuses as the decode would, in §4's order,
// before any state input is built.
func (g *Graph) PlanData(data []*tensor.T, scalars []int64) (*Planned, error) {
	return g.planData(data, nil, scalars)
}

// planData is PlanData with the state a sequence carries (nil, or by
// input index with nil where none is carried yet): the shapes first, §4
// run steps 1–3 on them (so nothing is built for a decode that refuses),
// then the state inputs, then each data length.
func (g *Graph) planData(data, state []*tensor.T, scalars []int64) (*Planned, error) {
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
	shapes := make([]tensor.Shape, len(g.Inputs))
	next := 0
	for i, in := range g.Inputs {
		switch {
		case in.Kind == DataInput:
			shapes[i] = data[next].Shape
			next++
		case state != nil && state[i] != nil:
			shapes[i] = state[i].Shape
		default:
			// Input 0 is a data input (§10.3), so data[0] is its tensor.
			shapes[i] = tensor.Shape{C: int(g.Tensors[in.Tensor].Channels), H: data[0].Shape.H, W: data[0].Shape.W}
		}
	}
	pl, err := g.PlanRun(shapes, scalars)
	if err != nil {
		return nil, err
	}
	inputs := make([]*tensor.T, len(g.Inputs))
	next = 0
	for i, in := range g.Inputs {
		switch {
		case in.Kind == DataInput:
			inputs[i] = data[next]
			next++
		case state != nil && state[i] != nil:
			inputs[i] = clone(state[i])
		default:
			t := tensor.New(shapes[i])
			for k := range t.Data {
				t.Data[k] = in.Init
			}
			inputs[i] = t
		}
	}
	return g.planned(inputs, pl)
}

func clone(t *tensor.T) *tensor.T {
	return &tensor.T{Shape: t.Shape, Data: append([]int64(nil), t.Data...)}
}
