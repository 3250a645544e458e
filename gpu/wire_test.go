package gpu

import (
	"errors"
	"math/big"
	"slices"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/refusal"
)

// TestWireOf: the narrowest of u8, i8, u16, i16, i32 holding the interval.
func TestWireOf(t *testing.T) {
	for _, c := range []struct {
		lo, hi int64
		want   string
	}{
		{-128, 127, "i8"}, {0, 127, "u8"}, {0, 255, "u8"}, {0, 0, "u8"}, {-1, 127, "i8"}, {-129, 0, "i16"},
		{-1, 128, "i16"}, {0, 256, "u16"}, {0, 65535, "u16"}, {-32768, 32767, "i16"}, {-32769, 0, "i32"},
		{-1, 32768, "i32"}, {0, 65536, "i32"}, {-1 << 31, 1<<31 - 1, "i32"},
	} {
		iv := certify.Interval{Lo: big.NewInt(c.lo), Hi: big.NewInt(c.hi)}
		if got := wireOf(iv).String(); got != c.want {
			t.Errorf("wireOf[%d, %d] = %s, want %s", c.lo, c.hi, got, c.want)
		}
	}
}

// TestPackUnpack: the bytes of each width, hand-written (two's complement,
// little-endian, whole words with the tail zero), at the ends of each
// range and over counts that are no multiple of a word's elements.
func TestPackUnpack(t *testing.T) {
	i8, u8, i16, u16, i32 := wire{1, false}, wire{1, true}, wire{2, false}, wire{2, true}, wire{4, false}
	for _, c := range []struct {
		w    wire
		v    []int64
		want []byte
	}{
		{i8, []int64{-128, 127, -1, 0, 1}, []byte{0x80, 0x7f, 0xff, 0x00, 0x01, 0, 0, 0}},
		{i8, []int64{-128, 127, 2}, []byte{0x80, 0x7f, 0x02, 0}},
		{i8, []int64{-2, -127, 126, 5}, []byte{0xfe, 0x81, 0x7e, 0x05}},
		{u8, []int64{255, 0, 128, 127, 1}, []byte{0xff, 0x00, 0x80, 0x7f, 0x01, 0, 0, 0}},
		{i16, []int64{-32768, 32767, -1}, []byte{0x00, 0x80, 0xff, 0x7f, 0xff, 0xff, 0, 0}},
		{i16, []int64{-129, 128}, []byte{0x7f, 0xff, 0x80, 0x00}},
		{u16, []int64{65535, 32768, 256}, []byte{0xff, 0xff, 0x00, 0x80, 0x00, 0x01, 0, 0}},
		{i32, []int64{-1 << 31, 1<<31 - 1, -32769}, []byte{0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0x7f, 0xff, 0x7f, 0xff, 0xff}},
	} {
		got := make([]byte, c.w.len(len(c.v)))
		if err := packInto(got, 0, c.v, c.w, "t"); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("pack %s %v = % x, want % x", c.w, c.v, got, c.want)
		}
		back := make([]int64, len(c.v))
		unpackInto(back, c.want, c.w)
		if !slices.Equal(back, c.v) {
			t.Errorf("unpack %s % x = %v, want %v", c.w, c.want, back, c.v)
		}
	}
	// Packing from an element on: the run's bytes go after the earlier ones.
	got := make([]byte, i16.len(5))
	if err := packInto(got, 3, []int64{-2, 300}, i16, "t"); err != nil || !slices.Equal(got, []byte{0, 0, 0, 0, 0, 0, 0xfe, 0xff, 0x2c, 0x01, 0, 0}) {
		t.Errorf("pack from 3: % x, %v", got, err)
	}
}

// TestPackRefuses: a value past the width is refused with the element's
// index, never wrapped.
func TestPackRefuses(t *testing.T) {
	for _, c := range []struct {
		w wire
		v []int64
	}{
		{wire{1, false}, []int64{0, 128}}, {wire{1, false}, []int64{-129}}, {wire{1, true}, []int64{256}}, {wire{1, true}, []int64{-1}},
		{wire{2, false}, []int64{1, 2, 32768}}, {wire{2, false}, []int64{-32769}}, {wire{2, true}, []int64{65536}}, {wire{2, true}, []int64{-1}},
		{wire{4, false}, []int64{1 << 31}}, {wire{4, false}, []int64{-1<<31 - 1}},
	} {
		err := packInto(make([]byte, c.w.len(len(c.v))), 0, c.v, c.w, "input 0")
		var r *refusal.Error
		if !errors.As(err, &r) || r.Code != refusal.ModelMismatch {
			t.Errorf("%s %v: %v, want model_mismatch", c.w, c.v, err)
		}
	}
}

// BenchmarkWire: the host's pass over a 512×512 output read back, per
// element: widening u8 and i16 wire bytes to int64 (unpackInto) beside
// the i32 words it replaced (one int32 → int64 conversion a word, from
// a buffer four times the size); and packing an i8 input from int64
// (packInto, its range check included).
func BenchmarkWire(b *testing.B) {
	const n = 512 * 512
	dst := make([]int64, n)
	for _, w := range []wire{{1, true}, {2, false}} {
		src := make([]byte, w.len(n))
		b.Run("unpack_"+w.String(), func(b *testing.B) {
			b.SetBytes(n)
			for range b.N {
				unpackInto(dst, src, w)
			}
		})
	}
	words := make([]int32, n)
	b.Run("widen_i32_words", func(b *testing.B) {
		b.SetBytes(n)
		for range b.N {
			for i, v := range words {
				dst[i] = int64(v)
			}
		}
	})
	packed := make([]byte, n)
	b.Run("pack_i8", func(b *testing.B) {
		b.SetBytes(n)
		for range b.N {
			if err := packInto(packed, 0, dst, wire{1, false}, "b"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
