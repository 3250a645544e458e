package decoder

import (
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/internal/devframe"
	"github.com/waiops/waiops/tensor"
)

// DeviceFrame is a decoded picture left on the GL device, for a window to
// show with no trip through host memory; Frame reads it back. Close it
// when done: it holds device memory.
type DeviceFrame struct{ f *gpu.Frame }

func init() {
	devframe.Of = func(v any) *gpu.Frame {
		if f, ok := v.(*DeviceFrame); ok {
			return f.f
		}
		return nil
	}
}

// Width and Height are the frame's size in pixels.
func (f *DeviceFrame) Width() int  { return f.f.W }
func (f *DeviceFrame) Height() int { return f.f.H }

// Frame reads the picture back to host memory.
func (f *DeviceFrame) Frame() (*Frame, error) {
	rgb, err := f.f.RGB()
	if err != nil {
		return nil, own(err)
	}
	return FrameOf(f.f.W, f.f.H, rgb)
}

// Close releases the frame's device memory.
func (f *DeviceFrame) Close() error { return own(f.f.Close()) }

// DecodeOnDevice decodes one payload and leaves the picture on the GL
// device. A set that does not run on the GL fabric gives ErrNotOnDevice:
// decode it with Decode.
func (s *Synth) DecodeOnDevice(payload []byte) (*DeviceFrame, error) {
	if err := s.h.live(); err != nil {
		return nil, err
	}
	var f *gpu.Frame
	err := s.s.DecodeWith(payload, func(z *tensor.T) error {
		var err error
		f, err = s.g.DecodeFrame([]*tensor.T{z}, nil)
		return err
	})
	if err != nil {
		return nil, own(err)
	}
	return &DeviceFrame{f}, nil
}
