package stage

import (
	"math/big"

	"github.com/waiops/waiops/refusal"
)

// Dequantize is E2 dequantize(sym, f, base) = sym·2^f + base for operands
// that fit i64, as a driver holds them (DequantizeExact).
func Dequantize(sym, f, base int64) (int64, error) {
	return DequantizeExact(big.NewInt(sym), big.NewInt(f), big.NewInt(base))
}

// DequantizeExact is E2 dequantize(sym, f, base) = sym·2^f + base over
// exact integers of any size, as a §14.1 vector writes them: E2's own
// refusals judge the operands, not an i64 reading (docs/READINGS.md D-E, §5E
// widths). An f above 62, or negative (D-E2), is refused first,
// then a value that does not fit i64; both are field_range, and §14.1 puts
// every refusal of dequantize at 0. sym and base may pass i64 when the value
// does not: 2^63·2^0 + (−1) is 2^63 − 1.
func DequantizeExact(sym, f, base *big.Int) (int64, error) {
	if f.Sign() < 0 || f.Cmp(big.NewInt(62)) > 0 {
		return 0, refusal.NewAt(refusal.FieldRange, 0, "dequantize: f = %v is outside 0..62", f)
	}
	v := new(big.Int).Lsh(sym, uint(f.Int64()))
	v.Add(v, base)
	if !v.IsInt64() {
		return 0, refusal.NewAt(refusal.FieldRange, 0, "dequantize: %v·2^%v + %v does not fit i64", sym, f, base)
	}
	return v.Int64(), nil
}
