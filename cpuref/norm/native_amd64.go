//go:build !purego

package norm

import "golang.org/x/sys/cpu"

// native lists the amd64 kernels this machine runs, narrowest first; it
// reads golang.org/x/sys/cpu once, when the package initialises.
func native() []Impl {
	var l []Impl
	if cpu.X86.HasAVX2 {
		l = append(l, Impl{Name: "avx2", terms: asmTerms(termsAVX2), root: asmRoot(rootAVX2), squares: asmSquares(squaresAVX2),
			termsHi: asmTermsHi(termsHiAVX2), floored4: flooredGeneric})
	}
	// F for the zmm forms, BW for word multiply-adds on zmm, VL for the
	// ymm forms of the narrowing and widening moves.
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL {
		l = append(l, Impl{Name: "avx512", terms: asmTerms(termsAVX512), root: asmRoot(rootAVX512), squares: asmSquares(squaresAVX512),
			termsHi: asmTermsHi(termsHiAVX512), floored4: asmFloored(flooredAVX512)})
	}
	return l
}

// asmTerms passes Terms' checked slices to an assembly kernel.
func asmTerms(k func(n, x2, gam, beta *int32, groups, c, m int, gf uint64)) func(n, x2, g, beta []int32, groups, c, m int, gf uint) {
	return func(n, x2, g, beta []int32, groups, c, m int, gf uint) {
		k(&n[0], &x2[0], &g[0], &beta[0], groups, c, m, uint64(gf))
	}
}

// asmTermsHi passes Terms' checked slices to a high-form kernel.
func asmTermsHi(k func(n, x2, gam, beta *int32, groups, c, m, chunk int)) func(n, x2, g, beta []int32, groups, c, m, chunk int) {
	return func(n, x2, g, beta []int32, groups, c, m, chunk int) {
		k(&n[0], &x2[0], &g[0], &beta[0], groups, c, m, chunk)
	}
}

// asmRoot passes Root's checked slices to an assembly kernel.
func asmRoot(k func(out, x *int64, n *int32, cnt int, frac uint64, bits int)) func(out, x []int64, n []int32, frac uint, bits int) {
	return func(out, x []int64, n []int32, frac uint, bits int) {
		k(&out[0], &x[0], &n[0], len(out), uint64(frac), bits)
	}
}

// asmSquares passes Squares' checked slices to an assembly kernel.
func asmSquares(k func(x2 *int32, x *int64, cnt int, lim int64) bool) func(x2 []int32, x []int64, lim int64) bool {
	return func(x2 []int32, x []int64, lim int64) bool { return k(&x2[0], &x[0], len(x), lim) }
}

// The kernels of norm_amd64.s. terms*: groups groups of Rows output rows,
// c input rows, m columns (a multiple of Cols), gf ≤ 31. root*: cnt
// elements (a multiple of 32), frac ≤ 63, bits in [1, 16]. squares*: cnt
// elements (a multiple of 16), lim in [0, 181].

//go:noescape
func termsAVX2(n, x2, gam, beta *int32, groups, c, m int, gf uint64)

//go:noescape
func rootAVX2(out, x *int64, n *int32, cnt int, frac uint64, bits int)

//go:noescape
func termsAVX512(n, x2, gam, beta *int32, groups, c, m int, gf uint64)

//go:noescape
func rootAVX512(out, x *int64, n *int32, cnt int, frac uint64, bits int)

//go:noescape
func squaresAVX2(x2 *int32, x *int64, cnt int, lim int64) bool

//go:noescape
func squaresAVX512(x2 *int32, x *int64, cnt int, lim int64) bool

// termsHiAVX2 and termsHiAVX512 are terms for PackHi's form: chunk ≥ 1
// input rows a 16-bit lane.

//go:noescape
func termsHiAVX2(n, x2, gam, beta *int32, groups, c, m, chunk int)

//go:noescape
func termsHiAVX512(n, x2, gam, beta *int32, groups, c, m, chunk int)

// asmFloored runs a Floored4 kernel on the whole blocks of 8 elements and
// the pure-Go loop on the rest.
func asmFloored(k func(a *int64, cnt int, g *[4]int64, r0, r1, r2, r3 *int64, s uint64)) func(a []int64, g *[4]int64, r *[4][]int64, s uint) {
	return func(a []int64, g *[4]int64, r *[4][]int64, s uint) {
		n := len(a) &^ 7
		if n > 0 {
			k(&a[0], n, g, &r[0][:n][0], &r[1][:n][0], &r[2][:n][0], &r[3][:n][0], uint64(s))
		}
		if n < len(a) {
			flooredGeneric(a[n:], g, &[4][]int64{r[0][n:], r[1][n:], r[2][n:], r[3][n:]}, s)
		}
	}
}

// flooredAVX512 is Floored4 on cnt elements (a positive multiple of 8):
// vpmuldq, vpsraq (AVX-512 F; AVX2 has no 64-bit arithmetic shift) and
// vpaddq per term, 8 positions a zmm.
//
//go:noescape
func flooredAVX512(a *int64, cnt int, gam *[4]int64, r0, r1, r2, r3 *int64, s uint64)
