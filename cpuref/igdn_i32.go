package cpuref

import (
	"github.com/waiops/waiops/cpuref/norm"
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// igdn32 is igdn's 32-bit path (§6: any width that holds every value it
// forms): the sums through norm.Terms and the isqrt and product through
// norm.Root, for blocks whose max|x| is at most xmax.
type igdn32 struct {
	pk   *norm.Packed
	xmax uint64 // the largest max|x| for which igdn32Fits holds
	bits int    // r < 2^bits for every block with max|x| ≤ xmax
	gf   uint
	frac uint
}

// igdn32Max is the largest max|x| the kernels take: x² ≤ 181² = 32761 <
// 2^15, the bound of norm.Terms.
const igdn32Max = 181

// newIGDN32 is igdn's 32-bit plan, or nil when no input fits it: γ outside
// i16, β outside i32, or no max|x| for which igdn32Fits holds.
func newIGDN32(p *whg1.IGDN, C int) *igdn32 {
	pk, ok := norm.Pack(p.Gamma, p.Beta, C)
	if !ok {
		return nil
	}
	// igdn32Fits is monotone in X (every bound grows with X²): take the
	// largest X in [0, igdn32Max] where it holds.
	lo, hi := uint64(0), uint64(igdn32Max)
	if _, ok := igdn32Fits(p, C, lo); !ok {
		return nil
	}
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if _, ok := igdn32Fits(p, C, mid); ok {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	B, _ := igdn32Fits(p, C, lo)
	// r = isqrt(N) with 0 ≤ N ≤ B < 2^(2·bits) is below 2^bits.
	bits := 1
	for B>>(2*bits) != 0 {
		bits++
	}
	// Every term's magnitude is at most ⌈|γ|·X²/2^gf⌉ ≤ (|γ|·X² >> gf) + 1
	// (igdn32Fits) with X = lo: that bound lets norm.PackHi choose its
	// 16-bit chunk, where its conditions on γ and gf hold.
	var T uint64 = 1
	for _, g := range p.Gamma {
		T = max(T, (absU(g)*lo*lo)>>min(uint(p.GF), 63)+1)
	}
	norm.PackHi(pk, p.Gamma, uint(p.GF), T)
	return &igdn32{pk: pk, xmax: lo, bits: bits, gf: uint(p.GF), frac: uint(p.Frac)}
}

// igdn32Fits says whether int32 holds every value igdn forms before r
// for inputs with max|x| = X ≤ igdn32Max, and returns B, the largest row
// bound: x² ≤ X² < 2^15 and |γ| < 2^15 give |γ·x²| < 2^30 (igdn.gx2);
// a floored term lies within ⌈|γ|·X² / 2^gf⌉ ≤ (|γ|·X² >> gf) + 1 of 0
// (igdn.term); so for each row i, B_i = |β_i| + Σ_j ((|γ[i][j]|·X² >> gf) +
// 1) ≤ 2^31 − 1 bounds every partial sum of N_i, β included or not, in
// any order (igdn.N). Every N_i ≤ B then, so r ≤ isqrt(B) < 2^16; with
// |x| ≤ 181, |x·r| < 2^47 (igdn.xr), which norm.Root forms in 64 bits.
// Called with γ in i16 and β in i32 (norm.Pack has checked them).
func igdn32Fits(p *whg1.IGDN, C int, X uint64) (B uint64, ok bool) {
	if X > igdn32Max {
		return 0, false
	}
	X2, gf := X*X, min(uint(p.GF), 63)
	for i := range C {
		b := absU(p.Beta[i]) // ≤ 2^31
		for _, g := range p.Gamma[i*C : (i+1)*C] {
			if g != 0 {
				b += (absU(g)*X2)>>gf + 1 // C ≤ 2^13 terms of < 2^30: no wrap
			}
		}
		if b > 1<<31-1 {
			return 0, false
		}
		B = max(B, b)
	}
	return B, true
}

// scratch is one worker's panels for block: x² and N for igdnSpan
// positions.
func (k *igdn32) scratch(C int) (x2, N []int32) {
	mp := (igdnSpan + norm.Cols - 1) / norm.Cols * norm.Cols
	return make([]int32, C*mp), make([]int32, k.pk.Channels()*mp)
}

// block is igdn at positions [p0, p1) (at most igdnSpan) on the 32-bit
// path, or false, with out unchanged, when the block's max|x| passes
// xmax. x2 and N are scratch's panels; the block's rows of x² are padded
// to a multiple of norm.Cols with zeros. Columns are independent and the
// padding's N is never read, so the zeros change no output: they keep
// every lane norm.Terms sees inside its bounds (a lane left over from a
// block that failed Squares need not be), so that no lane wraps (§6).
func (k *igdn32) block(in, out *tensor.T, p0, p1 int, x2, N []int32) bool {
	C, n, m := in.Shape.C, in.Shape.H*in.Shape.W, p1-p0
	mp := (m + norm.Cols - 1) / norm.Cols * norm.Cols
	x2, N = x2[:C*mp], N[:k.pk.Channels()*mp]
	for j := range C {
		row := x2[j*mp:][:mp]
		if !norm.Squares(row, in.Data[j*n+p0:][:m], int64(k.xmax)) {
			return false
		}
		clear(row[m:])
	}
	norm.Terms(N, x2, k.pk, mp, k.gf)
	for i := range C {
		norm.Root(out.Data[i*n+p0:][:m], in.Data[i*n+p0:][:m], N[i*mp:][:m], k.frac, k.bits)
	}
	return true
}
