package whg1

import "github.com/waiops/waiops/refusal"

// ApplyPolicy applies a tensor's policy (§3, §4 run step 4) to its elements
// in place: clamp replaces each value by clamp(v, lo, hi); check refuses
// (field_range) at the first element outside [lo, hi], naming the tensor
// and the element; derived does nothing.
func ApplyPolicy(rec Tensor, data []int64, name string) error {
	switch rec.Policy {
	case Clamp:
		for i, v := range data {
			data[i] = min(max(v, rec.Lo), rec.Hi)
		}
	case Check:
		for i, v := range data {
			if v < rec.Lo || v > rec.Hi {
				return refusal.New(refusal.FieldRange, "%s: element %d = %d is outside [%d, %d]", name, i, v, rec.Lo, rec.Hi)
			}
		}
	}
	return nil
}
