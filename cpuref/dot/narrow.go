package dot

import "encoding/binary"

// Narrow8 clamps each src[i] to [lo, hi] (lo ≤ hi), writes it to
// dst[stride·i] as an int8 (stride ≥ 1; the elements between are left as
// they are) and reports whether every clamped value fitted i8: the store
// of a tensor kept at i8 width (integer-operators §3 Storage) with a
// folded clamp or relu (§5.5) in the same pass. On false, dst holds
// garbage where a value did not fit. dst holds at least
// stride·(len(src) − 1) + 1 elements.
func Narrow8(dst []int8, stride int, src []int64, lo, hi int64) bool {
	if len(src) == 0 {
		return true
	}
	return bestWide.narrow8(dst[:stride*(len(src)-1)+1], stride, src, lo, hi)
}

// Widen8 sets dst[i] = src[i] for every i < len(src); dst is at least as
// long.
func Widen8(dst []int64, src []int8) { bestWide.widen8(dst[:len(src)], src) }

// Extent8 is the least and the greatest of src's elements, and 0, 0 for
// none.
func Extent8(src []int8) (lo, hi int8) { return bestWide.extent8(src) }

// Pair8 interleaves two rows of i8 values into int16 pairs, the operand
// form of Mac16 (Pair's order: a's value low, b's high): dst[2i] = a[i]
// and dst[2i + 1] = b[i], or 0 for a nil b (a channel without a partner).
// dst holds at least 2·len(a) elements, b at least len(a) when not nil.
func Pair8(dst []int16, a, b []int8) {
	if b == nil {
		pair8Generic(dst[:2*len(a)], a, nil)
		return
	}
	bestWide.pair8(dst[:2*len(a)], a, b[:len(a)])
}

// Quad8 interleaves four rows of u8 values into u8 quads, the operand
// form of Mac8 (Quad's order: row j's value in byte j): dst[4i + j] =
// rows[j][i], or 0 for a nil rows[j] (a channel past the last). dst holds
// at least 4·n elements and every row that is not nil at least n, n the
// length of rows[0].
func Quad8(dst []uint8, rows *[4][]uint8) {
	a := rows[0]
	n := len(a)
	dst = dst[:4*n]
	if b, c, d := rows[1], rows[2], rows[3]; b != nil && c != nil && d != nil {
		bestWide.quad8(dst, a, b[:n], c[:n], d[:n])
		return
	}
	for j, row := range rows {
		for i := range n {
			var v uint8
			if row != nil {
				v = row[i]
			}
			dst[4*i+j] = v
		}
	}
}

// Spread8 stores src into every stride-th byte of dst: dst[stride·i] =
// src[i] (stride ≥ 1; the bytes between keep what they held), as a
// conv_transpose phase's row of bytes lands in every sw-th output column
// (§9.3). dst holds at least stride·(len(src) − 1) + 1 bytes.
func Spread8(dst []int8, stride int, src []int8) {
	if len(src) == 0 {
		return
	}
	bestWide.spread8(dst[:stride*(len(src)-1)+1], stride, src)
}

// spread8Generic is Spread8 in Go.
func spread8Generic(dst []int8, stride int, src []int8) {
	for i, v := range src {
		dst[stride*i] = v
	}
}

// quad8Generic is Quad8's loop in Go, every row present and len(a) long.
func quad8Generic(dst []uint8, a, b, c, d []uint8) {
	for i, v := range a {
		binary.LittleEndian.PutUint32(dst[4*i:], uint32(v)|uint32(b[i])<<8|uint32(c[i])<<16|uint32(d[i])<<24)
	}
}

// narrow8Generic is Narrow8 in Go: v + 128 lies in [0, 255] exactly when v
// fits i8 (for v past 2^63 − 129 the sum wraps below 0, which reads as a
// large unsigned value), so its bits above the eighth are or'd together.
func narrow8Generic(dst []int8, stride int, src []int64, lo, hi int64) bool {
	var bad uint64
	for i, v := range src {
		v = min(max(v, lo), hi)
		bad |= uint64(v+128) >> 8
		dst[stride*i] = int8(v)
	}
	return bad == 0
}

// widen8Generic is Widen8 in Go.
func widen8Generic(dst []int64, src []int8) {
	for i, v := range src {
		dst[i] = int64(v)
	}
}

// extent8Generic is Extent8 in Go.
func extent8Generic(src []int8) (lo, hi int8) {
	if len(src) == 0 {
		return 0, 0
	}
	lo, hi = src[0], src[0]
	for _, v := range src {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// pair8Generic is Pair8 in Go.
func pair8Generic(dst []int16, a, b []int8) {
	for i, v := range a {
		var w int8
		if b != nil {
			w = b[i]
		}
		dst[2*i], dst[2*i+1] = int16(v), int16(w)
	}
}
