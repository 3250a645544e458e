package stage

import (
	"errors"
	"fmt"

	"github.com/waiops/waiops/refusal"
)

// evaluators maps each §5E operator name to the evaluation of one §14.1
// stage vector's in and modes.
var evaluators = map[string]func(modes, in *operands) (map[string]any, error){
	"rans64_decode": evalRans,
	"dequantize":    evalDequantize,
	"bucket":        evalBucket,
	"coded":         evalCoded,
	"scale_index":   evalScaleIndex,
	"block_stat":    evalBlockStat,
	"band_lookup":   evalBandLookup,
	"mans_decode":   evalMans,
	"residual_step": evalResidual,
	"mc_predict":    evalMC,
	"up2_predict":   evalUp2,
	"rate_predict":  evalRate,
	"coding_order":  evalOrder,
}

// Eval evaluates one stage vector: op is the operator's §5E name, modes and
// in are the vector's members as cjson.Unmarshal gives them (integers are
// decimal strings). It returns the §14.1 expect of a decode that completes;
// a refusal comes back as a *refusal.Error with At. An unknown op is a plain
// error.
func Eval(op string, modes, in map[string]any) (expect map[string]any, err error) {
	f, ok := evaluators[op]
	if !ok {
		return nil, fmt.Errorf("stage: unknown operator %q", op)
	}
	return f(&operands{op: op, m: modes}, &operands{op: op, m: in})
}

// ExpectOf returns the §14.1 expect of one stage vector: the outputs, or
// {"at": At, "refuse": code} for a refusal. It returns nil for an unknown
// op, which has no expect.
func ExpectOf(op string, modes, in map[string]any) map[string]any {
	out, err := Eval(op, modes, in)
	var r *refusal.Error
	switch {
	case err == nil:
		return out
	case errors.As(err, &r):
		return map[string]any{"at": r.At, "refuse": string(r.Code)}
	}
	return nil
}
