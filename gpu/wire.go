package gpu

import (
	"encoding/binary"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/refusal"
)

// A graph input or output crosses between host and device at its
// certified width: the narrowest of i8, i16 and i32 that holds the
// certificate's interval of the tensor (§8.1: the interval after its
// policy), its elements packed 4 or 2 to a 32-bit word, two's complement,
// little-endian (the byte order of a storage buffer's words; shaders/
// wire.comp widens and packs them on the device).

// wireBytes is the bytes an element of interval iv takes on the wire: 1, 2
// or 4. acc32 bounds every tensor inside i32 (§7.2 condition 1).
func wireBytes(iv certify.Interval) int {
	switch b := iv.Bits(); {
	case b <= 8:
		return 1
	case b <= 16:
		return 2
	}
	return 4
}

// wireLen is the bytes n elements of w bytes take, in whole words.
func wireLen(n, w int) int { return (n*w + 3) &^ 3 }

// packInto writes v as elements at, at+1, … of w bytes into dst. A value
// outside iw (8w bits) is refused (model_mismatch), never wrapped: the
// input policy has put every value in the tensor's interval, which the
// width holds, so a refusal means the graph's certificate is not this one.
func packInto(dst []byte, at int, v []int64, w int, what string) error {
	lo, hi := int64(-1)<<(8*w-1), int64(1)<<(8*w-1)-1
	for i, x := range v {
		if x < lo || x > hi {
			return refusal.New(refusal.ModelMismatch, "%s: element %d = %d does not fit i%d (its certified width)", what, at+i, x, 8*w)
		}
	}
	switch w {
	case 1:
		d := dst[at : at+len(v)]
		for i, x := range v {
			d[i] = byte(x)
		}
	case 2:
		d := dst[2*at : 2*(at+len(v))]
		for i, x := range v {
			binary.LittleEndian.PutUint16(d[2*i:], uint16(x))
		}
	default:
		d := dst[4*at : 4*(at+len(v))]
		for i, x := range v {
			binary.LittleEndian.PutUint32(d[4*i:], uint32(x))
		}
	}
	return nil
}

// unpackInto widens len(dst) elements of w bytes from src, sign-extended.
func unpackInto(dst []int64, src []byte, w int) {
	switch w {
	case 1:
		s := src[:len(dst)]
		for i, b := range s {
			dst[i] = int64(int8(b))
		}
	case 2:
		s := src[:2*len(dst)]
		for i := range dst {
			dst[i] = int64(int16(binary.LittleEndian.Uint16(s[2*i:])))
		}
	default:
		s := src[:4*len(dst)]
		for i := range dst {
			dst[i] = int64(int32(binary.LittleEndian.Uint32(s[4*i:])))
		}
	}
}
