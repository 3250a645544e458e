//go:build cgo

package gpu

import (
	"fmt"

	"github.com/waiops/waiops/whg1"
)

// igdn.comp's tile limits: the most positions of a tile, the most a
// thread takes, the most output channels a thread sums at once, and the
// most shared memory a work group takes (the device may offer less:
// igdnTile reads its limit).
const (
	igdnMaxTile   = 256
	igdnMaxPX     = 4
	igdnMaxIB     = 16
	igdnMaxShared = 32 << 10
)

// igdnTile picks igdn.comp's tile for c channels within shared bytes of
// shared memory: the most positions tp = pt·px (pt threads, px positions
// each) whose x² for all c channels leave room for at least one row of γ,
// and then ib rows of γ (c columns each) in the rest. ok is false when one
// position's x² and one γ row pass shared: the kernel then runs one thread
// per output with global reads.
func igdnTile(c, shared int) (pt, px, ib int, ok bool) {
	for tp := igdnMaxTile; tp >= 1; tp /= 2 {
		if ib = min(c, igdnMaxIB, (shared-4*c*tp)/(4*c)); ib >= 1 {
			px = min(igdnMaxPX, tp)
			return tp / px, px, ib, true
		}
	}
	return 0, 0, 0, false
}

// §5.7 igdn: igdn.comp, a work group per tile of positions (igdnTile).
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
		uni := map[string]int{"FRAC": int(p.Frac), "P_GAMMA": 0, "P_BETA": len(prm)}
		prm = append(prm, beta...)
		gf := fmt.Sprintf("GF %du", p.GF)
		return prepared{prm: prm, run: func(d *Device, c *opCall) error {
			s := c.inS[0]
			u := merge(uni, map[string]int{"C": s.C, "HW": s.H * s.W})
			pt, px, ib, ok := igdnTile(s.C, min(int(d.lim.MaxSharedBytes), igdnMaxShared))
			if !ok {
				return unary("igdn", []string{gf, "TILED 0"}, u)(d, c)
			}
			defs := []string{gf, "TILED 1", fmt.Sprintf("C %d", s.C), fmt.Sprintf("PT %d", pt), fmt.Sprintf("PX %d", px), fmt.Sprintf("IB %d", ib)}
			groups := (s.H*s.W + pt*px - 1) / (pt * px)
			return d.dispatch(kernel{shader: "igdn", defs: defs, in: c.in[:1], out: c.out[0], prm: c.prm, uni: u, groups: groups})
		}}, nil
	}
}
