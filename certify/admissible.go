package certify

import (
	"fmt"
	"math"
	"math/big"

	"github.com/waiops/waiops/whg1"
)

// Range is an admissible range (§8.4): [Lo, Hi], or None when no value of
// the tensor lets its consumers meet the profile.
type Range struct {
	Lo, Hi int64
	None   bool
}

func (r Range) String() string {
	if r.None {
		return "none"
	}
	return fmt.Sprintf("%d %d", r.Lo, r.Hi)
}

// Admissible computes the admissible range of tensor for profile (§8.4).
// C(X) holds when, with the tensor's interval replaced by [−X, X] wherever
// a consumer (an operator that reads it directly) reads it, and every other
// interval as the pass computed it, no consumer is saturated and each of
// its intermediates and producer results meets the profile's width for its
// class. X* is the largest X ∈ [0, 2^63] with C(X), found by binary search;
// the range is [−X*, min(X*, 2^63 − 1)].
//
// Reading: a lut16 consumer fails C(X) for X > 32767, where its load check
// (§5.6) would refuse the graph; parameter conditions and policies are not
// part of C.
func Admissible(g *whg1.Graph, tensor uint32, profile Profile) (Range, error) {
	if !profile.Valid() {
		return Range{}, fmt.Errorf("certify: unknown profile %q (want acc32 or acc64)", profile)
	}
	if int(tensor) >= len(g.Tensors) {
		return Range{}, fmt.Errorf("certify: tensor %d is not in the graph's %d tensors", tensor, len(g.Tensors))
	}
	tensors, _, err := bound(g, false)
	if err != nil {
		return Range{}, err
	}
	shapes, err := planSizes(g)
	if err != nil {
		return Range{}, err
	}
	r := &rules{g: g, shapes: shapes}
	var consumers []*whg1.Op
	for i := range g.Ops {
		for _, t := range g.Ops[i].In {
			if t == tensor {
				consumers = append(consumers, &g.Ops[i])
				break
			}
		}
	}
	holds := func(x *big.Int) bool {
		tx := Interval{new(big.Int).Neg(x), x}
		for _, op := range consumers {
			in := make([]Interval, len(op.In))
			for k, t := range op.In {
				in[k] = tensors[t]
				if t == tensor {
					in[k] = tx
				}
			}
			var a arith
			nb, err := r.node(&a, op, in)
			if err != nil || a.saturated {
				return false
			}
			if k, _ := widest(nb.inter, nb.results, profile); k != "" {
				return false
			}
		}
		return true
	}
	if !holds(new(big.Int)) {
		return Range{None: true}, nil
	}
	lo, hi := new(big.Int), pow2(63)
	for lo.Cmp(hi) < 0 {
		mid := new(big.Int).Add(lo, hi)
		mid.Add(mid, one).Rsh(mid, 1)
		if holds(mid) {
			lo = mid
		} else {
			hi = mid.Sub(mid, one)
		}
	}
	if lo.IsInt64() {
		return Range{Lo: -lo.Int64(), Hi: lo.Int64()}, nil
	}
	return Range{Lo: math.MinInt64, Hi: math.MaxInt64}, nil // X* = 2^63
}
