package cpuref

import (
	"github.com/waiops/waiops/tensor"
	"github.com/waiops/waiops/whg1"
)

// The normalisations of §5.7. Their wide intermediates (class wide under
// acc64, §7.1) are formed exactly in 128 bits; a value that passes 128 bits,
// or a result that passes i64, refuses the decode as outside acc64.

// igdn is §5.7 igdn, at each position (y, x) with x_j = in[j][y][x]:
//
//	N_i = β_i + Σ_j ⌊γ[i][j]·x_j² / 2^gf⌋   (each term floored, then summed)
//	r_i = isqrt(max(0, N_i))
//	out = ⌊x_i·r_i / 2^frac⌋
//
// igdn.x2 = x_j² (≤ 2^126), igdn.gx2 = γ·x² (class product), igdn.term,
// igdn.N and igdn.xr are 128-bit, except where igdnFits proves that int64
// holds every x², γ·x², term and partial sum of N for this input.
func igdn(p *whg1.IGDN, in, out *tensor.T) error {
	C, n := in.Shape.C, in.Shape.H*in.Shape.W
	fast := igdnFits(p, C, maxAbs(in.Data))
	x2 := make([]int128, C)
	x2f := make([]int64, C)
	gf := min(uint(p.GF), 63)
	for pos := range n {
		for j := range C {
			v := in.Data[j*n+pos]
			if fast {
				x2f[j] = v * v
			} else {
				x2[j] = mul64(v, v)
			}
		}
		for i := range C {
			row := p.Gamma[i*C : (i+1)*C]
			var N int128
			if fast {
				// |γ·x²| < 2^63, so ⌊γ·x² / 2^gf⌋ for gf ≥ 63 is the
				// shift by 63 (0 or −1), like the shift by gf.
				s := p.Beta[i]
				for j, g := range row {
					s += (g * x2f[j]) >> gf
				}
				N = i128(s)
			} else {
				var ok bool
				if N, ok = igdnNorm(p.Beta[i], row, x2, uint(p.GF)); !ok {
					return outside("igdn")
				}
			}
			var r uint64
			if !N.neg() {
				r = isqrt128(N.magnitude())
			}
			if r > 1<<63-1 { // igdn.r is class acc: i64
				return outside("igdn")
			}
			xr, ok := i128(in.Data[i*n+pos]).mul(int64(r))
			y := xr.shr(uint(p.Frac))
			if !ok || !y.fitsI64() {
				return outside("igdn")
			}
			out.Data[i*n+pos] = int64(y.lo)
		}
	}
	return nil
}

// igdnNorm is N_i in 128 bits, each term floored; ok is false when a value
// passes 128 bits.
func igdnNorm(beta int64, gamma []int64, x2 []int128, gf uint) (int128, bool) {
	N := i128(beta)
	for j, g := range gamma {
		gx2, ok := x2[j].mul(g)
		if !ok {
			return N, false
		}
		if N, ok = N.add(gx2.shr(gf)); !ok {
			return N, false
		}
	}
	return N, true
}

// igdnFits says whether int64 holds every value igdn forms before r for
// inputs with max|x| = X: x² ≤ X² ≤ 2^62, and for each row i,
// |β_i| + Σ_j (|γ[i][j]|·X² + 1) ≤ 2^63 − 1 bounds every γ·x², every floored
// term (within 1 of γ·x² / 2^gf) and every partial sum of N_i.
func igdnFits(p *whg1.IGDN, C int, X uint64) bool {
	if X > 1<<31-1 {
		return false
	}
	X2 := int64(X * X)
	for i := range C {
		b := i128(p.Beta[i])
		if b.neg() {
			b, _ = b.negate() // |β| ≤ 2^63
		}
		for _, g := range p.Gamma[i*C : (i+1)*C] {
			t := mul64(g, X2)
			if t.neg() {
				t, _ = t.negate() // |γ|·X² ≤ 2^125
			}
			var ok bool
			if b, ok = b.add(t); !ok {
				return false
			}
			if b, ok = b.add64(1); !ok {
				return false
			}
		}
		if !b.fitsI64() {
			return false
		}
	}
	return true
}

