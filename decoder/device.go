package decoder

import (
	"errors"

	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/plan"
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

// bytesFrame decodes r on g's GL fabric to a host frame whose values cross
// from the device one byte each (plan.Graph.DecodeBytes), never widened
// to int64 on the host.
func bytesFrame(g *plan.Graph, r *whg1.Planned) (*Frame, error) {
	s, planes, err := g.DecodeBytes(r)
	if err != nil {
		return nil, err
	}
	return frameOfBytes(s, planes)
}

// fallBack reports whether a bytes decode declined (the graph is not on
// the GL device, or its output is not a tensor of bytes), having decoded
// nothing: the caller decodes through the graph's int64 outputs instead.
func fallBack(err error) bool {
	return errors.Is(err, fabric.ErrNotOnDevice) || errors.Is(err, gpu.ErrNotBytes)
}
