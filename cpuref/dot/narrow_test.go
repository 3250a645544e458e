package dot

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// forEachWide runs f with Narrow8 and Widen8 on each implementation that
// has them.
func forEachWide(t *testing.T, f func(t *testing.T)) {
	forEachWith(t, &bestWide, func(im Impl) bool { return im.narrow8 != nil }, f)
}

// TestImplementationsWide: the AVX-512 loops are picked wherever the zmm
// kernels are.
func TestImplementationsWide(t *testing.T) {
	want := "purego"
	if l := wantImpls(); l[len(l)-1] != "avx2" {
		want = l[len(l)-1]
	}
	if bestWide.Name != want {
		t.Fatalf("Narrow8 runs %s, want %s", bestWide.Name, want)
	}
}

// TestNarrow8 checks Narrow8 on 10^5 random rows (lengths 0 … 40, so that
// every loop and its tail run; strides 1, 2 and 3) against the definition
// written out: clamp to [lo, hi], then a value fits when −128 ≤ y ≤ 127,
// stored at every stride-th element with those between untouched. Values
// are drawn mostly at i8's ends and just past them, and at i64's.
func TestNarrow8(t *testing.T) {
	n := 100_000
	if testing.Short() || raceEnabled {
		n = 10_000
	}
	ends := []int64{-129, -128, -127, -1, 0, 1, 126, 127, 128, 255, 256, math.MinInt64, math.MaxInt64, math.MaxInt64 - 127, math.MaxInt64 - 128}
	forEachWide(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(8, 8))
		for range n {
			src := make([]int64, r.IntN(41))
			for i := range src {
				if r.IntN(3) == 0 {
					src[i] = int64(r.Uint64())
				} else {
					src[i] = ends[r.IntN(len(ends))] + int64(r.IntN(3)-1)*int64(r.IntN(2))
				}
			}
			lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
			if r.IntN(2) == 0 {
				lo, hi = ends[r.IntN(len(ends))], ends[r.IntN(len(ends))]
				lo, hi = min(lo, hi), max(lo, hi)
			}
			stride := 1 + r.IntN(3)
			dst := make([]int8, stride*len(src)+1)
			for i := range dst {
				dst[i] = 0x5a
			}
			got := Narrow8(dst, stride, src, lo, hi)
			want := true
			for i, v := range src {
				y := min(max(v, lo), hi)
				if y < -128 || y > 127 {
					want = false
				} else if dst[stride*i] != int8(y) {
					t.Fatalf("stride %d, [%d, %d], %v: dst[%d] = %d, want %d", stride, lo, hi, src, stride*i, dst[stride*i], y)
				}
			}
			if got != want {
				t.Fatalf("stride %d, [%d, %d], %v: fitted %v, want %v", stride, lo, hi, src, got, want)
			}
			for i := range dst {
				if i%stride != 0 || i >= stride*len(src) {
					if dst[i] != 0x5a {
						t.Fatalf("stride %d, %d values: dst[%d] written", stride, len(src), i)
					}
				}
			}
		}
	})
}

// TestWiden8 checks Widen8 on every int8 value at each position of rows of
// lengths 0 … 40.
func TestWiden8(t *testing.T) {
	forEachWide(t, func(t *testing.T) {
		for m := range 41 {
			for v := -128; v < 128; v++ {
				src := make([]int8, m)
				for i := range src {
					src[i] = int8(v + i)
				}
				dst := make([]int64, m+1)
				dst[m] = 77
				Widen8(dst, src)
				for i, e := range src {
					if dst[i] != int64(e) {
						t.Fatalf("%d elements from %d: dst[%d] = %d, want %d", m, v, i, dst[i], e)
					}
				}
				if dst[m] != 77 {
					t.Fatalf("%d elements: dst[%d] written", m, m)
				}
			}
		}
	})
}

// TestExtent8 checks Extent8 on 10^4 random rows of lengths 0 … 300 (the
// 64-byte loop and its tail) against a scan written out, with the ends of
// i8 placed at random positions.
func TestExtent8(t *testing.T) {
	forEachWide(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(8, 9))
		for range 10_000 {
			src := make([]int8, r.IntN(301))
			span := 1 + r.IntN(256)
			for i := range src {
				src[i] = int8(r.IntN(span) - span/2)
			}
			for range r.IntN(3) {
				if len(src) > 0 {
					src[r.IntN(len(src))] = int8([]int{-128, 127}[r.IntN(2)])
				}
			}
			var wlo, whi int8
			for i, v := range src {
				if i == 0 || v < wlo {
					wlo = v
				}
				if i == 0 || v > whi {
					whi = v
				}
			}
			if lo, hi := Extent8(src); lo != wlo || hi != whi {
				t.Fatalf("%v: [%d, %d], want [%d, %d]", src, lo, hi, wlo, whi)
			}
		}
	})
}

