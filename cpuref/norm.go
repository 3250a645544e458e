package cpuref

import (
	"math/bits"

	"github.com/waiops/waiops/cpuref/dot"
	"github.com/waiops/waiops/cpuref/norm"
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
// Three paths, chosen per block of igdnSpan positions from the block's
// max|x| (measured; for a certified graph it lies inside the certified
// interval, so the certificate's bounds hold a fortiori):
//
//   - igdn32 (igdn_i32.go), where int32 holds every x², γ·x², term and
//     partial sum of N (igdn32Fits): the cpuref/norm kernels;
//   - igdnBlock, where int64 holds them (igdnFits);
//   - igdnWide, with igdn.x2, igdn.gx2, igdn.term, igdn.N and igdn.xr in
//     128 bits.
//
// Positions are independent, so blocks are split across goroutines (§6:
// outputs partitioned).
func igdn(p *whg1.IGDN, in, out *tensor.T) error {
	return newIGDN(p, in.Shape.C, nil).run(in, out)
}

// igdnKernel is igdn bound at load: its 32-bit plan for C channels (nil
// when none) and the post fuse folded into it (nil for none), applied to
// each block's rows of each channel once they are written, while they are
// still in cache (a relu or clamp after igdn makes no pass of its own).
type igdnKernel struct {
	p    *whg1.IGDN
	C    int
	k32  *igdn32
	post *rowPost
}

func newIGDN(p *whg1.IGDN, C int, post *rowPost) *igdnKernel {
	return &igdnKernel{p: p, C: C, k32: newIGDN32(p, C), post: post}
}

func (g *igdnKernel) run(in, out *tensor.T) error { return g.runVal(val{T: in}, val{T: out}) }

// runVal is run on tensors stored at either width (narrow.go). A narrow
// input with an int64 output is widened into the output block by block and
// computed there in place (block). A narrow output's blocks are computed
// into a C × igdnSpan scratch tensor, from the input's values (widened into
// another, or copied), and stored from it (storeRow, the post with it); so
// every path runs as it does on int64 tensors.
func (g *igdnKernel) runVal(in, out val) error {
	p := g.p
	C, n := in.Shape.C, in.Shape.H*in.Shape.W
	k := g.k32
	if C != g.C { // a plan's channels are the graph's; this only guards
		k = newIGDN32(p, C)
	}
	narrow := in.i8 != nil || out.i8 != nil
	blocks := (n + igdnSpan - 1) / igdnSpan
	return parallelRows(0, blocks, C*C*igdnSpan, func(b0, b1 int) error {
		var x2, N []int32
		if k != nil {
			x2, N = k.scratch(C)
		}
		var xs, ys *tensor.T
		if narrow {
			xs, ys = tensor.New(tensor.Shape{C: C, H: 1, W: igdnSpan}), tensor.New(tensor.Shape{C: C, H: 1, W: igdnSpan})
		}
		for b := b0; b < b1; b++ {
			p0, p1 := b*igdnSpan, min(n, (b+1)*igdnSpan)
			if !narrow {
				if err := g.block(k, g.post, in.T, out.T, p0, p1, x2, N); err != nil {
					return err
				}
				continue
			}
			if out.i8 == nil { // widened into out, and computed there in place
				for j := range C {
					dot.Widen8(out.Data[j*n+p0:][:p1-p0], in.i8[j*n+p0:][:p1-p0])
				}
				if err := g.block(k, g.post, out.T, out.T, p0, p1, x2, N); err != nil {
					return err
				}
				continue
			}
			m := p1 - p0
			xb := &tensor.T{Shape: tensor.Shape{C: C, H: 1, W: m}, Data: xs.Data[:C*m]}
			yb := &tensor.T{Shape: xb.Shape, Data: ys.Data[:C*m]}
			for j := range C {
				row := xb.Data[j*m:][:m]
				if in.i8 != nil {
					dot.Widen8(row, in.i8[j*n+p0:][:m])
				} else {
					copy(row, in.Data[j*n+p0:][:m])
				}
			}
			post := g.post
			if out.i8 != nil {
				post = nil // storeRow applies it
			}
			if err := g.block(k, post, xb, yb, 0, m, x2, N); err != nil {
				return err
			}
			for i := range C {
				row := yb.Data[i*m:][:m]
				if out.i8 == nil {
					copy(out.Data[i*n+p0:][:m], row)
				} else if !storeRow(out.i8[i*n+p0:][:m], 1, row, g.post) {
					return lostNarrow("igdn")
				}
			}
		}
		return nil
	})
}

// block is igdn at positions [p0, p1) of in into out, on the 32-bit plan k
// (nil for none) where the block's max|x| allows, else on igdnBlock or
// igdnWide, and then post (nil for none) on each channel's rows of the
// block while they are still in cache. in and out may be one tensor: every
// path forms each position's x² of all channels before it writes any
// output there, and output i at a position reads only input i there.
func (g *igdnKernel) block(k *igdn32, post *rowPost, in, out *tensor.T, p0, p1 int, x2, N []int32) error {
	C, n := in.Shape.C, in.Shape.H*in.Shape.W
	if k == nil || !k.block(in, out, p0, p1, x2, N) {
		var X uint64
		for j := range C {
			X = max(X, maxAbs(in.Data[j*n+p0:j*n+p1]))
		}
		f := igdnWide
		if igdnFits(g.p, C, X) {
			f = igdnBlock
		}
		if err := f(g.p, in, out, p0, p1); err != nil {
			return err
		}
	}
	if post != nil {
		for i := range C {
			post.row(out.Data[i*n+p0 : i*n+p1])
		}
	}
	return nil
}

// igdnSpan is the positions igdnBlock takes at once: C rows of x² of this
// length stay in cache while every output channel reads them.
const igdnSpan = 256

// igdnBlock is igdn at positions [p0, p1) in int64 (igdnFits holds). For
// each output channel i it accumulates N_i over a run of positions, one
// input channel j at a time, so the inner loop runs along contiguous
// memory. Bounds: |x| ≤ 2^31 − 1, so x² ≤ 2^62; every γ·x², term and partial
// sum of N lies within igdnFits' row bound ≤ 2^63 − 1; an arithmetic shift
// of γ·x² is its floor (§2), and for gf ≥ 63 the shift by 63 (0 or −1)
// equals the floor because |γ·x²| < 2^63. r = isqrt(N) ≤ isqrt(2^63 − 1) <
// 2^32, so |x·r| < 2^63 and y = ⌊x·r / 2^frac⌋ is the shift by min(frac,
// 63) for the same reason.
func igdnBlock(p *whg1.IGDN, in, out *tensor.T, p0, p1 int) error {
	C, n, m := in.Shape.C, in.Shape.H*in.Shape.W, p1-p0
	gf, frac := min(uint(p.GF), 63), min(uint(p.Frac), 63)
	// Under the pure-Go norm kernels the int64 loop and isqrt64 stay: that
	// Root's bit-by-bit root is slower than isqrt64's Newton steps, and
	// Floored4 is the same loop behind a call (BenchmarkIGDNI16).
	vec := norm.Selected() != "purego"
	x2 := make([]int64, C*m)
	var top int64
	for j := range C {
		src, dst := in.Data[j*n+p0:][:m], x2[j*m:][:m]
		for t, v := range src {
			dst[t] = v * v
			top = max(top, dst[t])
		}
	}
	N, n32 := make([]int64, m), make([]int32, m)
	for i := range C {
		for t := range N {
			N[t] = p.Beta[i]
		}
		b := floored4{s: gf, x2i32: vec && top < 1<<31}
		for j, g := range p.Gamma[i*C : (i+1)*C] {
			if g != 0 { // a zero term (§6 may skip it): ⌊0 / 2^gf⌋ = 0
				b.add(N, g, x2[j*m:][:m])
			}
		}
		b.flush(N)
		src, dst := in.Data[i*n+p0:][:m], out.Data[i*n+p0:][:m]
		if b.x2i32 && rootNarrow(dst, src, N, n32, frac) {
			continue
		}
		for t, s := range N {
			var r int64
			if s > 0 {
				r = int64(isqrt128(0, uint64(s)))
			}
			dst[t] = (src[t] * r) >> (frac & 63)
		}
	}
	return nil
}

// rootNarrow is igdnBlock's last step on norm.Root where its bounds hold,
// and reports whether they did: x in i32 (the caller's x² < 2^31), and
// every max(0, N[t]) ≤ 2^31 − 1, so r = isqrt(max(0, N)) < 2^bits with
// 2·bits ≥ the bit length of max N (bits ≤ 16). max(0, N) is formed here
// (§5.7's isqrt(max(0, N_i))) so that the narrowing into n32 loses nothing.
func rootNarrow(dst, src, N []int64, n32 []int32, frac uint) bool {
	var top int64
	for _, v := range N {
		top = max(top, v)
	}
	if top > 1<<31-1 {
		return false
	}
	n32 = n32[:len(N)]
	for t, v := range N {
		n32[t] = int32(max(v, 0))
	}
	return norm.Root(dst, src, n32, frac, max(1, (bits.Len64(uint64(top))+1)/2))
}

// floored4 is taps4 for igdn's terms: it adds ⌊g_k·r_k[t] / 2^s⌋ (each
// product floored by an arithmetic shift, s ≤ 63) four at a time into a[t].
// It is a type of its own so that conv's loop carries no shift. Where every
// r_k[t] < 2^31 (x2i32: x² for |x| ≤ 46340, past the 32-bit path's 181;
// false under the pure-Go norm kernels)
// and the four g_k fit i32, norm.Floored4 forms the same terms, γ·x² in
// 64-bit lanes (vpmuldq, vpsraq, vpaddq); the bounds of igdnFits on every
// partial sum make the order of the adds immaterial (§6).
type floored4 struct {
	g     [4]int64
	r     [4][]int64
	n     int
	s     uint
	x2i32 bool
}

func (b *floored4) add(a []int64, g int64, r []int64) {
	b.g[b.n], b.r[b.n] = g, r
	if b.n++; b.n == 4 {
		b.flush(a)
	}
}

// flush adds the queued terms into a; an empty slot is γ = 0, a zero term.
func (b *floored4) flush(a []int64) {
	if b.n == 0 {
		return
	}
	for k := b.n; k < 4; k++ {
		b.g[k], b.r[k] = 0, b.r[0]
	}
	b.n = 0
	if b.x2i32 && fitsI32(b.g[0]) && fitsI32(b.g[1]) && fitsI32(b.g[2]) && fitsI32(b.g[3]) {
		norm.Floored4(a, &b.g, &b.r, b.s)
		return
	}
	s := b.s & 63 // s ≤ 63 already; the mask lets the shifts compile plain
	g0, g1, g2, g3 := b.g[0], b.g[1], b.g[2], b.g[3]
	r0, r1, r2, r3 := b.r[0][:len(a)], b.r[1][:len(a)], b.r[2][:len(a)], b.r[3][:len(a)]
	for t := range a {
		a[t] += (g0*r0[t])>>s + (g1*r1[t])>>s + (g2*r2[t])>>s + (g3*r3[t])>>s
	}
}

// igdnWide is igdn at positions [p0, p1) with the 128-bit intermediates.
func igdnWide(p *whg1.IGDN, in, out *tensor.T, p0, p1 int) error {
	C, n := in.Shape.C, in.Shape.H*in.Shape.W
	x2 := make([]int128, C)
	for pos := p0; pos < p1; pos++ {
		for j := range C {
			x2[j] = mul64(in.Data[j*n+pos], in.Data[j*n+pos])
		}
		for i := range C {
			N, ok := igdnNorm(p.Beta[i], p.Gamma[i*C:(i+1)*C], x2, uint(p.GF))
			if !ok {
				return outside("igdn")
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
//
// Where int64 holds every value for this input (layernormFits), the
// position runs in int64 (layernorm64); else in the 128-bit form
// (layernormWide).
func layernormC(p *whg1.LayerNorm, in, out *tensor.T) error {
	if layernormFits(p, in.Shape.C, maxAbs(in.Data)) {
		layernorm64(p, in, out)
		return nil
	}
	return layernormWide(p, in, out)
}

// layernormWide is layernorm_c with ln.S, ln.m, ln.T, ln.v, ln.dk and
// ln.ng in 128 bits.
func layernormWide(p *whg1.LayerNorm, in, out *tensor.T) error {
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
// T = Σ v² (l2.T), U = T + ε, k = rsqrt_q16(U), out = ⌊v·k / 2^16⌋
// (l2.vk). A channel whose values pass l2Fits runs in int64 (l2norm64),
// any other with l2.T and l2.vk in 128 bits (l2normWide).
func l2norm(p *whg1.L2Norm, in, out *tensor.T) error {
	for c := range in.Shape.C {
		src, dst := plane(in, c), plane(out, c)
		if l2Fits(len(src), maxAbs(src)) {
			l2norm64(p.Eps, src, dst)
			continue
		}
		if err := l2normWide(p.Eps, src, dst); err != nil {
			return err
		}
	}
	return nil
}

// l2normWide is l2norm on one channel's values, src, with l2.T and l2.vk
// in 128 bits.
func l2normWide(eps uint64, src, dst []int64) error {
	var T int128
	var ok bool
	for _, v := range src {
		if T, ok = T.add(mul64(v, v)); !ok {
			return outside("l2norm")
		}
	}
	U, ok := T.add(int128{lo: eps})
	if !ok {
		return outside("l2norm")
	}
	k := rsqrtQ16(U.magnitude())
	for i, v := range src {
		// k ≤ 2^32 and |v·k| / 2^16 ≤ |v|·2^16: it passes i64 only for
		// |v| ≥ 2^47.
		y := mul64(v, k).shr(16)
		if !y.fitsI64() {
			return outside("l2norm")
		}
		dst[i] = int64(y.lo)
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

// fitsI32 says whether v lies in int32.
func fitsI32(v int64) bool { return v == int64(int32(v)) }
