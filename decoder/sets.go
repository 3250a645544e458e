package decoder

import (
	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/plan"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// Tensor is a graph's input or output (integer-operators §3): a shape [C,
// H, W] and its values, row-major, as exact integers.
type Tensor = tensor.T

// Shape is a tensor's [C, H, W].
type Shape = tensor.Shape

// Synth is a loaded wai.neural.int_synth set (int_synth/1, §13.1).
type Synth struct {
	s *drivers.SynthSet
	h *held
}

// LoadSynth loads an int_synth.json set: §13.1's load checks and the
// certificate at acc64. Every refusal is payload_malformed (§4).
func (d *Decoder) LoadSynth(set []byte) (*Synth, error) {
	h := d.newHeld()
	s, err := drivers.LoadSynth(h, set)
	if err != nil {
		h.release()
		return nil, err
	}
	return track(&Synth{s: s, h: h}, h), nil
}

// graph is the set's synth graph, as loaded.
func (s *Synth) graph() *plan.Graph { return s.h.graph(0) }

// Fabric is the fabric that decodes the set now.
func (s *Synth) Fabric() fabric.Choice { return fabricOf(s.graph()) }

// Certificate is the set's bounds certificate, canonical JSON (§8.5).
func (s *Synth) Certificate() []byte { return s.s.Set().Certificate }

// Decode decodes one payload (the latents) to its picture. It is safe
// to call from several goroutines. Every refusal is payload_malformed.
func (s *Synth) Decode(payload []byte) (*Frame, error) {
	if err := s.h.live(); err != nil {
		return nil, err
	}
	if s.Fabric() == fabric.GPU {
		var f *Frame
		err := s.s.DecodeWith(payload, func(r *whg1.Planned) error {
			var err error
			f, err = bytesFrame(s.graph(), r)
			return err
		})
		if !fallBack(err) {
			return f, err
		}
	}
	t, err := s.s.Decode(payload)
	if err != nil {
		return nil, err
	}
	return frameOf(t)
}

// Close lets go of the set's graphs: the Decoder may then evict them, and
// the set decodes no more (fabric.ErrClosed). A set that is no longer
// reachable is closed for you.
func (s *Synth) Close() error { s.h.release(); return nil }

// World is a loaded wai.world.model pair (world/1, §13.5, informative):
// the transition T and the synthesis g_s.
type World struct {
	w *drivers.WorldSet
	h *held // T, then g_s
}

// LoadWorld loads the WHM1 networks T and g_s: world/1's load checks and
// the certificate.
func (d *Decoder) LoadWorld(t, gs []byte) (*World, error) {
	h := d.newHeld()
	w, err := drivers.LoadWorld(h, t, gs)
	if err != nil {
		h.release()
		return nil, err
	}
	return track(&World{w: w, h: h}, h), nil
}

// Fabric is the fabric that runs the synthesis g_s, which makes the
// frames; TransitionFabric is T's (the two differ when only one meets
// acc32 under Auto).
func (w *World) Fabric() fabric.Choice { return fabricOf(w.h.graph(1)) }

// TransitionFabric is the fabric that runs the transition T.
func (w *World) TransitionFabric() fabric.Choice { return fabricOf(w.h.graph(0)) }

// Actions is the number of entries in every action row (A, §13.5).
func (w *World) Actions() int { return w.w.Actions() }

// CheckRows checks action rows as Render does before its first frame:
// every row has Actions() entries (model_mismatch), and each move's plane
// value fits i64 (field_range).
func (w *World) CheckRows(rows [][]int64) error {
	_, err := w.w.Planes(rows)
	return err
}

// Certificate is the pair's bounds certificate, canonical JSON (§8.5).
func (w *World) Certificate() []byte { return w.w.Set().Certificate }

// Close lets go of the pair's graphs, as Synth.Close does.
func (w *World) Close() error { w.h.release(); return nil }

// Render renders a whole clip: frame 0 from z0, then one frame per action
// row. Every row is checked before the first frame, and a refusal returns
// no frames. Several clips may render at once.
func (w *World) Render(z0 *Tensor, rows [][]int64) ([]*Frame, error) {
	if err := w.h.live(); err != nil {
		return nil, err
	}
	ts, err := w.w.Render(z0, rows)
	if err != nil {
		return nil, err
	}
	out := make([]*Frame, len(ts))
	for i, t := range ts {
		if out[i], err = frameOf(t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Start begins a clip at z0 and renders its frame 0: a sequence whose state
// is the latent, stepped one action row at a time (Clip.Step).
func (w *World) Start(z0 *Tensor) (*Clip, error) {
	if err := w.h.live(); err != nil {
		return nil, err
	}
	c, err := w.w.Start(z0)
	if err != nil {
		return nil, err
	}
	f, err := frameOf(c.Frame())
	if err != nil {
		return nil, err
	}
	return &Clip{w: w, c: c, f: f}, nil
}

// Clip is one world/1 run in progress. It carries its latent from step to
// step, so it is used from one goroutine at a time.
type Clip struct {
	w *World
	c *drivers.Clip
	f *Frame
}

// Frame is the clip's current frame.
func (c *Clip) Frame() *Frame { return c.f }

// Step applies one action row of moves (A entries): the latent moves on by
// T and the next frame is rendered. A refused row leaves the clip where
// it was.
func (c *Clip) Step(row []int64) (*Frame, error) {
	if err := c.w.h.live(); err != nil {
		return nil, err
	}
	planes, err := c.w.w.Planes([][]int64{row})
	if err != nil {
		return nil, err
	}
	t, err := c.c.Step(planes[0])
	if err != nil {
		return nil, err
	}
	if c.f, err = frameOf(t); err != nil {
		return nil, err
	}
	return c.f, nil
}

// ParseLatent reads a world/1 latent z_0, a §14.1 tensor [C, lat, lat] in
// JSON, with the reference renderer's refusal codes (§13.5).
func ParseLatent(b []byte) (*Tensor, error) { return drivers.ParseLatent(b) }

// ParseRows reads world/1 action rows: a JSON array of rows of moves.
func ParseRows(b []byte) ([][]int64, error) { return drivers.ParseRows(b) }

// File is one file of a parameter set, by the name its lowering knows it
// by (int_synth.json, g_s.whm, model.wam, …) and its bytes.
type File struct {
	Name string
	Data []byte
}

// Lowering names a §13 lowering: the way a capability's parameter set
// becomes WHG1 graphs.
type Lowering string

// The lowerings Load takes (integer-operators §13), by their identifiers.
const (
	IntSynth  Lowering = "int_synth/1"  // §13.1: int_synth.json
	WHM1      Lowering = "whm1/1"       // §13.2: WHM1 networks
	WAM1      Lowering = "wam1/1"       // §13.3: an audio network
	WMB1      Lowering = "wmb1/1"       // §13.4: a WMB1 bundle
	WorldPair Lowering = "world/1"      // §13.5: T.whm and g_s.whm
	JPEGAIInt Lowering = "jpegai-int/1" // §13.6: the scale path's members
)

// LoadOptions are what a lowering may need beside the set's files.
type LoadOptions struct {
	// Capability names the set's capability where the lowering serves
	// several (whm1/1: wai.neural.splat, wai.neural.int_hyper, ...); ""
	// where it serves one.
	Capability string
}

// Set is a parameter set lowered to WHG1 graphs by any §13 lowering,
// certified, and loaded graph by graph: the way in for capabilities with
// no typed entry here (whm1/1, wam1/1, wmb1/1, jpegai-int/1), whose driver
// steps (entropy decodes, layouts) the caller does.
type Set struct {
	set    *drivers.Set
	h      *held
	graphs map[string]*Graph
}

// Load lowers files by l, checks the certificate (every §13 lowering
// requires acc64), and loads every graph.
func (d *Decoder) Load(l Lowering, opts LoadOptions, files ...File) (*Set, error) {
	var capability *string
	if opts.Capability != "" {
		capability = &opts.Capability
	}
	in := make([]drivers.File, len(files))
	for i, f := range files {
		in[i] = drivers.File{Name: f.Name, Data: f.Data}
	}
	set, err := drivers.Lower(string(l), capability, in)
	if err != nil {
		return nil, err
	}
	h := d.newHeld()
	s := &Set{set: set, h: h, graphs: map[string]*Graph{}}
	for i, r := range set.Roles {
		if _, err := set.Load(h, r.Name); err != nil {
			h.release()
			return nil, err
		}
		s.graphs[r.Name] = &Graph{g: h.graph(i), h: h}
	}
	return track(s, h), nil
}

// Roles names the set's graphs in §13.0's order.
func (s *Set) Roles() []string {
	out := make([]string, len(s.set.Roles))
	for i, r := range s.set.Roles {
		out[i] = r.Name
	}
	return out
}

// Certificate is the set's bounds certificate, canonical JSON (§8.5).
func (s *Set) Certificate() []byte { return s.set.Certificate }

// Graph returns the loaded graph of a role, or nil when the set has none.
func (s *Set) Graph(role string) *Graph { return s.graphs[role] }

// Close lets go of the set's graphs, as Synth.Close does.
func (s *Set) Close() error { s.h.release(); return nil }

// Graph is one loaded WHG1 graph of a Set.
type Graph struct {
	g *plan.Graph
	h *held
}

// Fabric is the fabric that runs the graph now.
func (g *Graph) Fabric() fabric.Choice { return fabricOf(g.g) }

// Route is where Auto measured the graph to run for its last decode's
// input size ("gpu (2.3× cpu)"), or "" where it did not measure (one
// fabric runs the graph: see Fabric).
func (g *Graph) Route() string { return g.g.Route() }

// Decode runs one decode (§4): every data input in input-table order, and
// the scalars. It carries no state, and is safe from several goroutines.
func (g *Graph) Decode(inputs []*Tensor, scalars []int64) ([]*Tensor, error) {
	if err := g.h.live(); err != nil {
		return nil, err
	}
	return g.g.Decode(inputs, scalars)
}

// Sequence starts a run of decodes that carries the graph's state inputs
// from decode to decode (§10.3); use one sequence from one goroutine.
func (g *Graph) Sequence() *Sequence { return &Sequence{g.g.Sequence(), g.h} }

// Sequence is a run of decodes of one graph that carries its state.
type Sequence struct {
	s *whg1.Sequence
	h *held
}

// Decode runs the sequence's next decode: inputs are the graph's data
// inputs in input-table order; each state input is its init before the
// first completed decode and a copy of its source output after one
// (§10.3). A refused decode changes no state.
func (s *Sequence) Decode(inputs []*Tensor, scalars []int64) ([]*Tensor, error) {
	if err := s.h.live(); err != nil {
		return nil, err
	}
	return s.s.Decode(inputs, scalars)
}
