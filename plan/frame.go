package plan

import (
	"errors"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// framer is a decoder that can leave a frame on the GL device.
type framer interface {
	DecodeFramePlanned(r *whg1.Planned) (*gpu.Frame, error)
}

// DecodeFrame runs one decode of a frame graph, planned by the caller on
// g.Model (whg1.Graph.PlanData), on the GL fabric and leaves the frame on
// the device (gpu.Program.DecodeFramePlanned), for a window to show
// without a trip through host memory; the decode is not planned again.
func (g *Graph) DecodeFrame(r *whg1.Planned) (f *gpu.Frame, err error) {
	err = g.onDevice(func(dec whg1.Decoder) error {
		fr, ok := dec.(framer)
		if !ok {
			return fabric.ErrNotOnDevice
		}
		f, err = fr.DecodeFramePlanned(r)
		return err
	})
	return f, err
}

// onDevice runs f on the graph's current decoder, marked used and held
// from eviction while f runs; a closed graph gives fabric.ErrClosed. When
// f meets a lost GL context and the session moves the graph off the device
// (as a Decode does), the answer is fabric.ErrNotOnDevice: nothing was
// decoded, and the graph decodes on its new fabric.
func (g *Graph) onDevice(f func(dec whg1.Decoder) error) error {
	g.s.used(g)
	d := g.current()
	err := func() error {
		d.mu.RLock()
		defer d.mu.RUnlock()
		if d.closed {
			return fabric.ErrClosed
		}
		return f(d.dec)
	}()
	if errors.Is(err, gpu.ErrLost) && g.s.reroute(g, d, err) != nil {
		return fabric.ErrNotOnDevice
	}
	return err
}

// byter is a decoder that can hand a picture's bytes back as they crossed
// from the GL device.
type byter interface {
	DecodeBytesPlanned(r *whg1.Planned) (tensor.Shape, []byte, error)
}

// DecodeBytes runs one decode, planned by the caller on g.Model, of a
// graph whose one output's certified interval lies inside [0, 255], on
// the GL fabric, and returns its values one byte each as they crossed from
// the device (gpu.Program.DecodeBytesPlanned): a picture that never passes
// through int64 on the host. A graph on another fabric gives
// fabric.ErrNotOnDevice, one with another output gpu.ErrNotBytes; neither
// decodes anything.
func (g *Graph) DecodeBytes(r *whg1.Planned) (s tensor.Shape, out []byte, err error) {
	err = g.onDevice(func(dec whg1.Decoder) error {
		b, ok := dec.(byter)
		if !ok {
			return fabric.ErrNotOnDevice
		}
		s, out, err = b.DecodeBytesPlanned(r)
		return err
	})
	return s, out, err
}
