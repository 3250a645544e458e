package gpu

import (
	"errors"
	"math/big"
	"slices"
	"testing"

	"github.com/waiops/waiops/certify"
	"github.com/waiops/waiops/refusal"
)

// TestWireBytes: the narrowest of i8, i16, i32 holding the interval.
func TestWireBytes(t *testing.T) {
	for _, c := range []struct {
		lo, hi int64
		want   int
	}{
		{-128, 127, 1}, {0, 127, 1}, {-129, 0, 2}, {0, 128, 2}, {0, 255, 2},
		{-32768, 32767, 2}, {-32769, 0, 4}, {0, 32768, 4}, {-1 << 31, 1<<31 - 1, 4},
	} {
		iv := certify.Interval{Lo: big.NewInt(c.lo), Hi: big.NewInt(c.hi)}
		if got := wireBytes(iv); got != c.want {
			t.Errorf("wireBytes[%d, %d] = %d, want %d", c.lo, c.hi, got, c.want)
		}
	}
}

// TestPackUnpack: the bytes of each width, hand-written (two's complement,
// little-endian, whole words with the tail zero), at the ends of each
// range and over counts that are no multiple of a word's elements.
func TestPackUnpack(t *testing.T) {
	for _, c := range []struct {
		w    int
		v    []int64
		want []byte
	}{
		{1, []int64{-128, 127, -1, 0, 1}, []byte{0x80, 0x7f, 0xff, 0x00, 0x01, 0, 0, 0}},
		{1, []int64{-128, 127, 2}, []byte{0x80, 0x7f, 0x02, 0}},
		{1, []int64{-2, -127, 126, 5}, []byte{0xfe, 0x81, 0x7e, 0x05}},
		{2, []int64{-32768, 32767, -1}, []byte{0x00, 0x80, 0xff, 0x7f, 0xff, 0xff, 0, 0}},
		{2, []int64{-129, 128}, []byte{0x7f, 0xff, 0x80, 0x00}},
		{4, []int64{-1 << 31, 1<<31 - 1, -32769}, []byte{0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0x7f, 0xff, 0x7f, 0xff, 0xff}},
	} {
		got := make([]byte, wireLen(len(c.v), c.w))
		if err := packInto(got, 0, c.v, c.w, "t"); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("pack i%d %v = % x, want % x", 8*c.w, c.v, got, c.want)
		}
		back := make([]int64, len(c.v))
		unpackInto(back, c.want, c.w)
		if !slices.Equal(back, c.v) {
			t.Errorf("unpack i%d % x = %v, want %v", 8*c.w, c.want, back, c.v)
		}
	}
	// Packing from an element on: the run's bytes go after the earlier ones.
	got := make([]byte, wireLen(5, 2))
	if err := packInto(got, 3, []int64{-2, 300}, 2, "t"); err != nil || !slices.Equal(got, []byte{0, 0, 0, 0, 0, 0, 0xfe, 0xff, 0x2c, 0x01, 0, 0}) {
		t.Errorf("pack from 3: % x, %v", got, err)
	}
}

// TestPackRefuses: a value past the width is refused with the element's
// index, never wrapped.
func TestPackRefuses(t *testing.T) {
	for _, c := range []struct {
		w int
		v []int64
	}{{1, []int64{0, 128}}, {1, []int64{-129}}, {2, []int64{1, 2, 32768}}, {2, []int64{-32769}}, {4, []int64{1 << 31}}, {4, []int64{-1<<31 - 1}}} {
		err := packInto(make([]byte, wireLen(len(c.v), c.w)), 0, c.v, c.w, "input 0")
		var r *refusal.Error
		if !errors.As(err, &r) || r.Code != refusal.ModelMismatch {
			t.Errorf("i%d %v: %v, want model_mismatch", 8*c.w, c.v, err)
		}
	}
}
