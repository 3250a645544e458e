package norm

// Floored4 adds four floored terms into each element of a (§5.7 igdn's
// ⌊γ[i][j]·x_j² / 2^gf⌋ on igdn's int64 path, where x² passes the 32-bit
// kernels' bound):
//
//	a[t] += ⌊g[0]·r[0][t] / 2^s⌋ + … + ⌊g[3]·r[3][t] / 2^s⌋
//
// Its bounds, the caller's proof: each g[k] in int32, each r[k][t] in
// [0, 2^31) (x² for |x| ≤ 46340), so |g·r| < 2^62 is one vpmuldq; s ≤ 63,
// so the arithmetic shift is the floor (§2); every partial sum of a[t]
// lies in int64, so the order of the adds changes nothing. Each r[k] is at
// least len(a) long; a zero g[k] is a zero term. The kernels check
// lengths, never values.
func Floored4(a []int64, g *[4]int64, r *[4][]int64, s uint) {
	best.floored4(a, g, r, s)
}

// flooredGeneric is Floored4 in pure Go.
func flooredGeneric(a []int64, g *[4]int64, r *[4][]int64, s uint) {
	s &= 63 // s ≤ 63 already; the mask lets the shifts compile plain
	g0, g1, g2, g3 := g[0], g[1], g[2], g[3]
	r0, r1, r2, r3 := r[0][:len(a)], r[1][:len(a)], r[2][:len(a)], r[3][:len(a)]
	for t := range a {
		a[t] += (g0*r0[t])>>s + (g1*r1[t])>>s + (g2*r2[t])>>s + (g3*r3[t])>>s
	}
}
