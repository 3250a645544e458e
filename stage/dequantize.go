package stage

import (
	"math/bits"

	"github.com/waiops/waiops/refusal"
)

// Dequantize is E2 dequantize(sym, f, base) = sym·2^f + base, formed exactly
// (a 128-bit intermediate from 64-bit halves, §7.4). A negative f
// (DECISIONS E), an f above 62, and a value that does not fit i64 are
// refused field_range; §14.1 puts every refusal of dequantize at 0.
func Dequantize(sym, f, base int64) (int64, error) {
	if f < 0 || f > 62 {
		return 0, refusal.NewAt(refusal.FieldRange, 0, "dequantize: f = %d is outside 0..62", f)
	}
	// sym·2^f as a two's-complement 128-bit value hi:lo.
	lo := uint64(sym) << f
	hi := uint64(sym >> (64 - f)) // f = 0: a shift by 64 gives the sign fill
	// Add base, sign-extended.
	lo, carry := bits.Add64(lo, uint64(base), 0)
	hi, _ = bits.Add64(hi, uint64(base>>63), carry)
	if hi != uint64(int64(lo)>>63) {
		return 0, refusal.NewAt(refusal.FieldRange, 0, "dequantize: %d·2^%d + %d does not fit i64", sym, f, base)
	}
	return int64(lo), nil
}
