package gpu

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/refusal"
)

// ErrNotBytes is Program.DecodeBytesPlanned's answer for a graph that has
// not one output, or whose output's certified interval is not inside
// [0, 255].
var ErrNotBytes = errors.New("gpu: the graph's output is not one tensor of bytes")

// A graph input or output crosses between host and device at its
// certified width: the narrowest of u8, i8, u16, i16 and i32 that holds
// the certificate's interval of the tensor (§8.1: the interval after its
// policy), its elements packed 4 or 2 to a 32-bit word, little-endian (the
// byte order of a storage buffer's words; an output's producer packs
// them on the device, or shaders/wire.comp where another operator reads
// the output too). An interval inside [0, 255], a picture's,
// crosses at a byte although it takes 9 signed bits.

// wire is an element's width on the wire: its bytes (1, 2 or 4) and
// whether it is unsigned (1 and 2 only).
type wire struct {
	bytes    int
	unsigned bool
}

// wireOf is the wire width of interval iv. acc32 bounds every tensor
// inside i32 (§7.2 condition 1).
func wireOf(iv certify.Interval) wire {
	if iv.Lo.Sign() >= 0 {
		switch n := iv.Hi.BitLen(); {
		case n <= 8:
			return wire{1, true}
		case n <= 16:
			return wire{2, true}
		}
	}
	switch b := iv.Bits(); {
	case b <= 8:
		return wire{1, false}
	case b <= 16:
		return wire{2, false}
	}
	return wire{4, false}
}

// len is the bytes n elements take, in whole words.
func (w wire) len(n int) int { return (n*w.bytes + 3) &^ 3 }

// bounds are the least and greatest value of the width.
func (w wire) bounds() (lo, hi int64) {
	if w.unsigned {
		return 0, 1<<(8*w.bytes) - 1
	}
	return -1 << (8*w.bytes - 1), 1<<(8*w.bytes-1) - 1
}

func (w wire) String() string {
	if w.unsigned {
		return fmt.Sprintf("u%d", 8*w.bytes)
	}
	return fmt.Sprintf("i%d", 8*w.bytes)
}

// packInto writes v as elements at, at+1, … of width w into dst. A value
// outside the width is refused (model_mismatch), never wrapped: the input
// policy has put every value in the tensor's interval, which the width
// holds, so a refusal means the graph's certificate is not this one.
func packInto(dst []byte, at int, v []int64, w wire, what string) error {
	lo, hi := w.bounds()
	switch w.bytes {
	case 1:
		d := dst[at : at+len(v)]
		for i, x := range v {
			if x < lo || x > hi {
				return wideErr(at+i, x, w, what)
			}
			d[i] = byte(x)
		}
	case 2:
		d := dst[2*at : 2*(at+len(v))]
		for i, x := range v {
			if x < lo || x > hi {
				return wideErr(at+i, x, w, what)
			}
			binary.LittleEndian.PutUint16(d[2*i:], uint16(x))
		}
	default:
		d := dst[4*at : 4*(at+len(v))]
		for i, x := range v {
			if x < lo || x > hi {
				return wideErr(at+i, x, w, what)
			}
			binary.LittleEndian.PutUint32(d[4*i:], uint32(x))
		}
	}
	return nil
}

// wideErr refuses element i = x of what, past width w.
func wideErr(i int, x int64, w wire, what string) error {
	return refusal.New(refusal.ModelMismatch, "%s: element %d = %d does not fit %s (its certified width)", what, i, x, w)
}

// unpackInto widens len(dst) elements of width w from src: zero-extended
// when unsigned, sign-extended otherwise.
func unpackInto(dst []int64, src []byte, w wire) {
	switch {
	case w.bytes == 1 && w.unsigned:
		for i, b := range src[:len(dst)] {
			dst[i] = int64(b)
		}
	case w.bytes == 1:
		for i, b := range src[:len(dst)] {
			dst[i] = int64(int8(b))
		}
	case w.bytes == 2 && w.unsigned:
		s := src[:2*len(dst)]
		for i := range dst {
			dst[i] = int64(binary.LittleEndian.Uint16(s[2*i:]))
		}
	case w.bytes == 2:
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
