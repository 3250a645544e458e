//go:build cgo

package gpu

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/waiops/waiops/internal/tally"
	"github.com/waiops/waiops/whg1"
)

// TestDecodeBytes: a graph whose one output is certified inside [0, 255]
// hands its values back one byte each, equal to Decode's, planes in order,
// with nothing widened to int64 (tally.Widened); an output that may leave
// [0, 255], or a second output, gives ErrNotBytes.
func TestDecodeBytes(t *testing.T) { forEachForm(t, testDecodeBytes) }

func testDecodeBytes(t *testing.T) {
	d := openDevice(t)
	x := in{3, -200, 200, 4, 5}
	for _, c := range []struct {
		name   string
		lo, hi int64
		second bool
		ok     bool
	}{
		{"[0, 255]", 0, 255, false, true},
		{"[3, 200]", 3, 200, false, true},
		{"[-5, 255]", -5, 255, false, false},
		{"[0, 256]", 0, 256, false, false},
		{"two outputs", 0, 255, true, false},
	} {
		g := oneOp(whg1.OpAdd, nil, []in{x, x}, 3)
		g.Tensors[2].Policy, g.Tensors[2].Lo, g.Tensors[2].Hi = whg1.Clamp, c.lo, c.hi
		if c.second {
			g.Tensors = append(g.Tensors, whg1.Tensor{Channels: 3, Exponent: whg1.NoExponent})
			g.Ops = append(g.Ops, whg1.Op{Code: whg1.OpAbs, In: []uint32{0}, Out: []uint32{3}})
			g.Outputs = append(g.Outputs, 3)
		}
		p, err := d.Load(whg1.Encode(g))
		if err != nil {
			t.Fatal(err)
		}
		inputs := feed(rand.New(rand.NewPCG(3, 4)), []in{x, x})
		want, err := p.Decode(inputs, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.Graph().PlanData(inputs, nil)
		if err != nil {
			t.Fatal(err)
		}
		before := tally.Take()
		s, b, err := p.DecodeBytesPlanned(r)
		p.Close()
		if !c.ok {
			if !errors.Is(err, ErrNotBytes) {
				t.Errorf("%s: %v, want ErrNotBytes", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if s != want[0].Shape || len(b) != len(want[0].Data) {
			t.Fatalf("%s: shape %v, %d bytes; want %v", c.name, s, len(b), want[0].Shape)
		}
		for i, v := range want[0].Data {
			if int64(b[i]) != v {
				t.Fatalf("%s: byte %d = %d, Decode %d", c.name, i, b[i], v)
			}
		}
		if n := before.Since().Widened; n != 0 {
			t.Errorf("%s: %d outputs widened", c.name, n)
		}
	}
}
