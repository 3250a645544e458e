//go:build cgo

package gpu

import (
	"fmt"

	"github.com/waiops/waiops/whg1"
)

// convTMaxPhases is the most phases (sh·sw) the phase form of §9.3 runs:
// one conv.comp dispatch per phase, each a tiled stride-1 convolution. A
// larger stride (up to 2^32 − 1, see TestConvTransposeHugeStride) takes
// conv_transpose.comp's gather form, one output per thread, whose cost
// does not grow with the stride.
const convTMaxPhases = 64

// §5.3 conv_transpose: the phase form (§9.3) through conv.comp when
// sh·sw ≤ convTMaxPhases, else the gather form of conv_transpose.comp.
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
		if int64(p.SH)*int64(p.SW) <= convTMaxPhases {
			return prepared{prm: prm, run: func(d *Device, c *opCall) error {
				return convTPhases(d, c, p, defs, uni)
			}}, nil
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

// convTPhases runs conv_transpose p as its sh·sw phase convolutions (§9.3),
// one conv.comp dispatch (PHASE 1) per phase that holds an output. Phase
// ρ = (ρy, ρx) computes the outputs y = u·sh + ρy − ph over its grid of u
// (likewise x), each the stride-1 convolution Z_ρ of the input with the
// flipped sub-kernel Wt[·][·][ρy + sh·t][ρx + sw·t′]. A phase past the
// kernel (ρy ≥ kh: a stride larger than the kernel) has one zero tap, so
// its outputs hold rq_o(0) as §5.3 requires.
func convTPhases(d *Device, c *opCall, p *whg1.ConvT, defs []string, uni map[string]int) error {
	in, out := c.inS[0], c.outS[0]
	kh, kw, sh, sw, ph, pw := int(p.KH), int(p.KW), int(p.SH), int(p.SW), int(p.PH), int(p.PW)
	defs = append([]string{"PHASE 1", fmt.Sprintf("KHT %d", kh), fmt.Sprintf("KWT %d", kw)}, defs...)
	for ry := range sh {
		th, u0, nu := phaseAxis(kh, sh, ph, out.H, ry)
		for rx := range sw {
			tw, v0, nv := phaseAxis(kw, sw, pw, out.W, rx)
			if nu == 0 || nv == 0 {
				continue // no output lies in this phase
			}
			err := convDispatch(d, c, convGrid{
				kh: th, kw: tw, sh: 1, sw: 1, groups: 1,
				cg: in.C, og: out.C, h: in.H, w: in.W, ho: nu, wo: nv,
			}, defs, merge(uni, map[string]int{
				"PH": th - 1 - u0, "PW": tw - 1 - v0,
				"RY": ry, "RX": rx, "U0": u0, "V0": v0,
				"PHT": ph, "PWT": pw, "HOT": out.H, "WOT": out.W, "SHT": sh, "SWT": sw,
			}))
			if err != nil {
				return err
			}
		}
	}
	return nil
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
