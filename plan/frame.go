package plan

import (
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/tensor"
)

// framer is a decoder that can leave a frame on the GL device.
type framer interface {
	DecodeFrame(inputs []*tensor.T, scalars []int64) (*gpu.Frame, error)
}

// DecodeFrame runs one decode of a frame graph on the GL fabric and leaves
// the frame on the device (gpu.Program.DecodeFrame), for a window to show
// without a trip through host memory.
func (g *Graph) DecodeFrame(inputs []*tensor.T, scalars []int64) (*gpu.Frame, error) {
	g.s.used(g)
	d := g.current()
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return nil, fabric.ErrClosed
	}
	f, ok := d.dec.(framer)
	if !ok {
		return nil, fabric.ErrNotOnDevice
	}
	return f.DecodeFrame(inputs, scalars)
}
