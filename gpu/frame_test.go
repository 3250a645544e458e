//go:build cgo

package gpu

import (
	"bytes"
	"testing"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// TestDecodeFrame: clamp(0, 255) of a [3, 1, 2] input with channels
// R = (−5, 300), G = (7, 8), B = (255, 0) is pixels (0, 7, 255) and
// (255, 8, 0): the frame left on the device reads back as those RGB bytes,
// a graph of two channels is no frame, and Close gives its buffer back.
func TestDecodeFrame(t *testing.T) {
	d := openDevice(t)
	clamp := func(c uint32) []byte {
		return whg1.Encode(oneOp(whg1.OpClamp, &whg1.ClampParams{Lo: 0, Hi: 255}, []in{{c: c, lo: -1000, hi: 1000, h: 1, w: 2}}, c))
	}
	p, err := d.Load(clamp(3))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	before := LiveObjects().Buffers
	x := &tensor.T{Shape: tensor.Shape{C: 3, H: 1, W: 2}, Data: []int64{-5, 300, 7, 8, 255, 0}}
	f, err := p.DecodeFrame([]*tensor.T{x}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The frame's buffer, and the decode's output kept in the program's
	// pool, and the input's staging buffer (which the clamp reads).
	before += 2
	if got := LiveObjects().Buffers; got != before+1 {
		t.Errorf("%d buffers live with the frame, want %d", got, before+1)
	}
	rgb, err := f.RGB()
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{0, 7, 255, 255, 8, 0}; f.W != 2 || f.H != 1 || !bytes.Equal(rgb, want) {
		t.Errorf("%dx%d %v, want 2x1 %v", f.W, f.H, rgb, want)
	}
	if err := f.Close(); err != nil || LiveObjects().Buffers != before {
		t.Errorf("close: %v, %d buffers live, want %d", err, LiveObjects().Buffers, before)
	}
	if _, err := f.RGB(); err == nil {
		t.Error("a closed frame reads back")
	}
	q, err := d.Load(clamp(2))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if _, err := q.DecodeFrame([]*tensor.T{{Shape: tensor.Shape{C: 2, H: 1, W: 2}, Data: make([]int64, 4)}}, nil); err == nil {
		t.Error("two channels make a frame")
	}
}
