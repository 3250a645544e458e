//go:build cgo

package gpu

import (
	"errors"
	"slices"
	"testing"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// A Program holds its parameter buffers until Close, which releases them
// once; a Decode after Close is ErrClosed, not a crash, and a decode frees
// every tensor buffer it made.
func TestProgramClose(t *testing.T) {
	d := openDevice(t)
	// y = 2x + 1 over a [2, 1, 2] input in [-100, 100]: a 1×1 conv with
	// weights [2, 0; 0, 2] and a bias of 1 rides in its parameter buffer.
	conv := &whg1.Conv{Cout: 2, KH: 1, KW: 1, SH: 1, SW: 1, Groups: 1, WBytes: 4,
		W:  []int64{2, 0, 0, 2},
		RQ: whg1.RQ{SKind: 1, Shift: []uint8{0}, Bias: whg1.PostBias, BBytes: 4, BiasV: []int64{1, 1}}}
	b := whg1.Encode(oneOp(whg1.OpConv, conv, []in{{c: 2, lo: -100, hi: 100, h: 1, w: 2}}, 2))
	before := LiveObjects()
	p, err := d.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	loaded := LiveObjects()
	if loaded.Programs != before.Programs+1 || loaded.Buffers <= before.Buffers {
		t.Fatalf("after Load: %+v, before %+v", loaded, before)
	}
	x := &tensor.T{Shape: tensor.Shape{C: 2, H: 1, W: 2}, Data: []int64{-100, 3, 7, 100}}
	out, err := p.Decode([]*tensor.T{x}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{-199, 7, 15, 201}; !slices.Equal(out[0].Data, want) {
		t.Fatalf("got %v, want %v", out[0].Data, want)
	}
	// The decode's buffers (the staging buffers of its input, which the
	// conv reads, and of its output, which the conv stores into packed)
	// stay with the program; a second decode takes them again and makes
	// none.
	decoded := LiveObjects()
	if decoded.Programs != loaded.Programs || decoded.Buffers != loaded.Buffers+2 {
		t.Fatalf("a decode left %+v, loaded %+v", decoded, loaded)
	}
	// The input's interval [-100, 100] crosses as i8 (4 elements, one
	// word), the output's [-199, 201] as i16 (two words).
	if got, want := p.DeviceBytes(), int64(4*(6+1+2)+4+8); got != want {
		t.Errorf("DeviceBytes %d, want %d (the weights laid out for conv.comp with one zero channel, shift, bias, an i8 and an i16 stage)", got, want)
	}
	if _, err := p.Decode([]*tensor.T{x}, nil); err != nil {
		t.Fatal(err)
	}
	if now := LiveObjects(); now != decoded {
		t.Fatalf("a second decode left %+v, the first %+v", now, decoded)
	}
	for range 2 {
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if now := LiveObjects(); now != before || p.DeviceBytes() != 0 {
			t.Fatalf("after Close: %+v (%d bytes), before Load %+v", now, p.DeviceBytes(), before)
		}
	}
	if _, err := p.Decode([]*tensor.T{x}, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Decode after Close: %v, want ErrClosed", err)
	}
}
