//go:build cgo

package gpu

import (
	"fmt"

	"github.com/waiops/waiops/whg1"
)

// §5.4: rescale, chscale and mul, each an rq (or chscale's rounding) on one
// element per thread.
func init() {
	preps[whg1.OpRescale] = func(g *whg1.Graph, op *whg1.Op, nb *nodeBounds) (prepared, error) {
		var prm []int32
		uni := map[string]int{}
		defs, err := appendRQ(&prm, &op.Params.(*whg1.Rescale).RQ, uni, nb)
		if err != nil {
			return prepared{}, err
		}
		return prepared{prm: prm, run: func(d *Device, c *opCall) error {
			return unary("rescale", defs, merge(uni, map[string]int{"HW": c.outS[0].H * c.outS[0].W}))(d, c)
		}}, nil
	}
	preps[whg1.OpMul] = func(g *whg1.Graph, op *whg1.Op, nb *nodeBounds) (prepared, error) {
		var prm []int32
		uni := map[string]int{}
		defs, err := appendRQ(&prm, &op.Params.(*whg1.Rescale).RQ, uni, nb)
		if err != nil {
			return prepared{}, err
		}
		return prepared{prm: prm, run: func(d *Device, c *opCall) error {
			u := merge(uni, map[string]int{"HW": c.outS[0].H * c.outS[0].W, "BC": c.inS[1].Elems()})
			return d.elementwise(kernel{shader: "mul", defs: defs, in: c.in, out: c.out[0], prm: c.prm, uni: u}, c.outS[0].Elems())
		}}, nil
	}
	preps[whg1.OpChscale] = func(g *whg1.Graph, op *whg1.Op, nb *nodeBounds) (prepared, error) {
		p := op.Params.(*whg1.Chscale)
		// acc32: every entry of M fits i32 and s ≤ 63 (§7.2).
		if p.Shift > 63 {
			return prepared{}, fmt.Errorf("chscale s = %d passes acc32's 63 (§7.2)", p.Shift)
		}
		m, err := narrow(p.M, "chscale M")
		if err != nil {
			return prepared{}, err
		}
		defs := []string{fmt.Sprintf("ROUND %d", p.Round)}
		return prepared{prm: m, run: func(d *Device, c *opCall) error {
			// §5.4: row r is the value of scalar k; the load check keeps it
			// within [0, n_rows − 1].
			r := int(c.pl.Scalars[p.Scalar])
			s := c.outS[0]
			return unary("chscale", defs, map[string]int{"HW": s.H * s.W, "S": int(p.Shift), "ROW": r * s.C})(d, c)
		}}, nil
	}
}
