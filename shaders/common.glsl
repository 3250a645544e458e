// common.glsl: the integer arithmetic every shader shares. The host prepends
// it after the #version line, the variant's #defines and the storage
// bindings, so it may call prm_ld (the parameter array) when RQ is defined.
//
// §7.3: every signed value of an acc32 graph fits i32, so int arithmetic on
// tensor values, partial sums and shifted results never overflows. The two
// product intermediates (rq.p, igdn.gx2) need 64 bits: they are formed from
// 16-bit halves in uint arithmetic, which wraps by definition (GLSL §5.9),
// as a two-word value, and rounded, shifted and biased on that value before
// the result narrows to i32. No floating-point type appears here (§6).

#ifndef ROUND
#define ROUND 0
#endif

// w64 is a signed 64-bit value in two's complement: hi is the high word.
struct w64 {
	uint hi;
	uint lo;
};

// w_from sign-extends an i32.
w64 w_from(int v) { return w64(v < 0 ? 0xFFFFFFFFu : 0u, uint(v)); }

// w_add is the 64-bit sum; the carry is read from the wrapped low word.
w64 w_add(w64 a, w64 b) {
	uint lo = a.lo + b.lo;
	return w64(a.hi + b.hi + (lo < a.lo ? 1u : 0u), lo);
}

// w_neg is the 64-bit negation (two's complement).
w64 w_neg(w64 a) {
	uint lo = ~a.lo + 1u;
	return w64(~a.hi + (lo == 0u ? 1u : 0u), lo);
}

// w_umul is the exact product of two u32 from their 16-bit halves: each
// partial product is below 2^32, and mid sums three values below 2^16 each
// plus one below 2^16, so nothing is lost to the wrap.
w64 w_umul(uint a, uint b) {
	uint a0 = a & 0xFFFFu;
	uint a1 = a >> 16;
	uint b0 = b & 0xFFFFu;
	uint b1 = b >> 16;
	uint p00 = a0 * b0;
	uint p01 = a0 * b1;
	uint p10 = a1 * b0;
	uint p11 = a1 * b1;
	uint mid = (p00 >> 16) + (p01 & 0xFFFFu) + (p10 & 0xFFFFu);
	return w64(p11 + (p01 >> 16) + (p10 >> 16) + (mid >> 16), (mid << 16) | (p00 & 0xFFFFu));
}

// u_abs is |v| as a u32, exact for v = −2^31.
uint u_abs(int v) { return v < 0 ? ~uint(v) + 1u : uint(v); }

// w_mul is the exact product of two i32 (§7.1: a product intermediate
// formed from two operands that each fit i32 fits i64).
w64 w_mul(int a, int b) {
	w64 p = w_umul(u_abs(a), u_abs(b));
	return (a < 0) != (b < 0) ? w_neg(p) : p;
}

// asr32 is ⌊x / 2^s⌋ for 0 ≤ s ≤ 31, written out rather than left to the
// signed >> (docs/CONVENTIONS.md §6): for x < 0, ⌊x / 2^s⌋ = ~⌊~x / 2^s⌋.
int asr32(int x, uint s) { return x >= 0 ? int(uint(x) >> s) : ~int(~uint(x) >> s); }

// asr is ⌊x / 2^s⌋ for 0 ≤ s ≤ 63 (§6: a shift of 32 or more is handled
// explicitly, since GLSL leaves it undefined): 0 or −1 from 32 on.
int asr(int x, uint s) { return s >= 32u ? (x < 0 ? -1 : 0) : asr32(x, s); }

// w_shr is ⌊a / 2^s⌋ for 0 ≤ s ≤ 63 (R_floor of §2), each case explicit.
w64 w_shr(w64 a, uint s) {
	if (s == 0u) {
		return a;
	}
	if (s >= 32u) {
		return w64(int(a.hi) < 0 ? 0xFFFFFFFFu : 0u, uint(asr32(int(a.hi), s - 32u)));
	}
	return w64(uint(asr32(int(a.hi), s)), (a.lo >> s) | (a.hi << (32u - s)));
}

// w_pow2 is 2^k for 0 ≤ k ≤ 62.
w64 w_pow2(uint k) { return k >= 32u ? w64(1u << (k - 32u), 0u) : w64(0u, 1u << k); }

// w_low is p mod 2^s for 1 ≤ s ≤ 63: the low s bits, as a two-word value.
w64 w_low(w64 p, uint s) {
	if (s > 32u) {
		return w64(p.hi & ((1u << (s - 32u)) - 1u), p.lo);
	}
	return w64(0u, s == 32u ? p.lo : p.lo & ((1u << s) - 1u));
}

