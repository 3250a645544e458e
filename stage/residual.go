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
