package norm

// termsGeneric is Terms in pure Go, in int32 as the kernels compute: the
// products and partial sums are within the bounds Terms' caller proves, so
// none wraps (§6). gf ≤ 31.
func termsGeneric(n, x2, g, beta []int32, groups, c, m int, gf uint) {
	gf &= 31
	for q := range groups {
		for r := range Rows {
			row := n[(q*Rows+r)*m:][:m]
			for t := range row {
				row[t] = beta[q*Rows+r]
			}
			for j := range c {
				γ := g[(q*c+j)*Rows+r]
				if γ == 0 { // a zero term (§6 may skip it): ⌊0 / 2^gf⌋ = 0
					continue
				}
				xs := x2[j*m:][:m]
				for t := range row {
					row[t] += (γ * xs[t]) >> gf
				}
			}
		}
	}
}

// rootGeneric is Root in pure Go: frac ≤ 63, bits in [1, 16].
func rootGeneric(out, x []int64, n []int32, frac uint, bits int) {
	frac &= 63
	for t, v := range n {
		r := isqrtBits(uint32(max(v, 0)), bits)
		out[t] = (x[t] * int64(r)) >> frac
	}
}

// isqrtBits is isqrt(v) of §2, the largest r with r² ≤ v, for v <
// 2^(2·bits): r < 2^bits, so r is settled bit by bit from bit bits − 1
// down, one candidate bit a step, bits steps in all. Step b keeps the bit
// when (r + 2^b)² ≤ v; every candidate is below 2^16, so its square fits
// uint32. The steps are those of the SIMD kernels, lane for lane, with the
// comparison turned into a mask instead of a branch.
func isqrtBits(v uint32, bits int) uint32 {
	var r uint32
	for b := bits - 1; b >= 0; b-- {
		c := r | 1<<uint(b)
		// keep is all ones when c² ≤ v: the borrow of v − c² is 0.
		keep := uint32(int64(uint64(v)-uint64(c*c))>>63) ^ 0xFFFFFFFF
		r |= keep & (1 << uint(b))
	}
	return r
}

// squaresGeneric is Squares in pure Go.
func squaresGeneric(x2 []int32, x []int64, lim int64) bool {
	out := false
	for t, v := range x {
		out = out || v > lim || v < -lim
		x2[t] = int32(v * v)
	}
	return !out
}