// TestPair8 checks Pair8 on every i8 value in each column of rows of
// lengths 0 … 40, with a partner row and without one, against Pair's
// layout written out (a's value the low int16, b's the high).
func TestPair8(t *testing.T) {
	forEachWide(t, func(t *testing.T) {
		for m := range 41 {
			for v := -128; v < 128; v += 3 {
				a, b := make([]int8, m), make([]int8, m)
				for i := range a {
					a[i], b[i] = int8(v+i), int8(-v-2*i)
				}
				for _, partner := range [][]int8{b, nil} {
					dst := make([]int16, 2*m+1)
					dst[2*m] = 77
					Pair8(dst, a, partner)
					for i := range a {
						want := uint32(0)
						if partner != nil {
							want = uint32(uint16(int16(partner[i]))) << 16
						}
						want |= uint32(uint16(int16(a[i])))
						if got := uint32(uint16(dst[2*i])) | uint32(uint16(dst[2*i+1]))<<16; got != want {
							t.Fatalf("%d columns from %d, partner %v: column %d %#x, want %#x", m, v, partner != nil, i, got, want)
						}
					}
					if dst[2*m] != 77 {
						t.Fatalf("%d columns: dst[%d] written", m, 2*m)
					}
				}
			}
		}
	})
}

// TestQuad8 checks Quad8's order on hand values, a missing last row, and
// rows longer than the first, then, on every implementation, rows of 0 to
// 80 columns at bytes' ends against the definition, and that nothing past
// 4·n is written.
func TestQuad8(t *testing.T) {
	forEachWide(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(41, 42))
		for n := range 81 {
			var rows [4][]uint8
			for j := range rows {
				rows[j] = make([]uint8, n+min(j, r.IntN(3))) // rows[0] sets n
				for i := range rows[j] {
					rows[j][i] = uint8(atEnds8(r))
				}
			}
			dst := make([]uint8, 4*n+5)
			for i := range dst {
				dst[i] = 0x5a
			}
			Quad8(dst, &rows)
			for i := range 4 * n {
				if want := rows[i%4][i/4]; dst[i] != want {
					t.Fatalf("%d columns: byte %d is %d, want %d", n, i, dst[i], want)
				}
			}
			for i := 4 * n; i < len(dst); i++ {
				if dst[i] != 0x5a {
					t.Fatalf("%d columns: byte %d written", n, i)
				}
			}
		}
	})
	dst := make([]uint8, 13)
	for i := range dst {
		dst[i] = 0xee
	}
	Quad8(dst, &[4][]uint8{{1, 2, 3}, {4, 5, 6, 99}, {7, 8, 9}, {250, 251, 255}})
	want := []uint8{1, 4, 7, 250, 2, 5, 8, 251, 3, 6, 9, 255, 0xee}
	if !slices.Equal(dst, want) {
		t.Fatalf("got %v, want %v", dst, want)
	}
	Quad8(dst, &[4][]uint8{{1, 2}, {3, 4}, {5, 6}, nil})
	if want := []uint8{1, 3, 5, 0, 2, 4, 6, 0}; !slices.Equal(dst[:8], want) {
		t.Fatalf("with a nil row: got %v, want %v", dst[:8], want)
	}
}

// atEnds8 is a byte, half the time 0, 1, 254 or 255.
func atEnds8(r *rand.Rand) int {
	if r.IntN(2) == 0 {
		return []int{0, 1, 254, 255}[r.IntN(4)]
	}
	return r.IntN(256)
}

// TestSpread8 stores rows of 0 to 100 bytes at strides 1 to 3 on every
// implementation: each src byte at its place, the bytes between and past
// the last kept.
func TestSpread8(t *testing.T) {
	forEachWide(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(43, 44))
		for n := range 101 {
			for stride := 1; stride <= 3; stride++ {
				src := make([]int8, n)
				for i := range src {
					src[i] = int8(atEnds8(r))
				}
				dst := make([]int8, stride*n+3)
				for i := range dst {
					dst[i] = 0x5a
				}
				Spread8(dst, stride, src)
				for i, v := range dst {
					want := int8(0x5a)
					if i%stride == 0 && i/stride < n {
						want = src[i/stride]
					}
					if v != want {
						t.Fatalf("%d bytes at stride %d: dst[%d] = %d, want %d", n, stride, i, v, want)
					}
				}
			}
		}
	})
}