// R_round(p, s) of §2 for 0 ≤ s ≤ 63 (§7.2 caps every acc32 shift at 63),
// with ROUND the variant's mode: 0 floor, 1 half_up, 2 half_even.
w64 round_shift(w64 p, uint s) {
	if (s == 0u) {
		return p;
	}
#if ROUND == 0
	return w_shr(p, s);
#elif ROUND == 1
	// §2: ⌊(p + 2^(s−1)) / 2^s⌋; §5.1 certifies p + 2^(s−1) within rq.p.
	return w_shr(w_add(p, w_pow2(s - 1u)), s);
#else
	// §2: q + 1 if r > h, or r = h and q odd, with r = p − q·2^s.
	w64 q = w_shr(p, s);
	w64 r = w_low(p, s);
	w64 h = w_pow2(s - 1u);
	bool gt = r.hi > h.hi || (r.hi == h.hi && r.lo > h.lo);
	bool tie = r.hi == h.hi && r.lo == h.lo;
	if (gt || (tie && (q.lo & 1u) == 1u)) {
		q = w_add(q, w64(0u, 1u));
	}
	return q;
#endif
}

// round32 is R_round(p, s) of §2 on one word, for 0 ≤ s ≤ 30 and p with
// p + 2^(s−1) inside i32 (the certificate's rq.p interval, §8.3).
int round32(int p, uint s) {
	if (s == 0u) {
		return p;
	}
#if ROUND == 0
	return asr32(p, s);
#elif ROUND == 1
	return asr32(p + (1 << (s - 1u)), s);
#else
	// §2: q + 1 if r > h, or r = h and q odd; r = p mod 2^s, the low bits.
	int q = asr32(p, s);
	uint r = uint(p) & ((1u << s) - 1u);
	uint h = 1u << (s - 1u);
	return r > h || (r == h && (q & 1) == 1) ? q + 1 : q;
#endif
}

// isqrt is §2's isqrt(n): the largest r with r² ≤ n, digit by digit, exact
// for every u32 (r + bit < 2^31 throughout). It starts at the top digit,
// 2^30, whatever n: while bit > n, r stays 0, as if the search for n's top
// digit had skipped those steps. Sixteen steps of selects, no branch: the
// same count for every thread, which a rasteriser's SIMD lanes and a
// GPU's warps both run without divergence.
uint isqrt(uint n) {
	uint r = 0u;
	for (int k = 15; k >= 0; k--) {
		uint bit = 1u << (2 * k);
		uint t = r + bit;
		bool take = n >= t;
		n = take ? n - t : n;
		r = take ? (r >> 1) + bit : r >> 1;
	}
	return r;
}

// group_id is the linear work-group index: the host folds a large grid into
// x and y, since each count is capped (GL_MAX_COMPUTE_WORK_GROUP_COUNT).
uint group_id() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

// elem_id is the element a one-thread-per-element kernel computes.
uint elem_id() { return group_id() * uint(LOCAL) + gl_LocalInvocationIndex; }

#ifdef RQ
// §5.1 rq_o(v): MULT 0 absent, 1 one value, 2 per channel; SHIFT 1 one value,
// 2 per channel; BIAS 0 none, 1 pre, 2 post. The multiplier, shift and bias
// arrays sit in prm at the offsets P_MULT, P_SHIFT and P_BIAS.
uniform int P_MULT;
uniform int P_SHIFT;
uniform int P_BIAS;

int rq(int v, uint o) {
#if BIAS == 1
	// acc32: rq.t fits i32, but the pre bias need not; prm holds it mod
	// 2^32, and the uint sum (which wraps by definition) is t mod 2^32,
	// which is t (gpu/rq.go).
	int t = int(uint(v) + uint(prm_ld(uint(P_BIAS) + o)));
#else
	int t = v;
#endif
#if RQ32
	// §6, §8.3: the certificate bounds rq.p, p + 2^(s−1) included, inside
	// i32, and s ≤ 30: p is the same integer in one word (gpu/rq.go).
#if MULT == 0
	int p = t;
#elif MULT == 1
	int p = t * prm_ld(uint(P_MULT));
#else
	int p = t * prm_ld(uint(P_MULT) + o);
#endif
#if SHIFT == 1
	int q = round32(p, uint(prm_ld(uint(P_SHIFT))));
#else
	int q = round32(p, uint(prm_ld(uint(P_SHIFT) + o)));
#endif
#if BIAS == 2
	q += prm_ld(uint(P_BIAS) + o); // acc32: rq.y fits i32
#endif
	return q;
#else
#if MULT == 0
	w64 p = w_from(t);
#elif MULT == 1
	w64 p = w_mul(t, prm_ld(uint(P_MULT)));
#else
	w64 p = w_mul(t, prm_ld(uint(P_MULT) + o));
#endif
#if SHIFT == 1
	w64 q = round_shift(p, uint(prm_ld(uint(P_SHIFT))));
#else
	w64 q = round_shift(p, uint(prm_ld(uint(P_SHIFT) + o)));
#endif
#if BIAS == 2
	// §5.1: the post bias joins q before it narrows (acc32: rq.y fits i32).
	q = w_add(q, w_from(prm_ld(uint(P_BIAS) + o)));
#endif
	return int(q.lo);
#endif
}
#endif
