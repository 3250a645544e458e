package cpuref

import (
	"math/bits"

	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// The int64 forms of §5.7's l2norm and layernorm_c: the same steps as
// l2normWide and layernormWide, for inputs whose measured max|x| proves
// that int64 holds every value they form (§6: any width that holds every
// value it forms). For a certified graph the measured interval lies inside
// the certified one.

// l2Fits says whether l2norm64 is exact on L values with max|v| = X:
// X ≤ 2^31 − 1 gives v² ≤ 2^62 and |v·k| ≤ X·2^32 < 2^63 (k ≤ 2^32, as
// U ≥ ε ≥ 1); L·X² ≤ 2^63 − 1 bounds every partial sum of T (l2.T).
func l2Fits(L int, X uint64) bool {
	if X > 1<<31-1 {
		return false
	}
	hi, lo := bits.Mul64(uint64(L), X*X)
	return hi == 0 && lo <= 1<<63-1
}

// l2norm64 is l2norm on one channel's values in int64 (l2Fits holds). U =
// T + ε may pass 64 bits (ε < 2^64), so it is the pair rsqrtQ16 takes.
func l2norm64(eps uint64, src, dst []int64) {
	var T int64
	for _, v := range src {
		T += v * v
	}
	ul, c := bits.Add64(uint64(T), eps, 0)
	k := rsqrtQ16(c, ul)
	for i, v := range src {
		dst[i] = (v * k) >> 16 // an arithmetic shift floors (§2)
	}
}

// layernormFits says whether layernorm64 is exact for C channels with
// max|x| = X, by the bounds of §8.3's rules with [l, h] ⊂ [−X, X]:
//
//	X ≤ 2^29            |S| ≤ C·X and |M| ≤ C·X + C/2 < 2^56 (C ≤ 2^26,
//	                    §3's cap) (ln.S, ln.m); |m| ≤ X, so |d| ≤ 2X ≤
//	                    2^30 (ln.d)
//	C·4X² ≤ 2^63 − 1    every partial sum of T (ln.T)
//	                    |d·k| ≤ 2X·2^32 ≤ 2^62 (ln.dk), as k ≤ 2^32
//	G·2X·2^16 ≤ 2^63 − 1 − 2^16·(B + 1)
//	                    with G = max|γ|, B = max|β|: |n| ≤ 2X·2^16 (ln.n:
//	                    ⌊±a / 2^16⌋ for a ≤ 2X·2^32, a multiple of 2^16's
//	                    bound), so |n·γ| ≤ G·2X·2^16 (ln.ng) and
//	                    |⌊n·γ / 2^16⌋ + β| ≤ G·2X + 1 + B fits i64.
//
// B ≤ 2^46 keeps (B + 1)·2^16 < 2^63.
func layernormFits(p *whg1.LayerNorm, C int, X uint64) bool {
	if X > 1<<29 {
		return false
	}
	if hi, lo := bits.Mul64(uint64(4*C), X*X); hi != 0 || lo > 1<<63-1 {
		return false
	}
	var G, B uint64
	for c := range C {
		G, B = max(G, absU(p.Gamma[c])), max(B, absU(p.Beta[c]))
	}
	if B > 1<<46 {
		return false
	}
	hi, lo := bits.Mul64(G, 2*X<<16)
	return hi == 0 && lo <= 1<<63-1-(B+1)<<16
}

// layernorm64 is layernorm_c in int64 (layernormFits holds), step for
// step as layernormWide; U = V + ε may pass 64 bits (ε < 2^64), so it is
// the pair rsqrtQ16 takes.
func layernorm64(p *whg1.LayerNorm, in, out *tensor.T) {
	C, n := in.Shape.C, in.Shape.H*in.Shape.W
	d := make([]int64, C)
	half := int64(C / 2)
	for pos := range n {
		var S int64
		for c := range C {
			S += in.Data[c*n+pos]
		}
		// M = S + ⌊C/2⌋·sgn(S); Go's / truncates toward zero, as m's
		// trunc does.
		M := S
		switch {
		case S > 0:
			M += half
		case S < 0:
			M -= half
		}
		m := M / int64(C)
		var T int64
		for c := range C {
			d[c] = in.Data[c*n+pos] - m
			T += d[c] * d[c]
		}
		ul, carry := bits.Add64(uint64(T/int64(C)), p.Eps, 0)
		k := rsqrtQ16(carry, ul)
		for c := range C {
			nc := (d[c] * k) >> 16
			out.Data[c*n+pos] = (nc*p.Gamma[c])>>16 + p.Beta[c]
		}
	}
}
