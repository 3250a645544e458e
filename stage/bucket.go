package stage

import "github.com/waiops/waiops/refusal"

// Bucket rules of E3.
const (
	BucketCeil  = "ceil"
	BucketFloor = "floor"
)

// Bucket is E3 bucket(σ, e, rule): comparisons only.
//
// ceil takes N ≥ 1 edges e_0 … e_{N−1}; with σ′ = max(σ, e_0) the index is
// (N − 1) − #{ i < N − 1 : σ′ ≤ e_i }, and e_{N−1} is never compared.
// floor takes N − 1 ≥ 1 non-decreasing edges e_1 … e_{N−1}; the index is
// #{ i : e_i ≤ σ }. A rule, count or order that breaks these is refused
// model_mismatch at −1.
func Bucket(sigma int64, edges []int64, rule string) (int64, error) {
	switch rule {
	case BucketCeil:
		if len(edges) < 1 {
			return 0, cond(refusal.ModelMismatch, "bucket: ceil needs at least one edge")
		}
		s := max(sigma, edges[0])
		b := int64(len(edges) - 1)
		for _, e := range edges[:len(edges)-1] {
			if s <= e {
				b--
			}
		}
		return b, nil
	case BucketFloor:
		if len(edges) < 1 {
			return 0, cond(refusal.ModelMismatch, "bucket: floor needs at least one edge")
		}
		for i := 1; i < len(edges); i++ {
			if edges[i] < edges[i-1] {
				return 0, cond(refusal.ModelMismatch, "bucket: floor edges decrease at %d", i)
			}
		}
		var b int64
		for _, e := range edges {
			if e <= sigma {
				b++
			}
		}
		return b, nil
	}
	return 0, cond(refusal.ModelMismatch, "bucket: unknown rule %q", rule)
}
