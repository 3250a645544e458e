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
// input from a failure with errors.As and reads its Code; the Decoder's
// own conditions are ErrClosed, ErrNotOnDevice and ErrLost (errors.Is).
//
// A loaded set keeps its graphs loaded for as long as it is held (until
// its Close, or until nothing refers to it): Options.MaxGraphs bounds only
// the graphs no set holds. Under Auto a GPU that is lost mid-run (a reset,
// a lost display) is answered by moving every set to the CPU reference;
// Note says when that happened. The whole package builds and decodes
// without cgo (CGO_ENABLED=0): Auto then runs on the CPU reference.
//
// Who should not use it: tools that run bare WHG1 graphs or compare
// fabrics (conformance, benchmarks) should use package plan, or a fabric
// (cpuref, gpu) directly; code that only lowers or certifies sets, without
// decoding, should use package drivers.
package decoder

import (
	"errors"
	"fmt"

	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/plan"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
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
	// MaxGraphs is how many graphs the Decoder keeps loaded that no live
	// set holds (DefaultMaxGraphs when 0), least recently used first to go.
	// A loaded set holds its graphs until its Close, or until it is no
	// longer reachable: they are never evicted under it.
	MaxGraphs int
	// SoftwareGL lets Auto run acc32 graphs on a GL device whose renderer
	// is a software rasteriser (llvmpipe), which Auto otherwise leaves for
	// the faster CPU reference. It is for testing the GL path.
	SoftwareGL bool
}

// DefaultMaxGraphs is the MaxGraphs a zero Options takes.
const DefaultMaxGraphs = plan.DefaultMaxGraphs

// The errors a Decoder returns beside the specification's refusals (each
// a *refusal.Error). Match them with errors.Is.
var (
	// ErrClosed: the Decoder is closed, or the set was closed.
	ErrClosed = errors.New("decoder: closed (open the decoder and load the set again)")
	// ErrNotOnDevice: DecodeOnDevice of a set that does not run on the GL
	// fabric; decode it with Decode.
	ErrNotOnDevice = errors.New("decoder: the set does not run on the GL fabric")
	// ErrLost: the GL context is gone (a GPU reset, a lost display). Under
	// Auto the Decoder answers a loss itself by moving its sets to the CPU
	// reference (Note says so); under GPU or Hybrid the loss is the answer.
	ErrLost = errors.New("decoder: the GL context is lost")
)

// mapped is an error of another package under one of ours: it reads as
// the original, is one of ours to errors.Is, and unwraps to the original
// (so errors.As still finds a *refusal.Error beneath).
type mapped struct{ ours, err error }

func (m mapped) Error() string        { return m.err.Error() }
func (m mapped) Is(target error) bool { return target == m.ours }
func (m mapped) Unwrap() error        { return m.err }

// own puts the errors of the packages below under the Decoder's own.
func own(err error) error {
	for _, p := range []struct{ theirs, ours error }{
		{plan.ErrClosed, ErrClosed}, {plan.ErrNotOnDevice, ErrNotOnDevice}, {gpu.ErrLost, ErrLost},
	} {
		if errors.Is(err, p.theirs) {
			return mapped{p.ours, err}
		}
	}
	return err
}

// Decoder holds the fabrics and every graph its sets load. It is safe for
// use from several goroutines.
type Decoder struct {
	sess *plan.Session
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
	sess, err := plan.NewSessionWith(choice, plan.Options{MaxGraphs: opts.MaxGraphs, SoftwareGL: opts.SoftwareGL})
	if err != nil {
		return nil, own(err)
	}
	return &Decoder{sess: sess}, nil
}

// Note says why the Decoder does not use a GL device that its fabric
// choice might have used (none present, a software rasteriser under
// Auto, a GL context lost mid-run), or "" when there is nothing to say.
func (d *Decoder) Note() string { return d.sess.Note() }

// Close releases every graph the Decoder loaded, on the GL device too.
// Decodes after Close return ErrClosed.
func (d *Decoder) Close() error { return own(d.sess.Close()) }

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
