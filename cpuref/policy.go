package cpuref

import (
	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/whg1"
)

// inRange says whether every value of data lies in [lo, hi], lo ≤ hi, in
// one branch-free pass. With d = v − lo taken modulo 2^64, v ∈ [lo, hi]
// gives d = v − lo ≤ hi − lo; v > hi gives d = v − lo ∈ (hi − lo, 2^64); and
// v < lo gives d = 2^64 − (lo − v) > hi − lo, since (lo − v) + (hi − lo) =
// hi − v < 2^64. So the range holds iff the largest d is at most hi − lo.
func inRange(data []int64, lo, hi int64) bool {
	l := uint64(lo)
	var m0, m1, m2, m3 uint64 // four chains, so the maxima do not wait on each other
	i := 0
	for ; i+4 <= len(data); i += 4 {
		d := data[i : i+4 : i+4]
		m0 = max(m0, uint64(d[0])-l)
		m1 = max(m1, uint64(d[1])-l)
		m2 = max(m2, uint64(d[2])-l)
		m3 = max(m3, uint64(d[3])-l)
	}
	for _, v := range data[i:] {
		m0 = max(m0, uint64(v)-l)
	}
	return max(m0, m1, m2, m3) <= uint64(hi)-l
}

// applyPolicy is whg1.ApplyPolicy (§3, §4 run step 4) with a pass that
// writes nothing when every value already lies in the declared range, as
// it must for a clamp to change nothing or a check to pass; only then is
// the element-by-element policy, with its refusal text, run. proven skips
// even that pass: the certificate's producer result lies in the range
// (§8.5), so no value of a decode inside it can fall outside.
func applyPolicy(rec whg1.Tensor, data []int64, proven bool, name func() string) error {
	if rec.Policy == whg1.Derived || proven || inRange(data, rec.Lo, rec.Hi) {
		return nil
	}
	return whg1.ApplyPolicy(rec, data, name())
}

// provenPolicies marks the tensors whose policy the certificate makes a
// no-op: the producer result Nodes[i].Results[k] (§8.5, before the policy)
// lies within the declared [lo, hi]. Without bounds nothing is marked.
func provenPolicies(g *whg1.Graph, gb *certify.GraphBounds) []bool {
	proven := make([]bool, len(g.Tensors))
	if gb == nil {
		return proven
	}
	for i := range g.Ops {
		for k, t := range g.Ops[i].Out {
			rec := g.Tensors[t]
			if rec.Policy == whg1.Derived || i >= len(gb.Nodes) || k >= len(gb.Nodes[i].Results) {
				continue
			}
			lo, hi, ok := gb.Nodes[i].Results[k].Int64()
			proven[t] = ok && lo >= rec.Lo && hi <= rec.Hi
		}
	}
	return proven
}