// layernormC is §5.7 layernorm_c, at each position over its C values x_c:
//
//	S = Σ x_c, M = S + ⌊C/2⌋·sgn(S), m = trunc(M / C)   ln.S, ln.m (128-bit)
//	d_c = x_c − m                                       ln.d (i64)
//	T = Σ d_c², V = ⌊T / C⌋, U = V + ε                  ln.T, ln.v (128-bit;
//	                                                    ε up to 2^64 − 1)
//	k = rsqrt_q16(U), n_c = ⌊d_c·k / 2^16⌋              ln.dk (128-bit), ln.n
//	out = ⌊n_c·γ[c] / 2^16⌋ + β[c]                      ln.ng (128-bit)
func layernormC(p *whg1.LayerNorm, in, out *tensor.T) error {
	C, n := in.Shape.C, in.Shape.H*in.Shape.W
	d := make([]int64, C)
	for pos := range n {
		var S int128
		var ok bool
		for c := range C {
			if S, ok = S.add64(in.Data[c*n+pos]); !ok {
				return outside("layernorm_c")
			}
		}
		// M = S + ⌊C/2⌋·sgn(S); m = trunc(M / C): divide |M| and restore
		// the sign, which truncates toward zero.
		half := int64(C / 2)
		if S.neg() {
			half = -half
		} else if S.isZero() {
			half = 0
		}
		M, ok := S.add64(half)
		if !ok {
			return outside("layernorm_c")
		}
		mh, ml := M.magnitude()
		m := int128{hi: int64(mh), lo: ml}.divU64(uint64(C))
		if M.neg() {
			m, _ = m.negate() // |m| ≤ |M| < 2^127
		}
		var T int128
		for c := range C {
			dc, ok := i128(in.Data[c*n+pos]).sub(m)
			if !ok || !dc.fitsI64() {
				return outside("layernorm_c")
			}
			d[c] = int64(dc.lo)
			if T, ok = T.add(mul64(d[c], d[c])); !ok {
				return outside("layernorm_c")
			}
		}
		U, ok := T.divU64(uint64(C)).add(int128{lo: p.Eps})
		if !ok {
			return outside("layernorm_c")
		}
		k := rsqrtQ16(U.magnitude())
		for c := range C {
			nc := mul64(d[c], k).shr(16)
			if !nc.fitsI64() {
				return outside("layernorm_c")
			}
			y, ok := mul64(int64(nc.lo), p.Gamma[c]).shr(16).add64(p.Beta[c])
			if !ok || !y.fitsI64() {
				return outside("layernorm_c")
			}
			out.Data[c*n+pos] = int64(y.lo)
		}
	}
	return nil
}

// l2norm is §5.7 l2norm, for each channel over its H·W values v:
// T = Σ v² (l2.T, 128-bit), U = T + ε, k = rsqrt_q16(U),
// out = ⌊v·k / 2^16⌋ (l2.vk, 128-bit).
func l2norm(p *whg1.L2Norm, in, out *tensor.T) error {
	for c := range in.Shape.C {
		src, dst := plane(in, c), plane(out, c)
		var T int128
		var ok bool
		for _, v := range src {
			if T, ok = T.add(mul64(v, v)); !ok {
				return outside("l2norm")
			}
		}
		U, ok := T.add(int128{lo: p.Eps})
		if !ok {
			return outside("l2norm")
		}
		k := rsqrtQ16(U.magnitude())
		for i, v := range src {
			// k ≤ 2^32 and |v·k| / 2^16 ≤ |v|·2^16: it passes i64 only
			// for |v| ≥ 2^47.
			y := mul64(v, k).shr(16)
			if !y.fitsI64() {
				return outside("l2norm")
			}
			dst[i] = int64(y.lo)
		}
	}
	return nil
}

// softmax is §5.7 softmax along W, separately for each (c, y):
//
//	m = max_x v_x, e_x = exp_neg_q16(v_x − m), Σ = Σ_x e_x
//	out_x = ⌊(e_x·2^16 + ⌊Σ/2⌋) / Σ⌋
//
// m − v_x is formed as an unsigned value, exact for any two i64 values.
// Σ ≥ 65553 (the maximum's own term) and Σ ≤ W·65553 < 2^43 under the 2^26
// cap; e_x·2^16 + ⌊Σ/2⌋ < 2^43 too, so int64 holds every value here.
func softmax(in, out *tensor.T) {
	W := in.Shape.W
	for row := 0; row < len(in.Data); row += W {
		src, dst := in.Data[row:row+W], out.Data[row:row+W]
		m := src[0]
		for _, v := range src {
			m = max(m, v)
		}
		var sum int64
		for x, v := range src {
			dst[x] = expNegQ16(uint64(m) - uint64(v))
			sum += dst[x]
		}
		for x, e := range dst {
			dst[x] = (e<<16 + sum/2) / sum
		}
	}
}
