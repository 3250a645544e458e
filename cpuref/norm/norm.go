// Package norm holds the CPU fabric's 32-bit kernels for §5.7's igdn
// (integer-operators §5.7, §6 "Chunked 32-bit partial sums"): the
// per-term sum N_i = β_i + Σ_j ⌊γ[i][j]·x_j² / 2^gf⌋ over a panel of
// positions (Terms), and r = isqrt(max(0, N)), out = ⌊x·r / 2^frac⌋ along
// a row (Root); and, for igdn's int64 path, four floored 64-bit terms
// γ·x² with x² < 2^31 and γ in i32 added into a row (Floored4, AVX-512's
// vpmuldq and vpsraq). Every value is an exact integer; nothing here uses floating
// point (§6's MUST NOT).
//
// There is one Go signature per kernel and one implementation per
// instruction set: pure Go (generic.go) and, on amd64, AVX2 on ymm and
// AVX-512 (F, BW, VL) on zmm (norm_amd64.s). Terms has two forms: 32-bit
// lanes (vpmaddwd, vpsrad, vpaddd a term) and, where PackHi's conditions
// hold, 16-bit lanes (one vpmulhw and one vpaddw for 32 or 16 terms),
// which give the same sums. A dispatcher picks the widest
// one golang.org/x/sys/cpu reports once, at package init; the purego build
// tag forces the pure-Go kernels.
//
// Who should use it: cpuref's igdn, for blocks whose every value the
// caller has proved inside the bounds each kernel states (Terms, Root).
// The kernels check shapes, never values: a value outside its bound gives
// a wrong result, not a refusal. Everything else stays on cpuref's int64
// and 128-bit paths.
package norm

// Rows is the output channels Terms takes at once: Pack pads γ and β to a
// multiple of it with zero rows.
const Rows = 4

// Cols is the column granularity of Terms: its panels' row length is a
// multiple of it.
const Cols = 32

// Impl is one implementation of the kernels.
type Impl struct {
	// Name is the instruction set: "purego", "avx2", "avx512".
	Name string
	// terms has the contract of Terms, with its checks done and groups ≥ 1,
	// c ≥ 1, m ≥ Cols.
	terms func(n, x2, g, beta []int32, groups, c, m int, gf uint)
	// root has the contract of Root for len(n) a positive multiple of 32.
	root func(out, x []int64, n []int32, frac uint, bits int)
	// squares has the contract of Squares for len(x) a positive multiple
	// of 16.
	squares func(x2 []int32, x []int64, lim int64) bool
	// termsHi is terms for a Packed with its high form (PackHi): g holds
	// the dword pairs (γ·2^(16−gf), same), chunk the input rows a 16-bit
	// lane may sum. nil where the set has no such kernel; terms runs then.
	termsHi func(n, x2, g, beta []int32, groups, c, m, chunk int)
	// floored4 has the contract of Floored4 (the pure-Go loop where the
	// set has no 64-bit arithmetic shift).
	floored4 func(a []int64, g *[4]int64, r *[4][]int64, s uint)
}

// generic is the pure-Go implementation, present in every build.
var generic = Impl{Name: "purego", terms: termsGeneric, root: rootGeneric, squares: squaresGeneric, floored4: flooredGeneric}

// impls lists the implementations this build has and this machine runs,
// the pure one first; best is the last, the one the dispatcher picked.
var (
	impls = append([]Impl{generic}, native()...)
	best  = impls[len(impls)-1]
)

// Implementations returns the names of the implementations this build has
// and this machine runs, the pure one first and the dispatcher's pick last.
func Implementations() []string {
	names := make([]string, len(impls))
	for i, im := range impls {
		names[i] = im.Name
	}
	return names
}

// Selected is the name of the implementation Terms and Root run.
func Selected() string { return best.Name }

// Force makes the kernels run the implementation named name (one of
// Implementations) until restore is called, so that a caller's tests can
// cover every implementation through their own paths; ok is false, and
// nothing changes, for a name this build or machine does not have. It is
// for tests only: it is not safe while kernels run.
func Force(name string) (restore func(), ok bool) {
	for _, im := range impls {
		if im.Name == name {
			saved := best
			best = im
			return func() { best = saved }, true
		}
	}
	return nil, false
}

// Squares sets x2[t] = x[t]² for every t < len(x) and reports whether
// every x[t] lies in [−lim, lim], for 0 ≤ lim ≤ 181 (so x² < 2^15, Terms'
// bound). Where it reports false, x2 holds no meaningful value: a square
// past the bound is formed modulo 2^64 and narrowed, only to be discarded.
// It returns false also when len(x2) < len(x) or lim is outside [0, 181].
func Squares(x2 []int32, x []int64, lim int64) bool {
	if len(x2) < len(x) || lim < 0 || lim > 181 {
		return false
	}
	k := len(x) &^ 15
	ok := true
	if k > 0 {
		ok = best.squares(x2[:k], x[:k], lim)
	}
	return squaresGeneric(x2[k:len(x)], x[k:], lim) && ok
}

// Packed is an igdn's γ and β in Terms' layout: for group q of Rows output
// channels, input channel j and row r < Rows, g[(q·C + j)·Rows + r] =
// γ[q·Rows + r][j], and beta[q·Rows + r] = β; rows past C are zero.
type Packed struct {
	g, beta []int32
	c       int
	// hi is the high form, or nil (PackHi), for shift hiGF.
	hi    []int32
	hiGF  uint
	chunk int
}

