package dot

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestImplementations checks the build registered every kernel the
// machine's CPU flags call for, in the style of cryptotest's
// TestAllImplementations: a missing kernel is an error, not a skip.
func TestImplementations(t *testing.T) {
	if got, want := Implementations(), wantImpls(); !slices.Equal(got, want) {
		t.Fatalf("implementations %v, want %v (CPU flags)", got, want)
	}
	if want := wantImpls(); Selected() != want[len(want)-1] {
		t.Fatalf("dispatcher picked %s, want %s", Selected(), want[len(want)-1])
	}
}

// forEachWith runs f once per implementation this machine has for which
// has holds, as a subtest of its name, with *sel (one of the dispatcher's
// picks: best, best8, bestRQ, bestWide) set to it, and restores *sel after.
func forEachWith(t *testing.T, sel *Impl, has func(Impl) bool, f func(t *testing.T)) {
	saved := *sel
	defer func() { *sel = saved }()
	for _, im := range impls {
		if has(im) {
			*sel = im
			t.Run(im.Name, f)
		}
	}
}

// forEachImpl runs f once per implementation this machine has, with Mac16
// dispatched to it.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	forEachWith(t, &best, func(Impl) bool { return true }, f)
}

// TestChoose16 checks §6's K_c on hand-worked operand intervals.
func TestChoose16(t *testing.T) {
	for _, c := range []struct {
		o     Operands
		chunk int
		ok    bool
	}{
		// P = 128·128 = 2^14, K_c = ⌊(2^31 − 1)/2^14⌋ = 131071: 65535 taps.
		{Operands{-128, 127, -128, 127}, 65535, true},
		// P = 128·127 = 16256, K_c = 132104, an even K_c: 66052 taps.
		{Operands{-128, 127, -127, 127}, 66052, true},
		// P = 2^15, K_c = 65535: 32767 taps.
		{Operands{-1 << 15, 1<<15 - 1, -1, 1}, 32767, true},
		// P = 2^30, K_c = 1: one vpmaddwd pair of −2^15·−2^15 is 2^31.
		{Operands{-1 << 15, 1<<15 - 1, -1 << 15, 1<<15 - 1}, 0, false},
		// P = 2^15·(2^15 − 1), K_c = 2: one tap.
		{Operands{-1 << 15, 0, 0, 1<<15 - 1}, 1, true},
		// P = 0: K_c unbounded.
		{Operands{0, 0, -5, 5}, math.MaxInt32, true},
		// Outside i16, or an empty interval.
		{Operands{-1<<15 - 1, 0, 0, 1}, 0, false},
		{Operands{0, 1 << 15, 0, 1}, 0, false},
		{Operands{0, 1, -1<<15 - 1, 0}, 0, false},
		{Operands{0, 1, 0, 1 << 15}, 0, false},
		{Operands{1, 0, 0, 1}, 0, false},
	} {
		chunk, ok := Choose16(c.o)
		if chunk != c.chunk || ok != c.ok {
			t.Errorf("Choose16(%+v) = %d, %v; want %d, %v", c.o, chunk, ok, c.chunk, c.ok)
		}
	}
}

// ref is Mac16's definition in int64.
func ref(acc []int64, x []int16, off []int32, w []uint32) {
	for k, wk := range w {
		lo, hi := int64(int16(wk)), int64(int16(wk>>16))
		for t := range acc {
			acc[t] += lo*int64(x[int(off[k])+2*t]) + hi*int64(x[int(off[k])+2*t+1])
		}
	}
}

// draw is a value in [lo, hi], one of the ends a quarter of the time.
func draw(r *rand.Rand, lo, hi int64) int64 {
	switch r.IntN(8) {
	case 0:
		return lo
	case 1:
		return hi
	}
	return lo + r.Int64N(hi-lo+1)
}

// interval is a random sub-interval of i16 whose ends have up to 16 bits.
func interval(r *rand.Rand) (int64, int64) {
	b := 1 + r.IntN(16)
	lo, hi := -int64(1)<<(b-1), int64(1)<<(b-1)-1
	if r.IntN(4) == 0 {
		lo = 0 // a non-negative interval, as after a relu
	}
	a, c := draw(r, lo, hi), draw(r, lo, hi)
	return min(a, c), max(a, c)
}

