package whg1

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
)

// addDecoder is a fake fabric for a graph whose op 0 is add: it runs §4's
// steps (the plan, the input policies, the operator, the output policy) and
// records every input it was given.
type addDecoder struct {
	g    *Graph
	seen [][]*tensor.T
}

func (d *addDecoder) Decode(inputs []*tensor.T, scalars []int64) ([]*tensor.T, error) {
	d.seen = append(d.seen, inputs)
	if _, err := d.g.PlanRun([]tensor.Shape{inputs[0].Shape, inputs[1].Shape}, scalars); err != nil {
		return nil, err
	}
	for i, in := range inputs {
		if err := ApplyPolicy(d.g.Tensors[d.g.Inputs[i].Tensor], in.Data, fmt.Sprintf("input %d", i)); err != nil {
			return nil, err
		}
	}
	out := tensor.New(inputs[0].Shape)
	for k := range out.Data {
		out.Data[k] = inputs[0].Data[k] + inputs[1].Data[k]
	}
	return []*tensor.T{out}, ApplyPolicy(d.g.Tensors[2], out.Data, "tensor 2")
}

func vec(v ...int64) *tensor.T {
	return &tensor.T{Shape: sh(1, 1, len(v)), Data: v}
}

// TestSequenceCarriesState: §10.3 across decodes, with refused decodes in
// the middle (a data input out of its check range, then a state whose shape
// no longer matches the data).
func TestSequenceCarriesState(t *testing.T) {
	b := newBuilder(1, 0, 0)
	st := b.input(1, 0, 0)
	b.g.Tensors[st] = Tensor{Channels: 1, Exponent: NoExponent, Policy: Clamp, Lo: -1000, Hi: 1000}
	b.g.Inputs[1].Kind, b.g.Inputs[1].Init = StateInput, 5
	out := b.op(OpAdd, nil, []uint32{0, st}, 1)[0]
	b.g.Tensors[out] = Tensor{Channels: 1, Exponent: NoExponent, Policy: Clamp, Lo: -1000, Hi: 1000}
	g := parsed(t, b.done(out))
	d := &addDecoder{g: g}
	s := NewSequence(g, d)

	steps := []struct {
		data *tensor.T
		want []int64 // nil: refused with code
		code refusal.Code
	}{
		{vec(1, 2), []int64{6, 7}, ""},                // state [1, 1, 2] of init 5
		{vec(100, 200), nil, refusal.FieldRange},      // 200 outside [-128, 127]
		{vec(10, -20), []int64{16, -13}, ""},          // state 6, 7: the refusal changed nothing
		{vec(1, 2, 3), nil, refusal.GeometryMismatch}, // state [1, 1, 2] vs data [1, 1, 3]
		{vec(127, 127), []int64{143, 114}, ""},        // state 16, -13
		{vec(-128, -128), []int64{15, -14}, ""},       // state 143, 114
	}
	for i, step := range steps {
		got, err := s.Decode([]*tensor.T{step.data}, nil)
		if step.want == nil {
			wantRefusal(t, err, step.code)
			if got != nil {
				t.Errorf("decode %d: refused with outputs", i)
			}
			continue
		}
		if err != nil {
			t.Fatalf("decode %d: %v", i, err)
		}
		if !reflect.DeepEqual(got[0].Data, step.want) || got[0].Shape != sh(1, 1, 2) {
			t.Fatalf("decode %d: %v %v, want %v", i, got[0].Shape, got[0].Data, step.want)
		}
		// The caller owns what it got: changing it does not change the state.
		got[0].Data[0] = 999
	}
	if first := d.seen[0][1]; first.Shape != sh(1, 1, 2) || !reflect.DeepEqual(first.Data, []int64{5, 5}) {
		t.Errorf("first state %v %v, want [1, 1, 2] of 5", first.Shape, first.Data)
	}
	// The geometry refusal is the sequence's plan's (§4 run step 3), made
	// before the decoder is called; the field_range one is step 4's.
	if len(d.seen) != len(steps)-1 {
		t.Errorf("decoder called %d times, want %d", len(d.seen), len(steps)-1)
	}
}

// TestSequenceRefusesBeforeBuildingState: a state input built from input
// 0's H and W is checked (§4 run step 1) before it is allocated, and the
// decoder is not called.
func TestSequenceRefusesBeforeBuildingState(t *testing.T) {
	b := newBuilder(1, 0, 0)
	st := b.input(1<<20, 0, 0)
	b.g.Inputs[1].Kind, b.g.Inputs[1].Src = StateInput, 1
	b.g.MaxElems = 100
	g := parsed(t, b.done(b.op1(OpRelu, nil, 0, 1), b.op1(OpRelu, nil, st, 1<<20)))
	d := &addDecoder{g: g}
	s := NewSequence(g, d)
	_, err := s.Decode([]*tensor.T{vec(1)}, nil)
	wantRefusal(t, err, refusal.TooLarge, "input 1: shape [1048576, 1, 1] passes max_elems 100")
	_, err = s.Decode(nil, nil)
	wantRefusal(t, err, refusal.ModelMismatch, "0 data inputs supplied; the graph has 1")
	// A data length that does not match its shape is the decoder's to
	// refuse, after the plan: run step 1 refuses the state input first.
	_, err = s.Decode([]*tensor.T{{Shape: sh(1, 1, 2), Data: []int64{1}}}, nil)
	wantRefusal(t, err, refusal.TooLarge, "input 1: shape [1048576, 1, 2] passes max_elems 100")
	_, err = s.Decode([]*tensor.T{nil}, nil)
	wantRefusal(t, err, refusal.ModelMismatch, "data input 0 is missing")
	if len(d.seen) != 0 {
		t.Error("the decoder ran")
	}
}

