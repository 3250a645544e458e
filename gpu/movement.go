//go:build cgo

package gpu

import (
	"fmt"
	"math"

	"github.com/waiops/waiops/whg1"
)

// §5.10's data movement: one thread per element written. Operators with
// several inputs or outputs (concat, subpos_split, subpos_merge) dispatch
// once per tensor, so a kernel never binds more than two tensors.
func init() {
	preps[whg1.OpConcat] = func(*whg1.Graph, *whg1.Op, *nodeBounds) (prepared, error) {
		return prepared{run: func(d *Device, c *opCall) error {
			off := 0
			for k, in := range c.in {
				n := c.inS[k].Elems()
				if err := d.elementwise(kernel{shader: "concat", in: []*buffer{in}, out: c.out[0], uni: map[string]int{"OFF": off}}, n); err != nil {
					return err
				}
				off += n
			}
			return nil
		}}, nil
	}
	preps[whg1.OpSplit] = func(_ *whg1.Graph, op *whg1.Op, _ *nodeBounds) (prepared, error) {
		start := int(op.Params.(*whg1.Split).Start)
		return prepared{run: func(d *Device, c *opCall) error {
			s := c.inS[0]
			return unary("split", nil, map[string]int{"OFF": start * s.H * s.W})(d, c)
		}}, nil
	}
	for _, code := range []whg1.Opcode{whg1.OpPixelShuffle, whg1.OpPixelUnshuffle} {
		shader := "pixel_shuffle"
		if code == whg1.OpPixelUnshuffle {
			shader = "pixel_unshuffle"
		}
		preps[code] = func(_ *whg1.Graph, op *whg1.Op, _ *nodeBounds) (prepared, error) {
			r := int(op.Params.(*whg1.Factor).N)
			return prepared{run: func(d *Device, c *opCall) error {
				return unary(shader, nil, sides(c, map[string]int{"R": r}))(d, c)
			}}, nil
		}
	}
	preps[whg1.OpPadRep] = func(*whg1.Graph, *whg1.Op, *nodeBounds) (prepared, error) {
		return prepared{run: func(d *Device, c *opCall) error {
			return unary("pad_rep", nil, sides(c, nil))(d, c)
		}}, nil
	}
	// crop_to reads only ref's shape (§5.10), so ref is not bound.
	preps[whg1.OpCropTo] = func(*whg1.Graph, *whg1.Op, *nodeBounds) (prepared, error) {
		return prepared{run: func(d *Device, c *opCall) error {
			return unary("crop_to", nil, sides(c, nil))(d, c)
		}}, nil
	}
	preps[whg1.OpCrop] = func(_ *whg1.Graph, op *whg1.Op, _ *nodeBounds) (prepared, error) {
		p := op.Params.(*whg1.Crop)
		return prepared{run: func(d *Device, c *opCall) error {
			// The plan has checked that the window fits the input
			// (§4 run step 3), so both starts lie in 0..2^26.
			return unary("crop", nil, sides(c, map[string]int{"Y0": int(c.pl.Operand(p.Y0)), "X0": int(c.pl.Operand(p.X0))}))(d, c)
		}}, nil
	}
	preps[whg1.OpSubposSplit] = func(_ *whg1.Graph, op *whg1.Op, _ *nodeBounds) (prepared, error) {
		order := op.Params.(*whg1.Subpos).Order
		return prepared{run: func(d *Device, c *opCall) error {
			for k, out := range c.out {
				s := c.outS[k]
				u := map[string]int{"OH": s.H, "OW": s.W, "A": int(order[k] >> 1), "B": int(order[k] & 1)}
				if err := d.elementwise(kernel{shader: "subpos_split", in: c.in, out: out, uni: u}, s.Elems()); err != nil {
					return err
				}
			}
			return nil
		}}, nil
	}
	preps[whg1.OpSubposMerge] = func(_ *whg1.Graph, op *whg1.Op, _ *nodeBounds) (prepared, error) {
		order := op.Params.(*whg1.Subpos).Order
		return prepared{run: func(d *Device, c *opCall) error {
			for k, in := range c.in {
				s := c.inS[k]
				u := map[string]int{"H": s.H, "W": s.W, "A": int(order[k] >> 1), "B": int(order[k] & 1)}
				if err := d.elementwise(kernel{shader: "subpos_merge", in: []*buffer{in}, out: c.out[0], uni: u}, s.Elems()); err != nil {
					return err
				}
			}
			return nil
		}}, nil
	}
	preps[whg1.OpFill] = func(_ *whg1.Graph, op *whg1.Op, _ *nodeBounds) (prepared, error) {
		p := op.Params.(*whg1.Fill)
		return prepared{run: func(d *Device, c *opCall) error {
			// acc32: the value is a tensor element, so it fits i32
			// (§7.1); the check refuses rather than wraps.
			v := c.pl.FillValue(p)
			if v < math.MinInt32 || v > math.MaxInt32 {
				return fmt.Errorf("fill value %d does not fit i32 (acc32, §7.2)", v)
			}
			return d.elementwise(kernel{shader: "fill", out: c.out[0], uni: map[string]int{"V": int(v)}}, c.outS[0].Elems())
		}}, nil
	}
}

// sides returns uni with the input's H, W and the output's OH, OW added.
func sides(c *opCall, uni map[string]int) map[string]int {
	return merge(uni, map[string]int{"H": c.inS[0].H, "W": c.inS[0].W, "OH": c.outS[0].H, "OW": c.outS[0].W})
}
