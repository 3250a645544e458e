//go:build cgo

package gpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/waiops/waiops/whg1"
)

// chRQ is a per-channel rq over c channels: multiplier o + 1, one shift of
// 3, post bias o − 5, half_up.
func chRQ(c int) whg1.RQ {
	q := whg1.RQ{Round: whg1.HalfUp, MKind: 2, SKind: 1, Shift: []uint8{3}, Bias: whg1.PostBias}
	for o := range c {
		q.Mult = append(q.Mult, int64(o+1))
		q.BiasV = append(q.BiasV, int64(o-5))
	}
	return q
}

// TestConvTransposePhases compares the phase form (§9.3, sh·sw ≤
// convTMaxPhases) and, past it, the gather form with cpuref (==) on edge
// shapes and on random geometries.
func TestConvTransposePhases(t *testing.T) { forEachForm(t, testConvTransposePhases) }

func testConvTransposePhases(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	i8 := func(c uint32, h, w int) in { return in{c, -128, 127, h, w} }
	one := whg1.RQ{SKind: 1, Shift: []uint8{0}}
	cases := []opCase{
		// One phase; 13 input channels staged 8 at a time, 11 outputs in
		// blocks of 8; odd sides.
		convT(r, "convT_s1_cin13_cout11", i8(13, 7, 9), 11, 3, 3, 1, 1, 1, 1, 0, 0, chRQ(11)),
		convT(r, "convT_k3_s2_cin13_cout11_odd", i8(13, 9, 11), 11, 3, 3, 2, 2, 1, 1, 1, 1, chRQ(11)),
		convT(r, "convT_k5x3_s3x2_asym", i8(3, 5, 6), 5, 5, 3, 3, 2, 2, 1, 2, 0, chRQ(5)),
		// A stride past the kernel, output padding past the stride: the
		// phases ρ ≥ k and the padded rows hold rq_o(0) = o − 5.
		convT(r, "convT_k2_s4x3_op5x3", i8(2, 3, 4), 3, 2, 2, 4, 3, 1, 0, 5, 3, chRQ(3)),
		convT(r, "convT_1x1_plane_cout9", i8(5, 1, 1), 9, 4, 4, 2, 2, 0, 1, 0, 1, chRQ(9)),
		// 64 phases, the most the phase form runs; 72 take the gather form.
		convT(r, "convT_s8x8_phase_form", i8(2, 3, 2), 3, 3, 3, 8, 8, 1, 2, 2, 0, chRQ(3)),
		convT(r, "convT_s9x8_gather_form", i8(2, 3, 2), 3, 3, 3, 9, 8, 1, 2, 2, 0, chRQ(3)),
		// Tiles cut by the output's edges in both directions.
		convT(r, "convT_k4_s2_tile_edges", i8(3, 21, 19), 17, 4, 4, 2, 2, 1, 1, 0, 0, chRQ(17)),
		convT(r, "convT_1d_k5_s3", i8(2, 1, 70), 4, 1, 5, 1, 3, 0, 1, 0, 2, chRQ(4)),
		// A 23 × 23 sub-kernel passes the shared budget: global reads.
		convT(r, "convT_k46_s2_direct", i8(1, 3, 3), 2, 46, 46, 2, 2, 1, 1, 0, 0, one),
		// Every weight 1, one tap per phase, an input spanning i32: each
		// output is an input element, −2^31 and 2^31 − 1 among them.
		{name: "convT_full_range_k2_s2", code: whg1.OpConvTranspose, ins: []in{full(1, 3, 4)}, outC: []uint32{1},
			params: &whg1.ConvT{Cout: 1, KH: 2, KW: 2, SH: 2, SW: 2, RQ: one, W: []int64{1, 1, 1, 1}}},
		// Phase 0 of kw 3, sw 2 sums two taps, weights 1 and −1, on
		// [−2^30, 2^30 − 1]: x[1] − x[0] = hi − lo = 2^31 − 1, convT.acc's
		// top (the input starts lo, hi).
		{name: "convT_acc_max", code: whg1.OpConvTranspose, ins: []in{{1, -1 << 30, 1<<30 - 1, 2, 3}}, outC: []uint32{2},
			params: &whg1.ConvT{Cout: 2, KH: 1, KW: 3, SH: 1, SW: 2, RQ: one, W: []int64{1, 1, -1, -1, 1, 1}}},
	}
	for k := range 8 {
		h, w := 1+r.IntN(9), 1+r.IntN(9)
		kh, kw := uint32(1+r.IntN(5)), uint32(1+r.IntN(5))
		sh, sw := uint32(1+r.IntN(4)), uint32(1+r.IntN(4))
		oph, opw := uint32(r.IntN(4)), uint32(r.IntN(4))
		// Ho = (H − 1)·sh + kh + oph − 2·ph ≥ 1.
		ph := uint32(r.IntN(int((uint32(h-1)*sh+kh+oph-1)/2) + 1))
		pw := uint32(r.IntN(int((uint32(w-1)*sw+kw+opw-1)/2) + 1))
		cout := uint32(1 + r.IntN(12))
		name := fmt.Sprintf("convT_random_%d_k%dx%d_s%dx%d_p%dx%d_op%dx%d", k, kh, kw, sh, sw, ph, pw, oph, opw)
		cases = append(cases, convT(r, name, i8(uint32(1+r.IntN(12)), h, w), cout, kh, kw, sh, sw, ph, pw, oph, opw, chRQ(int(cout))))
	}
	runCases(t, cases)
}

// TestPhaseAxis checks phaseAxis against the definition: u·s + r − p in
// [0, n) for exactly the count grid positions from first, and the taps
// i ≡ r (mod s) below k (at least 1).
func TestPhaseAxis(t *testing.T) {
	for k := 1; k <= 6; k++ {
		for s := 1; s <= 5; s++ {
			for p := 0; p <= 6; p++ {
				for n := 1; n <= 12; n++ {
					for r := range s {
						taps, first, count := phaseAxis(k, s, p, n, r)
						wantTaps := 0
						for i := r; i < k; i += s {
							wantTaps++
						}
						var us []int
						for u := range n + p + 1 {
							if y := u*s + r - p; y >= 0 && y < n {
								us = append(us, u)
							}
						}
						ok := taps == max(1, wantTaps) && count == len(us) && (count == 0 || first == us[0])
						if !ok {
							t.Fatalf("phaseAxis(%d, %d, %d, %d, %d) = %d, %d, %d; want %d taps, positions %v", k, s, p, n, r, taps, first, count, max(1, wantTaps), us)
						}
					}
				}
			}
		}
	}
}
