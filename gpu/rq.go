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
// acc32 (§7.2): each multiplier and post bias fits i32, each shift is at
// most 63, and a pre bias lies in rq.t's interval, which fits i32; narrow
// refuses anything else rather than wrap it.
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
	bias, err := narrow(r.BiasV, "rq bias")
	if err != nil {
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
