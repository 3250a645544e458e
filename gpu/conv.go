//go:build cgo

package gpu

import (
	"fmt"

	"github.com/waiops/waiops/whg1"
)

// The tiled conv kernel's limits: its largest work group, the shared
// memory its patch and weights may take (GL guarantees 32 KiB; Open refuses
// a device with less than this budget), the output channels a thread
// sums, the input channels staged per barrier, and the sums a thread
// holds in all (phases × positions × channels).
const (
	convMaxThreads   = 64
	convSharedBudget = 16 << 10
	convMaxOCB       = 8
	convMaxCIB       = 8
	convMaxAcc       = 32
	// convDirectAcc is the sums a thread holds on the untiled path of a
	// software rasteriser, where registers are vectors in the CPU's
	// caches and every read saved is worth more than a register.
	convDirectAcc = 64
	// convDirectUnroll caps the products of one input channel's taps on
	// that path (kh·kw·npb·ocb·px), so that the compiler unrolls its
	// loops and keeps the sums in registers: past it llvmpipe left them
	// rolled, and conv 3×3 64→64 at 128² ran 4× slower with 576 than
	// with 288 (BenchmarkConv3x3_64x64_128).
	convDirectUnroll = 320
)

// convLayout is how conv.comp reads a conv's or a conv_transpose's weights
// (convWeights lays them out at Load): for each group, block of ocb output
// channels and block of npb phases, cgp input channels (the group's cg
// and zeros after them, so that a run of up to min(cg, convMaxCIB)
// channels from any channel below cg stays inside the block), each with
// its npb phases of kh × kw taps of ocb weights. A conv has one phase.
type convLayout struct {
	groups, cg, og, ocb int
	npy, npx, npb       int // the phases (a conv_transpose's strides), and those of a block
	kh, kw              int // the taps of each phase
}

func (l convLayout) blocks() int  { return (l.og + l.ocb - 1) / l.ocb }
func (l convLayout) pblocks() int { return l.npy * l.npx / l.npb }
func (l convLayout) cgp() int     { return l.cg + min(l.cg, convMaxCIB) - 1 }
func (l convLayout) wblock() int  { return l.npb * l.kh * l.kw * l.ocb }

