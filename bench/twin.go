package bench

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// twin is the float twin of a network case: the same layers and shapes in
// fp32, the form a float codec runs and the float peers (ONNX Runtime
// through onnx.go's writer, PyTorch through scripts/torch_peer.py) time.
// It is no exact path: its outputs are floats and are not compared with
// ours, only checked for shape and finiteness.
//
// Its weights are the case's integer weights at a trained network's scale,
// so that activations stay near 1 through every layer with no clamp:
// a conv's weights w·√(3/fan)/128 (i8 values have variance about 128²/3,
// fan is the terms of one output sum), igdn's γ[i][j]/(16·C) and β = 1,
// computed as x·√(β + γ·x²) as the float codec does; the input is x/128.
type twin struct {
	Case   string       `json:"case"`
	In     tensor.Shape `json:"in"`
	Out    tensor.Shape `json:"out"`
	Layers []twinLayer  `json:"layers"`
	// X is the input, C×H×W.
	X []float32 `json:"-"`
}

// twinLayer is one layer. Op is "conv_transpose", "conv", "igdn" or
// "relu". W is a conv's weights (ONNX's and PyTorch's layouts, which are
// WHG1's: conv [cout][cin/groups][kh][kw], conv_transpose
// [cin][cout][kh][kw]) or igdn's γ[C][C]; B is igdn's β (convs have none:
// the cases' rq has no bias).
type twinLayer struct {
	Op     string    `json:"op"`
	Cin    int       `json:"cin"`
	Cout   int       `json:"cout"`
	K      [2]int    `json:"k,omitzero"`
	Stride [2]int    `json:"stride,omitzero"`
	Pad    [2]int    `json:"pad,omitzero"`
	OutPad [2]int    `json:"out_pad,omitzero"`
	Groups int       `json:"groups,omitempty"`
	W      []float32 `json:"-"`
	B      []float32 `json:"-"`
	// WOff and BOff are W's and B's offsets, in floats, in the .f32 file
	// that writeFiles puts beside the description (the input is at 0).
	WOff int `json:"w_off,omitempty"`
	BOff int `json:"b_off,omitempty"`
}

// twinOf builds c's float twin from its graph, whose ops must be a chain
// of conv, conv_transpose, igdn, relu and clamp (clamp has no float
// counterpart: the float codec has none).
func twinOf(c *Case) (*twin, error) {
	g, err := whg1.Parse(c.Graph)
	if err != nil {
		return nil, err
	}
	in := c.Input[0]
	tw := &twin{Case: c.Name(), In: in.Shape, X: make([]float32, len(in.Data))}
	for i, v := range in.Data {
		tw.X[i] = float32(v) / 128
	}
	s := in.Shape
	for i, op := range g.Ops {
		var l twinLayer
		switch p := op.Params.(type) {
		case *whg1.ConvT:
			l = twinLayer{Op: "conv_transpose", Cin: s.C, Cout: int(p.Cout), K: [2]int{int(p.KH), int(p.KW)},
				Stride: [2]int{int(p.SH), int(p.SW)}, Pad: [2]int{int(p.PH), int(p.PW)}, OutPad: [2]int{int(p.OPH), int(p.OPW)}}
			l.W = scaled(p.W, s.C*int(p.KH*p.KW)/int(p.SH*p.SW))
			s = tensor.Shape{C: l.Cout, H: (s.H-1)*l.Stride[0] - 2*l.Pad[0] + l.K[0] + l.OutPad[0],
				W: (s.W-1)*l.Stride[1] - 2*l.Pad[1] + l.K[1] + l.OutPad[1]}
		case *whg1.Conv:
			l = twinLayer{Op: "conv", Cin: s.C, Cout: int(p.Cout), K: [2]int{int(p.KH), int(p.KW)},
				Stride: [2]int{int(p.SH), int(p.SW)}, Pad: [2]int{int(p.PH), int(p.PW)}, Groups: int(p.Groups)}
			l.W = scaled(p.W, s.C/l.Groups*int(p.KH*p.KW))
			s = tensor.Shape{C: l.Cout, H: (s.H+2*l.Pad[0]-l.K[0])/l.Stride[0] + 1, W: (s.W+2*l.Pad[1]-l.K[1])/l.Stride[1] + 1}
		case *whg1.IGDN:
			l = twinLayer{Op: "igdn", Cin: s.C, Cout: s.C, W: make([]float32, len(p.Gamma)), B: make([]float32, s.C)}
			for j, v := range p.Gamma {
				l.W[j] = float32(v) / float32(16*s.C)
			}
			for j := range l.B {
				l.B[j] = 1
			}
		default:
			switch op.Code {
			case whg1.OpRelu:
				l = twinLayer{Op: "relu", Cin: s.C, Cout: s.C}
			case whg1.OpClamp:
				continue
			default:
				return nil, fmt.Errorf("%s: op %d (%s) has no float twin", c.Name(), i, op.Code)
			}
		}
		tw.Layers = append(tw.Layers, l)
	}
	tw.Out = s
	return tw, nil
}

// scaled is integer weights at the float twin's scale, √(3/fan)/128.
func scaled(w []int64, fan int) []float32 {
	k := math.Sqrt(3/float64(fan)) / 128
	out := make([]float32, len(w))
	for i, v := range w {
		out[i] = float32(float64(v) * k)
	}
	return out
}

// writeFiles writes the twin for scripts/torch_peer.py as DIR/<case>.net.json
// (the description, offsets filled in) and DIR/<case>.net.f32 (little-endian
// float32: the input, then each layer's W and B).
func (tw *twin) writeFiles(dir string, runs int) error {
	var blob []byte
	put := func(v []float32) int {
		off := len(blob) / 4
		for _, f := range v {
			blob = binary.LittleEndian.AppendUint32(blob, math.Float32bits(f))
		}
		return off
	}
	put(tw.X)
	for i := range tw.Layers {
		l := &tw.Layers[i]
		if l.W != nil {
			l.WOff = put(l.W)
		}
		if l.B != nil {
			l.BOff = put(l.B)
		}
	}
	desc, err := json.MarshalIndent(struct {
		*twin
		Runs int `json:"runs"`
	}{tw, runs}, "", " ")
	if err != nil {
		return err
	}
	base := filepath.Join(dir, tw.Case+".net")
	if err := os.WriteFile(base+".json", append(desc, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(base+".f32", blob, 0o644)
}
