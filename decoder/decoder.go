// Package decoder is the way into waiops for an application that decodes
// registered parameter sets: a desktop player, a thumbnailer, a server
// that turns payloads into pictures or sound. Open a Decoder once, load
// each set once (its §13 lowering and its certificate are checked at
// load), decode as often as needed from as many goroutines as needed, and
// Close it at the end.
//
//	d, err := decoder.Open(decoder.Options{Fabric: decoder.Auto})
//	...
//	defer d.Close()
//	s, err := d.LoadSynth(setJSON)        // wai.neural.int_synth (§13.1)
//	f, err := s.Decode(payload)           // a *Frame: an image.Image
//	png.Encode(w, f)
//
// Frames are image.Image values with their RGB8 bytes at hand (Frame.RGB);
// PCM gives an audio graph's samples as bytes. Every refusal that the
// specification defines is a *refusal.Error, so a caller tells a refused
// input from a failure with errors.As and reads its Code.
//
// Who should not use it: tools that run bare WHG1 graphs or compare
// fabrics (conformance, benchmarks) should use package plan, or a fabric
// (cpuref, gpu) directly; code that only lowers or certifies sets, without
// decoding, should use package drivers.
package decoder

import (
	"fmt"

	"github.com/waiops/waiops/drivers"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/plan"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// Fabric is where a Decoder runs the graphs of the sets it loads.
type Fabric string

// The fabrics Options.Fabric takes.
const (
	// Auto runs each graph whose certificate meets acc32 on a hardware GL
	// device when there is one, and everything else on the CPU reference.
	// It does not use a software rasteriser (llvmpipe), which the CPU
	// reference outruns; Decoder.Note says so when that is why.
	Auto Fabric = "auto"
	// CPU runs everything on the exact CPU reference (acc64).
	CPU Fabric = "cpu"
	// GPU runs everything on the GL compute fabric (acc32), a software
	// rasteriser included; a set whose certificate does not meet acc32 is
	// refused at load (model_mismatch).
	GPU Fabric = "gpu"
	// Hybrid runs acc32 runs of each graph's nodes on the GL fabric and the
	// rest on the CPU reference.
	Hybrid Fabric = "hybrid"
)

// Options are a Decoder's settings.
type Options struct {
	// Fabric is where graphs run; "" is Auto.
	Fabric Fabric
	// MaxGraphs is how many loaded graphs the Decoder keeps
	// (plan.DefaultMaxGraphs when 0). Loading one more releases the least
	// recently loaded; a set that held it then decodes to plan.ErrClosed
	// and must be loaded again.
	MaxGraphs int
}

// Decoder holds the fabrics and every graph its sets load. It is safe for
// use from several goroutines.
type Decoder struct {
	sess *plan.Session
	load drivers.Loader
}

// Open opens the fabrics opts.Fabric needs. Under Auto a missing or
// software GL device is no error: the Decoder runs on the CPU and Note
// says why. Under GPU or Hybrid a missing GL context is an error.
func Open(opts Options) (*Decoder, error) {
	f := opts.Fabric
	if f == "" {
		f = Auto
	}
	choice, err := plan.ParseChoice(string(f))
	if err != nil {
		return nil, fmt.Errorf("decoder: %w", err)
	}
	sess, err := plan.NewSession(choice)
	if err != nil {
		return nil, err
	}
	sess.MaxGraphs = opts.MaxGraphs
	d := &Decoder{sess: sess}
	d.load = func(b []byte) (whg1.Decoder, *whg1.Graph, string, error) {
		g, err := sess.Load(b)
		if err != nil {
			return nil, nil, "", err
		}
		return g, g.Model, g.Fabric().Name(), nil
	}
	return d, nil
}

// Note says why the Decoder does not use a GL device that its fabric
// choice might have used (none present, a software rasteriser under
// Auto), or "" when there is nothing to say.
func (d *Decoder) Note() string { return d.sess.Note() }

// Close releases every graph the Decoder loaded, on the GL device too.
// Decodes after Close return plan.ErrClosed.
func (d *Decoder) Close() error { return d.sess.Close() }

// Synth is a loaded wai.neural.int_synth set (int_synth/1, §13.1).
type Synth struct {
	s *drivers.SynthSet
	g *plan.Graph // its synth graph, for DecodeOnDevice
}

// LoadSynth loads an int_synth.json set: §13.1's load checks and the
// certificate at acc64. Every refusal is payload_malformed (§4).
func (d *Decoder) LoadSynth(set []byte) (*Synth, error) {
	s, err := drivers.LoadSynth(d.load, set)
	if err != nil {
		return nil, err
	}
	g, err := d.sess.Load(s.Set().Graph("synth")) // the graph drivers loaded, from the session's cache
	if err != nil {
		return nil, err
	}
	return &Synth{s, g}, nil
}

// Fabric names the fabric that decodes the set: "cpu", "gpu" or "hybrid".
func (s *Synth) Fabric() string { return s.s.Fabric }

// Certificate is the set's bounds certificate, canonical JSON (§8.5).
func (s *Synth) Certificate() []byte { return s.s.Set().Certificate }

// Decode decodes one payload (the latents) to its picture. It is safe
// to call from several goroutines. Every refusal is payload_malformed.
func (s *Synth) Decode(payload []byte) (*Frame, error) {
	f, err := s.s.Decode(payload)
	if err != nil {
		return nil, err
	}
	return &Frame{f}, nil
}

// DecodeOnDevice decodes one payload and leaves the picture on the GL
// device, for a gpu.Window to show (Window.ShowFrame) with no trip through
// host memory; the caller closes the frame. A set that does not run on the
// GL fabric gives plan.ErrNotOnDevice: decode it with Decode.
func (s *Synth) DecodeOnDevice(payload []byte) (*gpu.Frame, error) {
	var f *gpu.Frame
	err := s.s.DecodeWith(payload, func(z *tensor.T) error {
		var err error
		f, err = s.g.DecodeFrame([]*tensor.T{z}, nil)
		return err
	})
	return f, err
}

// World is a loaded wai.world.model pair (world/1, §13.5, informative):
// the transition T and the synthesis g_s.
type World struct{ w *drivers.WorldSet }

// LoadWorld loads the WHM1 networks T and g_s: world/1's load checks and
// the certificate.
func (d *Decoder) LoadWorld(t, gs []byte) (*World, error) {
	w, err := drivers.LoadWorld(d.load, t, gs)
	if err != nil {
		return nil, err
	}
	return &World{w}, nil
}

// Fabric names the fabric that runs both graphs, or each in turn.
func (w *World) Fabric() string { return w.w.Fabric }

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

// Render renders a whole clip: frame 0 from z0, then one frame per action
// row. Every row is checked before the first frame, and a refusal returns
// no frames. Several clips may render at once.
func (w *World) Render(z0 *tensor.T, rows [][]int64) ([]*Frame, error) {
	fs, err := w.w.Render(z0, rows)
	if err != nil {
		return nil, err
	}
	out := make([]*Frame, len(fs))
	for i := range fs {
		out[i] = &Frame{fs[i]}
	}
	return out, nil
}

// Start begins a clip at z0 and renders its frame 0: a sequence whose state
// is the latent, stepped one action row at a time (Clip.Step).
func (w *World) Start(z0 *tensor.T) (*Clip, error) {
	c, err := w.w.Start(z0)
	if err != nil {
		return nil, err
	}
	return &Clip{w: w, c: c}, nil
}

// Clip is one world/1 run in progress. It carries its latent from step to
// step, so it is used from one goroutine at a time.
type Clip struct {
	w *World
	c *drivers.Clip
}

// Frame is the clip's current frame.
func (c *Clip) Frame() *Frame { return &Frame{c.c.Frame()} }

// Step applies one action row of moves (A entries): the latent moves on by
// T and the next frame is rendered. A refused row leaves the clip where
// it was.
func (c *Clip) Step(row []int64) (*Frame, error) {
	planes, err := c.w.w.Planes([][]int64{row})
	if err != nil {
		return nil, err
	}
	f, err := c.c.Step(planes[0])
	if err != nil {
		return nil, err
	}
	return &Frame{f}, nil
}

// ParseLatent reads a world/1 latent z_0, a §14.1 tensor [C, lat, lat] in
// JSON, with the reference renderer's refusal codes (§13.5).
func ParseLatent(b []byte) (*tensor.T, error) { return drivers.ParseLatent(b) }

// ParseRows reads world/1 action rows: a JSON array of rows of moves.
func ParseRows(b []byte) ([][]int64, error) { return drivers.ParseRows(b) }

// File is one file of a parameter set, by the name its lowering knows it
// by (int_synth.json, g_s.whm, model.wam, …) and its bytes.
type File = drivers.File

// Set is a parameter set lowered to WHG1 graphs by any §13 lowering,
// certified, and loaded graph by graph: the way in for capabilities with
// no typed entry here (whm1/1, wam1/1, wmb1/1, jpegai-int/1), whose driver
// steps (entropy decodes, layouts) the caller does.
type Set struct {
	set    *drivers.Set
	graphs map[string]*Graph
}

// Load lowers files by lowering (one of drivers.Lowerings: "int_synth/1",
// "whm1/1", "wam1/1", "wmb1/1", "world/1", "jpegai-int/1"), checks the
// certificate (every §13 lowering requires acc64), and loads every graph.
// capability names the set's capability where the lowering serves several
// (whm1/1), else nil.
func (d *Decoder) Load(lowering string, capability *string, files ...File) (*Set, error) {
	set, err := drivers.Lower(lowering, capability, files)
	if err != nil {
		return nil, err
	}
	s := &Set{set: set, graphs: map[string]*Graph{}}
	for _, r := range set.Roles {
		g, err := d.sess.Load(r.Bytes)
		if err != nil {
			return nil, err
		}
		s.graphs[r.Name] = &Graph{g}
	}
	return s, nil
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

// Graph is one loaded WHG1 graph.
type Graph struct{ g *plan.Graph }

// Fabric names the fabric that runs the graph.
func (g *Graph) Fabric() string { return g.g.Fabric().Name() }

// Decode runs one decode (§4): every input in input-table order, and the
// scalars. It carries no state, and is safe from several goroutines.
func (g *Graph) Decode(inputs []*tensor.T, scalars []int64) ([]*tensor.T, error) {
	return g.g.Decode(inputs, scalars)
}

// Sequence starts a run of decodes that carries the graph's state inputs
// from decode to decode (§10.3); use one sequence from one goroutine.
func (g *Graph) Sequence() *whg1.Sequence { return g.g.Sequence() }

// PCM lays out an audio graph's output (wam1/1's PCM step, §13.3: [1, 1,
// T] values in [−32768, 32767]) as 16-bit little-endian samples.
func PCM(t *tensor.T) ([]byte, error) {
	if t.Shape.C != 1 || t.Shape.H != 1 {
		return nil, refusal.New(refusal.ModelMismatch, "an audio output is [1, 1, T], not %v", t.Shape)
	}
	out := make([]byte, 2*len(t.Data))
	for i, v := range t.Data {
		if v < -32768 || v > 32767 {
			return nil, fmt.Errorf("decoder: sample %d = %d is not 16-bit: the graph lacks its PCM step", i, v)
		}
		out[2*i], out[2*i+1] = byte(v), byte(v>>8)
	}
	return out, nil
}

// ScaleSegments and ScalePlane are wai.image.jpegai's scale-path inputs
// and outputs (jpegai-int/1, §13.6.1).
type (
	ScaleSegments = drivers.ScaleSegments
	ScalePlane    = drivers.ScalePlane
)

// DecodeJPEGAIScale loads the jpegai-int/1 bundle members hs_y.json,
// hs_uv.json and norm.json and runs the scale path and its two entropy
// decodes on seg (§13.6.1), for the y and uv planes. It returns the fabric
// that ran.
func (d *Decoder) DecodeJPEGAIScale(hsY, hsUV, norm []byte, seg ScaleSegments) (y, uv *ScalePlane, fabric string, err error) {
	return drivers.DecodeScale(d.load, hsY, hsUV, norm, seg)
}

// ParseGRFS reads the jpegai scale path's flags, {"y": [160 flags], "uv":
// [96 flags]} with each flag true/false or 0/1.
func ParseGRFS(b []byte) (y, uv []bool, err error) { return drivers.ParseGRFS(b) }
