//go:build cgo

package gpu

import (
	"errors"
	"fmt"

	"github.com/go-gl/gl/v4.3-core/gl"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// Frame is a decoded picture left on the device: one 32-bit word per
// pixel, R | G<<8 | B<<16 | 0xff<<24, in one GL buffer, which is RGBA8
// bytes row by row for a pixel-unpack upload (Window.ShowFrame). It holds
// device memory until Close.
type Frame struct {
	d    *Device
	buf  *buffer
	sync uintptr // the fence after the layout, which another context waits on
	W, H int
}

// DecodeFrame runs one decode of a graph whose one output is a [3, H, W]
// frame (every value a byte: the graph ends in clamp(0, 255) or the RGB8
// step, §13.0) and lays the frame out as RGBA8 words on the device, with
// no download. A frame of more pixels than one storage binding holds is an
// error; the caller shows it through the host instead.
func (p *Program) DecodeFrame(inputs []*tensor.T, scalars []int64) (*Frame, error) {
	pl, err := p.g.PlanInputs(inputs, scalars)
	if err != nil {
		return nil, err
	}
	return p.frame(pl, inputs)
}

// DecodeFramePlanned is DecodeFrame of a decode the caller has planned on
// the program's graph (whg1.Graph.PlanData), not planned or checked again;
// one planned on another graph is planned here (as DecodePlanned).
func (p *Program) DecodeFramePlanned(r *whg1.Planned) (*Frame, error) {
	if r.Graph() != p.g {
		return p.DecodeFrame(r.Inputs(), r.Plan().Scalars)
	}
	return p.frame(r.Plan(), r.Inputs())
}

// frame is DecodeFrame of a decode planned as pl.
func (p *Program) frame(pl *whg1.Plan, inputs []*tensor.T) (*Frame, error) {
	g := p.g
	if len(g.Outputs) != 1 {
		return nil, fmt.Errorf("gpu: a frame graph has one output, this one %d", len(g.Outputs))
	}
	var f *Frame
	err := p.decodePlanned(pl, inputs, false, func(pl *whg1.Plan, vals []*buffer) error {
		s := pl.Shapes[g.Outputs[0]]
		if s.C != 3 {
			return refusal.New(refusal.ModelMismatch, "the output has %d channels, not 3", s.C)
		}
		n := s.H * s.W
		if n > 1<<p.d.lim.ChunkShift {
			return fmt.Errorf("gpu: a frame of %d pixels passes one storage binding (%d)", n, 1<<p.d.lim.ChunkShift)
		}
		out := p.d.newBuffer(n)
		if err := p.d.elementwise(kernel{shader: "rgba8", in: []*buffer{vals[g.Outputs[0]]}, out: out}, n); err != nil {
			out.free()
			return err
		}
		// The layout's writes are read next as pixels, from the window's
		// context: a barrier for this context, a fence for that one.
		gl.MemoryBarrier(gl.PIXEL_BUFFER_BARRIER_BIT)
		f = &Frame{d: p.d, buf: out, sync: gl.FenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0), W: s.W, H: s.H}
		gl.Flush()
		if err := glError("laying a frame out"); err != nil {
			f.release()
			f = nil
			return err
		}
		return nil
	})
	return f, err
}

// release frees the frame's buffer and fence, on the GL thread.
func (f *Frame) release() {
	if f.sync != 0 {
		gl.DeleteSync(f.sync)
		f.sync = 0
	}
	f.buf.free()
}

// RGB downloads the frame as row-major RGB8 bytes (to save it).
func (f *Frame) RGB() ([]byte, error) {
	var out []byte
	err := f.d.th.call(func() error {
		if f.buf == nil || len(f.buf.ids) == 0 {
			return errors.New("gpu: the frame is closed")
		}
		words := f.d.download(f.buf)
		out = make([]byte, 3*len(words))
		for i, w := range words {
			out[3*i], out[3*i+1], out[3*i+2] = byte(w), byte(w>>8), byte(w>>16)
		}
		return glError("reading a frame back")
	})
	return out, err
}

// Close releases the frame's device memory. A second Close does nothing.
func (f *Frame) Close() error {
	return f.d.th.release(func() error {
		f.release()
		return nil
	}, func() { f.buf.forget(); f.sync = 0 })
}
