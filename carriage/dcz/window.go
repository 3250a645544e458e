package dcz

import "math/bits"

// frameWindow is the window Encode states and holds its matches to: the
// largest that RFC 8878 §3.1.1.1.2's Window_Descriptor can state and that
// H5's limit for a dictionary of dictLen bytes admits, with its descriptor
// byte. The descriptor's Exponent gives a base 2^(10 + Exponent) and its
// Mantissa adds eighths of the base, so a window need not be a power of
// two: the limit of a 12 MiB dictionary, 15 MiB, is 8 MiB + 7 × 1 MiB
// exactly, and a window of 15 MiB reaches every byte of the predecessor
// from every byte of a successor as long as it.
func frameWindow(dictLen uint64) (window uint64, descriptor byte) {
	limit := WindowLimit(dictLen) // between 2^23 and 2^27
	exp := uint(bits.Len64(limit) - 1)
	base := uint64(1) << exp
	mant := min((limit-base)/(base/8), 7)
	return base + mant*(base/8), byte(exp-10)<<3 | byte(mant)
}
