//go:build cgo

package gpu

import "github.com/waiops/waiops/whg1"

// §5.3 conv_transpose: conv_transpose.comp, one output per thread.
func init() {
	preps[whg1.OpConvTranspose] = func(g *whg1.Graph, op *whg1.Op) (prepared, error) {
		p := op.Params.(*whg1.ConvT)
		// acc32: each weight fits i32 (§7.2).
		prm, err := narrow(p.W, "conv_transpose weights")
		if err != nil {
			return prepared{}, err
		}
		uni := map[string]int{
			"P_W": 0, "COUT": int(p.Cout), "KH": int(p.KH), "KW": int(p.KW),
			"SH": int(p.SH), "SW": int(p.SW), "PH": int(p.PH), "PW": int(p.PW),
		}
		defs, err := appendRQ(&prm, &p.RQ, uni)
		if err != nil {
			return prepared{}, err
		}
		return prepared{prm: prm, run: func(d *Device, c *opCall) error {
			in, out := c.inS[0], c.outS[0]
			return unary("conv_transpose", defs, merge(uni, map[string]int{
				"CIN": in.C, "H": in.H, "W": in.W, "HO": out.H, "WO": out.W,
			}))(d, c)
		}}, nil
	}
}
