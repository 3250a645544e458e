//go:build cgo

package gpu

import (
	"fmt"

	"github.com/waiops/waiops/whg1"
)

// §5.7 igdn: igdn.comp, one output per thread.
func init() {
	preps[whg1.OpIGDN] = func(g *whg1.Graph, op *whg1.Op) (prepared, error) {
		p := op.Params.(*whg1.IGDN)
		// acc32: γ fits i32 and gf, frac ≤ 63 (§7.2); β_i alone is a
		// partial sum of N_i (igdn.N, class wide), so it fits i32 too.
		if p.GF > 63 || p.Frac > 63 {
			return prepared{}, fmt.Errorf("igdn gf %d, frac %d pass acc32's 63 (§7.2)", p.GF, p.Frac)
		}
		prm, err := narrow(p.Gamma, "igdn γ")
		if err != nil {
			return prepared{}, err
		}
		beta, err := narrow(p.Beta, "igdn β")
		if err != nil {
			return prepared{}, err
		}
		uni := map[string]int{"GF": int(p.GF), "FRAC": int(p.Frac), "P_GAMMA": 0, "P_BETA": len(prm)}
		prm = append(prm, beta...)
		return prepared{prm: prm, run: func(d *Device, c *opCall) error {
			s := c.inS[0]
			return unary("igdn", nil, merge(uni, map[string]int{"C": s.C, "HW": s.H * s.W}))(d, c)
		}}, nil
	}
}
