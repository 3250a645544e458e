// Package stage implements the stage operators E1–E13 of wai-ops/1
// (integer-operators §5E): the entropy and sample-domain steps a
// capability's driver runs outside any graph — rans64_decode, dequantize,
// bucket, coded, scale_index, block_stat, band_lookup, mans_decode,
// residual_step, mc_predict, up2_predict, rate_predict and coding_order —
// with the encoders tests and tooling need, and the evaluation of a §14.1
// stage vector.
//
// Drivers call the typed functions (Rans64Decoder, MansDecoder, Dequantize,
// ...). Vector tooling calls Eval and ExpectOf, which take the cjson-decoded
// "in" of a §14.1 stage vector; the generator of the committed stage vectors
// is internal/stagecorpus, so that nothing a decoder links carries it. Graph operators are not here
// (see cpuref).
//
// Every refusal is a *refusal.Error carrying its code and §14.1's refusal
// index At: −1 for an operand, mode or table that breaks its operator's
// conditions (checked before any symbol or element), otherwise the index the
// operator's own rule gives.
package stage

import (
	"github.com/waiops/waiops/refusal"
)

// The stream refusal codes of E1 and E8 (§5E).
const (
	StreamExhausted    refusal.Code = "stream_exhausted"
	StreamNoncanonical refusal.Code = "stream_noncanonical"
)

// maxElems is §3's cap on every tensor and every size an operator forms.
const maxElems = 1 << 26

// Integer limits of the widths §5E names.
const (
	minI32 = -1 << 31
	maxI32 = 1<<31 - 1
	minI16 = -1 << 15
	maxI16 = 1<<15 - 1
)

// cond returns a condition refusal (§5E "Conditions and their refusals"):
// raised before any symbol or element, so At is −1.
func cond(code refusal.Code, format string, args ...any) *refusal.Error {
	return refusal.NewAt(code, -1, format, args...)
}

// rHalfUp is §2's R_half_up(v, s) = ⌊(v + 2^(s−1)) / 2^s⌋ (s ≥ 1), v (s = 0),
// for any s ≥ 0, without forming v + 2^(s−1) (which may pass i64).
func rHalfUp(v int64, s uint) int64 {
	switch {
	case s == 0:
		return v
	case s >= 64:
		// v ∈ [−2^63, 2^63) so v + 2^(s−1) ∈ [0, 2^s): the quotient is 0.
		return 0
	}
	// v = q·2^s + r with r ∈ [0, 2^s): the rounded value is q, plus 1 when
	// r ≥ 2^(s−1), i.e. when bit s−1 of v (two's complement) is set.
	return v>>s + (v>>(s-1))&1
}

// clamp is §2's clamp(v, lo, hi), for lo ≤ hi.
func clamp(v, lo, hi int64) int64 {
	return min(max(v, lo), hi)
}

// fitsI32 reports whether v fits i32 (§2).
func fitsI32(v int64) bool { return v >= minI32 && v <= maxI32 }