// TestMac16Random compares every implementation with the definition on
// 10^5 random cases inside Choose16's bounds (10^4 with -short or -race), their
// interval ends drawn often, at the chunk Choose16 gives or a smaller one.
func TestMac16Random(t *testing.T) {
	cases := 100000
	if testing.Short() || raceEnabled {
		cases = 10000
	}
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for c := 0; c < cases; {
			var o Operands
			o.WLo, o.WHi = interval(r)
			o.XLo, o.XHi = interval(r)
			chunk, ok := Choose16(o)
			if !ok {
				continue
			}
			c++
			if r.IntN(2) == 0 {
				chunk = 1 + r.IntN(min(chunk, 8))
			}
			n := Block * r.IntN(16) // up to 120: every column loop of every kernel
			ntaps := r.IntN(20)
			x := make([]int16, 2*n+2*r.IntN(40))
			for i := range x {
				x[i] = int16(draw(r, o.XLo, o.XHi))
			}
			off := make([]int32, ntaps)
			w := make([]uint32, ntaps)
			for k := range off {
				off[k] = 2 * int32(r.IntN((len(x)-2*n)/2+1))
				w[k] = Pair(int16(draw(r, o.WLo, o.WHi)), int16(draw(r, o.WLo, o.WHi)))
			}
			w1 := make([]uint32, ntaps)
			for k := range w1 {
				w1[k] = Pair(int16(draw(r, o.WLo, o.WHi)), int16(draw(r, o.WLo, o.WHi)))
			}
			acc := make([]int64, n)
			for i := range acc {
				acc[i] = r.Int64N(1<<40) - 1<<39
			}
			taps, _ := NewTaps(off)
			mac16.check(t, fmt.Sprintf("case %d (%+v, chunk %d, %d taps, %d columns)", c, o, chunk, ntaps, n), acc, x, off, taps, w, w1, chunk)
		}
	})
}

// kernel is one of dot's kernel pairs under test: its one-row and two-row
// forms and its definition in int64.
type kernel[E int16 | uint8] struct {
	name string
	one  func(acc []int64, x []E, taps *Taps, w []uint32, chunk int) bool
	two  func(acc0, acc1 []int64, x []E, taps *Taps, w []uint32, chunk int) bool
	ref  func(acc []int64, x []E, off []int32, w []uint32)
}

var (
	mac16 = kernel[int16]{"Mac16", Mac16, Mac16x2, ref}
	mac8  = kernel[uint8]{"Mac8", Mac8, Mac8x2, ref8}
)

// check compares the one-row form on acc, and the two-row form on a zero
// row with weights w and a copy of acc with w1 (interleaved), with the
// definition; what names the case in a failure.
func (k kernel[E]) check(t *testing.T, what string, acc []int64, x []E, off []int32, taps *Taps, w, w1 []uint32, chunk int) {
	t.Helper()
	acc0, acc1 := make([]int64, len(acc)), slices.Clone(acc)
	want, want0, want1 := slices.Clone(acc), slices.Clone(acc0), slices.Clone(acc1)
	k.ref(want, x, off, w)
	k.ref(want0, x, off, w)
	k.ref(want1, x, off, w1)
	if !k.one(acc, x, taps, w, chunk) {
		t.Fatalf("%s: %s arguments refused", what, k.name)
	}
	if !slices.Equal(acc, want) {
		t.Fatalf("%s: %s got %v, want %v", what, k.name, acc, want)
	}
	w2 := make([]uint32, 2*len(w))
	for i := range w {
		w2[2*i], w2[2*i+1] = w[i], w1[i]
	}
	if !k.two(acc0, acc1, x, taps, w2, chunk) {
		t.Fatalf("%s: %sx2 arguments refused", what, k.name)
	}
	if !slices.Equal(acc0, want0) || !slices.Equal(acc1, want1) {
		t.Fatalf("%s: %sx2 got %v %v, want %v %v", what, k.name, acc0, acc1, want0, want1)
	}
}

