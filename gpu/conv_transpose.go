//go:build cgo

package gpu

import (
	"fmt"

	"github.com/waiops/waiops/whg1"
)

// convTMaxPhases is the most phases (sh·sw) the phase form of §9.3 runs:
// one conv.comp dispatch (PHASE 1) whose work groups each take a block of
// phases over one staged tile. A larger stride (up to 2^32 − 1, see
// TestConvTransposeHugeStride) takes conv_transpose.comp's gather form,
// one output per thread, whose cost does not grow with the stride.
const convTMaxPhases = 64

// convTBlock is the most phases one work group of the phase form takes
// over one staged tile (its sums are phases × positions × channels,
// convMaxAcc in all).
const convTBlock = 4

// §5.3 conv_transpose: the phase form (§9.3) through conv.comp when
// sh·sw ≤ convTMaxPhases, else the gather form of conv_transpose.comp.
func init() {
	preps[whg1.OpConvTranspose] = func(g *whg1.Graph, op *whg1.Op, nb *nodeBounds) (prepared, error) {
		p := op.Params.(*whg1.ConvT)
		// acc32: each weight fits i32 (§7.2).
		w, err := narrow(p.W, "conv_transpose weights")
		if err != nil {
			return prepared{}, err
		}
		uni := map[string]int{
			"P_W": 0, "COUT": int(p.Cout), "KH": int(p.KH), "KW": int(p.KW),
			"PH": int(p.PH), "PW": int(p.PW),
		}
		if int64(p.SH)*int64(p.SW) <= convTMaxPhases {
			l, prm := convTLayout(p, int(g.Tensors[op.In[0]].Channels), w)
			defs, err := appendRQ(&prm, &p.RQ, uni, nb)
			if err != nil {
				return prepared{}, err
			}
			return prepared{prm: prm, run: func(d *Device, c *opCall) error {
				return convTPhases(d, c, p, l, defs, uni)
			}}, nil
		}
		prm := w
		defs, err := appendRQ(&prm, &p.RQ, uni, nb)
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

// convTLayout lays out the weights Wt[cin][cout][kh][kw] of conv_transpose
// p as its sh·sw phase convolutions (§9.3): phase ρ = (ρy, ρx) has the
// flipped sub-kernel of ⌈kh/sh⌉ × ⌈kw/sw⌉ taps (the largest phase's; a
// smaller phase's missing taps are zero weights), tap (i, j) holding
// Wt[c][o][ρy + sh·(th − 1 − i)][ρx + sw·(tw − 1 − j)], zero past the
// kernel. A phase past the kernel (ρy ≥ kh: a stride larger than the
// kernel) has only zero taps, so its outputs hold rq_o(0) as §5.3 requires.
func convTLayout(p *whg1.ConvT, cin int, w []int32) (convLayout, []int32) {
	kh, kw, sh, sw := int(p.KH), int(p.KW), int(p.SH), int(p.SW)
	cout := int(p.Cout)
	th, tw := (kh+sh-1)/sh, (kw+sw-1)/sw
	// The phases of a block share their tile but not their taps: a block
	// runs the union of its phases' taps, a missing one as a zero weight.
	// Where sh divides kh and sw divides kw every phase has all
	// th × tw taps and the block costs no extra product; otherwise
	// (3 × 3 at stride 2: 16 products for 9 taps) each work group takes
	// one phase and skips the taps before its sub-kernel.
	npb := 1
	if kh%sh == 0 && kw%sw == 0 {
		switch {
		case sh*sw <= convTBlock:
			npb = sh * sw
		case sw <= convTBlock:
			npb = sw
		}
	}
	l := convLayout{groups: 1, cg: cin, og: cout, ocb: min(cout, convMaxOCB), npy: sh, npx: sw, npb: npb, kh: th, kw: tw}
	if npb > 1 {
		// A thread's sums are npb phases × px positions × ocb channels:
		// room for 4 positions, so that each weight it reads serves 4
		// products (as a conv's does), and each input npb·ocb.
		l.ocb = min(cout, max(1, convMaxAcc/(npb*4)))
	}
	return l, l.weights(func(_, o, c, ph, i, j int) int32 {
		y, x := ph/sw+sh*(th-1-i), ph%sw+sw*(tw-1-j)
		if y >= kh || x >= kw {
			return 0
		}
		return w[((c*cout+o)*kh+y)*kw+x]
	})
}

// convTPhases runs conv_transpose p as its phase convolutions (§9.3) in
// one conv.comp dispatch. Phase ρ computes the outputs y = u·sh + ρy − ph
// over its grid of u (likewise x), each the stride-1 convolution Z_ρ of
// the input with its flipped sub-kernel. Every phase's patch row i is
// input row u − (th − 1 − i), whatever ρ, so the phases of a block share
// one grid, from the least first u of its phases; the dispatch's grid is
// the largest block's, each phase storing the positions that land inside
// the output.
func convTPhases(d *Device, c *opCall, p *whg1.ConvT, l convLayout, defs []string, uni map[string]int) error {
	in, out := c.inS[0], c.outS[0]
	// A block is every phase, a row of phases (one ρy), or one phase.
	allY, allX := l.npb == l.npy*l.npx, l.npb >= l.npx
	nu := phaseGrid(int(p.KH), int(p.SH), int(p.PH), out.H, allY)
	nv := phaseGrid(int(p.KW), int(p.SW), int(p.PW), out.W, allX)
	defs = append([]string{"PHASE 1", fmt.Sprintf("NPY %d", p.SH), fmt.Sprintf("NPX %d", p.SW), fmt.Sprintf("KHT %d", p.KH), fmt.Sprintf("KWT %d", p.KW)}, defs...)
	return convDispatch(d, c, l, convGrid{sh: 1, sw: 1, h: in.H, w: in.W, ho: nu, wo: nv}, defs, merge(uni, map[string]int{
		"PHT": int(p.PH), "PWT": int(p.PW), "HOT": out.H, "WOT": out.W,
	}))
}

// phaseGrid is the grid side, on one axis of kernel side k, stride s,
// padding p and output side n, that every block of phases needs: from
// the block's least first position to its last phase's end. With all set
// a block holds every phase of the axis, else one.
func phaseGrid(k, s, p, n int, all bool) int {
	span, first, end := 0, -1, 0
	for r := range s {
		_, f, c := phaseAxis(k, s, p, n, r)
		if !all {
			span = max(span, c)
			continue
		}
		if first < 0 || f < first {
			first = f
		}
		end = max(end, f+c)
	}
	if all {
		span = end - first
	}
	return span
}

// phaseAxis is one axis of phase r of a conv_transpose (§9.3) with kernel
// side k, stride s, padding p and output side n: the sub-kernel's taps
// ⌈(k − r)/s⌉ (at least 1: a phase past the kernel keeps one zero tap),
// and the first grid position u and the number of them with
// u·s + r − p in [0, n). Since p − r > −s and n ≥ 1, both numerators below
// are non-negative, so Go's / is the floor.
func phaseAxis(k, s, p, n, r int) (taps, first, count int) {
	taps = max(1, (k-r+s-1)/s)
	first = (p - r + s - 1) / s         // ⌈(p − r)/s⌉
	count = max(0, (n-1+p-r+s)/s-first) // ⌊(n − 1 + p − r)/s⌋ + 1 − first
	return taps, first, count
}
