package certify

import (
	"math/big"
	"math/bits"
)

// wsum keeps, for one set K of taps, the informative sums of §8.2: S⁺ and
// S⁻ (here as the magnitude of S⁻), w_min and w_max. The sums are exact in
// 128 bits: fewer than 2^64 weights, each of magnitude at most 2^63.
type wsum struct {
	posHi, posLo uint64
	negHi, negLo uint64
	min, max     int64
	n            int
}

func (s *wsum) add(w int64) {
	if s.n == 0 || w < s.min {
		s.min = w
	}
	if s.n == 0 || w > s.max {
		s.max = w
	}
	s.n++
	var c uint64
	switch {
	case w > 0:
		s.posLo, c = bits.Add64(s.posLo, uint64(w), 0)
		s.posHi += c
	case w < 0:
		// −w as uint64 is |w|, 2^63 included.
		s.negLo, c = bits.Add64(s.negLo, uint64(-w), 0)
		s.negHi += c
	}
}

func u128(hi, lo uint64) *big.Int {
	v := new(big.Int).SetUint64(hi)
	v.Lsh(v, 64)
	return v.Or(v, new(big.Int).SetUint64(lo))
}

// sPos is S⁺ and sNeg is S⁻ (≤ 0).
func (s *wsum) sPos() *big.Int { return u128(s.posHi, s.posLo) }
func (s *wsum) sNeg() *big.Int { v := u128(s.negHi, s.negLo); return v.Neg(v) }

// maxAbs is the largest |w| of the set.
func (s *wsum) maxAbs() *big.Int {
	return maxBig(new(big.Int).Abs(bi(s.min)), new(big.Int).Abs(bi(s.max)))
}
