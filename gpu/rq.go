//go:build cgo

package gpu

import (
	"fmt"
	"math"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/whg1"
)

// appendRQ appends an rq's arrays (§5.1, §10.4) to prm and
// returns the variant's #defines (RQ, ROUND, MULT, SHIFT, BIAS) and the
// uniforms that locate the arrays (P_MULT, P_SHIFT, P_BIAS), which
// common.glsl's rq() reads.
//
// acc32 (§7.2): each multiplier and post bias fits i32 and each shift is
// at most 63; narrow refuses anything else rather than wrap it. A pre bias
// has no condition: rq.t = v + b fits i32, but b need not (§8.3 rescale:
// rq.t = [l + b, h + b] need not contain b). It is stored as b mod 2^32,
// and rq() adds it to v in uint arithmetic, which wraps by definition
// (§7.3): the sum is congruent to t mod 2^32 and t fits i32, so it is t.
//
// The variant RQ32 1 forms p = t·mult and rounds it in one 32-bit word
// where the certificate's rq.p interval (which covers p + 2^(s−1) too,
// §8.3) fits i32 and every shift is at most 30 (so 2^s fits); elsewhere
// p is the two-word product of §7.3 (RQ32 0).
func appendRQ(prm *[]int32, r *whg1.RQ, uni map[string]int, nb *nodeBounds) ([]string, error) {
	for _, s := range r.Shift {
		if s > 63 {
			return nil, fmt.Errorf("shift %d passes acc32's 63 (§7.2)", s)
		}
	}
	mult, err := narrow(r.Mult, "rq multiplier")
	if err != nil {
		return nil, err
	}
	var bias []int32
	if r.Bias == whg1.PreBias {
		for _, b := range r.BiasV {
			bias = append(bias, int32(uint32(b))) // b mod 2^32 (see above)
		}
	} else if bias, err = narrow(r.BiasV, "rq bias"); err != nil {
		return nil, err
	}
	uni["P_MULT"] = len(*prm)
	*prm = append(*prm, mult...)
	uni["P_SHIFT"] = len(*prm)
	for _, s := range r.Shift {
		*prm = append(*prm, int32(s))
	}
	uni["P_BIAS"] = len(*prm)
	*prm = append(*prm, bias...)
	narrowP := nb != nil && fitsI32(nb.Intermediates["rq.p"])
	for _, s := range r.Shift {
		narrowP = narrowP && s <= 30
	}
	return []string{
		"RQ",
		fmt.Sprintf("RQ32 %d", b2i(narrowP)),
		fmt.Sprintf("ROUND %d", r.Round),
		fmt.Sprintf("MULT %d", r.MKind),
		fmt.Sprintf("SHIFT %d", r.SKind),
		fmt.Sprintf("BIAS %d", r.Bias),
	}, nil
}

// fitsI32 reports whether a certified interval lies inside i32 (§7.1).
func fitsI32(iv certify.Interval) bool {
	lo, hi, ok := iv.Int64()
	return ok && lo >= math.MinInt32 && hi <= math.MaxInt32
}
