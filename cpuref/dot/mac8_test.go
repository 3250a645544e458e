package dot

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// forEachImpl8 runs f once per implementation this machine has with a
// Mac8 kernel, with Mac8 dispatched to it.
func forEachImpl8(t *testing.T, f func(t *testing.T)) {
	forEachWith(t, &best8, func(im Impl) bool { return im.mac8 != nil }, f)
}

// TestImplementations8 checks the dispatcher's Mac8 pick: vpdpbusd where
// the CPU has AVX-512 VNNI in this build, the pure kernel otherwise.
func TestImplementations8(t *testing.T) {
	want := "purego"
	if slices.Contains(wantImpls(), "avx512vnni") {
		want = "avx512vnni"
	}
	if Selected8() != want || Accelerated8() != (want != "purego") {
		t.Fatalf("Mac8 runs %s (accelerated %v), want %s", Selected8(), Accelerated8(), want)
	}
}

// TestChoose8 checks §6's K_c for the u8 × s8 form on hand-worked
// intervals.
func TestChoose8(t *testing.T) {
	for _, c := range []struct {
		o     Operands
		chunk int
		ok    bool
	}{
		// P = 128·255 = 32640, K_c = ⌊(2^31 − 1)/32640⌋ = 65793: 16448 taps.
		{Operands{-128, 127, 0, 255}, 16448, true},
		// P = 127·255 = 32385, K_c = 66311: 16577 taps.
		{Operands{-127, 127, 3, 255}, 16577, true},
		// P = 128·254 = 32512, K_c = 66052 = 4·16513.
		{Operands{-128, 127, 0, 254}, 16513, true},
		// P = 1, K_c = 2^31 − 1: 536870911 taps.
		{Operands{-1, 1, 0, 1}, 536870911, true},
		// P = 0.
		{Operands{-128, 127, 0, 0}, math.MaxInt32, true},
		// A negative input, outside u8 or i8, or an empty interval.
		{Operands{-128, 127, -1, 255}, 0, false},
		{Operands{-128, 127, 0, 256}, 0, false},
		{Operands{-129, 127, 0, 255}, 0, false},
		{Operands{-128, 128, 0, 255}, 0, false},
		{Operands{0, 1, 5, 4}, 0, false},
	} {
		chunk, ok := Choose8(c.o)
		if chunk != c.chunk || ok != c.ok {
			t.Errorf("Choose8(%+v) = %d, %v; want %d, %v", c.o, chunk, ok, c.chunk, c.ok)
		}
	}
}

// ref8 is Mac8's definition in int64.
func ref8(acc []int64, x []uint8, off []int32, w []uint32) {
	for k, wk := range w {
		for t := range acc {
			for j := range 4 {
				acc[t] += int64(int8(wk>>(8*j))) * int64(x[int(off[k])+4*t+j])
			}
		}
	}
}

// interval8 is a random interval of i8 (weights) or u8 (inputs).
func interval8(r *rand.Rand, unsigned bool) (int64, int64) {
	b := 1 + r.IntN(8)
	lo, hi := -int64(1)<<(b-1), int64(1)<<(b-1)-1
	if unsigned {
		lo, hi = 0, int64(1)<<b-1
	}
	a, c := draw(r, lo, hi), draw(r, lo, hi)
	return min(a, c), max(a, c)
}

// TestMac8Random compares every Mac8 implementation with the definition
// on 10^5 random cases inside Choose8's bounds (10^4 with -short or -race), ends
// drawn often, at Choose8's chunk or a smaller one; and Tile8 with it.
func TestMac8Random(t *testing.T) {
	cases := randomCases()
	forEachImpl8(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		for c := range cases {
			rc, ok := mac8.newCase(r)
			if !ok {
				t.Fatalf("Choose8(%+v) refused operands inside its bounds", rc.o)
			}
			acc := make([]int64, rc.n)
			for i := range acc {
				acc[i] = r.Int64N(1<<40) - 1<<39
			}
			mac8.check(t, r, fmt.Sprintf("case %d (%s)", c, rc), acc, rc)
		}
	})
}

