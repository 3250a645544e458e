package plan

import (
	"github.com/waiops/waiops/fabric"
	"github.com/waiops/waiops/gpu"
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
func (g *Graph) DecodeFrame(r *whg1.Planned) (*gpu.Frame, error) {
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
	return f.DecodeFramePlanned(r)
}
