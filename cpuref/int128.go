package cpuref

import "math/bits"

// int128 is a signed 128-bit integer in two's complement: the value is
// hi·2^64 + lo. §7.1: under acc64 the classes wide and product fit i128, so
// every such intermediate is formed exactly in one of these. The arithmetic
// that can pass 128 bits reports it (ok = false) instead of wrapping (§6: no
// value may wrap); the callers turn that into an "outside acc64" refusal.
type int128 struct {
	hi int64
	lo uint64
}

// i128 widens an int64.
func i128(v int64) int128 { return int128{hi: v >> 63, lo: uint64(v)} }

// mul64 is the exact product of two int64 values; |a·b| ≤ 2^126 always fits.
func mul64(a, b int64) int128 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	// Signed correction of the unsigned product: subtract b·2^64 when a < 0
	// and a·2^64 when b < 0 (mod 2^128).
	h := int64(hi)
	if a < 0 {
		h -= b
	}
	if b < 0 {
		h -= a
	}
	return int128{hi: h, lo: lo}
}

func (a int128) neg() bool { return a.hi < 0 }

func (a int128) isZero() bool { return a.hi == 0 && a.lo == 0 }

// cmp is −1, 0 or 1 as a <, =, > b.
func (a int128) cmp(b int128) int {
	switch {
	case a.hi < b.hi:
		return -1
	case a.hi > b.hi:
		return 1
	case a.lo < b.lo:
		return -1
	case a.lo > b.lo:
		return 1
	}
	return 0
}

// add is a + b; ok is false when the exact sum passes 128 bits.
func (a int128) add(b int128) (int128, bool) {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi := a.hi + b.hi + int64(c)
	// Overflow iff a and b share a sign and the sum's sign differs.
	ok := !((a.hi >= 0) == (b.hi >= 0) && (hi >= 0) != (a.hi >= 0))
	return int128{hi: hi, lo: lo}, ok
}

// add64 is a + b for an int64 b.
func (a int128) add64(b int64) (int128, bool) { return a.add(i128(b)) }

// negate is −a; ok is false for −2^127.
func (a int128) negate() (int128, bool) {
	lo, b := bits.Sub64(0, a.lo, 0)
	hi := -a.hi - int64(b)
	return int128{hi: hi, lo: lo}, !(a.hi == -1<<63 && a.lo == 0)
}

// sub is a − b; ok is false when the exact difference passes 128 bits.
func (a int128) sub(b int128) (int128, bool) {
	lo, br := bits.Sub64(a.lo, b.lo, 0)
	hi := a.hi - b.hi - int64(br)
	ok := !((a.hi >= 0) != (b.hi >= 0) && (hi >= 0) != (a.hi >= 0))
	return int128{hi: hi, lo: lo}, ok
}

// magnitude is |a| as an unsigned 128-bit pair (exact also for −2^127).
func (a int128) magnitude() (hi, lo uint64) {
	if a.hi >= 0 {
		return uint64(a.hi), a.lo
	}
	lo, b := bits.Sub64(0, a.lo, 0)
	hi, _ = bits.Sub64(0, uint64(a.hi), b)
	return hi, lo
}

// fromMagnitude is ±(hi·2^64 + lo); ok is false when it passes 128 bits.
func fromMagnitude(neg bool, hi, lo uint64) (int128, bool) {
	if !neg {
		return int128{hi: int64(hi), lo: lo}, hi < 1<<63
	}
	if hi > 1<<63 || (hi == 1<<63 && lo != 0) {
		return int128{}, false
	}
	nlo, b := bits.Sub64(0, lo, 0)
	nhi, _ := bits.Sub64(0, hi, b)
	return int128{hi: int64(nhi), lo: nlo}, true
}

// mul is a·b for an int64 b; ok is false when the exact product passes 128
// bits. The product of magnitudes is formed in 192 bits and then checked.
func (a int128) mul(b int64) (int128, bool) {
	ah, al := a.magnitude()
	bm := uint64(b)
	if b < 0 {
		bm = -bm
	}
	h1, l0 := bits.Mul64(al, bm)
	h2, l1 := bits.Mul64(ah, bm)
	mid, c := bits.Add64(h1, l1, 0)
	top := h2 + c
	if top != 0 {
		return int128{}, false
	}
	return fromMagnitude(a.neg() != (b < 0), mid, l0)
}

// shr is ⌊a / 2^s⌋ for 0 ≤ s ≤ 127: an arithmetic shift floors (§2).
func (a int128) shr(s uint) int128 {
	switch {
	case s == 0:
		return a
	case s < 64:
		return int128{hi: a.hi >> s, lo: a.lo>>s | uint64(a.hi)<<(64-s)}
	}
	return int128{hi: a.hi >> 63, lo: uint64(a.hi >> (s - 64))}
}

// lowBits is a mod 2^s for 1 ≤ s ≤ 127, as an unsigned pair.
func (a int128) lowBits(s uint) (hi, lo uint64) {
	if s < 64 {
		return 0, a.lo & (1<<s - 1)
	}
	return uint64(a.hi) & (1<<(s-64) - 1), a.lo
}

// fitsI64 says whether a lies in [−2^63, 2^63 − 1].
func (a int128) fitsI64() bool { return a.hi == int64(a.lo)>>63 }

// divU64 is ⌊a / d⌋ for a ≥ 0 and d ≥ 1.
func (a int128) divU64(d uint64) int128 {
	qh := uint64(a.hi) / d
	r := uint64(a.hi) % d
	ql, _ := bits.Div64(r, a.lo, d)
	return int128{hi: int64(qh), lo: ql}
}

// isqrt128 is isqrt(n) of §2 for n ≥ 0 given as an unsigned pair: the
// largest r with r² ≤ n. Below 2^64 it is isqrt64; above, r is found bit
// by bit from the top bit r can have (r < 2^64 for any n < 2^128).
func isqrt128(nh, nl uint64) uint64 {
	if nh == 0 {
		return isqrt64(nl)
	}
	return isqrtBitwise(nh, nl)
}

// isqrtBitwise is isqrt128 one bit a step, for any n < 2^128.
func isqrtBitwise(nh, nl uint64) uint64 {
	var r uint64
	n := bits.Len64(nl)
	if nh != 0 {
		n = 64 + bits.Len64(nh)
	}
	// r < 2^⌈n/2⌉, so its top bit is at most ⌈n/2⌉ − 1.
	for b := (n+1)/2 - 1; b >= 0; b-- {
		c := r | 1<<uint(b)
		sh, sl := bits.Mul64(c, c)
		if sh < nh || (sh == nh && sl <= nl) {
			r = c
		}
	}
	return r
}
