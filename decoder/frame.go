package decoder

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"sync"

	"github.com/waiops/waiops/gpu"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
)

// Frame is one decoded picture: an image.Image over row-major HWC RGB8
// bytes, every pixel opaque. Decode gives one in host memory;
// DecodeOnDevice gives one left on the GL device, for a window to show
// with no trip through host memory (Show), whose pixels are read back
// the first time they are asked for. Close a device frame when done: it
// holds device memory.
type Frame struct {
	w, h int
	dev  *gpu.Frame // nil for a frame in host memory

	once sync.Once // reads dev back into rgb
	rgb  []byte
	err  error
}

var _ image.Image = (*Frame)(nil)

// frameOf lays a [3, H, W] output out as a frame. Every graph that makes
// frames ends in clamp(0, 255) or the RGB8 step (§13.0), so each value is
// a byte.
func frameOf(t *tensor.T) (*Frame, error) {
	s := t.Shape
	f, err := newFrame(s)
	if err != nil {
		return nil, err
	}
	for c := range 3 {
		for i, v := range t.Data[c*s.H*s.W : (c+1)*s.H*s.W] {
			if v < 0 || v > 255 {
				return nil, fmt.Errorf("decoder: output value %d is not a byte: the graph lacks its output step", v)
			}
			f.rgb[3*i+c] = byte(v)
		}
	}
	return f, nil
}

// frameOfBytes lays a [3, H, W] output that crossed from the GL device
// one byte a value (plan.Graph.DecodeBytes: its certified interval lies
// inside [0, 255]) out as a frame, with no pass through int64.
func frameOfBytes(s tensor.Shape, planes []byte) (*Frame, error) {
	f, err := newFrame(s)
	if err != nil {
		return nil, err
	}
	n := s.H * s.W
	for c := range 3 {
		for i, v := range planes[c*n : (c+1)*n] {
			f.rgb[3*i+c] = v
		}
	}
	return f, nil
}

// newFrame is a host frame of a [3, H, W] output's size.
func newFrame(s tensor.Shape) (*Frame, error) {
	if s.C != 3 {
		return nil, refusal.New(refusal.ModelMismatch, "the output has %d channels, not 3", s.C)
	}
	return &Frame{w: s.W, h: s.H, rgb: make([]byte, 3*s.H*s.W)}, nil
}

// Width and Height are the frame's size in pixels.
func (f *Frame) Width() int  { return f.w }
func (f *Frame) Height() int { return f.h }

// OnDevice reports whether the frame was left on the GL device.
func (f *Frame) OnDevice() bool { return f.dev != nil }

// pixels is the frame's RGB8 bytes, a device frame read back once.
func (f *Frame) pixels() ([]byte, error) {
	if f.dev != nil {
		f.once.Do(func() { f.rgb, f.err = f.dev.RGB() })
	}
	return f.rgb, f.err
}

// RGB is the frame's pixels as row-major HWC bytes (R, G, B per pixel),
// 3·Width·Height of them; a device frame's are read back on the first
// call (nil when that fails: PNG says why). The slice is the frame's own:
// do not change it.
func (f *Frame) RGB() []byte {
	rgb, _ := f.pixels()
	return rgb
}

// ColorModel is color.RGBAModel: every pixel is opaque RGB.
func (f *Frame) ColorModel() color.Model { return color.RGBAModel }

// Bounds is (0, 0)–(Width, Height).
func (f *Frame) Bounds() image.Rectangle { return image.Rect(0, 0, f.w, f.h) }

// At is the pixel at (x, y), or transparent black outside Bounds (and
// everywhere on a device frame that cannot be read back).
func (f *Frame) At(x, y int) color.Color {
	rgb := f.RGB()
	if rgb == nil || !(image.Point{x, y}.In(f.Bounds())) {
		return color.RGBA{}
	}
	p := rgb[3*(y*f.w+x):]
	return color.RGBA{p[0], p[1], p[2], 255}
}

// NRGBA copies the frame into an *image.NRGBA (alpha 255).
func (f *Frame) NRGBA() (*image.NRGBA, error) {
	rgb, err := f.pixels()
	if err != nil {
		return nil, err
	}
	img := image.NewNRGBA(f.Bounds())
	for i := range f.h * f.w {
		copy(img.Pix[4*i:], rgb[3*i:3*i+3])
		img.Pix[4*i+3] = 255
	}
	return img, nil
}

// PNG encodes the frame as an 8-bit RGB PNG (the encoder writes an opaque
// NRGBA image as colour type 2), the bytes `waiops decode` writes.
func (f *Frame) PNG() ([]byte, error) {
	img, err := f.NRGBA()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	err = png.Encode(&buf, img)
	return buf.Bytes(), err
}

// Show draws the frame in a window, scale×scale screen pixels a pixel: a
// device frame straight from its GL buffer, a host frame from its bytes.
func (f *Frame) Show(w *gpu.Window, scale int) error {
	if f.dev != nil {
		return w.ShowFrame(f.dev, scale)
	}
	return w.ShowRGB(f.rgb, f.w, f.h, scale)
}

// Close releases a device frame's device memory (its pixels, once read
// back, stay); for a host frame it does nothing.
func (f *Frame) Close() error {
	if f.dev == nil {
		return nil
	}
	return f.dev.Close()
}
