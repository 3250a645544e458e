package bench

import (
	"math/rand/v2"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// The whole-network cases: graph_synth4 (cases.go's synthCase) and
// bmshj2018, a network shaped like CompressAI's bmshj2018-hyperprior
// synthesis transform. Their float twins (twin.go) run on the float peers.

// networkOps are the families that are whole networks.
var networkOps = []string{"graph_synth4", "bmshj2018"}

// bmshj's channels: N inside the network, M in the latent.
const bmshjN, bmshjM = 128, 192

// bmshjW is the latent's width for a latent height h: a 768×512 picture
// has a 48×32 latent, so the width is 3h/2 (at least 1).
func bmshjW(h int) int { return max(1, 3*h/2) }

// bmshjFits reports whether every tensor of the network at latent height h
// keeps to §3's 2^26 elements: the widest is N channels at 8h × 8w.
func bmshjFits(h int) bool { return bmshjN*(8*h)*(8*bmshjW(h)) <= maxElems }

// bmshjConvT is a 5×5 stride-2 transposed convolution with padding 2 and
// output padding 1, which doubles each side (§5.3: (H−1)·2 − 2·2 + 5 + 1 =
// 2H), i8 weights, its rq a shift that brings a sum of cin·25/4 i8·i8
// products back near the i8 range (the tensor's clamp does the rest).
func bmshjConvT(b *builder, r *rand.Rand, cin, cout int, shift uint8, in uint32) uint32 {
	w := i8s(r, cin*cout*25)
	return b.op(whg1.OpConvTranspose, &whg1.ConvT{Cout: uint32(cout), KH: 5, KW: 5, SH: 2, SW: 2,
		PH: 2, PW: 2, OPH: 1, OPW: 1, WBytes: 1, RQ: shiftRQ(shift), W: w}, cout, false, in)
}

// bmshjCase is the synthesis transform g_s of bmshj2018-hyperprior at
// N = 128, M = 192: conv_transpose M→N, igdn, N→N, igdn, N→N, igdn, N→3,
// every conv_transpose 5×5 stride 2, from an M×h×(3h/2) latent to a
// 3×16h×24h picture (h = 32: 768×512). Weights and data are i8; each
// conv_transpose ends in an rq and every tensor is clamped to i8, where a
// quantised codec has its requantisation and clamp. The run certifies it
// at acc64 (the CPU fabric's profile).
func bmshjCase(h int) *Case {
	r := rnd(2018)
	w := bmshjW(h)
	b := newBuilder(bmshjM, h, w)
	var macs int64
	t := uint32(0)
	cin, side := bmshjM, int64(h)*int64(w)
	for i, cout := range []int{bmshjN, bmshjN, bmshjN, 3} {
		// Shifts 11 and 10: a sum of cin·25/4 products of i8 values has a
		// spread near 2^11·74 (M in) and 2^10·74·1.3 (N in).
		shift := uint8(10)
		if i == 0 {
			shift = 11
		}
		t = bmshjConvT(b, r, cin, cout, shift, t)
		macs += int64(cin*cout*25) * side
		side *= 4
		if cout != 3 {
			t = b.op(whg1.OpIGDN, igdnParams(r, cout), cout, false, t)
		}
		cin = cout
	}
	return &Case{Op: "bmshj2018", Size: h, Graph: b.bytes(t),
		Input: []*tensor.T{input(r, bmshjM, h, w)}, Work: macs, Unit: "MAC"}
}
