package decoder

import (
	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
)

// Imported is a graph `waiops import` wrote from an ONNX model: one WHG1
// graph whose one data input is the latents and whose first output is the
// decoded tensor, a picture as 8-bit samples when it has 3 channels.
type Imported struct {
	g    *Graph
	cert *certify.Certificate
}

// LoadImported loads an imported graph: the load checks (§10.5) and its
// certificate, computed here from the graph's bytes; the fabric is chosen
// as for every other set (an acc32 graph may run on the GL fabric).
func (d *Decoder) LoadImported(graph []byte) (*Imported, error) {
	g, cert, err := certify.Graph(graph)
	if err != nil {
		return nil, err
	}
	if len(g.Inputs) != 1 || len(g.Scalars) != 0 {
		return nil, refusal.New(refusal.ModelMismatch, "an imported graph has one input (the latents) and no scalars; this one has %d and %d",
			len(g.Inputs), len(g.Scalars))
	}
	h := d.newHeld()
	if _, err := h.LoadCertified(g, cert); err != nil {
		h.release()
		return nil, err
	}
	return track(&Imported{g: &Graph{g: h.graph(0), h: h}, cert: cert}, h), nil
}

// Fabric is the fabric that decodes the graph now.
func (m *Imported) Fabric() fabric.Choice { return m.g.Fabric() }

// Certificate is the graph's bounds certificate (§8.5), as a one-graph set
// certified on its own.
func (m *Imported) Certificate() []byte { return m.cert.Bytes() }

// Decode decodes one latent tensor [C, H, W] to the graph's first output.
// It is safe to call from several goroutines.
func (m *Imported) Decode(latent *Tensor) (*Tensor, error) {
	out, err := m.g.Decode([]*tensor.T{latent}, nil)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// DecodeImage decodes one latent tensor to a picture (an image.Image): the
// graph's first output must have 3 channels of 8-bit samples, which
// `waiops import` writes for a 3-channel output.
func (m *Imported) DecodeImage(latent *Tensor) (*Frame, error) {
	if err := m.g.h.live(); err != nil {
		return nil, err
	}
	r, err := m.g.g.Model.PlanData([]*tensor.T{latent}, nil)
	if err != nil {
		return nil, err
	}
	if m.g.Fabric() == fabric.GPU {
		if f, err := bytesFrame(m.g.g, r); !fallBack(err) {
			return f, err
		}
	}
	out, err := m.g.g.DecodePlanned(r)
	if err != nil {
		return nil, err
	}
	return frameOf(out[0])
}

// Close lets go of the graph, as Synth.Close does.
func (m *Imported) Close() error { m.g.h.release(); return nil }
