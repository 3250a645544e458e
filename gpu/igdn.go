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
	igdnThreads   = 64 // the least work group where the tile allows
	// The register tile of the DIRECT form (a software rasteriser):
	// positions and output channels a thread sums. One position a
	// thread puts neighbouring positions in neighbouring SIMD lanes (one
	// contiguous gather for x_j) and one γ address in every lane of a
	// vector: graph_synth4 at 4 decoded 10 % faster on llvmpipe than with
	// 8 positions × 4 rows, in three alternating rounds.
	igdnDirectPX = 1
	igdnDirectRB = 16
)

// igdnTile picks igdn.comp's tile for c channels within shared bytes of
// shared memory: the most positions tp = pt·px whose x² for all c channels
// leave room for at least one row of γ, and then ib rows of γ (c columns
// each) in the rest. A thread takes px = igdnMaxPX positions (fewer only
// in a smaller tile), so that each γ it reads serves px terms, and rg
// threads share the chunk's rows at each position, so that a work group
// has pt·rg ≥ 64 threads when the chunk has rows enough. ok is false when one position's x² and one γ row
// pass shared: the kernel then runs one thread per output with global
// reads.
func igdnTile(c, shared int) (pt, px, rg, ib int, ok bool) {
	for tp := igdnMaxTile; tp >= 1; tp /= 2 {
		if ib = min(c, igdnMaxIB, (shared-4*c*tp)/(4*c)); ib >= 1 {
			px = min(igdnMaxPX, tp)
			pt = tp / px
			rg = min(max(1, igdnThreads/pt), ib)
			return pt, px, rg, ib, true
		}
	}
	return 0, 0, 0, 0, false
}

// igdnTerm is the #define of igdn.comp's term variant, from the node's
// igdn.gx2 interval (the hull of every γ[i][j]·x_j², §8.3): TERM 1 where it
// lies in [0, 2^31) and gf < 32, a 32-bit product and a logical shift
// (the floor of a value that is not negative); TERM 2 where it fits i32
// otherwise, a 32-bit product and the arithmetic shift asr; TERM 0 (the
// two-word product of §7.3) elsewhere.
func igdnTerm(nb *nodeBounds, gf uint32) string {
	if nb == nil || !fitsI32(nb.Intermediates["igdn.gx2"]) {
		return "TERM 0"
	}
	if nb.Intermediates["igdn.gx2"].Lo.Sign() >= 0 && gf < 32 {
		return "TERM 1"
	}
	return "TERM 2"
}

// §5.7 igdn: igdn.comp, a work group per tile of positions (igdnTile).
func init() {
	preps[whg1.OpIGDN] = func(g *whg1.Graph, op *whg1.Op, nb *nodeBounds) (prepared, error) {
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
		gf := []string{fmt.Sprintf("GF %du", p.GF), igdnTerm(nb, p.GF)}[:2:2] // each append copies
		return prepared{prm: prm, run: func(d *Device, c *opCall) error {
			s := c.inS[0]
			u := merge(uni, map[string]int{"C": s.C, "HW": s.H * s.W})
			if d.software {
				// Registers, not shared memory (igdn.comp's DIRECT):
				// RB rows at PX positions a thread.
				px, rb := min(igdnDirectPX, s.H*s.W), min(igdnDirectRB, s.C)
				pb := (s.H*s.W + px - 1) / px
				n := pb * ((s.C + rb - 1) / rb)
				defs := append(gf, "TILED 0", "DIRECT 1", fmt.Sprintf("PX %d", px), fmt.Sprintf("RB %d", rb))
				return d.elementwise(kernel{shader: "igdn", defs: defs, in: c.in[:1], out: c.out[0], prm: c.prm, uni: merge(u, map[string]int{"PB": pb})}, n)
			}
			pt, px, rg, ib, ok := igdnTile(s.C, min(int(d.lim.MaxSharedBytes), igdnMaxShared))
			if !ok {
				return unary("igdn", append(gf, "TILED 0"), u)(d, c)
			}
			defs := append(gf, "TILED 1", fmt.Sprintf("C %d", s.C), fmt.Sprintf("PT %d", pt), fmt.Sprintf("PX %d", px), fmt.Sprintf("RG %d", rg), fmt.Sprintf("IB %d", ib))
			groups := (s.H*s.W + pt*px - 1) / (pt * px)
			return d.dispatch(kernel{shader: "igdn", defs: defs, in: c.in[:1], out: c.out[0], prm: c.prm, uni: u, groups: groups})
		}}, nil
	}
}
