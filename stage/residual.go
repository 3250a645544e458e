package stage

import (
	"math"

	"github.com/waiops/waiops/refusal"
)

// checkResidual applies E9's conditions: lo < hi, pred ∈ [lo, hi],
// q ∈ [1, 65535], r fits i32 (model_mismatch at −1).
func checkResidual(pred, r, q, lo, hi int64) error {
	if !(lo < hi && pred >= lo && pred <= hi && q >= 1 && q <= 65535 && fitsI32(r)) {
		return cond(refusal.ModelMismatch, "residual_step: needs lo < hi, pred in [lo, hi], q in 1..65535, r in i32; have pred %d, r %d, q %d, [%d, %d]", pred, r, q, lo, hi)
	}
	return nil
}

// ResidualStep is E9 residual_step(pred, r, q, lo, hi) = clamp(pred + r·q,
// lo, hi) in its 64-bit form. |r·q| < 2^47, so the product fits i64; a sum
// pred + r·q that would pass i64 lies past hi (or lo) and clamps there.
func ResidualStep(pred, r, q, lo, hi int64) (int64, error) {
	if err := checkResidual(pred, r, q, lo, hi); err != nil {
		return 0, err
	}
	d := r * q
	switch {
	case d > 0 && pred > math.MaxInt64-d:
		return hi, nil
	case d < 0 && pred < math.MinInt64-d:
		return lo, nil
	}
	return clamp(pred+d, lo, hi), nil
}

// ResidualStep32 is E9's 32-bit form (identity): with R = ⌊(hi − lo)/q⌋ + 1,
// clamp(pred + clamp(r, −R, R)·q, lo, hi), every value formed in int32. It
// applies only under E9's width conditions, hi − lo ≤ 65535 with lo − 131070
// and hi + 131070 fitting i32; where they fail (or E9's conditions do) ok is
// false and a fabric forms the step in a wider width (ResidualStep).
func ResidualStep32(pred, r, q, lo, hi int32) (v int32, ok bool) {
	l, h := int64(lo), int64(hi)
	if checkResidual(int64(pred), int64(r), int64(q), l, h) != nil ||
		h-l > 65535 || !fitsI32(l-131070) || !fitsI32(h+131070) {
		return 0, false
	}
	// Width: R·q ≤ (hi − lo) + q ≤ 131070, so every term below fits i32.
	R := (hi-lo)/q + 1 // hi − lo ≥ 1 and q ≥ 1: truncation is floor here
	rr := min(max(r, -R), R)
	return min(max(pred+rr*q, lo), hi), true
}
