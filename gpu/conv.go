//go:build cgo

package gpu

import (
	"fmt"

	"github.com/waiops/waiops/whg1"
)

// The tiled conv kernel's limits: its largest work group, and the shared
// memory its patch and weights may take (GL guarantees 32 KiB; Open refuses
// a device with less than this budget).
const (
	convMaxThreads   = 64
	convSharedBudget = 16 << 10
	convMaxOCB       = 8 // output channels per thread
	convMaxCIB       = 8 // input channels staged per barrier
)

// convTile picks a work group (tx × ty threads, each computing px
// positions along x, so a tile of tx·px × ty outputs) and the number of
// input channels staged at once (cib, at most cg) whose input patches and
// weights fit the shared budget, preferring large tiles and then more
// channels; a 1-D signal (one output row) takes a row. ok is false when
// even a one-position tile of one channel does not fit: the kernel then
// runs with global reads.
func convTile(ho, cg, kh, kw, sh, sw, ocb int) (tx, ty, px, cib int, ok bool) {
	tiles := [][3]int{{8, 8, 4}, {8, 8, 2}, {8, 4, 1}, {4, 4, 1}, {2, 2, 1}, {1, 1, 1}}
	if ho == 1 {
		tiles = [][3]int{{32, 1, 4}, {16, 1, 1}, {4, 1, 1}, {1, 1, 1}}
	}
	for _, t := range tiles {
		perChannel := 4 * (((t[1]-1)*sh+kh)*((t[0]*t[2]-1)*sw+kw) + ocb*kh*kw)
		for cib = min(cg, convMaxCIB); cib >= 1; cib /= 2 {
			if cib*perChannel <= convSharedBudget {
				return t[0], t[1], t[2], cib, true
			}
		}
	}
	return tiles[0][0], tiles[0][1], tiles[0][2], 1, false
}

// §5.2 conv: conv.comp, a variant per kernel geometry, tile and rq.
func init() {
	preps[whg1.OpConv] = func(g *whg1.Graph, op *whg1.Op) (prepared, error) {
		p := op.Params.(*whg1.Conv)
		// acc32: each weight fits i32 (§7.2).
		prm, err := narrow(p.W, "conv weights")
		if err != nil {
			return prepared{}, err
		}
		uni := map[string]int{"P_W": 0, "PH": int(p.PH), "PW": int(p.PW)}
		rqDefs, err := appendRQ(&prm, &p.RQ, uni)
		if err != nil {
			return prepared{}, err
		}
		og := int(p.Cout / p.Groups)
		ocb := min(og, convMaxOCB)
		kh, kw, sh, sw := int(p.KH), int(p.KW), int(p.SH), int(p.SW)
		return prepared{prm: prm, run: func(d *Device, c *opCall) error {
			in, out := c.inS[0], c.outS[0]
			cg := in.C / int(p.Groups)
			tx, ty, px, cib, tiled := convTile(out.H, cg, kh, kw, sh, sw, ocb)
			defs := append([]string{
				fmt.Sprintf("TX %d", tx), fmt.Sprintf("TY %d", ty), fmt.Sprintf("PX %d", px), fmt.Sprintf("OCB %d", ocb), fmt.Sprintf("CIB %d", cib),
				fmt.Sprintf("KH %d", kh), fmt.Sprintf("KW %d", kw), fmt.Sprintf("SH %d", sh), fmt.Sprintf("SW %d", sw),
				fmt.Sprintf("TILED %d", b2i(tiled)),
			}, rqDefs...)
			tilesX, tilesY := (out.W+tx*px-1)/(tx*px), (out.H+ty-1)/ty
			blocks := (og + ocb - 1) / ocb
			groups := tilesX * tilesY * blocks * int(p.Groups)
			u := merge(uni, map[string]int{
				"H": in.H, "W": in.W, "HO": out.H, "WO": out.W,
				"CG": cg, "OG": og,
				"TILES_X": tilesX, "TILES_Y": tilesY, "BLOCKS": blocks, "G": groups,
			})
			return d.dispatch(kernel{shader: "conv", defs: defs, in: c.in, out: c.out[0], prm: c.prm, uni: u, groups: groups})
		}}, nil
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
