// Package decoder is the way into waiops for an application that decodes
// registered parameter sets: a desktop player, a thumbnailer, a server
// that turns payloads into pictures or sound. Open a Decoder once, load
// each set once (its §13 lowering and its certificate are checked at
// load, each graph parsed and certified once), decode as often as needed
// from as many goroutines as needed, and Close it at the end.
//
//	d, err := decoder.Open(fabric.Options{Fabric: fabric.Auto})
//	...
//	defer d.Close()
//	s, err := d.LoadSynth(setJSON)        // wai.neural.int_synth (§13.1)
//	f, err := s.Decode(payload)           // a *Frame: an image.Image
//	png.Encode(w, f)
//
// Where graphs run is package fabric's Options: the choice (fabric.Auto,
// CPU, GPU or Hybrid), how many graphs to keep, and whether Auto may use a
// software rasteriser. Frames are image.Image values with their RGB8 bytes
// at hand (Frame.RGB), on the host or left on the GL device
// (DecodeOnDevice); PCM gives an audio graph's samples as bytes. Every
// refusal that the specification defines is a *refusal.Error, so a caller
// tells a refused input from a failure with errors.As and reads its Code;
// the other conditions are fabric.ErrClosed, fabric.ErrNotOnDevice and
// fabric.ErrLost (errors.Is).
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
// directly; code that only lowers or certifies sets, without decoding,
// should use package drivers.
package decoder

import (
	"fmt"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/plan"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
)

// Decoder holds the fabrics and every graph its sets load. It is safe for
// use from several goroutines.
type Decoder struct {
	sess *plan.Session
}

// Open opens the fabrics opts.Fabric needs. Under Auto a missing or
// software GL device is no error: the Decoder runs on the CPU and Note
// says why. Under GPU or Hybrid a missing GL context is an error.
func Open(opts fabric.Options) (*Decoder, error) {
	sess, err := plan.NewSession(opts)
	if err != nil {
		return nil, fmt.Errorf("decoder: %w", err)
	}
	return &Decoder{sess: sess}, nil
}

// Note says why the Decoder does not use a GL device that its fabric
// choice might have used (none present, a software rasteriser under
// Auto, a GL context lost mid-run), or "" when there is nothing to say.
func (d *Decoder) Note() string { return d.sess.Note() }

// Close releases every graph the Decoder loaded, on the GL device too.
// Decodes after Close return ErrClosed.
func (d *Decoder) Close() error { return d.sess.Close() }

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
