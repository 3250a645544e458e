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
		return prepared{prm: prm, run: func(d *Device, c *opCall) error {
			in, out := c.inS[0], c.outS[0]
			return convDispatch(d, c, convGrid{
				kh: int(p.KH), kw: int(p.KW), sh: int(p.SH), sw: int(p.SW), groups: int(p.Groups),
				cg: in.C / int(p.Groups), og: int(p.Cout / p.Groups), h: in.H, w: in.W, ho: out.H, wo: out.W,
			}, append([]string{"PHASE 0"}, rqDefs...), uni)
		}}, nil
	}
}

// convGrid is one dispatch of conv.comp: its kernel geometry, its groups
// with the input and output channels of each, the input's sides and the
// grid of output positions.
type convGrid struct {
	kh, kw, sh, sw, groups, cg, og, h, w, ho, wo int
}

// convDispatch runs conv.comp over grid g with its tile picked by convTile,
// the variant's further defs and uniforms added.
func convDispatch(d *Device, c *opCall, g convGrid, defs []string, uni map[string]int) error {
	ocb := min(g.og, convMaxOCB)
	tx, ty, px, cib, tiled := convTile(g.ho, g.cg, g.kh, g.kw, g.sh, g.sw, ocb)
	defs = append([]string{
		fmt.Sprintf("TX %d", tx), fmt.Sprintf("TY %d", ty), fmt.Sprintf("PX %d", px), fmt.Sprintf("OCB %d", ocb), fmt.Sprintf("CIB %d", cib),
		fmt.Sprintf("KH %d", g.kh), fmt.Sprintf("KW %d", g.kw), fmt.Sprintf("SH %d", g.sh), fmt.Sprintf("SW %d", g.sw),
		fmt.Sprintf("TILED %d", b2i(tiled)),
	}, defs...)
	tilesX, tilesY := (g.wo+tx*px-1)/(tx*px), (g.ho+ty-1)/ty
	blocks := (g.og + ocb - 1) / ocb
	groups := tilesX * tilesY * blocks * g.groups
	u := merge(uni, map[string]int{
		"H": g.h, "W": g.w, "HO": g.ho, "WO": g.wo,
		"CG": g.cg, "OG": g.og,
		"TILES_X": tilesX, "TILES_Y": tilesY, "BLOCKS": blocks, "G": groups,
	})
	return d.dispatch(kernel{shader: "conv", defs: defs, in: c.in, out: c.out[0], prm: c.prm, uni: u, groups: groups})
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
