package decoder

import (
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/tensor"
)

// DecodeOnDevice decodes one payload and leaves the picture on the GL
// device (Frame.OnDevice). A set that does not run on the GL fabric gives
// fabric.ErrNotOnDevice: decode it with Decode.
func (s *Synth) DecodeOnDevice(payload []byte) (*Frame, error) {
	if err := s.h.live(); err != nil {
		return nil, err
	}
	var f *gpu.Frame
	err := s.s.DecodeWith(payload, func(z *tensor.T) error {
		var err error
		f, err = s.graph().DecodeFrame([]*tensor.T{z}, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &Frame{w: f.W, h: f.H, dev: f}, nil
}