// Pack checks that every γ fits i16 and every β fits i32 and packs them;
// gamma is C×C row-major (row i the output channel), as §5.7 orders it.
// It returns false when a value does not fit or the lengths disagree.
func Pack(gamma, beta []int64, C int) (*Packed, bool) {
	if C < 1 || len(gamma) != C*C || len(beta) != C {
		return nil, false
	}
	groups := (C + Rows - 1) / Rows
	p := &Packed{g: make([]int32, groups*C*Rows), beta: make([]int32, groups*Rows), c: C}
	for i := range C {
		if beta[i] < -1<<31 || beta[i] > 1<<31-1 {
			return nil, false
		}
		p.beta[i] = int32(beta[i])
		q, r := i/Rows, i%Rows
		for j, v := range gamma[i*C : (i+1)*C] {
			if v < -1<<15 || v > 1<<15-1 {
				return nil, false
			}
			p.g[(q*C+j)*Rows+r] = int32(v)
		}
	}
	return p, true
}

// PackHi adds to p the high form of Terms for shift gf, when it holds
// for every γ: 1 ≤ gf ≤ 16 and γ' = γ·2^(16−gf) in i16. Then, for x² in
// [0, 2^15 − 1], the high half of the signed product x²·γ' (vpmulhw) is
// ⌊x²·γ'/2^16⌋ = ⌊γ·x²/2^gf⌋, the floored term itself, and 16-bit lanes
// may sum chunk = ⌊(2^15 − 1)/T⌋ terms (§6's K_c, for the 16-bit width)
// before they widen, where T ≥ 1 bounds every term's magnitude for this
// input (the caller's proof, as for Terms' bounds). It reports whether the
// high form is now in p.
func PackHi(p *Packed, gamma []int64, gf uint, T uint64) bool {
	if gf < 1 || gf > 16 || T < 1 || T > 1<<15-1 || len(gamma) != p.c*p.c {
		return false
	}
	hi := make([]int32, len(p.g))
	for i := range p.c {
		q, r := i/Rows, i%Rows
		for j, v := range gamma[i*p.c : (i+1)*p.c] {
			w := v << (16 - gf) // |v| < 2^15 (Pack): no overflow
			if w < -1<<15 || w > 1<<15-1 {
				return false
			}
			hi[(q*p.c+j)*Rows+r] = int32(uint32(uint16(w)) * 0x10001)
		}
	}
	p.hi, p.hiGF, p.chunk = hi, gf, int((1<<15-1)/T)
	return true
}

// Channels is the padded number of output rows Terms writes: C rounded up
// to a multiple of Rows.
func (p *Packed) Channels() int { return len(p.beta) }

// Terms sets, for every output row i < p.Channels() and column t < m,
//
//	n[i·m + t] = β_i + Σ_{j < C} ⌊γ[i][j]·x2[j·m + t] / 2^gf⌋
//
// each term floored by an arithmetic shift (§2) before it is added (§5.7:
// flooring the sum once is a different function). The caller proves, from
// the block's inputs (§6: any width that holds every value it forms):
//
//   - every x2 lies in [0, 2^15 − 1] (so the word pair (x2, 0) is x2, and
//     one vpmaddwd against (γ, ·) forms γ·x2 exactly: |γ·x2| < 2^30);
//   - every partial sum of every row, β included or not, lies in i32.
//
// A shift by gf ≥ 31 gives the sign of γ·x2 (0 or −1), which is its floor
// because |γ·x2| < 2^31; the kernels shift by min(gf, 31). It returns
// false, and changes nothing, when the shapes do not fit: m not a positive
// multiple of Cols, len(x2) ≠ C·m, len(n) ≠ p.Channels()·m.
func Terms(n, x2 []int32, p *Packed, m int, gf uint) bool {
	if m < Cols || m%Cols != 0 || len(x2) != p.c*m || len(n) != len(p.beta)*m {
		return false
	}
	if p.hi != nil && gf == p.hiGF && best.termsHi != nil {
		best.termsHi(n, x2, p.hi, p.beta, len(p.beta)/Rows, p.c, m, p.chunk)
		return true
	}
	best.terms(n, x2, p.g, p.beta, len(p.beta)/Rows, p.c, m, min(gf, 31))
	return true
}

// Root sets, for every t < len(out),
//
//	out[t] = ⌊x[t]·isqrt(max(0, n[t])) / 2^frac⌋
//
// for n[t] < 2^(2·bits), 1 ≤ bits ≤ 16, so that r = isqrt(n[t]) < 2^bits
// is settled bit by bit from bit bits − 1 down (isqrtBits; the AVX-512
// kernel by the restoring method, norm_amd64.s), and every x[t]
// in i32. Then |x·r| < 2^47: the product is formed in 64 bits and a shift
// by frac ≥ 63 gives its sign, its floor; the kernels shift by min(frac,
// 63). It returns false, and changes nothing, when len(x) or len(n)
// differs from len(out) or bits is outside [1, 16].
func Root(out, x []int64, n []int32, frac uint, bits int) bool {
	if len(x) != len(out) || len(n) != len(out) || bits < 1 || bits > 16 {
		return false
	}
	frac = min(frac, 63)
	k := len(out) &^ 31
	if k > 0 {
		best.root(out[:k], x[:k], n[:k], frac, bits)
	}
	rootGeneric(out[k:], x[k:], n[k:], frac, bits)
	return true
}
