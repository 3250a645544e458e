package norm

// termsGeneric is Terms in pure Go, in int32 as the kernels compute: the
// products and partial sums are within the bounds Terms' caller proves, so
// none wraps (§6). gf ≤ 31. Each pass along a row adds four input rows'
// terms (a row of zero γ adds zero terms), so that the loop is long and
// its loads few.
func termsGeneric(n, x2, g, beta []int32, groups, c, m int, gf uint) {
	gf &= 31
	for q := range groups {
		for r := range Rows {
			row := n[(q*Rows+r)*m:][:m]
			for t := range row {
				row[t] = beta[q*Rows+r]
			}
			γ := func(j int) int32 {
				if j >= c {
					return 0
				}
				return g[(q*c+j)*Rows+r]
			}
			for j := 0; j < c; j += 4 {
				g0, g1, g2, g3 := γ(j), γ(j+1), γ(j+2), γ(j+3)
				// Rows past c read row j again with γ = 0: a zero term.
				x0, x1, x2, x3 := x2row(x2, j, c, m), x2row(x2, j+1, c, m), x2row(x2, j+2, c, m), x2row(x2, j+3, c, m)
				for t := range row {
					row[t] += (g0*x0[t])>>gf + (g1*x1[t])>>gf + (g2*x2[t])>>gf + (g3*x3[t])>>gf
				}
			}
		}
	}
}

// x2row is row j of the x² panel, or row 0 for j ≥ c (whose γ is zero).
func x2row(x2 []int32, j, c, m int) []int32 {
	if j >= c {
		j = 0
	}
	return x2[j*m:][:m]
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
