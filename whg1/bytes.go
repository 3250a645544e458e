package whg1

import (
	"encoding/binary"
	"math/bits"
)

// reader reads little-endian fields (§10) from a slice whose length the
// caller has already checked; a read past the end returns zeros and sets
// short, so a bug can never turn into a panic on malformed input.
type reader struct {
	b     []byte
	off   int
	short bool
}

func (r *reader) take(n int) []byte {
	if r.short || n > len(r.b)-r.off {
		r.short = true
		return make([]byte, n)
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *reader) u8() uint8   { return r.take(1)[0] }
func (r *reader) u16() uint16 { return binary.LittleEndian.Uint16(r.take(2)) }
func (r *reader) u32() uint32 { return binary.LittleEndian.Uint32(r.take(4)) }
func (r *reader) u64() uint64 { return binary.LittleEndian.Uint64(r.take(8)) }
func (r *reader) i64() int64  { return int64(r.u64()) }

// int reads a signed integer of width bytes (1, 2, 4 or 8), sign-extended.
func (r *reader) int(width uint8) int64 {
	switch width {
	case 1:
		return int64(int8(r.u8()))
	case 2:
		return int64(int16(r.u16()))
	case 4:
		return int64(int32(r.u32()))
	}
	return r.i64()
}

// ints reads n signed integers of width bytes each.
func (r *reader) ints(n uint64, width uint8) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = r.int(width)
	}
	return v
}

// zero reports whether the next n bytes (a reserved field) are all zero.
func (r *reader) zero(n int) bool {
	for _, c := range r.take(n) {
		if c != 0 {
			return false
		}
	}
	return true
}

// writer appends little-endian fields.
type writer struct{ b []byte }

func (w *writer) u8(v uint8)   { w.b = append(w.b, v) }
func (w *writer) u16(v uint16) { w.b = binary.LittleEndian.AppendUint16(w.b, v) }
func (w *writer) u32(v uint32) { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *writer) u64(v uint64) { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *writer) i64(v int64)  { w.u64(uint64(v)) }
func (w *writer) zero(n int)   { w.b = append(w.b, make([]byte, n)...) }

// int writes v in width bytes (its low bytes: the width was chosen to hold it).
func (w *writer) int(v int64, width uint8) {
	switch width {
	case 1:
		w.u8(uint8(v))
	case 2:
		w.u16(uint16(v))
	case 4:
		w.u32(uint32(v))
	default:
		w.i64(v)
	}
}

func (w *writer) ints(v []int64, width uint8) {
	for _, x := range v {
		w.int(x, width)
	}
}

// size is a byte count or element count formed in 64-bit arithmetic with
// overflow checked (§3): once a step overflows, ok stays false.
type size struct {
	n  uint64
	ok bool
}

func sz(n uint64) size { return size{n, true} }

func (s size) mul(v uint64) size {
	hi, lo := bits.Mul64(s.n, v)
	return size{lo, s.ok && hi == 0}
}

func (s size) add(v uint64) size {
	n, c := bits.Add64(s.n, v, 0)
	return size{n, s.ok && c == 0}
}

func (s size) addSize(t size) size { return size{s.n, s.ok && t.ok}.add(t.n) }

// within reports whether the size was formed without overflow and is at
// most limit.
func (s size) within(limit uint64) bool { return s.ok && s.n <= limit }

// fits reports whether v fits a signed integer of width bytes.
func fits(v int64, width uint8) bool {
	if width >= 8 {
		return true
	}
	lim := int64(1) << (8*width - 1)
	return v >= -lim && v < lim
}

// WidthFor is the smallest width among choices (in bytes, ascending) that
// holds every value of v; 8 when none does. Encode uses it for a zero width
// in a literal, and a lowering for a source form that fixes no width (§13.0).
func WidthFor(v []int64, choices ...uint8) uint8 {
	for _, w := range choices {
		ok := true
		for _, x := range v {
			if !fits(x, w) {
				ok = false
				break
			}
		}
		if ok {
			return w
		}
	}
	return 8
}
