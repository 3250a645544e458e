package drivers

import (
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/waiops/waiops/cjson"
)

// The JSON source forms (int_synth.json, the jpegai-int/1 members) write
// integers as JSON numbers; a decimal string (canonical JSON, §8.5) is read
// too. A number with a fraction or an exponent is not an integer.

// jsonInt reads an integer of any size.
func jsonInt(v any) (*big.Int, error) {
	switch x := v.(type) {
	case json.Number:
		n, ok := new(big.Int).SetString(string(x), 10)
		if !ok {
			return nil, fmt.Errorf("%s is not an integer", x)
		}
		return n, nil
	case string:
		return cjson.BigInt(x)
	}
	return nil, fmt.Errorf("want an integer, have %T", v)
}

// jsonInt64 reads an integer within [lo, hi].
func jsonInt64(v any, lo, hi int64) (int64, error) {
	n, err := jsonInt(v)
	if err != nil {
		return 0, err
	}
	if !n.IsInt64() || n.Int64() < lo || n.Int64() > hi {
		return 0, fmt.Errorf("%v is outside [%d, %d]", n, lo, hi)
	}
	return n.Int64(), nil
}

// jsonInts reads a nested array with exactly the lengths dims, row-major,
// each element an integer within [lo, hi]. The element count is bounded by
// the array the JSON text already holds, so nothing is allocated past it.
func jsonInts(v any, dims []uint64, lo, hi int64) ([]int64, error) {
	var out []int64
	var walk func(v any, d int) error
	walk = func(v any, d int) error {
		if d == len(dims) {
			n, err := jsonInt64(v, lo, hi)
			out = append(out, n)
			return err
		}
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("want an array at depth %d, have %T", d, v)
		}
		if uint64(len(a)) != dims[d] {
			return fmt.Errorf("array of %d at depth %d, want %d", len(a), d, dims[d])
		}
		for _, e := range a {
			if err := walk(e, d+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(v, 0); err != nil {
		return nil, err
	}
	return out, nil
}

// jsonObject reads a JSON text whose value is an object.
func jsonObject(b []byte) (map[string]any, error) {
	v, err := cjson.Unmarshal(b)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a JSON object, have %T", v)
	}
	return m, nil
}

// jsonArray reads a JSON text whose value is an array.
func jsonArray(b []byte) ([]any, error) {
	v, err := cjson.Unmarshal(b)
	if err != nil {
		return nil, err
	}
	a, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want a JSON array, have %T", v)
	}
	return a, nil
}
