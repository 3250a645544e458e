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
			"PH": int(p.PH), "PW": int(p.PW),
		}
		defs, err := appendRQ(&prm, &p.RQ, uni)
		if err != nil {
			return prepared{}, err
		}
		return prepared{prm: prm, run: func(d *Device, c *opCall) error {
			in, out := c.inS[0], c.outS[0]
			// §5.3: every ty = y + ph − i is below Ho + ph, so a stride
			// s ≥ Ho + ph keeps only ty = 0, as the stride Ho + ph does.
			// A u32 stride (up to 2^32 − 1 when the input side is 1) is
			// passed as that, which fits an int with room for the
			// shader's i += SH: no uniform goes negative, no index wraps.
			return unary("conv_transpose", defs, merge(uni, map[string]int{
				"CIN": in.C, "H": in.H, "W": in.W, "HO": out.H, "WO": out.W,
				"SH": int(min(int64(p.SH), int64(out.H)+int64(p.PH))),
				"SW": int(min(int64(p.SW), int64(out.W)+int64(p.PW))),
			}))(d, c)
		}}, nil
	}
}
