//go:build cgo

package gpu

import (
	"fmt"

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
func appendRQ(prm *[]int32, r *whg1.RQ, uni map[string]int) ([]string, error) {
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
	return []string{
		"RQ",
		fmt.Sprintf("ROUND %d", r.Round),
		fmt.Sprintf("MULT %d", r.MKind),
		fmt.Sprintf("SHIFT %d", r.SKind),
		fmt.Sprintf("BIAS %d", r.Bias),
	}, nil
}
