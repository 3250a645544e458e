package decoder

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"

	"github.com/waiops/waiops/drivers"
)

// Frame is one decoded picture: an image.Image over row-major HWC RGB8
// bytes, every pixel opaque.
type Frame struct{ f drivers.Frame }

var _ image.Image = (*Frame)(nil)

// Width and Height are the frame's size in pixels.
func (f *Frame) Width() int  { return f.f.W }
func (f *Frame) Height() int { return f.f.H }

// RGB is the frame's pixels as row-major HWC bytes (R, G, B per pixel),
// 3·Width·Height of them. The slice is the frame's own: do not change it.
func (f *Frame) RGB() []byte { return f.f.RGB }

// ColorModel is color.RGBAModel: every pixel is opaque RGB.
func (f *Frame) ColorModel() color.Model { return color.RGBAModel }

// Bounds is (0, 0)–(Width, Height).
func (f *Frame) Bounds() image.Rectangle { return image.Rect(0, 0, f.f.W, f.f.H) }

// At is the pixel at (x, y), or transparent black outside Bounds.
func (f *Frame) At(x, y int) color.Color {
	if !(image.Point{x, y}.In(f.Bounds())) {
		return color.RGBA{}
	}
	p := f.f.RGB[3*(y*f.f.W+x):]
	return color.RGBA{p[0], p[1], p[2], 255}
}

// NRGBA copies the frame into an *image.NRGBA (alpha 255).
func (f *Frame) NRGBA() *image.NRGBA {
	img := image.NewNRGBA(f.Bounds())
	for i := range f.f.H * f.f.W {
		copy(img.Pix[4*i:], f.f.RGB[3*i:3*i+3])
		img.Pix[4*i+3] = 255
	}
	return img
}

// PNG encodes the frame as an 8-bit RGB PNG (the encoder writes an opaque
// NRGBA image as colour type 2), the bytes `waiops decode` writes.
func (f *Frame) PNG() ([]byte, error) {
	var buf bytes.Buffer
	err := png.Encode(&buf, f.NRGBA())
	return buf.Bytes(), err
}

// FrameOf makes a frame of w×h pixels from row-major RGB8 bytes (such as a
// gpu.Frame read back), which it keeps.
func FrameOf(w, h int, rgb []byte) (*Frame, error) {
	if w < 1 || h < 1 || len(rgb) != 3*w*h {
		return nil, fmt.Errorf("decoder: %d bytes for a %d×%d RGB8 frame", len(rgb), w, h)
	}
	return &Frame{drivers.Frame{H: h, W: w, RGB: rgb}}, nil
}
