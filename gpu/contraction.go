//go:build cgo

package gpu

import "github.com/waiops/waiops/whg1"

// §5.9 gram and apply: gram.comp and apply.comp, one output per thread,
// each with its rq (no multiplier, no bias, one shift).
func init() {
	for _, code := range []whg1.Opcode{whg1.OpGram, whg1.OpApply} {
		shader := "gram"
		if code == whg1.OpApply {
			shader = "apply"
		}
		preps[code] = func(g *whg1.Graph, op *whg1.Op, nb *nodeBounds) (prepared, error) {
			p := op.Params.(*whg1.Contraction)
			var prm []int32
			uni := map[string]int{}
			defs, err := appendRQ(&prm, &p.RQ, uni, nb)
			if err != nil {
				return prepared{}, err
			}
			return prepared{prm: prm, run: func(d *Device, c *opCall) error {
				// d = C / groups; HW is the plane the sum runs over
				// (gram) or the output's plane (apply).
				v := c.inS[1]
				u := merge(uni, map[string]int{"D": v.C / int(p.Groups), "HW": v.H * v.W})
				return d.elementwise(kernel{shader: shader, defs: defs, in: c.in, out: c.out[0], prm: c.prm, uni: u}, c.outS[0].Elems())
			}}, nil
		}
	}
}