// TestMac16KcEnds fills lanes with the largest products: exactly K_c in
// one chunk, and K_c + 1 and K_c + 2, which only the widening keeps exact
// (their sums pass i32), for an even and an odd K_c, and −128·−128.
func TestMac16KcEnds(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, c := range []struct {
			o    Operands
			w, x int16
		}{
			{Operands{-128, 127, -127, 127}, -128, -127}, // P = 16256, K_c = 132104
			{Operands{-128, 127, -128, 127}, -128, -128}, // P = 2^14, K_c = 131071
			{Operands{-1 << 15, 1<<15 - 1, -1, 1}, -1 << 15, -1},
		} {
			chunk, _ := Choose16(c.o)
			P := int64(c.w) * int64(c.x)
			kc := int64(math.MaxInt32) / P
			// taps full pairs, plus one half pair (w, 0) when half.
			for _, tc := range []struct {
				taps int
				half bool
			}{{chunk, false}, {chunk, true}, {chunk + 1, false}, {2*chunk + 1, true}} {
				n := tc.taps
				if tc.half {
					n++
				}
				x := make([]int16, 2*15*Block) // every column loop: 64 + 32 + 16 + 8 and 32 + 32 + 32 + 8 + 8 + 8
				for i := range x {
					x[i] = c.x
				}
				off := make([]int32, n)
				w := make([]uint32, n)
				for k := range n {
					off[k] = 0
					w[k] = Pair(c.w, c.w)
				}
				products := int64(2 * tc.taps)
				if tc.half {
					w[n-1] = Pair(c.w, 0)
					products++
				}
				acc := make([]int64, 15*Block)
				taps, _ := NewTaps(off)
				Mac16(acc, x, taps, w, chunk)
				acc0, acc1 := make([]int64, 15*Block), make([]int64, 15*Block)
				w2 := make([]uint32, 2*n)
				for k, wk := range w {
					w2[2*k], w2[2*k+1] = wk, wk
				}
				Mac16x2(acc0, acc1, x, taps, w2, chunk)
				acc = append(append(acc, acc0...), acc1...)
				want := products * P // hand-computed: every product is P
				if products <= kc && want > math.MaxInt32 {
					t.Fatalf("K_c = %d products sum to %d, past i32", kc, want)
				}
				for _, v := range acc {
					if v != want {
						t.Fatalf("%+v, %d products (K_c %d, chunk %d): got %d, want %d", c.o, products, kc, chunk, v, want)
					}
				}
			}
		}
	})
}

// TestMac16Refuses checks Mac16 leaves acc alone when its arguments do not
// fit.
func TestMac16Refuses(t *testing.T) {
	taps, _ := NewTaps([]int32{0, 4})
	x := make([]int16, 2*Block+4)
	w := []uint32{1, 1}
	for _, c := range []struct {
		name  string
		acc   []int64
		x     []int16
		w     []uint32
		chunk int
	}{
		{"columns", make([]int64, Block+1), x, w, 1},
		{"weights", make([]int64, Block), x, w[:1], 1},
		{"chunk", make([]int64, Block), x, w, 0},
		{"short x", make([]int64, Block), x[:len(x)-1], w, 1},
	} {
		if Mac16(c.acc, c.x, taps, c.w, c.chunk) {
			t.Errorf("%s: accepted", c.name)
		}
	}
	acc := make([]int64, Block)
	if Mac16x2(acc, acc[:0], x, taps, []uint32{1, 1, 1, 1}, 1) {
		t.Error("Mac16x2: rows of different lengths accepted")
	}
	if Mac16x2(acc, acc, x, taps, w, 1) {
		t.Error("Mac16x2: one row of weights accepted")
	}
	if Mac16x2(acc, acc, x[:len(x)-1], taps, []uint32{1, 1, 1, 1}, 1) {
		t.Error("Mac16x2: short x accepted")
	}
	if _, ok := NewTaps([]int32{1}); ok {
		t.Error("odd offset accepted")
	}
	if _, ok := NewTaps([]int32{-2}); ok {
		t.Error("negative offset accepted")
	}
}