// TestSequenceZeroSide: §4 run step 1 refuses an input with H = 0 or W = 0
// with model_mismatch, before its size (H = 0 with W = 2^26 and max_elems
// 100 is not too_large) and before a state is built from input 0's H and
// W; the decoder never runs and the state is untouched.
func TestSequenceZeroSide(t *testing.T) {
	b := newBuilder(1, 0, 0)
	st := b.input(1, 0, 0)
	b.g.Inputs[1].Kind, b.g.Inputs[1].Src = StateInput, 1
	b.g.MaxElems = 100
	g := parsed(t, b.done(b.op1(OpRelu, nil, 0, 1), b.op1(OpRelu, nil, st, 1)))
	d := &addDecoder{g: g}
	s := NewSequence(g, d)
	for _, c := range []struct {
		shape tensor.Shape
		msg   string
	}{
		{sh(1, 0, 8), "input 0: shape [1, 0, 8]; the graph wants 1 channels and H, W ≥ 1"},
		{sh(1, 8, 0), "input 0: shape [1, 8, 0]; the graph wants 1 channels and H, W ≥ 1"},
		{sh(1, 0, 1<<26), "input 0: shape [1, 0, 67108864]; the graph wants 1 channels and H, W ≥ 1"},
	} {
		_, err := s.Decode([]*tensor.T{tensor.New(c.shape)}, nil)
		wantRefusal(t, err, refusal.ModelMismatch, c.msg)
		_, err = g.PlanInputs([]*tensor.T{tensor.New(c.shape), tensor.New(sh(1, 1, 1))}, nil)
		wantRefusal(t, err, refusal.ModelMismatch, c.msg)
	}
	if len(d.seen) != 0 || s.state[1] != nil {
		t.Error("the decoder ran, or a state was built")
	}
}

// TestApplyPolicy: §3's policies on an input or an operator's output.
func TestApplyPolicy(t *testing.T) {
	v := []int64{-5, 0, 9, -1 << 63}
	if err := ApplyPolicy(Tensor{Policy: Clamp, Lo: -2, Hi: 3}, v, "t"); err != nil || !reflect.DeepEqual(v, []int64{-2, 0, 3, -2}) {
		t.Errorf("clamp: %v %v", v, err)
	}
	v = []int64{1, 4, 9}
	err := ApplyPolicy(Tensor{Policy: Check, Lo: 0, Hi: 3}, v, "tensor 7")
	wantRefusal(t, err, refusal.FieldRange, "tensor 7: element 1 = 4 is outside [0, 3]")
	if !reflect.DeepEqual(v, []int64{1, 4, 9}) {
		t.Errorf("check changed the values: %v", v)
	}
	if err := ApplyPolicy(Tensor{Policy: Check, Lo: 1, Hi: 9}, v, "t"); err != nil {
		t.Error(err)
	}
	v = []int64{1 << 62, -1 << 63}
	if err := ApplyPolicy(Tensor{Policy: Derived}, v, "t"); err != nil || v[0] != 1<<62 || v[1] != -1<<63 {
		t.Errorf("derived: %v %v", v, err)
	}
}

// TestSequenceStateTakesInput0Size: before a decode completes, a state input
// is [channels, H, W] of init with input 0's H and W (§10.3), and §4 run
// step 1 checks it like any input, against its own declared max_h and max_w.
// Input 0 declares 4×4 and the state 2×2: a 4×4 decode is refused too_large
// at input 1; a 2×2 decode sees the state [1, 2, 2] of init 9 and completes.
func TestSequenceStateTakesInput0Size(t *testing.T) {
	b := newBuilder(1, 4, 4)
	b.input(1, 2, 2)
	b.g.Inputs[1].Kind, b.g.Inputs[1].Init = StateInput, 9
	g := parsed(t, b.done(b.op1(OpRelu, nil, 0, 1)))
	d := &addDecoder{g: g}
	s := NewSequence(g, d)
	_, err := s.Decode([]*tensor.T{tensor.New(sh(1, 4, 4))}, nil)
	wantRefusal(t, err, refusal.TooLarge, "input 1: shape [1, 4, 4] passes the declared max_h 2, max_w 2")
	if len(d.seen) != 0 {
		t.Fatal("the decoder ran for a refused step 1")
	}
	got, err := s.Decode([]*tensor.T{{Shape: sh(1, 2, 2), Data: []int64{1, -2, 3, -4}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if state := d.seen[0][1]; state.Shape != sh(1, 2, 2) || !reflect.DeepEqual(state.Data, []int64{9, 9, 9, 9}) {
		t.Errorf("state %v %v, want [1, 2, 2] of 9", state.Shape, state.Data)
	}
	// The fake decoder's output is input 0 + state: 1 + 9, −2 + 9, …
	if !reflect.DeepEqual(got[0].Data, []int64{10, 7, 12, 5}) {
		t.Errorf("output %v, want [10 7 12 5]", got[0].Data)
	}
}
