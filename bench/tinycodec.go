package bench

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/waiops/waiops/examples/tinycodec"
	"github.com/waiops/waiops/importer"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// The imported network: examples/tinycodec's synthesis transform (ConvT
// 5×5/2 32→48, IGDN, ConvT 48→48, IGDN, ConvT 48→3), brought in from its
// ONNX by the importer when the cases are made, as a team would bring in
// its own codec. Its float peer runs that same ONNX, not a float twin.

// tinycodecOp is the imported network's family.
const tinycodecOp = "tinycodec"

// floatModel is the float model an imported case came from: the ONNX the
// float peer runs, and how that model's output reads against ours.
type floatModel struct {
	ONNX []byte
	Out  importer.OutputInfo
}

// tinycodecCases imports the example's synthesis.onnx with the import's
// defaults (importer.Defaults: i16 activations and weights, acc32),
// calibrated on its calib/ latents, and makes a case of each held-out
// latent (32×32: a 256×256 picture), tagged with its picture's name. A
// crop above 0 keeps each latent's top-left crop×crop corner.
func tinycodecCases(crop int) ([]*Case, error) {
	model, err := fs.ReadFile(tinycodec.Files, "synthesis.onnx")
	if err != nil {
		return nil, err
	}
	cal, err := importer.ReadLatentsFS(tinycodec.Files, "calib")
	if err != nil {
		return nil, err
	}
	held, err := importer.ReadLatentsFS(tinycodec.Files, "heldout")
	if err != nil {
		return nil, err
	}
	r, err := importer.Import(model, cal, importer.Defaults)
	if err != nil {
		return nil, fmt.Errorf("importing examples/tinycodec/synthesis.onnx: %w", err)
	}
	var cs []*Case
	for _, h := range held {
		in := h.T
		if crop > 0 {
			in = corner(in, crop)
		}
		macs, err := convMACs(r.Graph, in)
		if err != nil {
			return nil, err
		}
		cs = append(cs, &Case{Op: tinycodecOp, Size: in.Shape.H, Tag: strings.TrimSuffix(h.Name, ".npy"),
			Graph: r.Graph, Input: []*tensor.T{in}, Work: macs, Unit: "MAC",
			Float: &floatModel{ONNX: model, Out: r.Outputs[0]}})
	}
	return cs, nil
}

// corner is t's top-left n×n (at most t's own sides), every channel.
func corner(t *tensor.T, n int) *tensor.T {
	h, w := min(n, t.Shape.H), min(n, t.Shape.W)
	c := tensor.New(tensor.Shape{C: t.Shape.C, H: h, W: w})
	for ch := range t.Shape.C {
		for y := range h {
			copy(c.Data[(ch*h+y)*w:][:w], t.Data[(ch*t.Shape.H+y)*t.Shape.W:][:w])
		}
	}
	return c
}

// convMACs is the multiply-accumulates of graph's conv and conv_transpose
// ops on input in, counted as bmshj2018's are (igdn's are left out): a
// conv's (cin/groups)·kh·kw per output element, a conv_transpose's
// cout·kh·kw per input element.
func convMACs(graph []byte, in *tensor.T) (int64, error) {
	g, err := whg1.Parse(graph)
	if err != nil {
		return 0, err
	}
	pl, err := g.PlanInputs([]*tensor.T{in}, nil)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, op := range g.Ops {
		switch p := op.Params.(type) {
		case *whg1.Conv:
			cin := pl.Shapes[op.In[0]].C
			n += int64(pl.Shapes[op.Out[0]].Elems()) * int64(cin/int(p.Groups)) * int64(p.KH*p.KW)
		case *whg1.ConvT:
			n += int64(pl.Shapes[op.In[0]].Elems()) * int64(p.Cout*p.KH*p.KW)
		}
	}
	return n, nil
}
