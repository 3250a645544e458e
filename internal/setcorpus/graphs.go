package setcorpus

import (
	"fmt"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// GraphCase is one graph vector of §14.2's last item: a graph one lowering
// wrote for a small set of the corpus, with the decodes to run through it
// (one sequence). The vector tooling computes its load outcome, profiles
// and expectations (§14.1); this package supplies only graphs and inputs.
type GraphCase struct {
	ID      string // <lowering>_<role>_<set digest prefix>, e.g. "int_synth_synth_d9cec61d"
	Graph   []byte
	Decodes []GraphDecode
}

// GraphDecode is one decode's data inputs and scalars.
type GraphDecode struct {
	Inputs  []*tensor.T
	Scalars []int64
}

// GraphCases lowers every set of the §14.3 corpus and gives each role's
// graph with two decodes on small inputs within the inputs' check ranges,
// plus, where the input's range is narrow (int_synth's [−128, 127],
// jpegai-int/1's [−31, 32]), a third decode one past its top, which
// refuses (field_range). A graph that fails acc64 has no decodes: its load
// is refused.
func GraphCases() ([]GraphCase, error) {
	var out []GraphCase
	r := NewRand(0x5eed00ff)
	for _, cs := range Sets() {
		capability := cs.Capability
		s, err := drivers.Lower(cs.Lowering, &capability, cs.Files)
		if s == nil {
			return nil, err
		}
		digest := setDigest(s)
		for _, role := range s.Roles {
			c := GraphCase{ID: fmt.Sprintf("%s_%s_%s", loweringID(cs.Lowering), role.Name, digest[:8]), Graph: role.Bytes}
			// A graph whose own verdict fails acc64 is refused at load.
			if g, _, err := certify.Load(role.Bytes, certify.Acc64); err == nil {
				c.Decodes = caseDecodes(r, cs.Lowering, g)
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// loweringID is a lowering's identifier as an id part: "int_synth/1" →
// "int_synth", "jpegai-int/1" → "jpegai_int".
func loweringID(l string) string {
	b := []byte(l[:len(l)-2])
	for i, c := range b {
		if c == '-' {
			b[i] = '_'
		}
	}
	return string(b)
}

// caseDecodes builds the decodes of one lowered graph.
func caseDecodes(r *Rand, lowering string, g *whg1.Graph) []GraphDecode {
	in := g.Tensors[g.Inputs[0].Tensor]
	shape := tensor.Shape{C: int(in.Channels), H: 3, W: 3}
	switch {
	case g.Inputs[0].MaxH != 0: // jpegai-int/1: [Cz, 4, 4] declared
		shape.H, shape.W = int(g.Inputs[0].MaxH), int(g.Inputs[0].MaxW)
	case lowering == drivers.WAM1:
		shape.H, shape.W = 1, 8
	}
	lo, hi := max(in.Lo, -40), min(in.Hi, 40)
	scalars := make([]int64, len(g.Scalars))
	switch lowering {
	case drivers.WAM1:
		scalars[0] = 10 // t_out, within the 16 samples the network gives for 8
	case drivers.World:
		// T's scalars are plane values: those of the moves (1, −1, 0)
		// at afrac 8, dequantize(m, 8, 0).
		for i := range scalars {
			scalars[i] = []int64{256, -256, 0}[i%3]
		}
	}
	var ds []GraphDecode
	for range 2 {
		t := tensor.New(shape)
		copy(t.Data, r.Ints(len(t.Data), lo, hi))
		ds = append(ds, GraphDecode{Inputs: []*tensor.T{t}, Scalars: scalars})
	}
	if in.Hi <= 1<<8 { // a narrow check range: one element one past its top
		t := tensor.New(shape)
		t.Data[len(t.Data)-1] = in.Hi + 1
		ds = append(ds, GraphDecode{Inputs: []*tensor.T{t}, Scalars: scalars})
	}
	return ds
}
