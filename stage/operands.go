package stage

import (
	"encoding/hex"
	"fmt"
	"math/big"

	"github.com/waiops/waiops/cjson"
	"github.com/waiops/waiops/refusal"
	"github.com/waiops/waiops/tensor"
)

// operands reads one vector's cjson-decoded in (or modes). The first
// malformed operand sticks in err: by docs/READINGS.md D-E, a stage operand that is
// not an integer, or a tensor whose data does not match its shape, is
// refused model_mismatch at −1. Integers must fit i64, the widest operand
// any stage operator takes (D-E, §5E widths), except E2's, which
// bigInt reads exactly.
type operands struct {
	op  string
	m   map[string]any
	err error
}

func (o *operands) fail(key, format string, args ...any) {
	if o.err == nil {
		o.err = cond(refusal.ModelMismatch, "%s: %s: %s", o.op, key, fmt.Sprintf(format, args...))
	}
}

func (o *operands) get(key string) (any, bool) {
	v, ok := o.m[key]
	if !ok {
		o.fail(key, "missing")
	}
	return v, ok
}

func (o *operands) int(key string) int64 {
	v, ok := o.get(key)
	if !ok {
		return 0
	}
	n, err := cjson.Int(v)
	if err != nil {
		o.fail(key, "%v", err)
	}
	return n
}

// bigInt reads a canonical integer of any size (E2's operands).
func (o *operands) bigInt(key string) *big.Int {
	v, ok := o.get(key)
	if !ok {
		return nil
	}
	n, err := cjson.BigInt(v)
	if err != nil {
		o.fail(key, "%v", err)
	}
	return n
}

func (o *operands) str(key string) string {
	v, ok := o.get(key)
	if !ok {
		return ""
	}
	s, isStr := v.(string)
	if !isStr {
		o.fail(key, "want a string, have %T", v)
	}
	return s
}

func (o *operands) boolean(key string) bool {
	v, ok := o.get(key)
	if !ok {
		return false
	}
	b, isBool := v.(bool)
	if !isBool {
		o.fail(key, "want true or false, have %T", v)
	}
	return b
}

func (o *operands) list(key string) []any {
	v, ok := o.get(key)
	if !ok {
		return nil
	}
	l, isList := v.([]any)
	if !isList {
		o.fail(key, "want an array, have %T", v)
	}
	return l
}

// intsOf reads an array of integers; key names it in a refusal.
func (o *operands) intsOf(key string, v any) []int64 {
	l, ok := v.([]any)
	if !ok {
		o.fail(key, "want an array of integers, have %T", v)
		return nil
	}
	out := make([]int64, len(l))
	for i, e := range l {
		n, err := cjson.Int(e)
		if err != nil {
			o.fail(key, "[%d]: %v", i, err)
			return nil
		}
		out[i] = n
	}
	return out
}

func (o *operands) ints(key string) []int64 {
	v, ok := o.get(key)
	if !ok {
		return nil
	}
	return o.intsOf(key, v)
}

// rows reads an array of integer arrays.
func (o *operands) rows(key string) [][]int64 {
	l := o.list(key)
	out := make([][]int64, len(l))
	for i, r := range l {
		out[i] = o.intsOf(fmt.Sprintf("%s[%d]", key, i), r)
	}
	return out
}

// hex reads bytes as §14.1 writes them, lowercase hexadecimal: any other
// text, uppercase digits among it, is malformed (D-E: model_mismatch
// at −1).
func (o *operands) hex(key string) []byte {
	s := o.str(key)
	b, err := hex.DecodeString(s)
	if err == nil && hex.EncodeToString(b) != s {
		err = fmt.Errorf("not lowercase hexadecimal")
	}
	if err != nil {
		o.fail(key, "%v", err)
	}
	return b
}

// tensor reads a §14.1 tensor; a malformed one is refused with code at −1.
// So is one with a zero dimension, which tensor.FromJSON reads for §4 run
// step 1 to judge: a stage operand is a tensor of §3, every side at least 1.
func (o *operands) tensor(key string, code refusal.Code) *tensor.T {
	v, ok := o.get(key)
	if !ok {
		return nil
	}
	t, err := tensor.FromJSON(v)
	if err == nil && (t.Shape.C < 1 || t.Shape.H < 1 || t.Shape.W < 1) {
		err = fmt.Errorf("shape %v has a zero dimension", t.Shape)
	}
	if err != nil && o.err == nil {
		o.err = cond(code, "%s: %s: %v", o.op, key, err)
	}
	return t
}