// TestMac8KcEnds fills lanes with the largest products, −128·255 and
// −128·254: a chunk of exactly ⌊K_c/4⌋ full taps (K_c itself where 4
// divides it), and one tap more, whose sums pass i32 and which only the
// widening keeps exact.
func TestMac8KcEnds(t *testing.T) {
	forEachImpl8(t, func(t *testing.T) {
		for _, c := range []struct {
			o Operands
			x uint8
		}{
			{Operands{-128, 127, 0, 255}, 255}, // P = 32640, K_c = 65793
			{Operands{-128, 127, 0, 254}, 254}, // P = 32512, K_c = 66052 = 4·16513
		} {
			chunk, _ := Choose8(c.o)
			P := -128 * int64(c.x)
			kc := int64(math.MaxInt32) / -P
			for _, n := range []int{chunk, chunk + 1, 2*chunk + 1} {
				x := make([]uint8, 4*15*Block) // every column loop
				for i := range x {
					x[i] = c.x
				}
				off := make([]int32, n)
				w := make([]uint32, n)
				w4 := make([]uint32, TileRows*n)
				for k := range w {
					w[k] = Quad(-128, -128, -128, -128)
				}
				for k := range w4 {
					w4[k] = Quad(-128, -128, -128, -128)
				}
				taps, _ := NewTaps8(off)
				acc, rows := make([]int64, 15*Block), make([]int64, TileRows*15*Block)
				Mac8(acc, x, taps, w, chunk)
				Tile8(rows, 15*Block, 15*Block, x, taps, w4, chunk)
				products := int64(4 * n)
				want := products * P // hand-computed: every product is P
				if products <= kc && want < math.MinInt32 {
					t.Fatalf("K_c = %d products sum to %d, past i32", kc, want)
				}
				for _, v := range append(acc, rows...) {
					if v != want {
						t.Fatalf("%+v, %d products (K_c %d, chunk %d): got %d, want %d", c.o, products, kc, chunk, v, want)
					}
				}
			}
		}
	})
}

// TestMac8Refuses checks Mac8 and Tile8 leave acc alone when their
// arguments do not fit, and that the two tap kinds do not mix.
func TestMac8Refuses(t *testing.T) {
	taps, _ := NewTaps8([]int32{0, 8})
	x := make([]uint8, 4*Block+8)
	w := []uint32{1, 1}
	acc := make([]int64, Block)
	for _, c := range []struct {
		name string
		ok   bool
	}{
		{"columns", Mac8(make([]int64, Block+1), x, taps, w, 1)},
		{"weights", Mac8(acc, x, taps, w[:1], 1)},
		{"chunk", Mac8(acc, x, taps, w, 0)},
		{"short x", Mac8(acc, x[:len(x)-1], taps, w, 1)},
		{"tile ld", Tile8(make([]int64, TileRows*Block), Block-1, Block, x, taps, make([]uint32, TileRows*2), 1)},
		{"tile one row", Tile8(make([]int64, TileRows*Block), Block, Block, x, taps, w, 1)},
		{"tile short x", Tile8(make([]int64, TileRows*Block), Block, Block, x[:len(x)-1], taps, make([]uint32, TileRows*2), 1)},
	} {
		if c.ok {
			t.Errorf("%s: accepted", c.name)
		}
	}
	t16, _ := NewTaps([]int32{0, 8})
	if Mac8(acc, x, t16, w, 1) {
		t.Error("Mac8 took Mac16's taps")
	}
	if Mac16(acc, make([]int16, 2*Block+8), taps, w, 1) {
		t.Error("Mac16 took Mac8's taps")
	}
	if _, ok := NewTaps8([]int32{2}); ok {
		t.Error("an offset not a multiple of 4 accepted")
	}
	if _, ok := NewTaps8([]int32{-4}); ok {
		t.Error("a negative offset accepted")
	}
}
