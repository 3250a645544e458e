package decoder

import (
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/whg1"
)

// DecodeOnDevice decodes one payload and leaves the picture on the GL
// device (Frame.OnDevice). A set that does not run on the GL fabric gives
// fabric.ErrNotOnDevice: decode it with Decode.
func (s *Synth) DecodeOnDevice(payload []byte) (*Frame, error) {
	if err := s.h.live(); err != nil {
		return nil, err
	}
	var f *gpu.Frame
	err := s.s.DecodeWith(payload, func(r *whg1.Planned) error {
		var err error
		f, err = s.graph().DecodeFrame(r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &Frame{w: f.W, h: f.H, dev: f}, nil
}
