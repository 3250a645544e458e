package stage

import "github.com/waiops/waiops/refusal"

// Coded is E4 coded(v, thr) = v > thr. A position that is not coded
// consumes no symbol.
func Coded(v, thr int64) bool { return v > thr }

// ScaleIndex is E5 scale_index(v, s, n) = clamp(R_half_up(v, s), 0, n − 1),
// for s in 0..=127 and n ≥ 1 (else model_mismatch at −1).
func ScaleIndex(v, s, n int64) (int64, error) {
	if s < 0 || s > 127 || n < 1 {
		return 0, cond(refusal.ModelMismatch, "scale_index: needs s in 0..127 and n ≥ 1, have s = %d, n = %d", s, n)
	}
	return clamp(rHalfUp(v, uint(s)), 0, n-1), nil
}

// BandLookup is E7 band_lookup(v, e[0..m), table, row) = table[row][band]
// with band = #{ k : v ≥ e_k }. row must lie in [0, rows) and, by
// docs/READINGS.md D-E, only the selected row must hold m + 1 entries (else
// model_mismatch at −1).
func BandLookup(v int64, edges []int64, table [][]int64, row int64) (int64, error) {
	if row < 0 || row >= int64(len(table)) {
		return 0, cond(refusal.ModelMismatch, "band_lookup: row %d outside [0, %d)", row, len(table))
	}
	if len(table[row]) != len(edges)+1 {
		return 0, cond(refusal.ModelMismatch, "band_lookup: row %d holds %d entries, not %d", row, len(table[row]), len(edges)+1)
	}
	band := 0
	for _, e := range edges {
		if v >= e {
			band++
		}
	}
	return table[row][band], nil
}