// convWeights lays the weights out (convLayout): w(grp, o, c, ρ, i, j) is
// the weight of output channel o and input channel c of group grp in
// phase ρ at tap (i, j), o and c counted within the group; an output
// channel past og and an input channel past cg take 0.
func (l convLayout) weights(w func(grp, o, c, ph, i, j int) int32) []int32 {
	out := make([]int32, 0, l.groups*l.blocks()*l.pblocks()*l.cgp()*l.wblock())
	for grp := range l.groups {
		for ob := range l.blocks() {
			for pb := range l.pblocks() {
				for c := range l.cgp() {
					for e := range l.npb {
						for i := range l.kh {
							for j := range l.kw {
								for q := range l.ocb {
									v := int32(0)
									if o := ob*l.ocb + q; o < l.og && c < l.cg {
										v = w(grp, o, c, pb*l.npb+e, i, j)
									}
									out = append(out, v)
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}

// convTile picks a work group (tx × ty threads, each computing px
// positions along x, so a tile of tx·px × ty grid positions) and the input
// channels staged at once (cib, at most min(cg, convMaxCIB)) whose input
// patch and weights fit the shared budget. Among the tiles that fit, it
// takes the one of least cost over the grid of ho × wo (a small picture's
// tile is small, positions past the grid cost as much as real ones), the
// larger on a tie, with the most channels that fit; px is capped so that a
// thread holds at most convMaxAcc sums. ok is false when even a one-position tile of one
// channel does not fit: the kernel then runs with global reads.
func convTile(l convLayout, ho, wo, sh, sw int) (tx, ty, px, cib int, ok bool) {
	tiles := [][3]int{{8, 8, 4}, {8, 8, 2}, {16, 4, 2}, {8, 4, 2}, {8, 8, 1}, {8, 4, 1}, {4, 4, 1}, {4, 2, 1}, {2, 2, 1}, {1, 1, 1}}
	if ho == 1 {
		tiles = [][3]int{{32, 1, 4}, {32, 1, 2}, {16, 1, 2}, {16, 1, 1}, {4, 1, 1}, {1, 1, 1}}
	}
	maxPX := max(1, convMaxAcc/(l.npb*l.ocb))
	best := -1
	for _, t := range tiles {
		if t[2] > maxPX {
			continue
		}
		row := (t[0]*t[2]-1)*sw + l.kw
		perChannel := 4 * (((t[1]-1)*sh+l.kh)*(row|1) + l.wblock())
		c := min(l.cg, convMaxCIB)
		for c > 1 && c*perChannel > convSharedBudget {
			c /= 2
		}
		if c*perChannel > convSharedBudget {
			continue
		}
		// The cost: every lane of every work group computes (a work
		// group of fewer than 32 threads still takes a warp); at each tap
		// a lane makes npb·ocb·px products from px inputs and npb·ocb
		// weights it reads from shared memory (a read weighs 8 products:
		// on llvmpipe a shared read is a gather, and the weight halved
		// graph_synth4's and bmshj2018's decodes against 2 in one run);
		// and each work group stages its patch and weights (about two
		// operations an element).
		w, lanes := t[0]*t[2], max(t[0]*t[1], 32)
		sums := l.npb * l.ocb * t[2]
		tiles := (wo + w - 1) / w * ((ho + t[1] - 1) / t[1])
		cost := tiles * (lanes*l.kh*l.kw*(sums+8*(t[2]+l.npb*l.ocb)) + 2*perChannel/4)
		if best < 0 || cost < best {
			best, tx, ty, px, cib, ok = cost, t[0], t[1], t[2], c, true
		}
	}
	if !ok {
		return tiles[0][0], tiles[0][1], min(tiles[0][2], maxPX), 1, false
	}
	return tx, ty, px, cib, true
}

// §5.2 conv: conv.comp, a variant per kernel geometry, tile and rq.
func init() {
	preps[whg1.OpConv] = func(g *whg1.Graph, op *whg1.Op, nb *nodeBounds) (prepared, error) {
		p := op.Params.(*whg1.Conv)
		// acc32: each weight fits i32 (§7.2).
		w, err := narrow(p.W, "conv weights")
		if err != nil {
			return prepared{}, err
		}
		groups, og := int(p.Groups), int(p.Cout/p.Groups)
		kh, kw := int(p.KH), int(p.KW)
		cg := int(g.Tensors[op.In[0]].Channels) / groups
		l := convLayout{groups: groups, cg: cg, og: og, ocb: min(og, convMaxOCB), npy: 1, npx: 1, npb: 1, kh: kh, kw: kw}
		prm := l.weights(func(grp, o, c, _, i, j int) int32 {
			return w[(((grp*og+o)*cg+c)*kh+i)*kw+j]
		})
		uni := map[string]int{"P_W": 0, "PH": int(p.PH), "PW": int(p.PW)}
		rqDefs, err := appendRQ(&prm, &p.RQ, uni, nb)
		if err != nil {
			return prepared{}, err
		}
		return prepared{prm: prm, run: func(d *Device, c *opCall) error {
			out := c.outS[0]
			return convDispatch(d, c, l, convGrid{sh: int(p.SH), sw: int(p.SW), h: c.inS[0].H, w: c.inS[0].W, ho: out.H, wo: out.W},
				append([]string{"PHASE 0"}, rqDefs...), uni)
		}}, nil
	}
}

// convDirect picks the untiled kernel's work group (tx × ty threads of px
// positions each) for a software rasteriser (Identity.Software), where a
// work group runs as a loop over SIMD vectors of 8 threads: every thread
// reads its patch rows straight from the input (texel fetches where the
// device has them), (px − 1)·sw + kw inputs a row for kw taps of npb·ocb
// weights each and npb·ocb·px products a tap. A read weighs 3 products
// (a texel fetch against a multiply and an add, measured on llvmpipe);
// positions past the grid cost as much as real ones.
func convDirect(l convLayout, ho, wo, sw int) (tx, ty, px int) {
	best := -1
	for _, p := range []int{8, 4, 2, 1} {
		if p > 1 && (l.npb*l.ocb*p > convDirectAcc || l.kh*l.kw*l.npb*l.ocb*p > convDirectUnroll) {
			continue
		}
		for _, t := range [][2]int{{8, 8}, {16, 4}, {32, 2}, {8, 4}, {8, 2}, {8, 1}} {
			if ho == 1 && t[1] > 1 {
				continue
			}
			row := (p-1)*sw + l.kw
			perRow := 3*row + l.kw*(3*l.npb*l.ocb+l.npb*l.ocb*p)
			tiles := (wo + t[0]*p - 1) / (t[0] * p) * ((ho + t[1] - 1) / t[1])
			cost := tiles * t[0] * t[1] * l.kh * perRow
			if best < 0 || cost < best {
				best, tx, ty, px = cost, t[0], t[1], p
			}
		}
	}
	return tx, ty, px
}

// convGrid is one dispatch of conv.comp: its strides, the input's sides
// and the grid of positions.
type convGrid struct {
	sh, sw, h, w, ho, wo int
}

// convDispatch runs conv.comp for layout l over grid g, with its tile
// picked by convTile, the variant's further defs and uniforms added.
func convDispatch(d *Device, c *opCall, l convLayout, g convGrid, defs []string, uni map[string]int) error {
	tx, ty, px, cib, tiled := convTile(l, g.ho, g.wo, g.sh, g.sw)
	if d.software {
		tx, ty, px = convDirect(l, g.ho, g.wo, g.sw)
		cib, tiled = 1, false
	}
	defs = append([]string{
		fmt.Sprintf("TX %d", tx), fmt.Sprintf("TY %d", ty), fmt.Sprintf("PX %d", px), fmt.Sprintf("OCB %d", l.ocb), fmt.Sprintf("CIB %d", cib),
		fmt.Sprintf("KH %d", l.kh), fmt.Sprintf("KW %d", l.kw), fmt.Sprintf("SH %d", g.sh), fmt.Sprintf("SW %d", g.sw),
		fmt.Sprintf("NPB %d", l.npb), fmt.Sprintf("TILED %d", b2i(tiled)),
	}, defs...)
	tilesX, tilesY := (g.wo+tx*px-1)/(tx*px), (g.ho+ty-1)/ty
	groups := tilesX * tilesY * l.blocks() * l.pblocks() * l.groups
	u := merge(uni, map[string]int{
		"H": g.h, "W": g.w, "HO": g.ho, "WO": g.wo,
		"CG": l.cg, "OG": l.og, "CGP": l.cgp(),
		"TILES_X": tilesX, "TILES_Y": tilesY, "BLOCKS": l.blocks(), "G": groups,
	})
	return d.dispatch(kernel{shader: "conv", defs: defs, in: c.in, out: c.out[0], prm: c.prm, uni: u, groups: groups})
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
